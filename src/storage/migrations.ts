import { unsupportedFormat } from '../errors.js';
import { TYPES } from './column-types.js';
import type { Dialect } from './engine.js';
import { ANCHORS_BY_LINE, memoryTables, recallFilterSqlite } from './memory-tables.js';

export { RECALL_KEY_SPAN } from './memory-tables.js';

/**
 * The one ordered list of schema migrations, each engine's SQL side by side.
 * A store's format version is the number of migrations applied to it; a store
 * whose version is higher than this list's length was written by a newer
 * Cairn and is refused (see docs/design/store-format.md).
 */
export interface Migration {
  version: number;
  name: string;
  sqlite: string;
  postgres: string;
}

/** Tables that hold tenant-owned rows; on PostgreSQL each gets row-level security. */
export const TENANT_TABLES = [
  'principals',
  'tokens',
  'sessions',
  'branches',
  'lines',
  'events',
  'ref_log',
  'audit_entries',
  'audit_payloads',
  'audit_heads',
  'blobs',
] as const;

/** Tenant tables of the desk (migration 2). */
export const DESK_TABLES = ['desk_workspaces', 'desk_snapshots', 'desk_objects', 'desk_packs'] as const;

/** The desk's staged objects (migration 5): checked objects of packs stored but not yet committed. */
export const DESK_STAGED_TABLE = 'desk_staged';

/** Tenant tables of the keys (migration 3). */
export const KEYS_TABLES = ['key_credentials', 'key_grants', 'key_handles', 'key_approvals'] as const;

/** Tenant tables of memory (migration 6); on SQLite each tenant's full-text index is a table of its own. */
export const MEMORY_TABLES = ['memory_records', 'memory_anchors', 'memory_derived'] as const;

function rowLevelSecurity(table: string, column = 'tenant'): string {
  return `
ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY;
ALTER TABLE ${table} FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON ${table}
  USING (${column} = current_setting('cairn.tenant', true))
  WITH CHECK (${column} = current_setting('cairn.tenant', true));`;
}

function foundationTables(d: Dialect): string {
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
)${t.clustered};
CREATE TABLE sessions (
  tenant TEXT NOT NULL,
  id TEXT NOT NULL,
  owner TEXT NOT NULL,
  title TEXT NOT NULL,
  meta TEXT NOT NULL,
  created_at ${t.bigint} NOT NULL,
  PRIMARY KEY (tenant, id)
)${t.clustered};
CREATE TABLE branches (
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
)${t.clustered};
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
)${t.clustered};
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
)${t.clustered};
CREATE TABLE blobs (
  tenant TEXT NOT NULL,
  digest TEXT NOT NULL,
  size ${t.bigint} NOT NULL,
  bytes ${t.bytes} NOT NULL,
  PRIMARY KEY (tenant, digest)
);`;
}

/**
 * The desk: workspaces bound to branches, snapshots (a root tree digest
 * each), the object index (chunk or tree digest → pack range) and packs.
 * docs/design/desk.md describes the objects themselves.
 */
function deskTables(d: Dialect): string {
  const t = TYPES[d];
  return `
CREATE TABLE desk_workspaces (
  tenant TEXT NOT NULL,
  id TEXT NOT NULL,
  host TEXT NOT NULL,
  path TEXT NOT NULL,
  session TEXT NOT NULL,
  branch TEXT NOT NULL,
  driver TEXT NOT NULL CHECK (driver IN ('plain', 'copy', 'overlay')),
  state TEXT NOT NULL CHECK (state IN ('attached', 'detached')),
  base_snapshot TEXT NOT NULL,
  head_snapshot TEXT NOT NULL,
  forked_from TEXT NOT NULL,
  created_at ${t.bigint} NOT NULL,
  PRIMARY KEY (tenant, id)
)${t.clustered};
CREATE UNIQUE INDEX desk_workspaces_attached ON desk_workspaces (host, path) WHERE state = 'attached';
CREATE TABLE desk_snapshots (
  tenant TEXT NOT NULL,
  id TEXT NOT NULL,
  workspace TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('checkpoint', 'restore', 'merge')),
  root TEXT NOT NULL,
  parent TEXT NOT NULL,
  event TEXT NOT NULL,
  files ${t.bigint} NOT NULL,
  bytes ${t.bigint} NOT NULL,
  added_bytes ${t.bigint} NOT NULL,
  created_at ${t.bigint} NOT NULL,
  PRIMARY KEY (tenant, id)
)${t.clustered};
CREATE INDEX desk_snapshots_by_workspace ON desk_snapshots (tenant, workspace, created_at);
CREATE TABLE desk_objects (
  tenant TEXT NOT NULL,
  digest TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('chunk', 'tree')),
  pack TEXT NOT NULL,
  off ${t.bigint} NOT NULL,
  len ${t.bigint} NOT NULL,
  PRIMARY KEY (tenant, digest)
)${t.clustered};
CREATE INDEX desk_objects_by_pack ON desk_objects (tenant, pack);
CREATE TABLE desk_packs (
  tenant TEXT NOT NULL,
  digest TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('writing', 'live')),
  size ${t.bigint} NOT NULL,
  created_at ${t.bigint} NOT NULL,
  inline INTEGER NOT NULL CHECK (inline IN (0, 1)),
  bytes ${t.bytes},
  PRIMARY KEY (tenant, digest)
);`;
}

/**
 * The keys: credentials (sealed values only: a data key wrapped by the
 * operator's master key, and the values sealed by the data key), grants bound
 * to one branch, branch handles (only a hash of the secret part) and
 * approvals of single requests. docs/design/keys.md describes the formats.
 */
/**
 * A stored pack's index (the bytes that end the pack: see
 * desk/pack-format.ts), one row per pack, written when the pack is announced
 * (for a pack that came over the network, after its objects were checked
 * against their digests). The snapshot commit that names the pack inserts
 * its objects into desk_objects and deletes the row; GC drops the rows of
 * packs abandoned mid-write.
 */
function stagedTable(d: Dialect): string {
  const t = TYPES[d];
  return `
CREATE TABLE ${DESK_STAGED_TABLE} (
  tenant TEXT NOT NULL,
  pack TEXT NOT NULL,
  entries ${t.bytes} NOT NULL,
  PRIMARY KEY (tenant, pack)
)${t.clustered};`;
}

/**
 * Format 2 made a directory unique per host across all tenants, so one
 * tenant could hold a host and path (host names come from the desk's side)
 * and keep another from attaching it, learning that it was taken. Unique
 * within a tenant instead.
 */
const ATTACHED_PER_TENANT = `
DROP INDEX desk_workspaces_attached;
CREATE UNIQUE INDEX desk_workspaces_attached ON desk_workspaces (tenant, host, path) WHERE state = 'attached';`;

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

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'foundation: identity, session log, audit chain, blobs',
    sqlite: foundationTables('sqlite'),
    postgres: `${foundationTables('postgres')}
${rowLevelSecurity('tenants', 'id')}
${TENANT_TABLES.map((table) => rowLevelSecurity(table)).join('\n')}`,
  },
  {
    version: 2,
    name: 'desk: workspaces, snapshots, object index, packs',
    sqlite: deskTables('sqlite'),
    postgres: `${deskTables('postgres')}
${DESK_TABLES.map((table) => rowLevelSecurity(table)).join('\n')}`,
  },
  {
    version: 3,
    name: 'keys: credentials, grants, branch handles, approvals',
    sqlite: keysTables('sqlite'),
    postgres: `${keysTables('postgres')}
${KEYS_TABLES.map((table) => rowLevelSecurity(table)).join('\n')}`,
  },
  {
    version: 4,
    name: 'keys: per-credential proxy options (extra headers, body limit)',
    sqlite: "ALTER TABLE key_credentials ADD COLUMN proxy_options TEXT NOT NULL DEFAULT '{}';",
    postgres: "ALTER TABLE key_credentials ADD COLUMN proxy_options TEXT NOT NULL DEFAULT '{}';",
  },
  {
    version: 5,
    name: 'desk: staged packs; a directory attached once per host within a tenant',
    sqlite: `${stagedTable('sqlite')}
${ATTACHED_PER_TENANT}`,
    postgres: `${stagedTable('postgres')}
${rowLevelSecurity(DESK_STAGED_TABLE)}
${ATTACHED_PER_TENANT}`,
  },
  {
    version: 6,
    name: 'memory: records with provenance and versions, branch anchors, derivation edges, full-text',
    sqlite: memoryTables('sqlite'),
    postgres: `${memoryTables('postgres')}
${MEMORY_TABLES.map((table) => rowLevelSecurity(table)).join('\n')}`,
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
];

export const CURRENT_FORMAT_VERSION = MIGRATIONS.length;

/** What a store's engine needs to offer for its migrations to run. */
export interface MigrationTarget {
  dialect: Dialect;
  /** The store's format version, 0 for an empty store. */
  formatVersion(): Promise<number>;
  /** Applies one migration and records its version, atomically. */
  apply(migration: Migration): Promise<void>;
}

/**
 * Brings a store up to this build's format version. Refuses a store written
 * by a newer Cairn rather than guessing at its layout.
 */
export async function migrate(target: MigrationTarget, where: string): Promise<number> {
  const version = await target.formatVersion();
  if (version > CURRENT_FORMAT_VERSION) {
    throw unsupportedFormat(
      `store at ${where} has format version ${version}, newer than this Cairn understands (${CURRENT_FORMAT_VERSION}): upgrade Cairn to open it`,
      { storeVersion: version, supportedVersion: CURRENT_FORMAT_VERSION },
    );
  }
  for (const migration of MIGRATIONS) {
    if (migration.version > version) await target.apply(migration);
  }
  return CURRENT_FORMAT_VERSION;
}
