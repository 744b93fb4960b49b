import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { AuditKey } from '../audit/note.js';
import type { EmbeddedFabric } from '../embedded-fabric.js';
import { invalidArgument, isCairnError, unavailable } from '../errors.js';
import type { MasterKey } from '../keys/crypto.js';
import { corsOrigin } from '../server/cors.js';
import type { RunningServer } from '../server/index.js';
import type { Store } from '../store.js';
import { openFabric } from '../store-folder.js';
import { listFlag, stringFlag, wholeNumberFlag } from './args.js';
import type { StoreCommand } from './command.js';
import { AUDIT_KEY_FLAG, auditKeyOf, MASTER_KEY_FLAG, masterKeyOf } from './operator-keys.js';
import { EXIT, type Output } from './output.js';
import { readStoreConfig } from './store-config.js';
import { cliVersion } from './version.js';

/** Commands that need the store itself, not a fabric: they work on a local directory only. */

/** True when `dir` holds a store (`Store.openDir` keeps its database in `<dir>/cairn.db`). */
export function storeExists(dir: string): boolean {
  return existsSync(join(dir, 'cairn.db'));
}

/** Refuses to open a store that is not there, so a mistyped --store does not create a new one. */
export function requireStore(dir: string): void {
  if (!storeExists(dir)) {
    throw unavailable(
      `no Cairn store at ${dir}: run \`cairn init --store ${dir}\` first, or pass --store DIR or --url`,
      {
        store: dir,
      },
    );
  }
}

/** Opens a store; file-system failures become UNAVAILABLE naming the directory. */
export async function openStoreDir<T>(dir: string, open: (dir: string) => Promise<T>): Promise<T> {
  try {
    return await open(dir);
  } catch (error) {
    if (isCairnError(error)) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    const code = (error as { code?: string }).code;
    if (code === 'ENOSPC' || code === 'SQLITE_FULL' || code === 'EDQUOT') {
      throw unavailable(
        `the disk holding the store at ${dir} is full (${code}): free some space, then run the command again`,
        { store: dir, reason: 'disk full' },
        { cause: error },
      );
    }
    throw unavailable(
      `could not open the store at ${dir} (${reason}): check the path and its permissions`,
      {
        store: dir,
      },
      { cause: error },
    );
  }
}

/**
 * A store folder opened under its admin's config (`config.json`: the memory
 * policy); a long-running process (`serve`, `watch`) asks for `background`
 * checkpoints, so none runs on its event loop.
 */
export function openConfiguredStore(
  dir: string,
  checkpoints?: 'inline' | 'background',
  auditKey?: AuditKey,
): Promise<Store> {
  // The whole library's handle: loaded when a command asks for one (an operation's command opens a fabric only).
  return openStoreDir(dir, async (d) =>
    (await import('../store.js')).Store.openDir(d, {
      memoryPolicy: readStoreConfig(d).memory.policy,
      checkpoints,
      auditKey,
    }),
  );
}

/**
 * The embedded fabric of a store folder under its admin's config, with the
 * operator's master key and audit key if they are given. Everyday commands
 * skip the whole-store quick_check (it grows with the store); corruption met
 * while reading is still reported.
 */
export function openConfiguredFabric(
  dir: string,
  masterKey?: MasterKey,
  auditKey?: AuditKey,
): Promise<EmbeddedFabric> {
  return openStoreDir(dir, (d) =>
    openFabric({
      dir: d,
      integrityCheck: false,
      masterKey,
      auditKey,
      memoryPolicy: readStoreConfig(d).memory.policy,
    }),
  );
}

export async function withStore<T>(
  dir: string,
  fn: (store: Store) => Promise<T>,
  auditKey?: AuditKey,
): Promise<T> {
  const store = await openConfiguredStore(dir, undefined, auditKey);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

const init: StoreCommand = {
  target: 'store',
  createsStore: true,
  names: ['init'],
  example: 'cairn init',
  args: [],
  flags: [],
  summary: 'create the store (if missing) and its local tenant and principal',
  async run(dir, { out }) {
    const existed = storeExists(dir);
    const who = await withStore(dir, (store) => store.localIdentity());
    out.result({ id: who.tenant, created: !existed, store: dir, ...who }, [
      `${existed ? 'store already initialised' : 'initialised store'}: ${dir}`,
      `tenant: ${who.tenant}`,
      `principal: ${who.principal} (${who.kind}, ${who.role})`,
    ]);
    return EXIT.ok;
  },
};

const tenantCreate: StoreCommand = {
  target: 'store',
  createsStore: false,
  names: ['tenant', 'create'],
  example: 'cairn tenant create acme',
  args: ['NAME'],
  flags: [],
  summary: 'create a tenant in the local store and print its first admin token (shown once)',
  async run(dir, { positionals, out }) {
    const name = positionals[0]!;
    const created = await withStore(dir, (store) => store.createTenant(name));
    out.result(
      {
        id: created.tenant,
        name,
        principal: created.principal,
        token: created.token.token,
        tokenId: created.token.id,
        store: dir,
      },
      [
        `created tenant ${created.tenant} (${name}) with admin principal ${created.principal}`,
        `token: ${created.token.token}`,
        '(shown once: store it now)',
      ],
    );
    return EXIT.ok;
  },
};

export function listenError(error: unknown, host: string, port: number): unknown {
  const code = (error as { code?: string }).code;
  const data = { host, port };
  if (code === 'EADDRINUSE') {
    return unavailable(
      `port ${port} on ${host} is already in use: stop the other server or pick another --port`,
      data,
    );
  }
  if (code === 'EACCES') {
    return unavailable(`not allowed to listen on ${host}:${port}: pick a port above 1023 with --port`, data);
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
    return unavailable(`cannot listen on host ${host}: pass an address of this machine with --host`, data);
  }
  return error;
}

export function untilStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      // A second signal during shutdown gets Node's default: exit at once.
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/** Listens first, so a busy port does not leave an unused token behind; closes everything on failure. */
async function startServing(
  store: Store,
  host: string,
  port: number,
  out: Output,
  timeouts: { headersTimeoutMs?: number; requestTimeoutMs?: number; checkpointEveryMs?: number },
  masterKey: MasterKey | undefined,
  corsOrigins: string[],
) {
  let server: RunningServer | undefined;
  try {
    // Loaded here so that the other commands start without the HTTP stack.
    const { startServer } = await import('../server/index.js');
    const who = await store.localIdentity();
    server = await startServer(store, {
      host,
      port,
      ...timeouts,
      mcp: { version: cliVersion() },
      masterKey,
      corsOrigins,
      onInternalError: (error) => out.serverError(error),
    }).catch((error: unknown) => {
      throw listenError(error, host, port);
    });
    const created = await store.fabric(who).createToken({ principal: who.principal, label: 'cairn serve' });
    return { server, created };
  } catch (error) {
    await server?.close();
    await store.close();
    throw error;
  }
}

/** How often `cairn serve` signs a checkpoint over waiting audit entries (docs/design/audit.md). */
const DEFAULT_CHECKPOINT_EVERY_MS = 60_000;

const serve: StoreCommand = {
  target: 'store',
  createsStore: true,
  names: ['serve'],
  example: 'cairn serve --port 7411',
  args: [],
  flags: [
    { name: 'host', type: 'string', value: 'HOST', help: 'address to listen on (default 127.0.0.1)' },
    {
      name: 'port',
      type: 'string',
      value: 'PORT',
      help: 'port to listen on; 0 picks a free one (default 7070)',
    },
    {
      name: 'headers-timeout-ms',
      type: 'string',
      value: 'MS',
      help: 'close a connection whose request headers take longer (default 10000)',
    },
    {
      name: 'request-timeout-ms',
      type: 'string',
      value: 'MS',
      help: 'close a connection whose whole request takes longer (default 60000)',
    },
    {
      name: 'cors-origin',
      type: 'string',
      value: 'URL',
      multiple: true,
      help: 'let browser pages of this origin call the API, e.g. http://localhost:5173 (repeatable; default none)',
    },
    {
      name: 'checkpoint-every-ms',
      type: 'string',
      value: 'MS',
      help: 'sign a checkpoint over waiting audit entries this often; 0 turns it off (default 60000)',
    },
    MASTER_KEY_FLAG,
    AUDIT_KEY_FLAG,
  ],
  summary: 'serve the store over HTTP until SIGINT/SIGTERM; prints the URL and a fresh token',
  async run(dir, call) {
    const { values, out } = call;
    const host = stringFlag(values, 'host') ?? '127.0.0.1';
    const port = wholeNumberFlag(values, 'port') ?? 7070;
    if (port > 65535)
      throw invalidArgument(`--port must be at most 65535, got ${port}`, {
        field: 'port',
      });
    const timeouts = {
      headersTimeoutMs: wholeNumberFlag(values, 'headers-timeout-ms'),
      requestTimeoutMs: wholeNumberFlag(values, 'request-timeout-ms'),
      checkpointEveryMs: wholeNumberFlag(values, 'checkpoint-every-ms') ?? DEFAULT_CHECKPOINT_EVERY_MS,
    };
    // Checked before the store opens: a bad origin is the caller's mistake, said at once.
    const corsOrigins = listFlag(values, 'cors-origin').map(corsOrigin);
    const store = await openConfiguredStore(dir, 'background', auditKeyOf(call));
    const { server, created } = await startServing(
      store,
      host,
      port,
      out,
      timeouts,
      masterKeyOf(call),
      corsOrigins,
    );
    const stopped = untilStopSignal();
    out.result({ url: server.url, token: created.token, tenant: created.tenant, store: dir }, [
      `Cairn serving on ${server.url}`,
      `token: ${created.token}`,
    ]);
    await stopped;
    await server.close();
    await store.close();
    return EXIT.ok;
  },
};

export const STORE_COMMANDS: StoreCommand[] = [init, serve, tenantCreate];
