/** The audit chain's tables (format 1): entries, their salted payloads, and each tenant's chain head (docs/design/audit-chain.md). */

import type { Dialect } from '../storage/engine.js';
import { type FeatureTables, rowLevelSecurityOf, TYPES } from '../storage/table-sql.js';

function auditTables(d: Dialect): string {
  const t = TYPES[d];
  return `
CREATE TABLE audit_entries (
  tenant TEXT NOT NULL,
  seq ${t.bigint} NOT NULL,
  at ${t.bigint} NOT NULL,
  actor TEXT NOT NULL,
  action TEXT NOT NULL,
  resource_type TEXT NOT NULL,
  resource_id TEXT NOT NULL,
  commitment TEXT NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL,
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

const AUDIT_OWN = ['audit_entries', 'audit_payloads', 'audit_heads'] as const;

export const AUDIT_TABLES: FeatureTables = {
  folder: 'audit',
  tables: AUDIT_OWN,
  rowSecured: AUDIT_OWN,
  migrations: [
    {
      version: 1,
      name: 'audit chain: entries, payloads, heads',
      sqlite: auditTables('sqlite'),
      postgres: `${auditTables('postgres')}
${rowLevelSecurityOf(AUDIT_OWN)}`,
    },
  ],
};
