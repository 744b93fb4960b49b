/**
 * PostgreSQL for test suites.
 *
 * Every PostgreSQL suite gets a database of its own, owned by an ordinary
 * application role, so row-level security binds it exactly as it binds a real
 * deployment (a superuser or BYPASSRLS role would see through every policy,
 * and PostgresEngine refuses one).
 *
 * Usage:
 *
 * ```ts
 * import { describePostgres, freshPostgresDatabase, type PostgresTestDatabase } from './support/postgres.js';
 *
 * describePostgres('my suite', () => {
 *   let db: PostgresTestDatabase;
 *   beforeAll(async () => { db = await freshPostgresDatabase(); });
 *   afterAll(async () => { await db?.drop(); });
 *   it('…', async () => {
 *     const engine = await PostgresEngine.open({ connectionString: db.url });
 *     // …
 *   });
 * });
 * ```
 *
 * Environment:
 *
 * - `CAIRN_TEST_PG_URL`: connection string of a superuser (it creates the
 *   role and the databases, and terminates connections on drop); default
 *   `postgres://postgres@127.0.0.1:5432/postgres`. Its host, port and query
 *   options are kept for every connection the helper hands out.
 * - `CAIRN_REQUIRE_PG=1`: PostgreSQL must be there. When it is not reachable
 *   the suites fail (the probe throws) instead of being skipped. Set it in CI.
 * - `CAIRN_TEST_PG_APP_PASSWORD`: password to give the application role, for a
 *   server that does not trust local connections (default: none, trust auth).
 *
 * Without PostgreSQL (and without `CAIRN_REQUIRE_PG=1`) the suites declared
 * with `describePostgres` are skipped, the skipped suite's name says why, and
 * the reason is printed once per test file. A suite with its own skip option
 * (the conformance suites) takes `postgresSkip` instead.
 *
 * Importing this module probes PostgreSQL once (top-level await), so with
 * `CAIRN_REQUIRE_PG=1` a file that imports it fails at load when PostgreSQL
 * is missing, whichever of the helpers it uses.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe } from 'vitest';

/** The administrator connection string the helper starts from. */
export const PG_ADMIN_URL = process.env.CAIRN_TEST_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

/** The application role every test database is owned by: LOGIN, NOSUPERUSER, NOBYPASSRLS. */
export const APP_ROLE = 'cairn_app';

/** Prefix of every database `freshPostgresDatabase` creates. */
export const TEST_DATABASE_PREFIX = 'cairn_test_';

const PROBE_TIMEOUT_MS = 5_000;
// Serialises role creation across test files running in parallel (any constant works).
const ROLE_LOCK_KEY = 727_275;

export interface PostgresAvailability {
  /** PostgreSQL is reachable at `PG_ADMIN_URL` as a superuser. */
  available: boolean;
  /** Why it is not available ('' when it is). */
  reason: string;
}

export interface PostgresTestDatabase {
  /** Name of the fresh database (`cairn_test_<random>`). */
  name: string;
  /** Connection string for the application role (`cairn_app`) on the fresh database: give this to PostgresEngine. */
  url: string;
  /** Connection string for the administrator (superuser) on the fresh database, for setup and tampering. */
  adminUrl: string;
  /** Terminates every connection to the database, then drops it. Safe to call twice. */
  drop(): Promise<void>;
}

function requirePostgres(): boolean {
  return process.env.CAIRN_REQUIRE_PG === '1';
}

function where(url: URL): string {
  return `${url.hostname || 'localhost'}:${url.port || '5432'}`;
}

/** Connection string for `role` on `database`, keeping the admin URL's host, port and options. */
function urlFor(database: string, role?: string, password?: string): string {
  const url = new URL(PG_ADMIN_URL);
  // The URL setters percent-encode; pg decodes.
  url.pathname = `/${database}`;
  if (role !== undefined) {
    url.username = role;
    url.password = password ?? '';
  }
  return url.toString();
}

function errorCode(error: unknown): string | undefined {
  const e = error as { code?: unknown; errors?: Array<{ code?: unknown }> };
  if (typeof e?.code === 'string') return e.code;
  // Node reports a refused connection to a name with several addresses as an AggregateError.
  const inner = e?.errors?.find((x) => typeof x?.code === 'string');
  return inner ? String(inner.code) : undefined;
}

function errorMessage(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return errorMessage(error.errors[0]);
  return error instanceof Error ? error.message : String(error);
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function quoteLiteral(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

async function adminClient(): Promise<pg.Client> {
  const client = new pg.Client({
    connectionString: PG_ADMIN_URL,
    connectionTimeoutMillis: PROBE_TIMEOUT_MS,
  });
  client.on('error', () => {
    // A dropped admin connection surfaces on the next query; nothing to do here.
  });
  await client.connect();
  return client;
}

async function probe(): Promise<PostgresAvailability> {
  let url: URL;
  try {
    url = new URL(PG_ADMIN_URL);
  } catch {
    return {
      available: false,
      reason: `CAIRN_TEST_PG_URL is not a connection string: set it like postgres://user@host:5432/db`,
    };
  }
  let client: pg.Client | undefined;
  try {
    client = await adminClient();
    const { rows } = await client.query(
      'SELECT current_user AS role, rolsuper FROM pg_roles WHERE rolname = current_user',
    );
    const row = rows[0] as { role: string; rolsuper: boolean };
    if (!row.rolsuper) {
      return {
        available: false,
        reason: `PostgreSQL role ${row.role} at ${where(url)} is not a superuser, so it cannot create the test role and databases: set CAIRN_TEST_PG_URL to a superuser connection`,
      };
    }
    return { available: true, reason: '' };
  } catch (error) {
    const code = errorCode(error);
    const message = errorMessage(error);
    // "(ECONNREFUSED)" for a socket error; "(28P01: password authentication failed …)" for a refusal.
    const detail = code === undefined ? message : message.includes(code) ? code : `${code}: ${message}`;
    if (error instanceof pg.DatabaseError) {
      return {
        available: false,
        reason: `PostgreSQL at ${where(url)} refused the connection (${detail}): set CAIRN_TEST_PG_URL to an administrator's connection string`,
      };
    }
    return {
      available: false,
      reason: `PostgreSQL not reachable at ${where(url)} (${detail}): set CAIRN_TEST_PG_URL or start PostgreSQL`,
    };
  } finally {
    await client?.end().catch(() => {});
  }
}

/**
 * Probes PostgreSQL at `CAIRN_TEST_PG_URL`. Resolves `{ available, reason }`;
 * with `CAIRN_REQUIRE_PG=1` it throws instead of reporting it unavailable, so
 * a suite that needs PostgreSQL fails rather than being skipped.
 */
export async function postgresOrSkip(): Promise<PostgresAvailability> {
  const result = await probe();
  if (!result.available && requirePostgres()) {
    throw new Error(`CAIRN_REQUIRE_PG=1 but ${result.reason}`);
  }
  return result;
}

/** The probe, run once when this module loads (once per test file). */
export const postgres: PostgresAvailability = await postgresOrSkip();

/**
 * The probe as the conformance suites' `skip` option wants it: undefined when
 * PostgreSQL is available, otherwise the reason, e.g.
 * `describeLogConformance('PostgreSQL', open, { skip: postgresSkip })`.
 */
export const postgresSkip: string | undefined = postgres.available ? undefined : postgres.reason;

let warned = false;

/**
 * `describe` for a suite that needs PostgreSQL: skipped when it is not
 * available (the suite's name and one console warning say why), failing
 * instead with `CAIRN_REQUIRE_PG=1`.
 */
export function describePostgres(name: string, fn: () => void): void {
  if (!postgres.available && !warned) {
    warned = true;
    console.warn(`[cairn] skipping PostgreSQL suites: ${postgres.reason}`);
  }
  const title = postgres.available ? name : `${name} (skipped: ${postgres.reason})`;
  describe.skipIf(!postgres.available)(title, fn);
}

/** Creates the application role if missing and makes sure it cannot bypass row-level security. */
async function ensureAppRole(admin: pg.Client): Promise<void> {
  const password = process.env.CAIRN_TEST_PG_APP_PASSWORD;
  await admin.query('SELECT pg_advisory_lock($1)', [ROLE_LOCK_KEY]);
  try {
    const { rows } = await admin.query(
      'SELECT rolsuper, rolbypassrls, rolcanlogin FROM pg_roles WHERE rolname = $1',
      [APP_ROLE],
    );
    const role = rows[0] as { rolsuper: boolean; rolbypassrls: boolean; rolcanlogin: boolean } | undefined;
    const passwordClause = password ? ` PASSWORD ${quoteLiteral(password)}` : '';
    if (!role) {
      await admin.query(`CREATE ROLE ${quoteIdent(APP_ROLE)} LOGIN NOSUPERUSER NOBYPASSRLS${passwordClause}`);
    } else if (role.rolsuper || role.rolbypassrls || !role.rolcanlogin || password) {
      await admin.query(`ALTER ROLE ${quoteIdent(APP_ROLE)} LOGIN NOSUPERUSER NOBYPASSRLS${passwordClause}`);
    }
  } finally {
    await admin.query('SELECT pg_advisory_unlock($1)', [ROLE_LOCK_KEY]);
  }
}

async function dropDatabase(name: string): Promise<void> {
  const admin = await adminClient();
  try {
    await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [name],
    );
    try {
      await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
    } catch (error) {
      // Before PostgreSQL 13 there is no FORCE; the connections are already terminated.
      if (errorCode(error) !== '42601') throw error;
      await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)}`);
    }
  } finally {
    await admin.end().catch(() => {});
  }
}

/**
 * Creates an empty database `cairn_test_<random>` owned by `cairn_app` (the
 * role is created if missing), so the application role creates, owns and is
 * bound by every table and policy in it. Call `drop()` when done (afterAll).
 */
export async function freshPostgresDatabase(): Promise<PostgresTestDatabase> {
  if (!postgres.available) throw new Error(`PostgreSQL is not available: ${postgres.reason}`);
  const name = `${TEST_DATABASE_PREFIX}${randomBytes(8).toString('hex')}`;
  const admin = await adminClient();
  try {
    await ensureAppRole(admin);
    for (let attempt = 1; ; attempt++) {
      try {
        // template0: nobody is ever connected to it, so parallel suites cannot block each other.
        await admin.query(
          `CREATE DATABASE ${quoteIdent(name)} OWNER ${quoteIdent(APP_ROLE)} TEMPLATE template0`,
        );
        break;
      } catch (error) {
        // 55006 object_in_use: the template was busy; try again shortly.
        if (errorCode(error) !== '55006' || attempt >= 10) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      }
    }
  } finally {
    await admin.end().catch(() => {});
  }
  let dropped: Promise<void> | undefined;
  return {
    name,
    url: urlFor(name, APP_ROLE, process.env.CAIRN_TEST_PG_APP_PASSWORD),
    adminUrl: urlFor(name),
    drop() {
      dropped ??= dropDatabase(name);
      return dropped;
    },
  };
}
