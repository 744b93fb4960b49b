/**
 * Listing a unit's checkpoints (the operation `listCheckpoints`): they are
 * `cairn.unit.checkpoint` events of the session log, read on every branch —
 * a checkpoint a restore went back before is off its branch's path, and
 * still restorable — each joined with its snapshot's size.
 */
import type { z } from 'zod';
import { deskStoreOf } from '../desk/store-side.js';
import { invalidArgument } from '../errors.js';
import type { EventId, SessionId, SnapshotId, WorkspaceId } from '../ids.js';
import * as log from '../log/session-log.js';
import type { OpContext } from '../ops/op.js';
import type { CheckpointEntry, GitEvidence } from './shapes.js';
import { UNIT_CHECKPOINT_EVENT } from './unit.js';

type Entry = z.output<typeof CheckpointEntry>;

/** What a listing asks for, its workspace (if any) already an id. */
export interface CheckpointQuery {
  workspace?: string;
  session?: SessionId;
  branch?: string;
  before?: EventId;
  limit: number;
}

/** A checkpoint event's payload, as Units writes it (unit.ts). */
interface Recorded {
  label?: string;
  head?: EventId | '';
  workspace?: WorkspaceId;
  snapshot?: SnapshotId;
  inDoubt?: unknown[];
  evidence?: { git?: z.output<typeof GitEvidence>; checks?: { command: string; passed: boolean }[] };
  accepted?: boolean;
}

/** Events read per query while a workspace's checkpoints are picked out of its branch's. */
const BATCH = 200;

/** The checkpoints a query names, newest first, and whether older ones exist. */
export async function listCheckpoints(
  ctx: OpContext,
  query: CheckpointQuery,
): Promise<{ items: Entry[]; next: EventId | null }> {
  const { session, branch, workspace } = await target(ctx, query);
  // A workspace's checkpoints are taken on its branch: the branch narrows the read, the payload picks them.
  const placed = await ctx.read(async (tx) => {
    const found: log.PlacedEvent[] = [];
    let before: string | undefined = query.before;
    for (;;) {
      const batch = await log.eventsOfKind(tx, ctx.who, {
        session,
        kind: UNIT_CHECKPOINT_EVENT,
        branch,
        before,
        limit: workspace === undefined ? query.limit + 1 : BATCH,
      });
      for (const p of batch)
        if (workspace === undefined || (p.event.payload as Recorded).workspace === workspace) found.push(p);
      if (workspace === undefined || found.length > query.limit || batch.length < BATCH) break;
      before = batch[batch.length - 1]?.event.id;
    }
    const page = found.slice(0, query.limit);
    // Whether each lies on its branch's path now: (line, seq) inside one of the path's stretches.
    const paths = new Map<string, log.Segment[]>();
    for (const name of new Set(page.map((p) => p.event.branch)))
      paths.set(name, await log.branchPath(tx, ctx.who, session, name));
    return {
      page: page.map((p) => ({
        ...p,
        onPath: (paths.get(p.event.branch) ?? []).some(
          (s) => s.line === p.line && Number(s.lo) <= p.event.seq && p.event.seq <= Number(s.hi),
        ),
      })),
      more: found.length > query.limit,
    };
  });
  const snapshots = new Map(
    (
      await deskStoreOf(ctx).snapshots(
        placed.page.map((p) => (p.event.payload as Recorded).snapshot ?? '').filter((s) => s !== ''),
      )
    ).map((s) => [s.id, s]),
  );
  const items = placed.page.map(({ event, onPath }): Entry => {
    const recorded = event.payload as Recorded;
    const snapshot = recorded.snapshot ? snapshots.get(recorded.snapshot) : undefined;
    return {
      id: event.id,
      label: recorded.label ?? '',
      createdAt: event.at,
      session: event.session,
      branch: event.branch,
      workspace: recorded.workspace ?? ('' as WorkspaceId),
      onBranchPath: onPath,
      accepted: recorded.accepted === true,
      head: recorded.head ?? '',
      snapshot: recorded.snapshot ?? ('' as SnapshotId),
      files: snapshot?.files ?? 0,
      bytes: snapshot?.bytes ?? 0,
      inDoubt: recorded.inDoubt?.length ?? 0,
      checks: (recorded.evidence?.checks ?? []).map((c) => ({ command: c.command, passed: c.passed })),
      ...(recorded.evidence?.git ? { git: recorded.evidence.git } : {}),
    };
  });
  const last = items[items.length - 1];
  return { items, next: placed.more && last ? last.id : null };
}

/** The session (and branch, workspace) a query reads: a workspace's own, or the session named. */
async function target(
  ctx: OpContext,
  query: CheckpointQuery,
): Promise<{ session: SessionId; branch?: string; workspace?: WorkspaceId }> {
  if (query.workspace === undefined) {
    if (query.session === undefined)
      throw invalidArgument('name the workspace (ws_…) or the session (ss_…) whose checkpoints to list', {
        field: 'workspace',
      });
    return { session: query.session, branch: query.branch };
  }
  if (!query.workspace.startsWith('ws_'))
    throw invalidArgument(
      `workspace "${query.workspace.slice(0, 200)}" is not a workspace id: here a workspace is named by its id (ws_…); a directory names one only on the machine that holds it`,
      { field: 'workspace' },
    );
  const ws = await deskStoreOf(ctx).workspace(query.workspace);
  if (query.session !== undefined && query.session !== ws.session)
    throw invalidArgument(
      `workspace ${ws.id} is of session ${ws.session}, not ${query.session}: name one of them`,
      { field: 'session', workspace: ws.id },
    );
  // A branch other than the workspace's holds none of its checkpoints: the answer is empty, as asked.
  return { session: ws.session, branch: query.branch ?? ws.branch, workspace: ws.id };
}
