/**
 * The erasure cascade's table (format 11; docs/design/erasure.md): one row
 * per erasure, its subject and resolved scope (ids only), which features it
 * has finished (each in the transaction that erased that feature's rows, so
 * a resumed erasure goes on where it stopped), their counts, and, once
 * done, the signed receipt.
 */
import type { Dialect } from '../storage/engine.js';
import { type FeatureTables, rowLevelSecurityOf, TYPES } from '../storage/table-sql.js';

const ERASURE_OWN = ['erasures'] as const;

function erasureTables(d: Dialect): string {
  const t = TYPES[d];
  return `
CREATE TABLE erasures (
  tenant TEXT NOT NULL,
  id TEXT NOT NULL,
  subject TEXT NOT NULL,
  scope TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('running', 'done')),
  done_parts TEXT NOT NULL,
  counts TEXT NOT NULL,
  by_principal TEXT NOT NULL,
  started_at ${t.bigint} NOT NULL,
  finished_at ${t.bigint},
  receipt TEXT,
  PRIMARY KEY (tenant, id)
)${t.clustered};
CREATE INDEX erasures_by_subject ON erasures (tenant, subject, started_at);`;
}

export const ERASURE_TABLES: FeatureTables = {
  folder: 'erasure',
  tables: ERASURE_OWN,
  rowSecured: ERASURE_OWN,
  migrations: [
    {
      version: 11,
      name: 'erasure: erasures and their receipts',
      sqlite: erasureTables('sqlite'),
      postgres: `${erasureTables('postgres')}
${rowLevelSecurityOf(ERASURE_OWN)}`,
    },
  ],
};
