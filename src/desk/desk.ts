import type { EventId, SessionId, SnapshotId, WorkspaceId } from '../ids.js';
import { DeskContext, type DeskOptions } from './context.js';
import type { Holding } from './created.js';
import type { DiffItem } from './diff.js';
import { Forks } from './fork.js';
import type { GcOptions, GcReport, RepackOption, VerifyReport } from './gc.js';
import type { Guard } from './guard.js';
import { Handles } from './handles.js';
import { Maintenance } from './maintenance.js';
import { type MergeResult, MergeRun } from './merge-run.js';
import { Restore, type RestorePreview, type RestoreResult } from './restore.js';
import type { Snapshot, Workspace } from './rows.js';
import { Scanner } from './scan.js';
import { type CheckpointResult, type SnapshotOptions, Snapshots } from './snapshots.js';
import { Workspaces } from './workspaces.js';

export type { DeskOptions } from './context.js';
export type { Holding } from './created.js';
export type { MergeResult } from './merge-run.js';
export { normalisePath, type RestorePreview, type RestoreResult } from './restore.js';
export type { AlsoAppend, CheckpointResult } from './snapshots.js';
export type { GcOptions, GcReport, RepackOption, VerifyReport };

/**
 * The desk: directories bound to session branches, snapshotted into the
 * tenant's content-addressed store. One Desk acts as one identity on one
 * machine; operations on one workspace run one at a time.
 *
 * `Desk` is the facade: each concern lives in its own module
 * (`workspaces.ts`, `handles.ts`, `scan.ts`, `snapshots.ts`, `restore.ts`,
 * `fork.ts`, `merge-run.ts`, `maintenance.ts`), sharing one `DeskContext`
 * (options, store, objects, guard, clock, mounts, open workspaces).
 */
export class Desk {
  private readonly context: DeskContext;
  /** The secret guard (tests read its counters). */
  private readonly guard: Guard;
  private readonly handles: Handles;
  private readonly workspaces: Workspaces;
  private readonly snapshots: Snapshots;
  private readonly restores: Restore;
  private readonly forks: Forks;
  private readonly merges: MergeRun;
  private readonly maintenance: Maintenance;

  constructor(options: DeskOptions) {
    const context = new DeskContext(options);
    this.context = context;
    this.guard = context.guard;
    const scanner = new Scanner(context);
    this.handles = new Handles(context, scanner);
    this.snapshots = new Snapshots(context, scanner, this.handles);
    this.workspaces = new Workspaces(context, this.handles, this.snapshots);
    this.restores = new Restore(context, this.handles, scanner, this.snapshots);
    this.forks = new Forks(context, this.handles, this.snapshots);
    this.merges = new MergeRun(context, this.handles, this.snapshots);
    this.maintenance = new Maintenance(context);
  }

  // ---- workspaces (workspaces.ts) -------------------------------------------------------------

  /** Binds a directory to a session branch and takes its first snapshot. */
  attach(input: {
    dir: string;
    session?: SessionId;
    branch?: string;
  }): Promise<{ workspace: Workspace; checkpoint: CheckpointResult }> {
    return this.workspaces.attach(input);
  }

  getWorkspace(id: WorkspaceId): Promise<Workspace> {
    return this.workspaces.getWorkspace(id);
  }

  listWorkspaces(): Promise<Workspace[]> {
    return this.workspaces.listWorkspaces();
  }

  /** The workspace attached at a directory on this host (or, when the directory lies inside one, a hint naming it). */
  findWorkspace(dir: string): Promise<Workspace> {
    return this.workspaces.findWorkspace(dir);
  }

  listSnapshots(workspace: WorkspaceId): Promise<Snapshot[]> {
    return this.workspaces.listSnapshots(workspace);
  }

  getSnapshot(id: SnapshotId): Promise<Snapshot> {
    return this.workspaces.getSnapshot(id);
  }

  /**
   * Stops tracking a workspace. A fork's directory can be discarded with it
   * (an overlay fork is unmounted and its upper layer deleted); a directly
   * attached directory is never deleted.
   */
  detach(workspace: WorkspaceId, options: { discard?: boolean } = {}): Promise<Workspace> {
    return this.workspaces.detach(workspace, options);
  }

  /** Whether this desk may discard a workspace's directory: on this host, and created by this desk (created.ts). */
  holds(workspace: Workspace): Holding {
    return this.workspaces.holds(workspace);
  }

  // ---- snapshots (snapshots.ts, scanning in scan.ts) ------------------------------------------

  /**
   * Opens a workspace and brings its model in line with the disk without
   * recording anything, for a long-lived desk (`watch: true`, as in
   * `cairn watch`): from then on a checkpoint looks only at what the watcher
   * saw. What the scan stored and found rides with the next snapshot; if
   * none follows, GC takes the packs it stored after its grace.
   */
  prepare(workspace: WorkspaceId): Promise<void> {
    return this.snapshots.prepare(workspace);
  }

  /** Snapshots the workspace directory if anything changed since its head snapshot. */
  checkpoint(
    workspace: WorkspaceId,
    options: Pick<SnapshotOptions, 'force' | 'also' | 'ifHead' | 'ifMoves' | 'moveHeadTo'> = {},
  ): Promise<CheckpointResult> {
    return this.snapshots.checkpoint(workspace, options);
  }

  // ---- restore and diff (restore.ts) ----------------------------------------------------------

  /**
   * Lists what restoring a snapshot would change: files added, changed and
   * removed, the log events after it, and credentials it would not write.
   */
  previewRestore(
    workspace: WorkspaceId,
    snapshot: SnapshotId,
    options: { paths?: string[] } = {},
  ): Promise<RestorePreview> {
    return this.restores.previewRestore(workspace, snapshot, options);
  }

  /**
   * Restores a snapshot into the workspace directory: checkpoints the current
   * state first (so the restore can be undone), then rewrites only the
   * entries that differ. Never writes a credential path.
   */
  restore(
    workspace: WorkspaceId,
    snapshot: SnapshotId,
    options: { paths?: string[] } = {},
  ): Promise<RestoreResult> {
    return this.restores.restore(workspace, snapshot, options);
  }

  /**
   * Differences between two snapshots, or between a snapshot and the live
   * directory of a workspace (`to` omitted): paths, unified patches for text,
   * sizes for binaries.
   */
  diff(input: {
    from: SnapshotId;
    to?: SnapshotId;
    workspace?: WorkspaceId;
    patches?: boolean;
    paths?: string[];
    /** false: compare with the live directory without checkpointing it (paths and kinds only, no patches). */
    record?: boolean;
  }): Promise<DiffItem[]> {
    return this.restores.diff(input);
  }

  // ---- fork (fork.ts) -------------------------------------------------------------------------

  /**
   * Forks a workspace: checkpoints it, starts a new log branch at that
   * checkpoint, and gives the branch its own directory. The driver is chosen
   * by capability (overlay where this process may mount, else copy) unless
   * named. Writes in either directory never show in the other.
   */
  fork(
    workspace: WorkspaceId,
    input: {
      dir: string;
      branch?: string;
      driver?: 'copy' | 'overlay';
      /** Fork from this earlier snapshot, the new branch starting at `event` (a unit checkpoint), instead of from now. */
      at?: { snapshot: SnapshotId; event: EventId };
    },
  ): Promise<{ workspace: Workspace; checkpoint: CheckpointResult | null; redacted: string[] }> {
    return this.forks.fork(workspace, input);
  }

  // ---- merge (merge-run.ts) -------------------------------------------------------------------

  /**
   * Three-way merge of one workspace into another, base = the fork snapshot.
   * Clean changes are written; conflicts are written with markers and
   * returned with the base, ours and theirs texts. The target is then
   * checkpointed (kind `merge`).
   */
  merge(input: { from: WorkspaceId; into: WorkspaceId }): Promise<MergeResult> {
    return this.merges.merge(input);
  }

  // ---- verify and gc (maintenance.ts) ---------------------------------------------------------

  /** Walks every tree from every snapshot root, re-hashing each object once; stops at the first problem. */
  verify(): Promise<VerifyReport> {
    return this.maintenance.verify();
  }

  /**
   * Retention, then mark and sweep (see gc.ts; with `repack`, packs only
   * partly garbage rewritten: repack.ts), then this host's overlay lower
   * layers no attached fork uses.
   */
  gc(options: GcOptions = {}): Promise<GcReport> {
    return this.maintenance.gc(options);
  }

  /** Writes stat caches so the next process need not re-read unchanged files, and stops watchers. */
  async close(): Promise<void> {
    await this.handles.close();
    this.context.mounter.close();
    await this.guard.close();
  }
}
