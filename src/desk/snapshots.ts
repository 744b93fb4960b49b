import { CairnError, conflict } from '../errors.js';
import { type EventId, newId, type WorkspaceId } from '../ids.js';
import type { CairnEvent } from '../types.js';
import type { DeskContext, Handle, Prepared } from './context.js';
import { type AttachInput, type CommitInput, RETRY } from './desk-store.js';
import { blocksCheckpoint, guardFailure, type SecretFinding } from './guard.js';
import type { Handles } from './handles.js';
import {
  type DirNode,
  dirNode,
  findDir,
  redactedPaths,
  refreshEntry,
  rescan,
  seal,
  settleFiles,
} from './model.js';
import type { PackWriter } from './objects.js';
import type { Snapshot, SnapshotKind } from './rows.js';
import type { Dirty, Scanner } from './scan.js';

export interface CheckpointResult {
  snapshot: Snapshot;
  /** false when nothing changed since the head snapshot (no new snapshot, no event). */
  created: boolean;
  /** Credentials kept out of the snapshot: rule, path, line, confidence and action, never the value. */
  findings: SecretFinding[];
  /** Entries of this scan withheld whole (paths as in findings: a secret-bearing name redacted). */
  withheld: string[];
  /** Files of the snapshot whose stored copy has secret spans redacted (the files on disk are untouched). */
  redacted: string[];
  /** Entries a snapshot cannot hold (sockets, FIFOs, devices), left out. */
  unsupported: string[];
  /** The event `alsoAppend` asked for, committed with the snapshot. */
  appended?: CairnEvent;
}

/**
 * An event to append in the same transaction as a new snapshot, right after
 * the snapshot's own event (so one commit records both); its payload gets the
 * snapshot's `snapshot`, `root` and `head` (the snapshot's event) filled in.
 */
export type AlsoAppend = NonNullable<CommitInput['also']>;

/** How a snapshot is taken and recorded (internal to the desk). */
export interface SnapshotOptions {
  /** Record a snapshot even when nothing changed. */
  force?: boolean;
  /** Extra fields of the snapshot's log event. */
  payload?: Record<string, unknown>;
  /** Objects the snapshot names without having written or looked them up (checked at commit). */
  alsoNamed?: string[];
  /** The model is known to match the disk (a restore just wrote it): record it without scanning. */
  noScan?: boolean;
  /** Scan only: keep what the scan stored and found for the next snapshot, record nothing (see `prepare`). */
  prepare?: boolean;
  also?: AlsoAppend;
  /** The branch head must still be this event when the snapshot commits, else CONFLICT and nothing is recorded. */
  ifHead?: EventId | '';
  /** ... set this many times (see CommitInput.ifMoves). */
  ifMoves?: number;
  /** After its events, the snapshot's transaction moves the branch head to this event (a unit restore). */
  moveHeadTo?: EventId;
  /** The snapshot is a new workspace's first: the commit records the workspace too. */
  attach?: AttachInput;
}

const RETRIES = 3;

/** A commit refused because the head moved or an object went: the snapshot is taken again. */
function isRetry(error: unknown): error is CairnError {
  return error instanceof CairnError && error.code === 'CONFLICT' && error.data?.[RETRY] !== undefined;
}

/**
 * Taking a snapshot of an open workspace: brings its model in line with the
 * disk (all of it, or what changed), stores what is new, and commits the
 * snapshot against the head it started from, retrying when that moved.
 */
export class Snapshots {
  constructor(
    private readonly ctx: DeskContext,
    private readonly scanner: Scanner,
    private readonly handles: Handles,
  ) {}

  /**
   * Brings the model in line with the disk and records a snapshot when it
   * changed (or when forced). Retries from a clean model if a concurrent GC
   * removed an object it meant to reuse, or another process moved the head.
   */
  async snapshot(h: Handle, kind: SnapshotKind, extra: SnapshotOptions = {}): Promise<CheckpointResult> {
    for (let attempt = 0; ; attempt++) {
      try {
        // A retry starts from the head's tree, so it must look at the disk again.
        const pass = attempt === 0 ? extra : { ...extra, noScan: false };
        return await this.snapshotOnce(h, kind, pass);
      } catch (error) {
        if (!isRetry(error)) throw error;
        if (attempt >= RETRIES) {
          throw conflict(
            `workspace ${h.row.id} kept changing under this checkpoint (${error.message}): try again`,
            { workspace: h.row.id },
          );
        }
        this.ctx.objects.forget();
        if (h.head === null) {
          // A first snapshot (attach): its model may name objects a GC took; build it again from the disk.
          h.root = dirNode(null);
          h.fullScan = true;
        } else {
          // Start again from the head as the store has it now (another process may have moved it).
          const { workspace: row, head } = await this.ctx.store.head(h.row.id);
          h.row = row;
          h.head = head;
          h.root = dirNode(head.root, head.files, head.bytes);
          h.fullScan = true;
        }
      }
    }
  }

  /**
   * One try at a snapshot. When it fails before its commit (a full disk, a
   * retry, a refusal inside the transaction), the packs it stored are
   * deleted at once, so a retry that fits the disk succeeds; once the
   * transaction's work is done they are left to GC (the commit may have
   * landed).
   */
  private async snapshotOnce(
    h: Handle,
    kind: SnapshotKind,
    extra: SnapshotOptions,
  ): Promise<CheckpointResult> {
    const carried = h.prepared;
    h.prepared = undefined;
    const writer = carried?.writer ?? this.ctx.objects.writer();
    const stage = { committing: false };
    try {
      return await this.snapshotWith(h, kind, extra, writer, stage, carried);
    } catch (error) {
      if (!stage.committing || isRetry(error)) await writer.discard();
      throw error;
    }
  }

  private async snapshotWith(
    h: Handle,
    kind: SnapshotKind,
    extra: SnapshotOptions,
    writer: PackWriter,
    stage: { committing: boolean },
    carried?: Prepared,
  ): Promise<CheckpointResult> {
    const objects = this.ctx.objects;
    const findings: SecretFinding[] = [];
    const ctx = this.scanner.scanContext(h, writer, findings);
    const dirty: Dirty | 'all' = extra.noScan
      ? { dirs: new Set(), files: new Set(), deep: new Set() }
      : await this.scanner.dirtyDirs(h);
    // A full scan finds again what a prepare found; a partial one reports it once, here.
    if (carried && dirty !== 'all') {
      findings.push(...carried.findings);
      ctx.unsupported.push(...carried.unsupported);
    }
    if (dirty === 'all') {
      this.scanner.scanOffThread(ctx);
      await rescan(ctx, h.root, '', true);
    } else {
      const listings = new Set(dirty.dirs);
      for (const file of dirty.files) {
        const slash = file.lastIndexOf('/');
        const dir = slash < 0 ? '' : file.slice(0, slash);
        if (listings.has(dir)) continue;
        const chain = await findDir(objects, h.root, dir);
        if (!chain) continue;
        const outcome = await refreshEntry(
          ctx,
          chain[chain.length - 1] as DirNode,
          dir,
          file.slice(slash + 1),
        );
        if (outcome === 'listing') listings.add(dir);
        else if (outcome) for (const node of chain) node.tree = null;
      }
      for (const dir of [...listings].sort()) {
        const chain = await findDir(objects, h.root, dir);
        if (!chain) continue;
        if (await rescan(ctx, chain[chain.length - 1] as DirNode, dir, false)) {
          for (const node of chain) node.tree = null;
        }
      }
      // Directories moved into place keep their node under the same name: look inside them too.
      for (const dir of [...dirty.deep].sort()) {
        const chain = await findDir(objects, h.root, dir);
        if (!chain) continue;
        if (await rescan(ctx, chain[chain.length - 1] as DirNode, dir, true)) {
          for (const node of chain) node.tree = null;
        }
      }
    }
    await settleFiles(ctx);
    if (this.refusesUnderPolicy(findings)) {
      h.fullScan = true;
      this.refuseUnderPolicy(findings);
    }
    const root = await seal(ctx, h.root);
    if (extra.prepare && h.head) {
      h.prepared = { writer, findings, unsupported: ctx.unsupported };
      return { snapshot: h.head, created: false, findings, withheld: [], redacted: [], unsupported: [] };
    }
    const withheld = findings.filter((f) => f.action === 'withheld').map((f) => f.path);
    if (!extra.force && h.head && root === h.head.root) {
      const redacted = await redactedPaths(objects, h.root);
      return {
        snapshot: h.head,
        created: false,
        findings,
        withheld,
        redacted,
        unsupported: ctx.unsupported,
      };
    }
    await writer.flush();
    const id = newId('snapshot', this.ctx.now());
    // From here the commit may land even when its answer is lost: packs are left to GC, not discarded.
    stage.committing = true;
    const committed = await this.ctx.store
      .commit({
        id,
        workspace: h.row.id,
        ...(extra.attach ? { attach: extra.attach } : {}),
        expectHead: h.head?.id ?? '',
        kind,
        root,
        files: h.root.files,
        bytes: h.root.bytes,
        ...writer.commitFields(extra.alsoNamed),
        ...(extra.payload ? { payload: extra.payload } : {}),
        ...(extra.also ? { also: extra.also } : {}),
        ...(extra.ifHead !== undefined ? { ifHead: extra.ifHead } : {}),
        ...(extra.ifMoves !== undefined ? { ifMoves: extra.ifMoves } : {}),
        ...(extra.moveHeadTo !== undefined ? { moveHeadTo: extra.moveHeadTo } : {}),
      })
      .catch((error: unknown) => {
        // A typed refusal rolled the commit back: nothing references the packs.
        if (error instanceof CairnError && error.code !== 'IN_DOUBT' && error.code !== 'UNAVAILABLE')
          stage.committing = false;
        throw error;
      });
    h.head = committed.snapshot;
    h.row = committed.workspace;
    return {
      snapshot: committed.snapshot,
      created: true,
      findings,
      withheld,
      redacted: await redactedPaths(objects, h.root),
      unsupported: ctx.unsupported,
      ...(committed.appended ? { appended: committed.appended } : {}),
    };
  }

  /** Whether the secret policy refuses a snapshot with these findings (`fail` and a confident one). */
  refusesUnderPolicy(findings: SecretFinding[]): boolean {
    return this.ctx.policy === 'fail' && blocksCheckpoint(findings);
  }

  refuseUnderPolicy(findings: SecretFinding[]): never {
    throw guardFailure(findings.filter((f) => f.confidence === 'high' && f.action !== 'kept'));
  }

  /**
   * Opens a workspace and brings its model in line with the disk without
   * recording anything, for a long-lived desk (`watch: true`, as in
   * `cairn watch`): from then on a checkpoint looks only at what the watcher
   * saw. What the scan stored and found rides with the next snapshot; if
   * none follows, GC takes the packs it stored after its grace.
   */
  async prepare(workspace: WorkspaceId): Promise<void> {
    await this.handles.withHandle(workspace, async (h) => {
      if (h.prepared || !h.fullScan) return;
      await this.snapshot(h, 'checkpoint', { prepare: true });
    });
  }

  /** Snapshots the workspace directory if anything changed since its head snapshot. */
  async checkpoint(
    workspace: WorkspaceId,
    options: Pick<SnapshotOptions, 'force' | 'also' | 'ifHead' | 'ifMoves' | 'moveHeadTo'> = {},
  ): Promise<CheckpointResult> {
    return this.handles.withHandle(workspace, (h) => this.snapshot(h, 'checkpoint', options));
  }
}
