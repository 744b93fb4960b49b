import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { loopbackNames, McpHttp } from '../mcp/http.js';
import type { Store } from '../store.js';
import { type AppOptions, createApp } from './app.js';

export { type AppOptions, createApp } from './app.js';
export { openApiDocument } from './openapi.js';

export interface ServeOptions extends Omit<AppOptions, 'mcp'> {
  /**
   * MCP over streamable HTTP at `/mcp` (same tokens), answering to this
   * server's address and localhost names, and to `allowedHosts` (`host:port`)
   * behind a proxy. Off when left out.
   */
  mcp?: { version: string; allowedHosts?: string[] };
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
  const host = options.host ?? '127.0.0.1';
  let names: { hosts: string[]; origins: string[] } = { hosts: [], origins: [] };
  const extra = (options.mcp?.allowedHosts ?? []).map((h) => h.toLowerCase());
  const mcp = options.mcp ? new McpHttp({ version: options.mcp.version, names: () => names }) : undefined;
  const app = createApp(store, { ...options, mcp });
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
        const own = loopbackNames(host, info.port);
        names = {
          hosts: [...own.hosts, ...extra],
          origins: [...own.origins, ...extra.flatMap((h) => [`http://${h}`, `https://${h}`])],
        };
        resolve({
          url: `http://${shownHost}:${info.port}`,
          close: () =>
            new Promise<void>((done) => {
              void mcp?.close();
              server.close(() => done());
              (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
            }),
        });
      },
    );
    server.once('error', reject);
  });
}
