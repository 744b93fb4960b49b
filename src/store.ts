import { chmodSync, lstatSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { verifyAuditChain } from './audit/audit-verify.js';
import type { BlobStore } from './blob/blob-store.js';
import { FsBlobStore } from './blob/fs/fs-blob-store.js';
import { Desk, type DeskOptions } from './desk/desk.js';
import { LocalDeskStore } from './desk/local-store.js';
import { EmbeddedFabric } from './embedded-fabric.js';
import { forbidden, invalidArgument } from './errors.js';
import {
  authenticate,
  type CreatedTenant,
  createTenant,
  localIdentity,
  tenantIds,
} from './identity/identity-store.js';
import type { MasterKey } from './keys/crypto.js';
import { Keys } from './keys/keys.js';
import { MEMORY_CONTRACT, type Memory } from './memory/contract.js';
import { MEMORY_HANDLERS } from './memory/handlers.js';
import type { TrustPolicy } from './memory/memory.js';
import type { EmbeddingFunction } from './memory/vectors.js';
import { bindOps, withHandlers } from './ops/op.js';
import { opContext } from './ops/table.js';
import { TenantName } from './schema.js';
import { type Engine, NO_TENANT } from './storage/engine.js';
import { SqliteEngine } from './storage/sqlite/sqlite-engine.js';
import type { AuditReport, Identity } from './types.js';
import { parseInput } from './validate.js';

/**
 * A Cairn store: a relational engine plus a blob store. It hands out fabrics,
 * each acting as one identity; it reads no environment of its own.
 */
export class Store {
  constructor(
    readonly engine: Engine,
    readonly blobs: BlobStore,
    /** This machine's desk state (stat caches, overlay layers); `<dir>/desk` for a store in a folder. */
    readonly deskDir?: string,
    /** The trust tier each memory source arrives with, for every fabric and memory of this store (the admin's config). */
    readonly memoryPolicy: TrustPolicy = {},
  ) {}

  /**
   * The embedded default: `<dir>/cairn.db` (SQLite), `<dir>/blobs/` and
   * `<dir>/desk/`, made for the owner alone (folders 0700, files 0600).
   * `onWarning` hears of a store folder other users may enter.
   */
  static async openDir(
    dir: string,
    options: {
      integrityCheck?: boolean;
      memoryPolicy?: TrustPolicy;
      onWarning?: (message: string) => void;
      /** `background` for a long-running process: WAL checkpoints on a worker thread (SqliteEngineOptions). */
      checkpoints?: 'inline' | 'background';
    } = {},
  ): Promise<Store> {
    const engine = await SqliteEngine.open({
      dir,
      integrityCheck: options.integrityCheck,
      checkpoints: options.checkpoints,
    });
    const desk = join(dir, 'desk');
    try {
      mkdirSync(desk, { mode: 0o700 });
      chmodSync(desk, 0o700);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        await engine.close();
        throw error;
      }
    }
    const warning = storeExposure(dir);
    if (warning !== undefined) options.onWarning?.(warning);
    return new Store(engine, new FsBlobStore(join(dir, 'blobs')), desk, options.memoryPolicy);
  }

  /**
   * The desk (workspace snapshots) acting as the given identity. `host`
   * names this machine (a directory is attached once per host); the CLI
   * passes the hostname.
   */
  desk(
    who: Identity,
    options: Omit<DeskOptions, 'store' | 'stateDir' | 'host'> & {
      stateDir?: string;
      host?: string;
    } = {},
  ): Desk {
    const stateDir = options.stateDir ?? this.deskDir;
    if (stateDir === undefined) {
      throw invalidArgument('this store has no local folder: pass stateDir for the desk state', {});
    }
    return new Desk({
      ...options,
      store: new LocalDeskStore(this.engine, this.blobs, who, options.now),
      stateDir,
      host: options.host ?? 'local',
    });
  }

  /**
   * The keys (vault, grants, handles, approvals) acting as the given
   * identity. The master key is needed only to add, rotate or use a
   * credential; the operator supplies it (the CLI reads a file or variable).
   */
  keys(who: Identity, options: { masterKey?: MasterKey; now?: () => number } = {}): Keys {
    return new Keys({ engine: this.engine, who, ...options });
  }

  /**
   * Memory acting as the given identity (remember, recall, list, get,
   * history, quarantine, promote, forget): the table's memory operations,
   * validated as on every surface. `policy` sets the trust tier each source
   * arrives with; `embedding` (the user's function, with its model's name)
   * turns on vector and hybrid recall on SQLite. Through a server, the same methods are on `connect(…)`.
   */
  memory(who: Identity, options: { policy?: TrustPolicy; embedding?: EmbeddingFunction } = {}): Memory {
    return bindOps(
      withHandlers(MEMORY_CONTRACT, MEMORY_HANDLERS),
      opContext(this.engine, who, {
        memoryPolicy: options.policy ?? this.memoryPolicy,
        memoryEmbedding: options.embedding,
      }),
    );
  }

  /** A fabric acting as the given identity (`masterKey`: the credential operations may seal values). */
  fabric(
    who: Identity,
    options: { masterKey?: MasterKey; memoryEmbedding?: EmbeddingFunction } = {},
  ): EmbeddedFabric {
    return new EmbeddedFabric(this.engine, who, undefined, {
      ...options,
      blobs: this.blobs,
      memoryPolicy: this.memoryPolicy,
    });
  }

  authenticate(token: string): Promise<Identity> {
    return authenticate(this.engine, token);
  }

  /** The store's local tenant and admin principal, created on first use. */
  localIdentity(): Promise<Identity> {
    return localIdentity(this.engine);
  }

  createTenant(name: string): Promise<CreatedTenant> {
    return createTenant(this.engine, { name: parseInput(TenantName, name, 'create tenant') });
  }

  /** Verifies the audit chains of the named tenants. */
  verifyTenants(tenants: string[]): Promise<AuditReport[]> {
    return Promise.all(tenants.map((t) => verifyAuditChain(this.engine, t)));
  }

  /**
   * Every tenant of the store, for its operator. Only where the database does
   * not itself confine each query to one tenant: on PostgreSQL no role the
   * engine accepts can see across tenants, by design.
   */
  async listTenants(): Promise<string[]> {
    if (this.engine.capabilities.rowLevelSecurity) {
      throw forbidden(
        "this store confines every query to one tenant (row-level security): act per tenant, with that tenant's token",
      );
    }
    return this.engine.read(NO_TENANT, tenantIds);
  }

  async close(): Promise<void> {
    await this.blobs.close();
    await this.engine.close();
  }
}

/**
 * Opens the embedded fabric in a folder, acting as the store's local
 * principal. Closing the fabric closes the store.
 */
export async function openFabric(options: {
  dir: string;
  integrityCheck?: boolean;
  /** The vault master key, for the credential operations that seal values. */
  masterKey?: MasterKey;
  /** The trust tier each memory source arrives with (the store admin's config). */
  memoryPolicy?: TrustPolicy;
}): Promise<EmbeddedFabric> {
  const store = await Store.openDir(options.dir, {
    integrityCheck: options.integrityCheck,
    memoryPolicy: options.memoryPolicy,
  });
  try {
    const who = await store.localIdentity();
    return new EmbeddedFabric(store.engine, who, () => store.close(), {
      masterKey: options.masterKey,
      blobs: store.blobs,
      memoryPolicy: store.memoryPolicy,
    });
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** A path of a store folder that other OS users may enter or read, and its mode. */
export interface ExposedPath {
  path: string;
  /** Its permission bits, in octal (e.g. "0755"). */
  mode: string;
}

/** What a store folder holds at its top; the folder's 0700 is what keeps everything below private. */
const STORE_ENTRIES = [
  'cairn.db',
  'cairn.db-wal',
  'cairn.db-shm',
  'cairn.db-journal',
  'blobs',
  'desk',
  'config.json',
  'watch.sock',
];

const octal = (mode: number) => (mode & 0o7777).toString(8).padStart(4, '0');

function storePaths(dir: string): { path: string; mode: number; isDir: boolean }[] {
  const found: { path: string; mode: number; isDir: boolean }[] = [];
  for (const path of [dir, ...STORE_ENTRIES.map((name) => join(dir, name))]) {
    try {
      // The folder is followed if it is a link (its owner named it); a link inside is not.
      const st = path === dir ? statSync(path) : lstatSync(path);
      if (!st.isSymbolicLink()) found.push({ path, mode: st.mode, isDir: st.isDirectory() });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return found;
}

/** The store folder and the entries at its top that grant anything to group or others. */
export function exposedStorePaths(dir: string): ExposedPath[] {
  return storePaths(dir)
    .filter((p) => (p.mode & 0o077) !== 0)
    .map((p) => ({ path: p.path, mode: octal(p.mode) }));
}

/** Takes group's and others' access away (folders 0700, files 0600); what it changed, with the modes it found. */
export function restrictStorePaths(dir: string): ExposedPath[] {
  const changed: ExposedPath[] = [];
  for (const p of storePaths(dir)) {
    if ((p.mode & 0o077) === 0) continue;
    chmodSync(p.path, p.isDir ? 0o700 : 0o600);
    changed.push({ path: p.path, mode: octal(p.mode) });
  }
  return changed;
}

/** A warning when other OS users may enter the store folder (and so read what it holds), else undefined (also for no store). */
export function storeExposure(dir: string): string | undefined {
  let mode: number;
  try {
    mode = statSync(dir).mode;
    statSync(join(dir, 'cairn.db'));
  } catch {
    return undefined;
  }
  if ((mode & 0o077) === 0) return undefined;
  return `warning: the store ${dir} is open to other users (mode ${octal(mode)}): they may read its memory and workspace files; run \`cairn doctor --fix --store ${dir}\``;
}
