/** The session log's tables (format 1): sessions, branches, lines of events, events, and each branch's ref log. */

import type { Dialect } from '../storage/engine.js';
import {
  asRowidTable,
  type FeatureTables,
  NOTHING_ON_POSTGRES,
  rowLevelSecurityOf,
  TYPES,
} from '../storage/table-sql.js';

function branchColumns(d: Dialect): string {
  const t = TYPES[d];
  return `
  tenant TEXT NOT NULL,
  id TEXT NOT NULL,
  session TEXT NOT NULL,
  name TEXT NOT NULL,
  owner TEXT NOT NULL,
  head TEXT NOT NULL,
  head_seq INTEGER NOT NULL,
  head_line TEXT NOT NULL,
  own_line TEXT NOT NULL,
  forked_from TEXT NOT NULL,
  created_at ${t.bigint} NOT NULL,
  updated_at ${t.bigint} NOT NULL,
  PRIMARY KEY (tenant, id),
  UNIQUE (tenant, session, name)
`;
}

function logTables(d: Dialect): string {
  const t = TYPES[d];
  return `
CREATE TABLE sessions (
  tenant TEXT NOT NULL,
  id TEXT NOT NULL,
  owner TEXT NOT NULL,
  title TEXT NOT NULL,
  meta TEXT NOT NULL,
  created_at ${t.bigint} NOT NULL,
  PRIMARY KEY (tenant, id)
)${t.clustered};
CREATE TABLE branches (${branchColumns(d)})${t.clustered};
CREATE TABLE lines (
  tenant TEXT NOT NULL,
  id TEXT NOT NULL,
  session TEXT NOT NULL,
  base_line TEXT NOT NULL,
  base_seq INTEGER NOT NULL,
  PRIMARY KEY (tenant, id)
)${t.clustered};
CREATE TABLE events (
  tenant TEXT NOT NULL,
  id TEXT NOT NULL,
  session TEXT NOT NULL,
  branch TEXT NOT NULL,
  line TEXT NOT NULL,
  seq INTEGER NOT NULL,
  parent TEXT NOT NULL,
  kind TEXT NOT NULL,
  payload TEXT NOT NULL,
  actor TEXT NOT NULL,
  owner TEXT NOT NULL,
  at ${t.bigint} NOT NULL,
  idem_key TEXT,
  PRIMARY KEY (tenant, id),
  UNIQUE (tenant, line, seq)
);
CREATE UNIQUE INDEX events_idempotency ON events (tenant, session, idem_key) WHERE idem_key IS NOT NULL;
CREATE TABLE ref_log (
  tenant TEXT NOT NULL,
  branch TEXT NOT NULL,
  at ${t.bigint} NOT NULL,
  audit_seq ${t.bigint} NOT NULL,
  op TEXT NOT NULL,
  head_before TEXT NOT NULL,
  head_after TEXT NOT NULL,
  by_principal TEXT NOT NULL,
  PRIMARY KEY (tenant, branch, audit_seq)
)${t.clustered};`;
}

const LOG_OWN = ['sessions', 'branches', 'lines', 'events', 'ref_log'] as const;

/**
 * Format 12: a session's lines by an index. A line is written once per fork
 * or rewind that is appended to, so appends pay nothing for it; the branch
 * sweep (retention.ts) reads a session's lines, and each line's events by
 * the (tenant, line, seq) key, instead of scanning the tenant's events.
 */
const LINES_BY_SESSION = 'CREATE INDEX lines_by_session ON lines (tenant, session);';

export const LOG_TABLES: FeatureTables = {
  folder: 'log',
  tables: LOG_OWN,
  rowSecured: LOG_OWN,
  migrations: [
    {
      version: 1,
      name: 'session log: sessions, branches, lines, events, ref log',
      sqlite: logTables('sqlite'),
      postgres: `${logTables('postgres')}
${rowLevelSecurityOf(LOG_OWN)}`,
    },
    {
      version: 12,
      name: "the log: a session's lines by index (the branch sweep reads them)",
      sqlite: LINES_BY_SESSION,
      postgres: LINES_BY_SESSION,
    },
    {
      version: 13,
      // A branch row (≈ 290 bytes of ids) overflowed a WITHOUT ROWID page: each head move wrote two pages.
      name: 'the log: branches in a rowid table (SQLite), no overflow page per head move',
      sqlite: asRowidTable('branches', branchColumns('sqlite'), 13),
      postgres: NOTHING_ON_POSTGRES,
    },
  ],
};
