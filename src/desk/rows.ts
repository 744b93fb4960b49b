import type { z } from 'zod';
import { type CairnError, conflict, notFound } from '../errors.js';
import { lockTenant } from '../identity/identity-store.js';
import type { EventId, SessionId, SnapshotId, WorkspaceId } from '../ids.js';
import type { SqlExecutor } from '../storage/engine.js';
import type * as shape from './shapes.js';

export type Driver = 'plain' | 'copy' | 'overlay';
export type SnapshotKind = 'checkpoint' | 'restore' | 'merge';

export interface WorkspaceRow {
  tenant: string;
  id: WorkspaceId;
  host: string;
  path: string;
  session: SessionId;
  branch: string;
  driver: Driver;
  state: 'attached' | 'detached';
  base_snapshot: SnapshotId;
  head_snapshot: SnapshotId;
  forked_from: WorkspaceId | '';
  created_at: number;
}

export interface SnapshotRow {
  tenant: string;
  id: SnapshotId;
  workspace: WorkspaceId;
  kind: SnapshotKind;
  root: string;
  parent: SnapshotId | '';
  event: EventId;
  files: number;
  bytes: number;
  added_bytes: number;
  created_at: number;
}

/** A directory bound to a session branch, and a snapshot of one: their shapes are declared once, in ./shapes.ts. */
export type Workspace = z.output<typeof shape.Workspace>;
export type Snapshot = z.output<typeof shape.Snapshot>;

export const WORKSPACE_COLUMNS =
  'tenant, id, host, path, session, branch, driver, state, base_snapshot, head_snapshot, forked_from, created_at';
export const SNAPSHOT_COLUMNS =
  'tenant, id, workspace, kind, root, parent, event, files, bytes, added_bytes, created_at';

export function toWorkspace(r: WorkspaceRow): Workspace {
  return {
    id: r.id,
    dir: r.path,
    host: r.host,
    session: r.session,
    branch: r.branch,
    driver: r.driver,
    state: r.state,
    baseSnapshot: r.base_snapshot,
    headSnapshot: r.head_snapshot,
    forkedFrom: r.forked_from,
    createdAt: Number(r.created_at),
  };
}

export function toSnapshot(r: SnapshotRow): Snapshot {
  return {
    id: r.id,
    workspace: r.workspace,
    kind: r.kind,
    root: r.root,
    parent: r.parent,
    event: r.event,
    files: Number(r.files),
    bytes: Number(r.bytes),
    addedBytes: Number(r.added_bytes),
    createdAt: Number(r.created_at),
  };
}

function normalise<
  T extends { files?: unknown; bytes?: unknown; added_bytes?: unknown; created_at: unknown },
>(r: T): T {
  const out = { ...r, created_at: Number(r.created_at) };
  for (const key of ['files', 'bytes', 'added_bytes'] as const) {
    if (key in r) (out as Record<string, unknown>)[key] = Number(r[key]);
  }
  return out;
}

export async function workspaceRow(
  tx: SqlExecutor,
  tenant: string,
  id: string,
  lock = '',
): Promise<WorkspaceRow> {
  const row = await tx.get<WorkspaceRow>(
    `SELECT ${WORKSPACE_COLUMNS} FROM desk_workspaces WHERE tenant = ? AND id = ? ${lock}`,
    [tenant, id],
  );
  if (!row) throw notFound('workspace', id);
  return normalise(row);
}

export async function snapshotRow(tx: SqlExecutor, tenant: string, id: string): Promise<SnapshotRow> {
  const row = await tx.get<SnapshotRow>(
    `SELECT ${SNAPSHOT_COLUMNS} FROM desk_snapshots WHERE tenant = ? AND id = ?`,
    [tenant, id],
  );
  if (!row) throw notFound('snapshot', id);
  return normalise(row);
}

/** A primary-key clash: the id the caller proposed is taken (SQLite, or PostgreSQL's `…_pkey`). */
function idTaken(error: unknown): boolean {
  const e = error as { code?: string; constraint?: string };
  return (
    e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ||
    (e.code === '23505' && (e.constraint ?? '').endsWith('_pkey'))
  );
}

function taken(what: string, id: string): CairnError {
  return conflict(`${what} id ${id} is taken: propose another (a fresh random id)`, { id });
}

export async function insertSnapshot(tx: SqlExecutor, r: SnapshotRow): Promise<void> {
  try {
    await insertSnapshotRow(tx, r);
  } catch (error) {
    if (idTaken(error)) throw taken('snapshot', r.id);
    throw error;
  }
}

async function insertSnapshotRow(tx: SqlExecutor, r: SnapshotRow): Promise<void> {
  await tx.run(`INSERT INTO desk_snapshots (${SNAPSHOT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
    r.tenant,
    r.id,
    r.workspace,
    r.kind,
    r.root,
    r.parent,
    r.event,
    r.files,
    r.bytes,
    r.added_bytes,
    r.created_at,
  ]);
}

export async function insertWorkspace(tx: SqlExecutor, r: WorkspaceRow): Promise<void> {
  try {
    await tx.run(
      `INSERT INTO desk_workspaces (${WORKSPACE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        r.tenant,
        r.id,
        r.host,
        r.path,
        r.session,
        r.branch,
        r.driver,
        r.state,
        r.base_snapshot,
        r.head_snapshot,
        r.forked_from,
        r.created_at,
      ],
    );
  } catch (error) {
    if (idTaken(error)) throw taken('workspace', r.id);
    const code = (error as { code?: string }).code;
    if (code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE') throw alreadyAttached(r.path);
    throw error;
  }
}

export function alreadyAttached(path: string, id?: string): CairnError {
  return conflict(
    `${path} is already attached${id ? ` as workspace ${id}` : ''}: use that workspace, or detach it first`,
    { path, ...(id ? { workspace: id } : {}) },
  );
}

/**
 * Serialises the transactions that decide what the desk references: a
 * snapshot commit (which checks its reused objects still exist) and a GC
 * sweep or retention pass (which decides they are garbage). On PostgreSQL
 * they would otherwise each see the other's work uncommitted and both
 * commit; on SQLite writers are serial already and this is a plain read.
 */
export async function lockDesk(tx: SqlExecutor, tenant: string): Promise<void> {
  await lockTenant(tx, tenant);
}
