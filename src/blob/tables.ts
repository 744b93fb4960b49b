/** The blob store's table (format 1), used by the PostgreSQL blob store; the folder store keeps files. */

import type { Dialect } from '../storage/engine.js';
import { type FeatureTables, rowLevelSecurityOf, TYPES } from '../storage/table-sql.js';

function blobTables(d: Dialect): string {
  const t = TYPES[d];
  return `
CREATE TABLE blobs (
  tenant TEXT NOT NULL,
  digest TEXT NOT NULL,
  size ${t.bigint} NOT NULL,
  bytes ${t.bytes} NOT NULL,
  PRIMARY KEY (tenant, digest)
);`;
}

const BLOB_OWN = ['blobs'] as const;

export const BLOB_TABLES: FeatureTables = {
  folder: 'blob',
  tables: BLOB_OWN,
  rowSecured: BLOB_OWN,
  migrations: [
    {
      version: 1,
      name: 'blobs',
      sqlite: blobTables('sqlite'),
      postgres: `${blobTables('postgres')}
${rowLevelSecurityOf(BLOB_OWN)}`,
    },
  ],
};
