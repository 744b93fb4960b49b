/**
 * Memory's tables per engine (formats 6, 7 and 8; docs/design/memory.md,
 * docs/design/store-format.md): the records, their anchors and derivation
 * edges, and on SQLite the narrow recall filter kept by triggers.
 */

import type { Dialect } from '../storage/engine.js';
import { type FeatureTables, rowLevelSecurityOf, TYPES } from '../storage/table-sql.js';

/** `memory_records` and its indexes; `clustered` as format 6 made it (see migration 7). */
function recordsTable(d: Dialect, name: string, clustered: string): string {
  const t = TYPES[d];
  return `
CREATE TABLE ${name} (
  tenant TEXT NOT NULL,
  id TEXT NOT NULL,
  version INTEGER NOT NULL,
  n ${t.bigint} NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('fact', 'episode', 'procedure', 'pinned')),
  text TEXT NOT NULL,
  data TEXT NOT NULL,
  tags TEXT NOT NULL,
  scope_user TEXT NOT NULL,
  scope_agent TEXT NOT NULL,
  scope_project TEXT NOT NULL,
  scope_session TEXT NOT NULL,
  branch TEXT NOT NULL,
  event TEXT NOT NULL,
  principal TEXT NOT NULL,
  source TEXT NOT NULL CHECK (source IN ('person', 'agent', 'tool', 'import')),
  trust TEXT NOT NULL CHECK (trust IN ('trusted', 'untrusted', 'quarantined')),
  derived_from TEXT NOT NULL,
  valid_from ${t.bigint} NOT NULL,
  valid_to ${t.bigint},
  recorded_at ${t.bigint} NOT NULL,
  latest INTEGER NOT NULL,${d === 'postgres' ? '\n  tsv TSVECTOR NOT NULL,' : ''}
  PRIMARY KEY (tenant, id, version)
)${clustered};`;
}

/** The indexes of `memory_records` besides its key, but for format 6's covering one. */
const RECORDS_INDEXES = `
CREATE UNIQUE INDEX memory_records_by_n ON memory_records (tenant, n);
CREATE INDEX memory_records_by_user ON memory_records (tenant, scope_user, recorded_at);
CREATE INDEX memory_records_by_session ON memory_records (tenant, scope_session, recorded_at);`;

function memoryTables(d: Dialect): string {
  const t = TYPES[d];
  return `${recordsTable(d, 'memory_records', t.clustered)}${RECORDS_INDEXES}
CREATE INDEX memory_records_recall ON memory_records (tenant, n, latest, trust, kind, scope_user, scope_agent, scope_project, scope_session, recorded_at, id, version);${d === 'postgres' ? '\nCREATE INDEX memory_records_fts ON memory_records USING gin (tsv);' : ''}
CREATE TABLE memory_anchors (
  tenant TEXT NOT NULL,
  id TEXT NOT NULL,
  version INTEGER NOT NULL,
  event TEXT NOT NULL,
  line TEXT NOT NULL,
  seq ${t.bigint} NOT NULL,
  PRIMARY KEY (tenant, id, version, event)
)${t.clustered};
CREATE TABLE memory_derived (
  tenant TEXT NOT NULL,
  id TEXT NOT NULL,
  source TEXT NOT NULL,
  PRIMARY KEY (tenant, id, source)
)${t.clustered};
CREATE INDEX memory_derived_by_source ON memory_derived (tenant, source);`;
}

/**
 * Migration 7 on SQLite: `memory_records` becomes a rowid table (format 6's
 * WITHOUT ROWID rows, a few hundred bytes each, spilled to overflow pages on
 * 1 KiB pages: twice the pages, and 18 against 11 µs an insert), and
 * recall gets its filter: one narrow row per record version,
 * keyed by an integer that leads with the tenant's number and ends with the
 * version's `n` (its FTS5 rowid), so each full-text match is filtered by one
 * rowid probe on small rows instead of a descent into the records' wide,
 * tenant-string-keyed index. Kept by triggers on `memory_records`: no code
 * path writes it, so it cannot disagree with the records.
 */
export const RECALL_KEY_SPAN = 1_099_511_627_776; // 2^40 record versions per tenant

const recallFilterSqlite = () => `
${recordsTable('sqlite', 'memory_records_7', '')}
INSERT INTO memory_records_7 SELECT * FROM memory_records;
DROP TABLE memory_records;
ALTER TABLE memory_records_7 RENAME TO memory_records;${RECORDS_INDEXES}
CREATE TABLE memory_tenants (tenant TEXT PRIMARY KEY, no INTEGER NOT NULL UNIQUE) WITHOUT ROWID;
CREATE TABLE memory_recall (
  key INTEGER PRIMARY KEY,
  latest INTEGER NOT NULL,
  trust TEXT NOT NULL,
  kind TEXT NOT NULL,
  scope_user TEXT NOT NULL,
  scope_agent TEXT NOT NULL,
  scope_project TEXT NOT NULL,
  scope_session TEXT NOT NULL
);
INSERT INTO memory_tenants (tenant, no)
  SELECT tenant, ROW_NUMBER() OVER (ORDER BY tenant) FROM (SELECT DISTINCT tenant FROM memory_records);
INSERT INTO memory_recall
  SELECT t.no * ${RECALL_KEY_SPAN} + r.n, r.latest, r.trust, r.kind, r.scope_user, r.scope_agent, r.scope_project, r.scope_session
  FROM memory_records r JOIN memory_tenants t ON t.tenant = r.tenant;
CREATE TRIGGER memory_recall_insert AFTER INSERT ON memory_records BEGIN
  INSERT INTO memory_tenants (tenant, no)
    SELECT NEW.tenant, (SELECT COALESCE(MAX(no), 0) + 1 FROM memory_tenants)
    WHERE NOT EXISTS (SELECT 1 FROM memory_tenants WHERE tenant = NEW.tenant);
  INSERT INTO memory_recall
    SELECT no * ${RECALL_KEY_SPAN} + NEW.n, NEW.latest, NEW.trust, NEW.kind, NEW.scope_user, NEW.scope_agent, NEW.scope_project, NEW.scope_session
    FROM memory_tenants WHERE tenant = NEW.tenant;
END;
CREATE TRIGGER memory_recall_update AFTER UPDATE OF latest, trust ON memory_records BEGIN
  UPDATE memory_recall SET latest = NEW.latest, trust = NEW.trust
    WHERE key = (SELECT no FROM memory_tenants WHERE tenant = NEW.tenant) * ${RECALL_KEY_SPAN} + NEW.n;
END;
CREATE TRIGGER memory_recall_delete AFTER DELETE ON memory_records BEGIN
  DELETE FROM memory_recall
    WHERE key = (SELECT no FROM memory_tenants WHERE tenant = OLD.tenant) * ${RECALL_KEY_SPAN} + OLD.n;
END;`;

/**
 * Migration 8: anchors by where they lie, so a reader joins its branch's
 * path (rows of line and seq range) to the anchors on it, one index range a
 * segment, however many segments the path has (docs/design/memory.md).
 */
const ANCHORS_BY_LINE = 'CREATE INDEX memory_anchors_by_line ON memory_anchors (tenant, line, seq);';

/** Tenant tables of memory (format 6); on SQLite each tenant's full-text index is a table of its own. */
const MEMORY_SECURED = ['memory_records', 'memory_anchors', 'memory_derived'] as const;

export const MEMORY_TABLES: FeatureTables = {
  folder: 'memory',
  // SQLite's recall filter and tenant numbers (format 7), its per-tenant full-text and vector tables (fulltext.ts, vectors.ts).
  tables: [...MEMORY_SECURED, 'memory_recall', 'memory_tenants'],
  rowSecured: MEMORY_SECURED,
  migrations: [
    {
      version: 6,
      name: 'memory: records with provenance and versions, branch anchors, derivation edges, full-text',
      sqlite: memoryTables('sqlite'),
      postgres: `${memoryTables('postgres')}
${rowLevelSecurityOf(MEMORY_SECURED)}`,
    },
    {
      version: 7,
      name: "memory: SQLite's records in a rowid table and a narrow recall filter kept by triggers, in place of the covering recall index",
      sqlite: recallFilterSqlite(),
      // PostgreSQL filters its GIN matches on the rows themselves: the covering index only cost writes.
      postgres: 'DROP INDEX memory_records_recall;',
    },
    {
      version: 8,
      name: "memory: anchors by line and seq, so a branch's path is joined as rows",
      sqlite: ANCHORS_BY_LINE,
      postgres: ANCHORS_BY_LINE,
    },
  ],
};
