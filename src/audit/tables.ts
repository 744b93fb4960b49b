/** The audit chain's tables (format 1): entries, their salted payloads, and each tenant's chain head (docs/design/audit-chain.md). */

import type { Dialect } from '../storage/engine.js';
import {
  asRowidTable,
  type FeatureTables,
  NOTHING_ON_POSTGRES,
  rowLevelSecurityOf,
  TYPES,
} from '../storage/table-sql.js';

/** An entry's columns as format 1 made them; format 12 added `chain` after them. */
function entryColumns(d: Dialect): string {
  const t = TYPES[d];
  return `
  tenant TEXT NOT NULL,
  seq ${t.bigint} NOT NULL,
  at ${t.bigint} NOT NULL,
  actor TEXT NOT NULL,
  action TEXT NOT NULL,
  resource_type TEXT NOT NULL,
  resource_id TEXT NOT NULL,
  commitment TEXT NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL,`;
}

function auditTables(d: Dialect): string {
  const t = TYPES[d];
  return `
CREATE TABLE audit_entries (${entryColumns(d)}
  PRIMARY KEY (tenant, seq)
)${t.clustered};
CREATE TABLE audit_payloads (
  tenant TEXT NOT NULL,
  seq ${t.bigint} NOT NULL,
  salt TEXT NOT NULL,
  payload TEXT NOT NULL,
  PRIMARY KEY (tenant, seq)
);
CREATE TABLE audit_heads (
  tenant TEXT PRIMARY KEY,
  seq ${t.bigint} NOT NULL,
  hash TEXT NOT NULL
)${t.clustered};`;
}

/** The Merkle tree over the entries (tree.ts), its signed checkpoints, and each tenant's signing key. */
function treeTables(d: Dialect): string {
  const t = TYPES[d];
  return `
CREATE TABLE audit_trees (
  tenant TEXT PRIMARY KEY,
  size ${t.bigint} NOT NULL
)${t.clustered};
CREATE TABLE audit_tiles (
  tenant TEXT NOT NULL,
  level INTEGER NOT NULL,
  idx ${t.bigint} NOT NULL,
  hashes ${t.bytes} NOT NULL,
  PRIMARY KEY (tenant, level, idx)
)${t.clustered};
CREATE TABLE audit_checkpoints (
  tenant TEXT NOT NULL,
  size ${t.bigint} NOT NULL,
  at ${t.bigint} NOT NULL,
  root TEXT NOT NULL,
  note TEXT NOT NULL,
  PRIMARY KEY (tenant, size)
)${t.clustered};
CREATE TABLE audit_keys (
  tenant TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  public_key TEXT NOT NULL,
  seed ${t.bytes},
  created_at ${t.bigint} NOT NULL
)${t.clustered};`;
}

const AUDIT_OWN = ['audit_entries', 'audit_payloads', 'audit_heads'] as const;
/** The tables format 10 added (tests take a store back to an earlier format by dropping them). */
export const AUDIT_TREE_TABLES = ['audit_trees', 'audit_tiles', 'audit_checkpoints', 'audit_keys'] as const;

/** Format 12: an entry's actor chain, the JSON list person → agent → branch ('' for the actor alone, as before). */
const ENTRY_CHAIN = "ALTER TABLE audit_entries ADD COLUMN chain TEXT NOT NULL DEFAULT '';";

/** Format 13 (SQLite): an entry (three hashes and its ids, ≈ 330 bytes) overflowed a WITHOUT ROWID page. */
const ENTRIES_WITH_ROWID = asRowidTable(
  'audit_entries',
  `${entryColumns('sqlite')}
  chain TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (tenant, seq)
`,
  13,
);

export const AUDIT_TABLES: FeatureTables = {
  folder: 'audit',
  tables: [...AUDIT_OWN, ...AUDIT_TREE_TABLES],
  rowSecured: [...AUDIT_OWN, ...AUDIT_TREE_TABLES],
  migrations: [
    {
      version: 1,
      name: 'audit chain: entries, payloads, heads',
      sqlite: auditTables('sqlite'),
      postgres: `${auditTables('postgres')}
${rowLevelSecurityOf(AUDIT_OWN)}`,
    },
    {
      version: 10,
      name: 'audit tree: tiles, checkpoints, the signing key',
      sqlite: treeTables('sqlite'),
      postgres: `${treeTables('postgres')}
${rowLevelSecurityOf(AUDIT_TREE_TABLES)}`,
    },
    {
      version: 12,
      name: 'audit: the actor chain of an entry (person, agent, branch)',
      sqlite: ENTRY_CHAIN,
      postgres: ENTRY_CHAIN,
    },
    {
      version: 13,
      name: 'audit: entries in a rowid table (SQLite), no overflow page per entry',
      sqlite: ENTRIES_WITH_ROWID,
      postgres: NOTHING_ON_POSTGRES,
    },
  ],
};
