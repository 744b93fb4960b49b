/**
 * The keys: credentials (sealed values only: a data key wrapped by the
 * operator's master key, and the values sealed by the data key), grants bound
 * to one branch, branch handles (only a hash of the secret part) and
 * approvals of single requests. docs/design/keys.md describes the formats.
 */
import type { Dialect } from '../storage/engine.js';
import { type FeatureTables, rowLevelSecurityOf, TYPES } from '../storage/table-sql.js';

const KEYS_OWN = ['key_credentials', 'key_grants', 'key_handles', 'key_approvals'] as const;

function keysTables(d: Dialect): string {
  const t = TYPES[d];
  return `
CREATE TABLE key_credentials (
  tenant TEXT NOT NULL,
  id TEXT NOT NULL,
  name TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('bearer', 'basic', 'header', 'env')),
  header TEXT NOT NULL,
  upstream TEXT NOT NULL,
  sandbox_upstream TEXT NOT NULL,
  master_key_id TEXT NOT NULL,
  wrapped_key ${t.bytes},
  live_sealed ${t.bytes},
  sandbox_sealed ${t.bytes},
  version INTEGER NOT NULL,
  created_by TEXT NOT NULL,
  created_at ${t.bigint} NOT NULL,
  rotated_at ${t.bigint} NOT NULL,
  deleted_at ${t.bigint},
  PRIMARY KEY (tenant, id)
)${t.clustered};
CREATE UNIQUE INDEX key_credentials_by_name ON key_credentials (tenant, name) WHERE deleted_at IS NULL;
CREATE TABLE key_grants (
  tenant TEXT NOT NULL,
  id TEXT NOT NULL,
  parent TEXT NOT NULL,
  session TEXT NOT NULL,
  branch TEXT NOT NULL,
  credential TEXT NOT NULL,
  mode TEXT NOT NULL CHECK (mode IN ('read', 'sandbox', 'live')),
  approval TEXT NOT NULL CHECK (approval IN ('none', 'each-write')),
  allow TEXT NOT NULL,
  expires_at ${t.bigint},
  max_uses ${t.bigint},
  uses ${t.bigint} NOT NULL,
  on_behalf_of TEXT NOT NULL,
  created_by TEXT NOT NULL,
  created_at ${t.bigint} NOT NULL,
  revoked_at ${t.bigint},
  revoked_by TEXT NOT NULL,
  revoke_reason TEXT NOT NULL,
  PRIMARY KEY (tenant, id)
)${t.clustered};
CREATE INDEX key_grants_by_branch ON key_grants (tenant, session, branch);
CREATE INDEX key_grants_by_parent ON key_grants (tenant, parent);
CREATE TABLE key_handles (
  tenant TEXT NOT NULL,
  id TEXT NOT NULL,
  session TEXT NOT NULL,
  branch TEXT NOT NULL,
  principal TEXT NOT NULL,
  secret_hash TEXT NOT NULL,
  created_at ${t.bigint} NOT NULL,
  expires_at ${t.bigint},
  revoked_at ${t.bigint},
  PRIMARY KEY (tenant, id)
)${t.clustered};
CREATE TABLE key_approvals (
  tenant TEXT NOT NULL,
  id TEXT NOT NULL,
  grant_id TEXT NOT NULL,
  session TEXT NOT NULL,
  branch TEXT NOT NULL,
  credential TEXT NOT NULL,
  method TEXT NOT NULL,
  url TEXT NOT NULL,
  body_digest TEXT NOT NULL,
  body_bytes ${t.bigint} NOT NULL,
  preview TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending', 'approved', 'denied', 'expired', 'used')),
  requested_by TEXT NOT NULL,
  requested_at ${t.bigint} NOT NULL,
  expires_at ${t.bigint} NOT NULL,
  decided_by TEXT NOT NULL,
  decided_at ${t.bigint},
  used_at ${t.bigint},
  PRIMARY KEY (tenant, id)
)${t.clustered};
CREATE INDEX key_approvals_by_state ON key_approvals (tenant, state);`;
}

export const KEYS_TABLES: FeatureTables = {
  folder: 'keys',
  tables: KEYS_OWN,
  rowSecured: KEYS_OWN,
  migrations: [
    {
      version: 3,
      name: 'keys: credentials, grants, branch handles, approvals',
      sqlite: keysTables('sqlite'),
      postgres: `${keysTables('postgres')}
${rowLevelSecurityOf(KEYS_OWN)}`,
    },
    {
      version: 4,
      name: 'keys: per-credential proxy options (extra headers, body limit)',
      sqlite: "ALTER TABLE key_credentials ADD COLUMN proxy_options TEXT NOT NULL DEFAULT '{}';",
      postgres: "ALTER TABLE key_credentials ADD COLUMN proxy_options TEXT NOT NULL DEFAULT '{}';",
    },
  ],
};
