import { createServer, type Server, type Socket, connect as tcp } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../src/client/connect.js';
import { KEEP_ALIVE_FREE_MS } from '../src/client/node-transport.js';
import type { RemoteFabric } from '../src/client/remote-fabric.js';
import { isCairnError } from '../src/errors.js';
import { KEEP_ALIVE_TIMEOUT_MS, type RunningServer, startServer } from '../src/server/index.js';
import type { Store } from '../src/store.js';
import { sqliteStore } from './support/stores.js';

/**
 * The remote client on a keep-alive connection the server closed: a proxy in
 * front of a real server lets the first request of each connection through
 * and closes the connection when a second one arrives on it, before any
 * answer byte — what a server closing an idle keep-alive connection does to a
 * request already on its way.
 */
class ClosingProxy {
  /** Connections closed on their second request. */
  closed = 0;
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();

  constructor(upstreamPort: number) {
    this.server = createServer((client) => {
      this.sockets.add(client);
      const upstream = tcp(upstreamPort, '127.0.0.1');
      this.sockets.add(upstream);
      let answered = false;
      upstream.on('data', (data) => {
        answered = true;
        client.write(data);
      });
      client.on('data', (data) => {
        // Data after an answer is the next request on this connection.
        if (answered) {
          this.closed++;
          client.resetAndDestroy();
          upstream.destroy();
          return;
        }
        upstream.write(data);
      });
      client.on('error', () => {});
      upstream.on('error', () => {});
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
  }

  listen(): Promise<string> {
    return new Promise((resolve) =>
      this.server.listen(0, '127.0.0.1', () => {
        const { port } = this.server.address() as { port: number };
        resolve(`http://127.0.0.1:${port}`);
      }),
    );
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe('remote client: a request on a keep-alive connection the server closed', () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  let server: RunningServer;
  let proxy: ClosingProxy;
  let proxyUrl = '';
  let token = '';

  beforeAll(async () => {
    ({ store, cleanup } = await sqliteStore());
    token = (await store.createTenant('retry')).token.token;
    server = await startServer(store, { host: '127.0.0.1', port: 0 });
    proxy = new ClosingProxy(Number(new URL(server.url).port));
    proxyUrl = await proxy.listen();
  });

  afterAll(async () => {
    await proxy?.close();
    await server?.close();
    await cleanup?.();
  });

  /** A client whose one pooled connection has answered once, so its next request goes out on a reused socket. */
  async function warmClient(): Promise<RemoteFabric> {
    const client = connect({ url: proxyUrl, token });
    await client.whoami();
    return client;
  }

  it('a read is sent again on a new connection and answered', async () => {
    const client = await warmClient();
    const session = await store.fabric(await store.authenticate(token)).createSession({ title: 'r' });
    const before = proxy.closed;
    expect((await client.getSession({ session: session.id })).id).toBe(session.id);
    expect(proxy.closed).toBe(before + 1);
    await client.close();
  });

  it('a write with an idempotency key is sent again and applied once', async () => {
    const client = await warmClient();
    const local = store.fabric(await store.authenticate(token));
    const session = await local.createSession({ title: 'w' });
    const before = proxy.closed;
    const event = await client.append({
      session: session.id,
      kind: 'message',
      payload: 'once',
      idempotencyKey: 'retry-1',
    });
    expect(proxy.closed).toBe(before + 1);
    const events = (await local.readBranch({ session: session.id })).events;
    expect(events.map((e) => e.id)).toEqual([event.id]);
    await client.close();
  });

  it('a write without an idempotency key is not sent again: IN_DOUBT, for the caller to resolve', async () => {
    const client = await warmClient();
    const local = store.fabric(await store.authenticate(token));
    const session = await local.createSession({ title: 'd' });
    const before = proxy.closed;
    const error = await client.append({ session: session.id, kind: 'message', payload: 'maybe' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isCairnError(error, 'IN_DOUBT')).toBe(true);
    expect(proxy.closed).toBe(before + 1);
    // The proxy never passed it on: in doubt for the client, absent in fact.
    expect((await local.readBranch({ session: session.id })).events).toHaveLength(0);
    await client.close();
  });

  it('the server keeps an idle connection longer than the client keeps an idle socket, and says so', async () => {
    expect(KEEP_ALIVE_FREE_MS).toBeLessThan(KEEP_ALIVE_TIMEOUT_MS);
    const response = await fetch(`${server.url}/healthz`);
    await response.text();
    expect(response.headers.get('keep-alive')).toBe(`timeout=${KEEP_ALIVE_TIMEOUT_MS / 1000}`);
  });
});
