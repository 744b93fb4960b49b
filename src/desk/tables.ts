/**
 * The desk's tables: workspaces bound to branches, snapshots (a root tree
 * digest each), the object index (chunk or tree digest → pack range), packs
 * (format 2), and the indexes of packs stored but not yet committed
 * (format 5). docs/design/desk.md describes the objects themselves.
 */
import type { Dialect } from '../storage/engine.js';
import { type FeatureTables, rowLevelSecurity, rowLevelSecurityOf, TYPES } from '../storage/table-sql.js';

/** The desk's staged objects (format 5): checked objects of packs stored but not yet committed. */
export const DESK_STAGED_TABLE = 'desk_staged';

const DESK_FORMAT_2 = ['desk_workspaces', 'desk_snapshots', 'desk_objects', 'desk_packs'] as const;

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

export const DESK_TABLES: FeatureTables = {
  folder: 'desk',
  blobNames: [{ table: 'desk_packs', column: 'digest' }],
  tables: [...DESK_FORMAT_2, DESK_STAGED_TABLE],
  rowSecured: [...DESK_FORMAT_2, DESK_STAGED_TABLE],
  migrations: [
    {
      version: 2,
      name: 'desk: workspaces, snapshots, object index, packs',
      sqlite: deskTables('sqlite'),
      postgres: `${deskTables('postgres')}
${rowLevelSecurityOf(DESK_FORMAT_2)}`,
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
  ],
};
