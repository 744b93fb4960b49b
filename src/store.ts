import { verifyAuditChain } from './audit/audit-verify.js';
import type { AuditKey } from './audit/note.js';
import type { Checkpoint, TenantWrite } from './audit/tree.js';
import type { BlobStore } from './blob/blob-store.js';
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
import type { TrustPolicy } from './memory/memory.js';
import type { EmbeddingFunction } from './memory/vectors.js';
import { opContext } from './ops/context.js';
import { bindOps, withHandlers } from './ops/op.js';
import { TenantName } from './schema.js';
import { type Engine, NO_TENANT } from './storage/engine.js';
import { openStoreFolder } from './store-folder.js';
import type { AuditReport, Identity } from './types.js';
import { parseInput } from './validate.js';

/**
 * Entries a background checkpoint round integrates per transaction: a 16th of
 * a request's batch (one of 16,384 held the writer ≈ 490 ms here), so writers interleave.
 */
const ROUND_BATCH = 1024;

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
    /** The operator's audit signing key, kept out of the store: every tenant's checkpoints are signed with it. */
    readonly auditKey?: AuditKey,
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
      /** The operator's audit signing key (docs/design/audit.md); without it the store keeps a key of its own. */
      auditKey?: AuditKey;
      onWarning?: (message: string) => void;
      /** `background` for a long-running process: WAL checkpoints on a worker thread (SqliteEngineOptions). */
      checkpoints?: 'inline' | 'background';
    } = {},
  ): Promise<Store> {
    const { engine, blobs, deskDir } = await openStoreFolder(dir, options);
    return new Store(engine, blobs, deskDir, options.memoryPolicy, options.auditKey);
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
      withHandlers(MEMORY_CONTRACT, async () => (await import('./memory/handlers.js')).MEMORY_HANDLERS),
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
      deskStateDir: this.deskDir,
      memoryPolicy: this.memoryPolicy,
      auditKey: this.auditKey,
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

  /**
   * The operator's blob GC for one tenant: lists its blobs and deletes those
   * no row of any feature names (blob/named.ts) — what a crash between a
   * removal's rows and its blobs leaked — and the temporary files of puts
   * killed more than `graceMs` (default an hour) ago. `cairn gc` runs it on a
   * local store.
   */
  async collectUnnamedBlobs(
    tenant: string,
    options: { graceMs?: number } = {},
  ): Promise<{ listed: number; deleted: number; temporary: number }> {
    const graceMs = options.graceMs ?? 60 * 60 * 1000;
    if (!Number.isSafeInteger(graceMs) || graceMs < 0)
      throw invalidArgument(`graceMs is a whole number of milliseconds, not ${graceMs}`, {
        field: 'graceMs',
      });
    const { collectUnnamedBlobs } = await import('./blob/named.js');
    return collectUnnamedBlobs(this.engine, this.blobs, tenant, Date.now() - graceMs);
  }

  /**
   * A background round (a server's, ServeOptions.checkpointEveryMs): signs a
   * checkpoint over the waiting audit entries of each tenant named (those a
   * server wrote for) and, where the engine sees across tenants (SQLite), of
   * every tenant with entries its tree does not hold yet, whoever wrote them
   * (docs/design/audit.md, "When an entry is signed"). A tenant is signed
   * for only with the key its checkpoints already have (`skipped` says why
   * not), in transactions of ROUND_BATCH entries so writers interleave;
   * `stopped` ends the round between batches. A tenant's failure is answered
   * beside the others', not thrown.
   */
  async checkpointWaiting(
    written: Iterable<string> = [],
    stopped: () => boolean = () => false,
  ): Promise<Array<{ tenant: string; checkpoint?: Checkpoint; skipped?: string; error?: unknown }>> {
    const { roundCheckpoint, tenantsWaiting } = await import('./audit/tree.js');
    const tenants = new Set(written);
    if (!this.engine.capabilities.rowLevelSecurity)
      for (const tenant of await this.engine.read(NO_TENANT, tenantsWaiting)) tenants.add(tenant);
    const results: Array<{ tenant: string; checkpoint?: Checkpoint; skipped?: string; error?: unknown }> = [];
    for (const tenant of tenants) {
      if (stopped()) break;
      const write: TenantWrite = (fn) => this.engine.write(tenant, (tx) => fn(tx, Date.now()));
      try {
        results.push({
          tenant,
          ...(await roundCheckpoint(write, tenant, this.auditKey, { batch: ROUND_BATCH, stopped })),
        });
      } catch (error) {
        results.push({ tenant, error });
      }
    }
    return results;
  }

  /** Verifies the audit chains (and trees) of the named tenants; their checkpoints against the operator's key, if given. */
  verifyTenants(tenants: string[]): Promise<AuditReport[]> {
    return Promise.all(tenants.map((t) => verifyAuditChain(this.engine, t, this.auditKey)));
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

export {
  type ExposedPath,
  exposedStorePaths,
  openFabric,
  restrictStorePaths,
  storeExposure,
} from './store-folder.js';
