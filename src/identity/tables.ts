/** Identity's tables (format 1): tenants, their principals, and tokens (only a hash of each secret). */

import type { Dialect } from '../storage/engine.js';
import { type FeatureTables, rowLevelSecurity, rowLevelSecurityOf, TYPES } from '../storage/table-sql.js';

function identityTables(d: Dialect): string {
  const t = TYPES[d];
  return `
CREATE TABLE tenants (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  created_at ${t.bigint} NOT NULL
);
CREATE TABLE principals (
  tenant TEXT NOT NULL REFERENCES tenants(id),
  id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('user', 'agent', 'service')),
  name TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('admin', 'member')),
  created_at ${t.bigint} NOT NULL,
  PRIMARY KEY (tenant, id)
)${t.clustered};
CREATE TABLE tokens (
  tenant TEXT NOT NULL,
  id TEXT NOT NULL,
  principal TEXT NOT NULL,
  secret_hash TEXT NOT NULL,
  label TEXT NOT NULL,
  created_at ${t.bigint} NOT NULL,
  revoked_at ${t.bigint},
  PRIMARY KEY (tenant, id),
  FOREIGN KEY (tenant, principal) REFERENCES principals(tenant, id)
)${t.clustered};`;
}

/** Format 12: the principal whose call made a token (tokens made before: ''). */
const TOKEN_ISSUER = "ALTER TABLE tokens ADD COLUMN issued_by TEXT NOT NULL DEFAULT '';";

export const IDENTITY_TABLES: FeatureTables = {
  folder: 'identity',
  tables: ['tenants', 'principals', 'tokens'],
  // A tenant's own row is keyed by its id.
  rowSecured: ['tenants', 'principals', 'tokens'],
  migrations: [
    {
      version: 1,
      name: 'identity: tenants, principals, tokens',
      sqlite: identityTables('sqlite'),
      postgres: `${identityTables('postgres')}
${rowLevelSecurity('tenants', 'id')}
${rowLevelSecurityOf(['principals', 'tokens'])}`,
    },
    {
      version: 12,
      name: 'identity: who issued each token (an agent acts for the person who gave it its token)',
      sqlite: TOKEN_ISSUER,
      postgres: TOKEN_ISSUER,
    },
  ],
};
