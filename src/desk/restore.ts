import { lstatSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { invalidArgument as invalid } from '../errors.js';
import type { SnapshotId, WorkspaceId } from '../ids.js';
import { eventsAfter } from '../log/pages.js';
import type { CairnEvent } from '../types.js';
import type { DeskContext, Handle } from './context.js';
import { type DiffItem, diffEntryMaps, withPatches } from './diff.js';
import { credentialPathRule, type SecretFinding } from './guard.js';
import type { Handles } from './handles.js';
import { applyContext, applyTree, type PathChange } from './materialize.js';
import { type DirNode, dirNode, flatten, redactedPaths, statKeyOf } from './model.js';
import type { Snapshot } from './rows.js';
import { inGitDir, type Scanner } from './scan.js';
import type { Snapshots } from './snapshots.js';
import { MAX_PATH_BYTES, validName } from './tree.js';

export interface RestorePreview {
  snapshot: Snapshot;
  changes: PathChange[];
  /** Log events on the workspace's branch after the snapshot's event: a restore does not undo them. */
  eventsAfter: CairnEvent[];
  /** Credential paths in the snapshot that a restore never writes. */
  withheld: string[];
  /** Files of the snapshot stored with secret spans redacted: a restore writes the redacted copy. */
  redacted: string[];
}

export interface RestoreResult extends RestorePreview {
  /** The checkpoint taken first, so the restore can itself be undone. */
  before: Snapshot;
  /** The snapshot recording the restored state. */
  after: Snapshot;
  /** Entries left alone because untracked files (ignored or credentials) were in the way. */
  blocked: string[];
}

/**
 * Restoring a snapshot into a workspace (and previewing it), and diffing two
 * snapshots or a snapshot and a workspace's live directory.
 */
export class Restore {
  constructor(
    private readonly ctx: DeskContext,
    private readonly handles: Handles,
    private readonly scanner: Scanner,
    private readonly snapshots: Snapshots,
  ) {}

  private checkPaths(h: Handle, paths: readonly string[] | undefined): string[] | undefined {
    if (paths === undefined) return undefined;
    return paths.map((p) => workspacePath(h.row.dir, p));
  }

  /**
   * Lists what restoring a snapshot would change: files added, changed and
   * removed, the log events after it, and credentials it would not write.
   */
  async previewRestore(
    workspace: WorkspaceId,
    snapshot: SnapshotId,
    options: { paths?: string[] } = {},
  ): Promise<RestorePreview> {
    const ctx = this.ctx;
    return this.handles.withHandle(workspace, async (h) => {
      const only = this.checkPaths(h, options.paths);
      const target = await ctx.snapshotById(snapshot);
      // Scan a copy of the model, storing nothing: a preview changes nothing, and the real model
      // (with its stat data) stays as it was for the next checkpoint.
      const findings: SecretFinding[] = [];
      const live = await this.scanner.dryScan(h, findings);
      // A restore checkpoints first; under the fail policy that checkpoint refuses, so the preview does too.
      if (this.snapshots.refusesUnderPolicy(findings)) this.snapshots.refuseUnderPolicy(findings);
      const apply = this.applyTo(h, false, only);
      await applyTree(apply, live, dirNode(target.root, target.files, target.bytes));
      const eventsAfter = await this.eventsAfter(h, target);
      const redacted = await redactedPaths(ctx.objects, dirNode(target.root));
      return {
        snapshot: target,
        changes: apply.changes,
        eventsAfter,
        withheld: apply.withheld,
        redacted,
      };
    });
  }

  /** How a restore changes a workspace: never a credential path, and never `.git` unless snapshots include it. */
  private applyTo(h: Handle, apply: boolean, only: string[] | undefined) {
    const ctx = applyContext(h.row.dir, this.ctx.objects, apply, (p) => credentialPathRule(p) !== null, only);
    if (!this.ctx.options.includeGit) ctx.untouchable = inGitDir;
    return ctx;
  }

  /** Events on the workspace's branch after the snapshot's event; none when that event is not on the branch's path. */
  private async eventsAfter(h: Handle, target: Snapshot): Promise<CairnEvent[]> {
    const store = this.ctx.store;
    const event = await store.getEvent(target.event);
    if (event.session !== h.row.session) return [];
    return eventsAfter(
      (from) =>
        store.readBranch({
          session: h.row.session,
          branch: h.row.branch,
          from,
          limit: 1000,
        }),
      event,
    );
  }

  /**
   * Restores a snapshot into the workspace directory: checkpoints the current
   * state first (so the restore can be undone), then rewrites only the
   * entries that differ. Never writes a credential path.
   */
  async restore(
    workspace: WorkspaceId,
    snapshot: SnapshotId,
    options: { paths?: string[] } = {},
  ): Promise<RestoreResult> {
    const ctx = this.ctx;
    return this.handles.withHandle(workspace, async (h) => {
      const only = this.checkPaths(h, options.paths);
      const target = await ctx.snapshotById(snapshot);
      // The whole plan first: every tree read, every path checked, before a single file is touched.
      const plan = this.applyTo(h, false, only);
      await applyTree(plan, h.root, dirNode(target.root, target.files, target.bytes));
      checkPlan(h.row.dir, plan.changes);
      const before = (await this.snapshots.snapshot(h, 'checkpoint')).snapshot;
      const eventsAfter = await this.eventsAfter(h, target);
      const apply = this.applyTo(h, true, only);
      apply.onWrite = h.watcher ? (path) => h.watcher?.expect([path]) : undefined;
      apply.onFile = ctx.counter('write');
      await applyTree(apply, h.root, dirNode(target.root, target.files, target.bytes));
      const settled = ctx.now();
      for (const { path, node } of apply.written) {
        const st = lstatSync(join(h.row.dir, path), { throwIfNoEntry: false });
        node.stat = st ? statKeyOf(st, settled) : null;
      }
      // The model now describes what was written (with the target's digests where the disk matches it
      // exactly), so the restore is recorded without a scan; the watcher's events from these writes
      // stay queued for the next checkpoint. The commit checks the root is still indexed.
      const after = (
        await this.snapshots.snapshot(h, 'restore', {
          force: true,
          noScan: true,
          payload: { restored: target.id },
          alsoNamed: [target.root],
        })
      ).snapshot;
      return {
        snapshot: target,
        before,
        after,
        changes: apply.changes,
        eventsAfter,
        withheld: apply.withheld,
        redacted: await redactedPaths(ctx.objects, dirNode(target.root)),
        blocked: apply.blocked,
      };
    });
  }

  /**
   * Differences between two snapshots, or between a snapshot and the live
   * directory of a workspace (`to` omitted): paths, unified patches for text,
   * sizes for binaries.
   */
  async diff(input: {
    from: SnapshotId;
    to?: SnapshotId;
    workspace?: WorkspaceId;
    patches?: boolean;
    paths?: string[];
    /** false: compare with the live directory without checkpointing it (paths and kinds only, no patches). */
    record?: boolean;
  }): Promise<DiffItem[]> {
    const ctx = this.ctx;
    const from = await ctx.snapshotById(input.from);
    let after: DirNode;
    let only: string[] | undefined;
    if (input.to !== undefined) {
      after = dirNode((await ctx.snapshotById(input.to)).root);
      only = input.paths?.map((p) => normalisePath(p));
    } else {
      if (input.workspace === undefined)
        throw invalid('diff needs `to` (a snapshot) or `workspace` (its live directory)');
      if (input.record === false) return this.liveDiff(input.workspace, from, input.paths);
      const result = await this.snapshots.checkpoint(input.workspace);
      after = dirNode(result.snapshot.root);
      const h = await this.handles.open(input.workspace);
      only = this.checkPaths(h, input.paths);
    }
    const before = await flatten(ctx.objects, dirNode(from.root));
    const afterMap = await flatten(ctx.objects, after);
    let items = diffEntryMaps(before, afterMap);
    if (only) items = items.filter((i) => only.some((p) => i.path === p || i.path.startsWith(`${p}/`)));
    if (input.patches === false) return items;
    return withPatches(items, (e) => ctx.content(e));
  }

  /** The live directory against a snapshot, storing nothing. */
  private async liveDiff(workspace: WorkspaceId, from: Snapshot, paths?: string[]): Promise<DiffItem[]> {
    const ctx = this.ctx;
    return this.handles.withHandle(workspace, async (h) => {
      const only = this.checkPaths(h, paths);
      const live = await flatten(ctx.objects, await this.scanner.dryScan(h));
      const items = diffEntryMaps(await flatten(ctx.objects, dirNode(from.root)), live);
      return only ? items.filter((i) => only.some((p) => i.path === p || i.path.startsWith(`${p}/`))) : items;
    });
  }
}

/** Normalises a workspace-relative path argument; refuses anything that leaves the workspace. */
export function normalisePath(path: string): string {
  if (typeof path !== 'string' || path === '' || isAbsolute(path) || path.includes('\0')) {
    throw invalid(`path "${String(path)}" is not a relative path inside the workspace`, { path });
  }
  const parts: string[] = [];
  for (const part of path.split(/[\\/]+/)) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length === 0)
        throw invalid(`path "${path}" leaves the workspace: pass a path inside it`, { path });
      parts.pop();
    } else parts.push(part);
  }
  if (parts.length === 0)
    throw invalid(`path "${path}" names the workspace root: omit it to mean everything`, { path });
  return parts.join('/');
}

/** A path argument inside a live workspace: no `..` escape, and no symlink on the way out of it. */
function workspacePath(root: string, path: string): string {
  const rel = normalisePath(path);
  let at = root;
  for (const part of rel.split('/')) {
    at = join(at, part);
    const st = lstatSync(at, { throwIfNoEntry: false });
    if (!st) break;
    if (st.isSymbolicLink()) {
      let real: string;
      try {
        real = realpathSync(at);
      } catch {
        throw invalid(
          `path "${path}" goes through a symlink that does not resolve: pass a path inside the workspace`,
          {
            path,
          },
        );
      }
      const inside = relative(root, real);
      if (inside.startsWith('..') || isAbsolute(inside)) {
        throw invalid(
          `path "${path}" goes through a symlink that leaves the workspace: pass a path inside it`,
          { path },
        );
      }
    }
  }
  return rel;
}

/**
 * Refuses a restore plan with any path a restore must not write: too long
 * (a name over 255 bytes, a path over 4,096), or below a symlink on disk
 * that leaves the workspace and that the plan does not replace.
 */
export function checkPlan(root: string, changes: readonly PathChange[]): void {
  const replaced = new Set(changes.filter((c) => c.change !== 'added').map((c) => c.path));
  for (const { path, change } of changes) {
    if (Buffer.byteLength(path, 'utf8') > MAX_PATH_BYTES || !path.split('/').every(validName)) {
      throw invalid(
        `the snapshot holds a path a restore cannot write (${path.slice(0, 80)}…, ${Buffer.byteLength(path, 'utf8')} bytes): nothing was changed; restore another snapshot, or pass --path to restore the rest`,
        { path: path.slice(0, 256) },
      );
    }
    if (change === 'removed') continue;
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const on = parts.slice(0, i).join('/');
      if (replaced.has(on)) break;
      const st = lstatSync(join(root, on), { throwIfNoEntry: false });
      if (!st) break;
      if (st.isSymbolicLink()) workspacePath(root, path);
    }
  }
}
