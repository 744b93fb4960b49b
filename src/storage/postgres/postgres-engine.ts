import pg from 'pg';
import { CairnError } from '../../errors.js';
import {
  type Engine,
  type EngineCapabilities,
  MAX_TRANSACTION_ATTEMPTS,
  NO_TENANT,
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

// 40001 serialization_failure, 40P01 deadlock_detected, 23505 unique_violation on a raced insert.
const RETRYABLE = new Set(['40001', '40P01']);

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
  readonly capabilities: EngineCapabilities = { groupCommit: true, rowLevelSecurity: true };
  private readonly pool: pg.Pool;
  private closed = false;

  private constructor(options: PostgresEngineOptions) {
    this.pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.max ?? 16,
      types: {
        getTypeParser: ((oid: number, format?: string) =>
          oid === 20 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
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
      if (error instanceof CairnError) throw error;
      throw unavailable(error);
    }
    return engine;
  }

  private async refusePrivilegedRole(): Promise<void> {
    const { rows } = await this.pool.query(
      'SELECT current_user AS role, rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user',
    );
    const row = rows[0] as { role: string; rolsuper: boolean; rolbypassrls: boolean };
    if (row.rolsuper || row.rolbypassrls) {
      throw new CairnError(
        'FORBIDDEN',
        `PostgreSQL role ${row.role} bypasses row-level security: connect as a role that is neither SUPERUSER nor BYPASSRLS (see docs/design/postgres.md)`,
        { role: row.role },
      );
    }
  }

  private async formatVersion(): Promise<number> {
    await this.pool.query('CREATE TABLE IF NOT EXISTS cairn_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
    const { rows } = await this.pool.query("SELECT value FROM cairn_meta WHERE key = 'format_version'");
    return rows[0] ? Number(rows[0].value) : 0;
  }

  private async applyMigration(migration: Migration): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      // Replicas starting together: one applies, the others wait and then see the new version.
      await client.query('SELECT pg_advisory_xact_lock(727274)');
      const { rows } = await client.query("SELECT value FROM cairn_meta WHERE key = 'format_version'");
      if (!rows[0] || Number(rows[0].value) < migration.version) {
        await client.query(migration.postgres);
        await client.query(
          "INSERT INTO cairn_meta (key, value) VALUES ('format_version', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
          [String(migration.version)],
        );
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  write<T>(tenant: string, fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.transaction(tenant, fn, 'BEGIN');
  }

  read<T>(tenant: string, fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.transaction(tenant, fn, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  }

  private async transaction<T>(tenant: string, fn: (tx: SqlExecutor) => Promise<T>, begin: string): Promise<T> {
    if (this.closed) throw new CairnError('UNAVAILABLE', 'the store is closed: open it again');
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw unavailable(error);
    }
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          await client.query(begin);
          if (tenant !== NO_TENANT) await client.query("SELECT set_config('cairn.tenant', $1, true)", [tenant]);
          const value = await fn(executor(client));
          await client.query('COMMIT');
          return value;
        } catch (error) {
          await client.query('ROLLBACK').catch(() => {});
          const retry =
            error instanceof RetryTransaction || RETRYABLE.has((error as { code?: string }).code ?? '');
          if (!retry || attempt >= MAX_TRANSACTION_ATTEMPTS) {
            if (error instanceof CairnError || !(error as { code?: string }).code) throw error;
            throw unavailable(error);
          }
        }
      }
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}

function unavailable(error: unknown): CairnError {
  return new CairnError(
    'UNAVAILABLE',
    `PostgreSQL did not complete the request (${error instanceof Error ? error.message : String(error)}): check that it is reachable, then retry`,
    {},
    { cause: error },
  );
}
