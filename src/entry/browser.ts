/**
 * `cairn/browser`: the contract and the remote client for a page — `connect`
 * to a `cairn serve` over `fetch`, the operations' schemas and the wire
 * manifest, and Cairn's errors. Its import graph names no Node builtin
 * (test/contract.test.ts); `npm run build` bundles it into one ES module,
 * dist/browser/cairn.js (vite.browser.config.ts). A page on another origin
 * needs the server started with `--cors-origin` for it.
 */
import { type FetchFunction, FetchTransport } from '../client/fetch-transport.js';
import { type ConnectOptions, DEFAULT_TIMEOUT_MS, RemoteFabric } from '../client/remote-fabric.js';

export type { FetchFunction } from '../client/fetch-transport.js';
export { type ConnectOptions, RemoteFabric } from '../client/remote-fabric.js';
export { CONTRACT, type Contract } from '../contract/index.js';
export type { Client, OpSpec } from '../contract/spec.js';
export { WIRE } from '../contract/wire.js';
export type { WireOp } from '../contract/wire-of.js';
export { CairnError, type CairnErrorJSON, ERROR_CODES, type ErrorCode, isCairnError } from '../errors.js';

export interface BrowserConnectOptions extends ConnectOptions {
  /** The `fetch` to call; the global one when left out. */
  fetch?: FetchFunction;
}

/** The remote fabric over `fetch`: the same methods, answers and typed errors as `cairn/client`'s. */
export function connect(options: BrowserConnectOptions): RemoteFabric {
  return new RemoteFabric(
    options,
    new FetchTransport(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, options.fetch),
  );
}
