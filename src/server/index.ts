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
    const server = serve(
      { fetch: app.fetch, hostname: host, port: options.port ?? 0 },
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
