import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { conflict, invalidArgument as invalid } from '../errors.js';
import type { SnapshotId, WorkspaceId } from '../ids.js';
import type { DeskContext } from './context.js';
import type { Handles } from './handles.js';
import {
  hasConflictMarkers,
  isMergedFile,
  type MergeConflict,
  type MergedEntry,
  mergeTrees,
} from './merge.js';
import { dirNode, flatten } from './model.js';
import type { Snapshot, Workspace } from './rows.js';
import type { Snapshots } from './snapshots.js';
import { type Entry, type FileEntry, sameEntry } from './types.js';

/** A workspace's line of snapshots, with what each merge took in (the merged workspace and its snapshot). */
type Line = Map<SnapshotId, { snapshot: Snapshot; merged?: { from: WorkspaceId; theirs: SnapshotId } }>;

export interface MergeResult {
  snapshot: Snapshot;
  base: string;
  ours: string;
  theirs: string;
  /** Paths the merge wrote into the target workspace. */
  changed: string[];
  conflicts: MergeConflict[];
}

/**
 * Merging one workspace into another: finds the fork point, refuses while
 * the last merge's markers remain, checkpoints both sides, runs the
 * three-way merge (merge.ts), writes its result and records it.
 */
export class MergeRun {
  constructor(
    private readonly ctx: DeskContext,
    private readonly handles: Handles,
    private readonly snapshots: Snapshots,
  ) {}

  /**
   * The base of a merge: the latest earlier merge between the two workspaces
   * (either way) whose result and merged side both still lie on their
   * workspaces' lines — its merged side is then in both — else the fork
   * point. So a second merge from one fork does not re-conflict what the
   * first resolved, and a merge undone by a restore no longer counts.
   */
  private async mergeBase(from: Workspace, into: Workspace): Promise<SnapshotId> {
    const forkPoint = this.forkPoint(from, into);
    const [fromLine, intoLine] = await Promise.all([this.lineOf(from), this.lineOf(into)]);
    let best: { at: number; base: SnapshotId } | undefined;
    const consider = (line: Line, other: Line, otherId: WorkspaceId) => {
      for (const { snapshot, merged } of line.values()) {
        if (!merged || merged.from !== otherId || !other.has(merged.theirs)) continue;
        if (!best || snapshot.createdAt >= best.at) best = { at: snapshot.createdAt, base: merged.theirs };
      }
    };
    consider(intoLine, fromLine, from.id);
    consider(fromLine, intoLine, into.id);
    return best?.base ?? forkPoint;
  }

  private forkPoint(from: Workspace, into: Workspace): SnapshotId {
    if (from.forkedFrom === into.id) return from.baseSnapshot;
    if (into.forkedFrom === from.id) return into.baseSnapshot;
    if (
      from.forkedFrom !== '' &&
      from.forkedFrom === into.forkedFrom &&
      from.baseSnapshot === into.baseSnapshot
    ) {
      return from.baseSnapshot;
    }
    throw invalid(
      `workspaces ${from.id} and ${into.id} share no fork point: merge a fork into its parent (or the parent into a fork)`,
      { from: from.id, into: into.id },
    );
  }

  /**
   * The snapshots a workspace's content descends from: its head, then each
   * parent — except that a restore's content is its target's, so the line
   * goes on from the snapshot it restored, not from the state it replaced.
   */
  private async lineOf(ws: Workspace): Promise<Line> {
    const store = this.ctx.store;
    const own = new Map((await store.listSnapshots(ws.id)).map((s) => [s.id, s]));
    const line: Line = new Map();
    let at = ws.headSnapshot ? own.get(ws.headSnapshot) : undefined;
    while (at && !line.has(at.id)) {
      const payload =
        at.kind === 'merge' || at.kind === 'restore'
          ? ((await store.getEvent(at.event)).payload as Record<string, unknown>)
          : {};
      const merged =
        at.kind === 'merge' && typeof payload.from === 'string' && typeof payload.theirs === 'string'
          ? { from: payload.from as WorkspaceId, theirs: payload.theirs as SnapshotId }
          : undefined;
      line.set(at.id, { snapshot: at, merged });
      const next =
        at.kind === 'restore' && typeof payload.restored === 'string' ? payload.restored : at.parent;
      at = own.get(next as SnapshotId);
    }
    return line;
  }

  /**
   * Refuses a merge into a workspace whose last merge left conflict markers
   * that are still there: a second merge would nest markers in them.
   */
  private async refuseUnresolvedMerge(into: Workspace): Promise<void> {
    const last = (await this.ctx.store.listSnapshots(into.id)).filter((s) => s.kind === 'merge').pop();
    if (!last) return;
    const event = await this.ctx.store.getEvent(last.event);
    const conflicts = (event.payload as { conflicts?: string[] }).conflicts ?? [];
    const unresolved = conflicts.filter((path) => {
      const abs = join(into.dir, path);
      const st = lstatSync(abs, { throwIfNoEntry: false });
      return st?.isFile() === true && hasConflictMarkers(readFileSync(abs, 'utf8'));
    });
    if (unresolved.length === 0) return;
    throw conflict(
      `${unresolved.length} file(s) still hold conflict markers from merge ${last.id} (${unresolved.slice(0, 5).join(', ')}): resolve them and run \`cairn ws checkpoint\`, or abort that merge with \`cairn ws restore ${last.parent}\`, then merge again`,
      { workspace: into.id, merge: last.id, unresolved, abort: last.parent },
    );
  }

  /**
   * Three-way merge of one workspace into another, base = the last merge
   * between them still in both (else the fork snapshot).
   * Clean changes are written; conflicts are written with markers and
   * returned with the base, ours and theirs texts. The target is then
   * checkpointed (kind `merge`).
   */
  async merge(input: { from: WorkspaceId; into: WorkspaceId }): Promise<MergeResult> {
    const ctx = this.ctx;
    if (input.from === input.into)
      throw invalid('a workspace cannot be merged into itself', { workspace: input.from });
    const [fromRow, intoRow] = await Promise.all([
      ctx.store.workspace(input.from),
      ctx.store.workspace(input.into),
    ]);
    const baseId = await this.mergeBase(fromRow, intoRow);
    await this.refuseUnresolvedMerge(intoRow);
    const theirs = (await this.snapshots.checkpoint(input.from)).snapshot;
    return this.handles.withHandle(input.into, async (h) => {
      const ours = (await this.snapshots.snapshot(h, 'checkpoint')).snapshot;
      const base = await ctx.snapshotById(baseId);
      const maps = await Promise.all(
        [base.root, ours.root, theirs.root].map((r) => flatten(ctx.objects, dirNode(r))),
      );
      const merged = await mergeTrees(maps[0]!, maps[1]!, maps[2]!, (e) => ctx.content(e), {
        ours: `${intoRow.branch} (${input.into})`,
        theirs: `${fromRow.branch} (${input.from})`,
      });
      await writeMerge(h.row.dir, maps[1]!, merged.entries, (e) => ctx.content(e));
      h.fullScan = true;
      const result = await this.snapshots.snapshot(h, 'merge', {
        force: true,
        payload: {
          from: input.from,
          base: baseId,
          theirs: theirs.id,
          conflicts: merged.conflicts.map((c) => c.path),
        },
      });
      return {
        snapshot: result.snapshot,
        base: baseId,
        ours: ours.id,
        theirs: theirs.id,
        changed: merged.changed,
        conflicts: merged.conflicts,
      };
    });
  }
}

/** Writes a merge result over the target directory: changed entries written, entries gone from the result removed. */
async function writeMerge(
  root: string,
  ours: Map<string, Entry>,
  entries: Map<string, MergedEntry>,
  read: (e: FileEntry) => Promise<Buffer>,
): Promise<void> {
  const removed = [...ours.keys()]
    .filter((p) => !entries.has(p))
    .sort()
    .reverse();
  for (const path of removed) {
    const abs = join(root, path);
    const st = lstatSync(abs, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isDirectory()) {
      try {
        rmdirSync(abs);
      } catch {
        // untracked files keep it
      }
    } else unlinkSync(abs);
  }
  for (const [path, entry] of [...entries].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const before = ours.get(path);
    if (!isMergedFile(entry) && before && sameEntry(before, entry)) continue;
    const abs = join(root, path);
    const st = lstatSync(abs, { throwIfNoEntry: false });
    if (entry.kind === 'dir') {
      if (st && !st.isDirectory()) unlinkSync(abs);
      if (!st?.isDirectory()) mkdirSync(abs, { recursive: true });
      continue;
    }
    if (st?.isDirectory()) rmSync(abs, { recursive: true });
    else if (st) unlinkSync(abs);
    if (entry.kind === 'symlink') symlinkSync(entry.target, abs);
    else {
      const bytes = isMergedFile(entry) ? entry.content : await read(entry);
      writeFileSync(abs, bytes);
      chmodSync(abs, entry.exec ? 0o755 : 0o644);
    }
  }
}
