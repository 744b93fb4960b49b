import pg from 'pg';
import { CairnError, forbidden, inDoubt, internal, unavailable } from '../../errors.js';
import {
  type Engine,
  type EngineCapabilities,
  MAX_TRANSACTION_ATTEMPTS,
  NO_TENANT,
  type ReclaimReport,
  RetryTransaction,
  type SqlExecutor,
  type SqlParam,
} from '../engine.js';
import { type Migration, migrate } from '../migrations.js';

export interface PostgresEngineOptions {
  /** A connection string for a role that is neither superuser nor BYPASSRLS. */
  connectionString: string;
  /** Pool size; defaults to 16. */
  max?: number;
}

const placeholderCache = new Map<string, string>();

/** Rewrites the portable `?` placeholders as PostgreSQL's `$1, $2, …`. */
function toPostgres(sql: string): string {
  let out = placeholderCache.get(sql);
  if (out === undefined) {
    let n = 0;
    out = sql.replace(/\?/g, () => `$${++n}`);
    placeholderCache.set(sql, out);
  }
  return out;
}

function executor(client: pg.PoolClient): SqlExecutor {
  return {
    lockRows: 'FOR UPDATE',
    async all<R>(sql: string, params: readonly SqlParam[] = []) {
      return (await client.query(toPostgres(sql), params as unknown[])).rows as R[];
    },
    async get<R>(sql: string, params: readonly SqlParam[] = []) {
      return (await client.query(toPostgres(sql), params as unknown[])).rows[0] as R | undefined;
    },
    async run(sql: string, params: readonly SqlParam[] = []) {
      return (await client.query(toPostgres(sql), params as unknown[])).rowCount ?? 0;
    },
  };
}

// 40001 serialization_failure, 40P01 deadlock_detected: run the transaction again.
const RETRYABLE = new Set(['40001', '40P01']);

/** Advisory lock key held while the schema is created or migrated. */
const MIGRATION_LOCK = 727274;

/**
 * The scale-out engine. Every transaction sets `cairn.tenant` locally, and
 * every tenant table has a FORCE row-level-security policy on it, so a query
 * that forgets its tenant filter sees nothing of another tenant. That holds
 * only for a role the policies bind, so the engine refuses a superuser or
 * BYPASSRLS connection. PostgreSQL's own commit (synchronous_commit = on) is
 * the durability point.
 */
export class PostgresEngine implements Engine {
  readonly dialect = 'postgres' as const;
  readonly capabilities: EngineCapabilities = { groupCommit: true, rowLevelSecurity: true, vectors: false };
  private readonly pool: pg.Pool;
  private closed = false;

  private constructor(options: PostgresEngineOptions) {
    this.pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.max ?? 16,
      types: {
        getTypeParser: ((oid: number, format?: string) =>
          oid === 20
            ? (value: string) => Number(value)
            : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
      },
    });
    this.pool.on('error', () => {
      // An idle client lost its connection; the pool replaces it on next use.
    });
  }

  static async open(options: PostgresEngineOptions): Promise<PostgresEngine> {
    const engine = new PostgresEngine(options);
    try {
      await engine.refusePrivilegedRole();
      await migrate(
        {
          dialect: 'postgres',
          formatVersion: () => engine.formatVersion(),
          apply: (migration) => engine.applyMigration(migration),
        },
        'the PostgreSQL database',
      );
    } catch (error) {
      await engine.pool.end();
      throw openFailure(error);
    }
    return engine;
  }

  private async refusePrivilegedRole(): Promise<void> {
    const { rows } = await this.pool.query(
      'SELECT current_user AS role, rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user',
    );
    const row = rows[0] as { role: string; rolsuper: boolean; rolbypassrls: boolean };
    if (row.rolsuper || row.rolbypassrls) {
      throw forbidden(
        `PostgreSQL role ${row.role} bypasses row-level security: connect as a role that is neither SUPERUSER nor BYPASSRLS (see docs/design/postgres.md)`,
        { role: row.role },
      );
    }
  }

  private async formatVersion(): Promise<number> {
    // Under the migration lock: replicas starting together on an empty database
    // would otherwise race on CREATE TABLE IF NOT EXISTS (a unique violation in pg_type).
    return this.underMigrationLock(async (client) => {
      await client.query('CREATE TABLE IF NOT EXISTS cairn_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
      const { rows } = await client.query("SELECT value FROM cairn_meta WHERE key = 'format_version'");
      return rows[0] ? Number(rows[0].value) : 0;
    });
  }

  /** Runs fn in a transaction holding the store-wide migration lock. */
  private async underMigrationLock<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    const onError = (error: Error) => {
      broken = error;
    };
    client.on('error', onError);
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      const value = await fn(client);
      await client.query('COMMIT');
      return value;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => {
        broken = rollbackError;
      });
      throw error;
    } finally {
      client.removeListener('error', onError);
      client.release(broken);
    }
  }

  private async applyMigration(migration: Migration): Promise<void> {
    // Replicas starting together: one applies, the others wait and then see the new version.
    await this.underMigrationLock(async (client) => {
      const { rows } = await client.query("SELECT value FROM cairn_meta WHERE key = 'format_version'");
      if (!rows[0] || Number(rows[0].value) < migration.version) {
        await client.query(migration.postgres);
        await client.query(
          "INSERT INTO cairn_meta (key, value) VALUES ('format_version', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
          [String(migration.version)],
        );
      }
    });
  }

  write<T>(tenant: string, fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.transaction(tenant, fn, 'BEGIN');
  }

  read<T>(tenant: string, fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.transaction(tenant, fn, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  }

  private async transaction<T>(
    tenant: string,
    fn: (tx: SqlExecutor) => Promise<T>,
    begin: string,
  ): Promise<T> {
    if (this.closed) throw unavailable('the store is closed: open it again');
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw unreachable(error);
    }
    // A connection that failed mid-transaction is destroyed, not handed to the next caller.
    // While checked out, the pool does not listen for the client's errors: a connection
    // lost between two statements (server restart, terminated backend) would otherwise
    // be an uncaught 'error' event and take the whole process down.
    let broken: Error | undefined;
    const onError = (error: Error) => {
      broken = error;
    };
    client.on('error', onError);
    try {
      for (let attempt = 1; ; attempt++) {
        let committing = false;
        try {
          await client.query(begin);
          if (tenant !== NO_TENANT)
            await client.query("SELECT set_config('cairn.tenant', $1, true)", [tenant]);
          const value = await fn(executor(client));
          committing = true;
          const commit = await client.query('COMMIT');
          // PostgreSQL answers COMMIT of a transaction a failed statement aborted with a
          // silent ROLLBACK; if fn caught that statement's error, nothing it wrote remains.
          if (commit.command === 'ROLLBACK') {
            throw internal(
              'a statement failed inside the transaction and its error was caught, so PostgreSQL rolled the whole transaction back: nothing was written; this is a bug in Cairn, report it',
            );
          }
          return value;
        } catch (error) {
          await client.query('ROLLBACK').catch((rollbackError: Error) => {
            broken = rollbackError;
          });
          if (committing && !(error instanceof CairnError) && lostConnection(error)) {
            // The connection failed while COMMIT was in flight: it may or may not have committed.
            throw inDoubt(
              `the connection to PostgreSQL failed during COMMIT (${error instanceof Error ? error.message : String(error)}): the write may or may not have been applied; read back to check before retrying (an append with an idempotency key is safe to retry)`,
              {},
              { cause: error },
            );
          }
          const retry = error instanceof RetryTransaction || RETRYABLE.has(sqlState(error) ?? '');
          if (broken || !retry || attempt >= MAX_TRANSACTION_ATTEMPTS) throw translate(error);
        }
      }
    } finally {
      client.removeListener('error', onError);
      client.release(broken);
    }
  }

  /**
   * Nothing here: a deleted row is gone from every query at commit, and its
   * dead tuple's bytes stay in the table's files until VACUUM lets their
   * space be reused (VACUUM FULL rewrites the table) and in WAL segments
   * until they are recycled: the operator's (docs/design/erasure.md).
   */
  async reclaim(): Promise<ReclaimReport> {
    return { database: 'left', log: 'left' };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}

function unreachable(error: unknown): CairnError {
  return unavailable(
    `PostgreSQL did not complete the request (${error instanceof Error ? error.message : String(error)}): check that it is reachable, then retry`,
    {},
    { cause: error },
  );
}

/** Why open failed, said so the operator knows what to change. */
function openFailure(error: unknown): CairnError {
  if (error instanceof CairnError) return error;
  const state = sqlState(error);
  if (state === '42501') {
    return forbidden(
      `PostgreSQL refused to set up Cairn's schema (${(error as Error).message}): connect as a role that owns the database, or has CREATE on schema public (see docs/design/postgres.md)`,
      { sqlState: state },
      { cause: error },
    );
  }
  const translated = translate(error);
  return translated instanceof CairnError ? translated : unreachable(error);
}

/** The SQLSTATE of an error PostgreSQL reported, if it is one. */
function sqlState(error: unknown): string | undefined {
  if (!(error instanceof pg.DatabaseError)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}

/**
 * SQLSTATE classes that mean the server or the connection could not do the
 * work now, not that the work was wrong: connection exception, insufficient
 * resources, operator intervention, system error, and a transaction that kept
 * losing serialisation or deadlock races.
 */
const UNAVAILABLE_CLASSES = new Set(['08', '53', '57', '58', '40']);

/**
 * What a failed transaction reports. Cairn's own errors pass through. Losing
 * the connection or the server is UNAVAILABLE (retrying may help). Any other
 * statement PostgreSQL rejected (a constraint, a row-level-security policy, a
 * missing table) is INTERNAL: retrying will not help. An error that did not
 * come from PostgreSQL at all (a bug in the caller's function) is rethrown as is.
 */
function translate(error: unknown): unknown {
  if (error instanceof CairnError) return error;
  if (error instanceof RetryTransaction) {
    return unavailable(
      `the transaction lost a race ${MAX_TRANSACTION_ATTEMPTS} times (${error.message}): the resource is under heavy contention; retry later`,
      {},
      { cause: error },
    );
  }
  const state = sqlState(error);
  if (state !== undefined) {
    if (UNAVAILABLE_CLASSES.has(state.slice(0, 2))) return unreachable(error);
    return internal(
      `PostgreSQL rejected a statement (${(error as Error).message}, SQLSTATE ${state}): the schema may be damaged or this is a bug in Cairn; report it`,
      { sqlState: state },
      { cause: error },
    );
  }
  if (isConnectionError(error)) return unreachable(error);
  return error;
}

/** The connection or the server went away: the outcome of a statement in flight is unknown. */
function lostConnection(error: unknown): boolean {
  const state = sqlState(error);
  // COMMIT is one statement: anything but a PostgreSQL error report means the connection failed.
  if (state === undefined) return true;
  return ['08', '57', '58'].includes(state.slice(0, 2));
}

/** Errors of the socket or of pg's connection handling, rather than of a statement. */
function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return true; // ECONNRESET, ECONNREFUSED, EPIPE, ETIMEDOUT…
  const message = error instanceof Error ? error.message : '';
  return /Connection terminated|Client has encountered a connection error|connection timeout/i.test(message);
}
