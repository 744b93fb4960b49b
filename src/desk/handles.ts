import { conflict } from '../errors.js';
import type { WorkspaceId } from '../ids.js';
import type { DeskContext, Handle } from './context.js';
import { CreatedDirs } from './created.js';
import { mountFork, overlayLayout } from './fork.js';
import { type DirNode, dirNode } from './model.js';
import { isMounted } from './overlay.js';
import type { Snapshot, Workspace } from './rows.js';
import { readIgnore, type Scanner } from './scan.js';
import { loadStatCache, saveStatCache } from './stat-cache.js';

/**
 * The desk's open workspaces: each opened once (its model from the stat
 * cache or the head snapshot, an overlay fork mounted again if it is not),
 * used by one operation at a time, dropped on failure and rebuilt on next use.
 */
export class Handles {
  constructor(
    private readonly ctx: DeskContext,
    private readonly scanner: Scanner,
  ) {}

  newHandle(row: Workspace, root: DirNode, head: Snapshot | null): Handle {
    const handle: Handle = {
      row,
      root,
      head,
      fullScan: true,
      busy: Promise.resolve(),
      ignoreText: null,
    };
    // An overlay's upper layer is its change set already: it needs no watcher.
    if (row.driver === 'overlay') handle.upper = overlayLayout(this.ctx, row.id).upper;
    else if (this.ctx.options.watch) {
      handle.ignoreText = readIgnore(row.dir);
      handle.watcher = this.scanner.watcherFor(handle);
    }
    return handle;
  }

  async open(id: WorkspaceId): Promise<Handle> {
    const ctx = this.ctx;
    const cached = ctx.handles.get(id);
    if (cached) return cached;
    const { workspace: row, head } = await ctx.store.head(id);
    if (row.state !== 'attached') {
      throw conflict(`workspace ${id} is detached: attach its directory again to use it`, {
        workspace: id,
      });
    }
    if (row.host !== ctx.options.host) {
      throw conflict(`workspace ${id} lives on host ${row.host}, not ${ctx.options.host}: run this there`, {
        workspace: id,
        host: row.host,
      });
    }
    if (row.driver === 'overlay' && !isMounted(row.dir)) {
      // Mounting hides what is at the mount point: only over the directory this desk made for the fork.
      await new CreatedDirs(ctx).require(row, 'mount');
      await mountFork(ctx, row, await ctx.snapshotById(row.baseSnapshot));
    }
    const cache = loadStatCache(ctx.statCachePath(id), head.id);
    const root = cache ?? dirNode(head.root, head.files, head.bytes);
    const handle = this.newHandle(row, root, head);
    handle.fullScan = row.driver !== 'overlay';
    ctx.handles.set(id, handle);
    return handle;
  }

  /** Runs fn with the workspace to itself; on failure its in-memory state is dropped and rebuilt on next use. */
  async withHandle<T>(id: WorkspaceId, fn: (h: Handle) => Promise<T>): Promise<T> {
    const h = await this.open(id);
    const run = h.busy.then(
      () => fn(h),
      () => fn(h),
    );
    h.busy = run.catch(() => undefined);
    try {
      return await run;
    } catch (error) {
      this.drop(id);
      throw error;
    }
  }

  drop(id: WorkspaceId): void {
    const h = this.ctx.handles.get(id);
    h?.watcher?.close();
    void h?.prepared?.writer.discard();
    this.ctx.handles.delete(id);
  }

  /** Writes stat caches so the next process need not re-read unchanged files, and stops watchers. */
  async close(): Promise<void> {
    for (const [id, h] of this.ctx.handles) {
      if (h.head && h.root.tree === h.head.root) saveStatCache(this.ctx.statCachePath(id), h.head.id, h.root);
      h.watcher?.close();
      await h.prepared?.writer.discard();
    }
    this.ctx.handles.clear();
  }
}
