import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  utimesSync,
} from 'node:fs';
import { join } from 'node:path';
import { invalidArgument as invalid, unavailable } from '../errors.js';
import { type EventId, newId, type SnapshotId, type WorkspaceId } from '../ids.js';
import { BranchName } from '../schema.js';
import { parseInput } from '../validate.js';
import { type DeskContext, headOf } from './context.js';
import { CreatedDirs } from './created.js';
import type { Handles } from './handles.js';
import { materialize } from './materialize.js';
import { type DirNode, dirNode, redactedPaths, statKeyOf } from './model.js';
import { mountOverlay, overlaySupported, unmountOverlay } from './overlay.js';
import type { Driver, Snapshot, Workspace } from './rows.js';
import type { CheckpointResult, Snapshots } from './snapshots.js';

/** Where an overlay fork's own layers live in the desk's state folder: its upper layer and overlayfs's work dir. */
export function overlayLayout(ctx: DeskContext, id: string) {
  const base = join(ctx.ensureStateDir(), 'forks', id);
  return { upper: join(base, 'upper'), work: join(base, 'work') };
}

/** The read-only lower layer holding a snapshot, materialised once per root tree and shared by its forks. */
async function lowerFor(ctx: DeskContext, snapshot: Snapshot): Promise<string> {
  const lower = join(ctx.ensureStateDir(), 'lower', ctx.tenant, snapshot.root);
  if (existsSync(lower)) {
    // Its time says when it was last used: GC keeps layers used within its grace.
    const now = new Date(ctx.now());
    utimesSync(lower, now, now);
    return lower;
  }
  const temp = `${lower}.tmp-${newId('snapshot')}`;
  mkdirSync(temp, { recursive: true });
  await materialize(ctx.objects, temp, dirNode(snapshot.root), ctx.counter('write'));
  try {
    renameSync(temp, lower);
  } catch (error) {
    rmSync(temp, { recursive: true, force: true });
    if (!existsSync(lower)) throw error;
  }
  return lower;
}

export async function mountFork(ctx: DeskContext, row: Workspace, base: Snapshot): Promise<void> {
  const layout = overlayLayout(ctx, row.id);
  const lower = await lowerFor(ctx, base);
  await mountOverlay({ lower, upper: layout.upper, work: layout.work, mountpoint: row.dir }, ctx.mounter);
}

/**
 * Deletes this tenant's overlay lower layers on this host that no attached
 * overlay workspace starts from and that were last used before `before`
 * (a fork being created in another process touches its layer first).
 */
export async function sweepLayers(ctx: DeskContext, before: number): Promise<number> {
  const dir = join(ctx.ensureStateDir(), 'lower', ctx.tenant);
  if (!existsSync(dir)) return 0;
  const forks = (await ctx.store.listWorkspaces()).filter(
    (w) => w.host === ctx.options.host && w.driver === 'overlay' && w.state === 'attached',
  );
  const used = new Set(
    await Promise.all(forks.map(async (w) => (await ctx.store.snapshot(w.baseSnapshot)).root)),
  );
  let removed = 0;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (used.has(name) || lstatSync(path).mtimeMs >= before) continue;
    rmSync(path, { recursive: true, force: true });
    removed++;
  }
  return removed;
}

function isEmptyDir(path: string): boolean {
  return readdirSync(path).length === 0;
}

/** Forking a workspace into a new directory of its own, by the copy or the overlay driver. */
export class Forks {
  constructor(
    private readonly ctx: DeskContext,
    private readonly handles: Handles,
    private readonly snapshots: Snapshots,
  ) {}

  /**
   * Forks a workspace: checkpoints it, starts a new log branch at that
   * checkpoint, and gives the branch its own directory. The driver is chosen
   * by capability (overlay where this process may mount, else copy) unless
   * named. Writes in either directory never show in the other.
   */
  async fork(
    workspace: WorkspaceId,
    input: {
      dir: string;
      branch?: string;
      driver?: 'copy' | 'overlay';
      /** Fork from this earlier snapshot, the new branch starting at `event` (a unit checkpoint), instead of from now. */
      at?: { snapshot: SnapshotId; event: EventId };
    },
  ): Promise<{ workspace: Workspace; checkpoint: CheckpointResult | null; redacted: string[] }> {
    const ctx = this.ctx;
    if (input.branch !== undefined) parseInput(BranchName, input.branch, 'fork');
    const dir = ctx.resolveDir(input.dir, false);
    if (existsSync(dir) && !(lstatSync(dir).isDirectory() && isEmptyDir(dir))) {
      throw invalid(`${dir} exists and is not an empty directory: fork into a new or empty directory`, {
        dir,
      });
    }
    const canOverlay = overlaySupported(join(ctx.ensureStateDir(), 'probe'));
    if (input.driver === 'overlay' && !canOverlay) {
      throw unavailable('this process cannot mount overlays here: use the copy driver');
    }
    const driver: Driver = input.driver ?? (canOverlay ? 'overlay' : 'copy');
    return this.handles.withHandle(workspace, async (h) => {
      const checkpoint = input.at ? null : await this.snapshots.snapshot(h, 'checkpoint');
      const base = input.at ? await ctx.snapshotById(input.at.snapshot) : headOf(h);
      const id = newId('workspace', ctx.now());
      mkdirSync(dir, { recursive: true });
      const path = realpathSync(dir);
      // The proof that this desk made the directory, on this host, before anything is written into it.
      const created = new CreatedDirs(ctx);
      created.record({ workspace: id, dir: path, driver });
      const planned: Workspace = {
        id,
        host: ctx.options.host,
        dir: path,
        session: h.row.session,
        branch: '',
        driver,
        state: 'attached',
        baseSnapshot: base.id,
        headSnapshot: base.id,
        forkedFrom: h.row.id,
        createdAt: ctx.now(),
      };
      let tree: DirNode;
      let row: Workspace;
      try {
        tree = dirNode(base.root, base.files, base.bytes);
        if (driver === 'overlay') await mountFork(ctx, planned, base);
        else {
          const written = await materialize(ctx.objects, path, tree, ctx.counter('write'));
          const settled = ctx.now();
          for (const { path: p, node } of written.written) {
            node.stat = statKeyOf(written.stats.get(p) ?? lstatSync(join(path, p)), settled);
          }
        }
        // From now: the branch's current head (steps after the last snapshot belong to the fork too).
        row = await ctx.store.fork({
          id,
          from: h.row.id,
          host: ctx.options.host,
          path,
          driver,
          baseSnapshot: base.id,
          ...(input.at ? { at: input.at.event } : {}),
          ...(input.branch !== undefined ? { branch: input.branch } : {}),
        });
      } catch (error) {
        created.forget(id);
        if (driver === 'overlay') await unmountOverlay(path, ctx.mounter);
        rmSync(overlayLayout(ctx, id).upper, { recursive: true, force: true });
        if (driver === 'copy')
          for (const name of readdirSync(path)) rmSync(join(path, name), { recursive: true, force: true });
        throw error;
      }
      const handle = this.handles.newHandle(row, tree, base);
      // The model describes the new directory exactly; without a watcher every checkpoint scans anyway.
      handle.fullScan = false;
      ctx.handles.set(row.id, handle);
      // The fork's files are the stored copies: those with redacted spans are listed.
      const redacted = await redactedPaths(ctx.objects, dirNode(base.root));
      return { workspace: row, checkpoint, redacted };
    });
  }
}
