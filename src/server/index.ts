import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { invalidArgument, unavailable } from '../errors.js';
import { loopbackNames, McpHttp, type McpHttpOptions } from '../mcp/http.js';
import type { Store } from '../store.js';
import { type AppOptions, createApp } from './app.js';

export { type AppOptions, createApp } from './app.js';
export { BodyBudget } from './body-budget.js';
export { corsOrigin } from './cors.js';
export { openApiDocument } from './openapi.js';

export interface ServeOptions extends Omit<AppOptions, 'mcp'> {
  /**
   * MCP over streamable HTTP at `/mcp` (same tokens), answering to this
   * server's address and localhost names, and to `allowedHosts` (`host:port`)
   * behind a proxy, with its session caps and idle time (see McpHttpOptions).
   * Off when left out.
   */
  mcp?: { version: string; allowedHosts?: string[] } & Pick<
    McpHttpOptions,
    'maxSessions' | 'maxSessionsPerToken' | 'maxSessionsPerTenant' | 'idleMs' | 'now'
  >;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** A client must send its request headers within this long (default 10 s), else the connection closes. */
  headersTimeoutMs?: number;
  /** ... and its whole request within this long (default 60 s): a stalled body does not hold a connection. */
  requestTimeoutMs?: number;
  /**
   * An idle keep-alive connection is closed after this long (default 65 s):
   * longer than the remote client keeps an idle socket (KEEP_ALIVE_FREE_MS,
   * 15 s), so the client lets go of a socket before the server closes it.
   */
  keepAliveTimeoutMs?: number;
  /**
   * Every this many ms, a round signs a checkpoint over the waiting audit
   * entries of each tenant this server wrote for — and, on SQLite, of every
   * tenant with waiting entries (Store.checkpointWaiting): an entry committed
   * through the server is in a signed checkpoint within the round running
   * at its commit, one interval and the next round. A round signs a tenant
   * only with the key its checkpoints already have, and settles a new
   * tenant's key only on the operator's (`auditKey`). Off when left out
   * (`cairn serve` sets 60 s); at most 2^31 − 1. A tenant's failure goes to
   * `onInternalError`, and the next round visits it again.
   */
  checkpointEveryMs?: number;
}

/** How long the server keeps an idle keep-alive connection: outlasts the remote client's 15 s. */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

/** The longest interval a Node timer keeps (a longer one fires at once, every millisecond). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The background checkpoint rounds (ServeOptions.checkpointEveryMs): one at
 * a time. A tenant whose round failed is visited again by the next; a tenant
 * a round may not sign for (Store.checkpointWaiting: `skipped`) is left
 * alone, and reported once (tenant and reason) to `onInternalError`.
 * `stop()` ends the running round at its next batch and waits for it.
 */
function backgroundCheckpoints(
  store: Store,
  written: Set<string>,
  options: Pick<ServeOptions, 'checkpointEveryMs' | 'onInternalError'>,
): { stop(): Promise<void> } {
  const every = options.checkpointEveryMs;
  if (!every) return { stop: async () => {} };
  let running: Promise<void> | undefined;
  let stopping = false;
  /** Tenants and reasons already reported as skipped: said once for the life of the server. */
  const told = new Set<string>();
  const round = async () => {
    const tenants = [...written];
    written.clear();
    try {
      for (const { tenant, error, skipped } of await store.checkpointWaiting(tenants, () => stopping)) {
        if (skipped !== undefined && !told.has(`${tenant}\n${skipped}`)) {
          told.add(`${tenant}\n${skipped}`);
          options.onInternalError?.(
            unavailable(`tenant ${tenant}'s audit entries are not signed in the background: ${skipped}`, {
              tenant,
            }),
          );
        }
        if (error === undefined) continue;
        written.add(tenant);
        options.onInternalError?.(error);
      }
    } catch (error) {
      for (const tenant of tenants) written.add(tenant);
      options.onInternalError?.(error);
    }
  };
  const timer = setInterval(() => {
    running ??= round().finally(() => {
      running = undefined;
    });
  }, every);
  timer.unref();
  return {
    stop: async () => {
      stopping = true;
      clearInterval(timer);
      await running;
    },
  };
}

/** Serves a store's HTTP API until `close()`. */
export function startServer(store: Store, options: ServeOptions = {}): Promise<RunningServer> {
  const every = options.checkpointEveryMs;
  if (every !== undefined && (!Number.isSafeInteger(every) || every < 0 || every > MAX_TIMER_MS))
    return Promise.reject(
      invalidArgument(
        `checkpointEveryMs is a whole number of milliseconds from 0 (off) to ${MAX_TIMER_MS}, not ${every}`,
        { field: 'checkpointEveryMs' },
      ),
    );
  const host = options.host ?? '127.0.0.1';
  let names: { hosts: string[]; origins: string[] } = { hosts: [], origins: [] };
  const extra = (options.mcp?.allowedHosts ?? []).map((h) => h.toLowerCase());
  const { allowedHosts: _, ...mcpOptions } = options.mcp ?? { version: '' };
  const mcp = options.mcp ? new McpHttp({ ...mcpOptions, names: () => names }) : undefined;
  // The tenants written for since the last round; kept only when rounds run.
  const written = new Set<string>();
  const onWrite = every ? (tenant: string) => void written.add(tenant) : undefined;
  const app = createApp(store, { ...options, mcp, onWrite });
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
        // Rounds start once the server listens, and a close waits out the one running.
        const checkpoints = backgroundCheckpoints(store, written, options);
        resolve({
          url: `http://${shownHost}:${info.port}`,
          close: async () => {
            void mcp?.close();
            const stopped = checkpoints.stop();
            await new Promise<void>((done) => {
              server.close(() => done());
              (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
            });
            await stopped;
          },
        });
      },
    );
    (server as HttpServer).keepAliveTimeout = options.keepAliveTimeoutMs ?? KEEP_ALIVE_TIMEOUT_MS;
    server.once('error', reject);
  });
}
