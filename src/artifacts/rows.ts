/**
 * Artifacts' rows as their answers: the record's columns, its inputs, and a
 * live record by id (NOT_FOUND for another tenant's, a removed one and one
 * still being written alike). Only src/artifacts/ reads these tables.
 */
import type { z } from 'zod';
import { notFound } from '../errors.js';
import type { ArtifactId, EventId, SessionId, SnapshotId } from '../ids.js';
import { inBatches, placeholders, type SqlExecutor } from '../storage/engine.js';
import type * as shape from './shapes.js';

export type Artifact = z.output<typeof shape.Artifact>;

export interface ArtifactRow {
  id: string;
  state: string;
  name: string;
  media_type: string;
  description: string;
  size: number;
  digest: string;
  session: string;
  branch: string;
  event: string;
  checkpoint: string;
  snapshot: string;
  path: string;
  step: number | null;
  step_event: string;
  source_event: string;
  owner: string;
  created_at: number;
  expires_at: number | null;
}

export const COLUMNS =
  'id, state, name, media_type, description, size, digest, session, branch, event, checkpoint, snapshot, path, step, step_event, source_event, owner, created_at, expires_at';

/** Inputs of a set of artifacts, by artifact. */
async function inputsOf(
  tx: SqlExecutor,
  tenant: string,
  ids: readonly string[],
): Promise<Map<string, { kind: string; ref: string; path: string }[]>> {
  const out = new Map<string, { kind: string; ref: string; path: string }[]>();
  await inBatches([...ids], async (slice) => {
    const rows = await tx.all<{ artifact: string; kind: string; ref: string; path: string }>(
      `SELECT artifact, kind, ref, path FROM artifact_inputs WHERE tenant = ? AND artifact IN (${placeholders(slice.length)}) ORDER BY artifact, kind, ref, path`,
      [tenant, ...slice],
    );
    for (const r of rows) out.set(r.artifact, [...(out.get(r.artifact) ?? []), r]);
  });
  return out;
}

export async function toArtifacts(tx: SqlExecutor, tenant: string, rows: ArtifactRow[]): Promise<Artifact[]> {
  const inputs = await inputsOf(
    tx,
    tenant,
    rows.map((r) => r.id),
  );
  return rows.map((r) => {
    const mine = inputs.get(r.id) ?? [];
    return {
      id: r.id as ArtifactId,
      name: r.name,
      mediaType: r.media_type,
      description: r.description,
      size: Number(r.size),
      digest: r.digest,
      event: r.event as EventId,
      lineage: {
        session: r.session as SessionId,
        branch: r.branch,
        checkpoint: r.checkpoint as EventId | '',
        snapshot: r.snapshot as SnapshotId | '',
        path: r.path,
        step: r.step === null ? null : Number(r.step),
        stepEvent: r.step_event as EventId | '',
        event: r.source_event as EventId | '',
        inputs: mine.filter((i) => i.kind === 'artifact').map((i) => i.ref as ArtifactId),
        inputFiles: mine
          .filter((i) => i.kind === 'snapshot')
          .map((i) => ({ snapshot: i.ref as SnapshotId, path: i.path })),
      },
      owner: r.owner,
      createdAt: Number(r.created_at),
      expiresAt: r.expires_at === null ? null : Number(r.expires_at),
    };
  });
}

/** A live artifact's row, or NOT_FOUND (another tenant's, a removed one and one still being written alike). */
export async function liveRow(tx: SqlExecutor, tenant: string, id: string): Promise<ArtifactRow> {
  const row = await tx.get<ArtifactRow>(
    `SELECT ${COLUMNS} FROM artifacts WHERE tenant = ? AND id = ? AND state = 'live'`,
    [tenant, id],
  );
  if (!row) throw notFound('artifact', id);
  return row;
}
