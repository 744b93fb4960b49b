/**
 * What a feature's tables are made of (its `tables.ts`): column types that
 * differ between the engines, PostgreSQL's row-level security, and the shape
 * of a feature's share of the schema. The features' shares are put in order
 * by the registry (src/features.ts) and applied by migrations.ts.
 */
import type { Dialect } from './engine.js';

/** Column types that differ between the engines; everything else is shared text. */
export const TYPES: Record<Dialect, { bytes: string; bigint: string; clustered: string }> = {
  // SQLite: tables keyed by (tenant, …) are stored in their primary-key order, one b-tree each.
  sqlite: { bytes: 'BLOB', bigint: 'INTEGER', clustered: ' WITHOUT ROWID' },
  postgres: { bytes: 'BYTEA', bigint: 'BIGINT', clustered: '' },
};

/**
 * SQLite: `table` rebuilt as a rowid table, its rows kept — `definition` is
 * its column list and keys, the same columns in the same order. With the
 * store's 1 KiB pages a WITHOUT ROWID row longer than about 230 bytes spills
 * into an overflow page, so every insert or update of such a row writes (and
 * syncs) one page more; a rowid table keeps a row of up to about 1,000 bytes
 * in its leaf, and its keys in small index b-trees. PostgreSQL has nothing
 * to rebuild: {@link NOTHING_ON_POSTGRES}.
 */
export function asRowidTable(table: string, definition: string, version: number): string {
  // Built under the migration's number, as a table that replaces another is (test/feature-tables.test.ts).
  const building = `${table}_${version}`;
  return `
CREATE TABLE ${building} (${definition});
INSERT INTO ${building} SELECT * FROM ${table};
DROP TABLE ${table};
ALTER TABLE ${building} RENAME TO ${table};`;
}

/** A migration's PostgreSQL side when only SQLite's layout changes. */
export const NOTHING_ON_POSTGRES = 'SELECT 1;';

/** PostgreSQL: only rows of the transaction's tenant (`cairn.tenant`) are seen or written. */
export function rowLevelSecurity(table: string, column = 'tenant'): string {
  return `
ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY;
ALTER TABLE ${table} FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON ${table}
  USING (${column} = current_setting('cairn.tenant', true))
  WITH CHECK (${column} = current_setting('cairn.tenant', true));`;
}

/** {@link rowLevelSecurity} for each of `tables` (keyed by their `tenant` column). */
export function rowLevelSecurityOf(tables: readonly string[]): string {
  return tables.map((table) => rowLevelSecurity(table)).join('\n');
}

/**
 * A feature's share of one migration. A store's format version counts whole
 * migrations; a version may be made of several features' shares (format 1:
 * identity, the log, the audit chain and blobs), applied in the registry's
 * order inside one transaction.
 */
export interface MigrationPart {
  version: number;
  name: string;
  sqlite: string;
  postgres: string;
}

/**
 * A feature's tables: the ones it owns — no other feature's SQL names them
 * (test/feature-tables.test.ts) — the ones PostgreSQL confines to a tenant,
 * and the migrations that make and change them.
 */
export interface FeatureTables {
  /** The feature's folder under src/. */
  folder: string;
  tables: readonly string[];
  /** Tables under row-level security on PostgreSQL. */
  rowSecured: readonly string[];
  migrations: readonly MigrationPart[];
  /**
   * The columns that name the tenant's blobs (one content-addressed space per
   * tenant, shared by every feature): a blob is deleted only when none of
   * them names it (blob/named.ts), whichever feature lets go of it.
   */
  blobNames?: readonly { table: string; column: string }[];
}
