/**
 * The redaction policy's table (format 12; docs/design/redaction.md): at
 * most one row per tenant, its policy as JSON, who set it and when. No row:
 * redaction is off.
 */
import type { Dialect } from '../storage/engine.js';
import { type FeatureTables, rowLevelSecurityOf, TYPES } from '../storage/table-sql.js';

const REDACTION_OWN = ['redaction_policies'] as const;

function redactionTables(d: Dialect): string {
  const t = TYPES[d];
  return `
CREATE TABLE redaction_policies (
  tenant TEXT NOT NULL,
  policy TEXT NOT NULL,
  updated_by TEXT NOT NULL,
  updated_at ${t.bigint} NOT NULL,
  PRIMARY KEY (tenant)
)${t.clustered};`;
}

export const REDACTION_TABLES: FeatureTables = {
  folder: 'redaction',
  tables: REDACTION_OWN,
  rowSecured: REDACTION_OWN,
  migrations: [
    {
      version: 12,
      name: 'redaction: a policy per tenant',
      sqlite: redactionTables('sqlite'),
      postgres: `${redactionTables('postgres')}
${rowLevelSecurityOf(REDACTION_OWN)}`,
    },
  ],
};
