import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Store } from '../store.js';
import { type AppOptions, createApp } from './app.js';

export { type AppOptions, createApp } from './app.js';
export { openApiDocument } from './openapi.js';

export interface ServeOptions extends AppOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** A client must send its request headers within this long (default 10 s), else the connection closes. */
  headersTimeoutMs?: number;
  /** ... and its whole request within this long (default 60 s): a stalled body does not hold a connection. */
  requestTimeoutMs?: number;
}

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

/** Serves a store's HTTP API until `close()`. */
export function startServer(store: Store, options: ServeOptions = {}): Promise<RunningServer> {
  const app = createApp(store, options);
  const host = options.host ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    const headersTimeout = options.headersTimeoutMs ?? 10_000;
    const requestTimeout = Math.max(options.requestTimeoutMs ?? 60_000, headersTimeout);
    const server = serve(
      {
        fetch: app.fetch,
        hostname: host,
        port: options.port ?? 0,
        // Stalled clients (slow loris) are cut off: Node checks the deadlines this often.
        serverOptions: {
          headersTimeout,
          requestTimeout,
          connectionsCheckingInterval: Math.min(1000, headersTimeout),
        },
      },
      (info: AddressInfo) => {
        const shownHost = info.family === 'IPv6' ? `[${info.address}]` : info.address;
        resolve({
          url: `http://${shownHost}:${info.port}`,
          close: () =>
            new Promise<void>((done) => {
              server.close(() => done());
              (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
            }),
        });
      },
    );
    server.once('error', reject);
  });
}
