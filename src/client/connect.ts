/** `connect` in Node: the remote client over node:http, with keep-alive (client/node-transport.ts). */
import { NodeTransport } from './node-transport.js';
import { type ConnectOptions, DEFAULT_TIMEOUT_MS, RemoteFabric } from './remote-fabric.js';

export function connect(options: ConnectOptions): RemoteFabric {
  return new RemoteFabric(options, new NodeTransport(options.timeoutMs ?? DEFAULT_TIMEOUT_MS));
}
