import { existsSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { invalidArgument as invalid, notFound } from '../errors.js';
import { newId, type SessionId, type SnapshotId, type WorkspaceId } from '../ids.js';
import type { DeskContext } from './context.js';
import { CreatedDirs, type Holding } from './created.js';
import type { Handles } from './handles.js';
import { dirNode } from './model.js';
import { unmountOverlay } from './overlay.js';
import { alreadyAttached, type Snapshot, type Workspace } from './rows.js';
import type { CheckpointResult, Snapshots } from './snapshots.js';

/** A new workspace's session and snapshots before its attach commits (the store fills them in). */
const UNSET = '' as SessionId & SnapshotId;

/** A workspace's lifecycle: attached (its first snapshot taken), found, listed, detached. */
export class Workspaces {
  private readonly created: CreatedDirs;

  constructor(
    private readonly ctx: DeskContext,
    private readonly handles: Handles,
    private readonly snapshots: Snapshots,
  ) {
    this.created = new CreatedDirs(ctx);
  }

  /** Binds a directory to a session branch and takes its first snapshot. */
  async attach(input: {
    dir: string;
    session?: SessionId;
    branch?: string;
  }): Promise<{ workspace: Workspace; checkpoint: CheckpointResult }> {
    const ctx = this.ctx;
    const path = ctx.resolveDir(input.dir);
    const branch = input.branch ?? 'main';
    const [clash] = await ctx.store.attachedAt(ctx.options.host, [path]);
    if (clash) throw alreadyAttached(path, clash.id);
    if (input.session !== undefined) await ctx.store.checkSession(input.session);
    const id = newId('workspace', ctx.now());
    const row: Workspace = {
      id,
      host: ctx.options.host,
      dir: path,
      session: input.session ?? UNSET,
      branch,
      driver: 'plain',
      state: 'attached',
      baseSnapshot: UNSET,
      headSnapshot: UNSET,
      forkedFrom: '',
      createdAt: ctx.now(),
    };
    const handle = this.handles.newHandle(row, dirNode(null), null);
    const result = await this.snapshots.snapshot(handle, 'checkpoint', {
      force: true,
      attach: {
        host: ctx.options.host,
        path,
        branch,
        ...(input.session !== undefined ? { session: input.session } : {}),
      },
    });
    ctx.handles.set(id, handle);
    return { workspace: handle.row, checkpoint: result };
  }

  getWorkspace(id: WorkspaceId): Promise<Workspace> {
    return this.ctx.store.workspace(id);
  }

  listWorkspaces(): Promise<Workspace[]> {
    return this.ctx.store.listWorkspaces();
  }

  /** The workspace attached at a directory on this host (or, when the directory lies inside one, a hint naming it). */
  async findWorkspace(dir: string): Promise<Workspace> {
    // A lookup, not an attach: a directory holding the store is simply not a workspace.
    const path = this.ctx.resolveDir(dir, true, false);
    // The directory itself, or failing that the nearest attached directory above it (one query, bounded
    // by the path's depth): attached paths are unique per host.
    const ancestors = [path];
    for (let up = dirname(path); up !== ancestors[ancestors.length - 1]; up = dirname(up)) ancestors.push(up);
    const rows = await this.ctx.store.attachedAt(this.ctx.options.host, ancestors);
    const exact = rows.find((r) => r.dir === path);
    if (exact) return exact;
    const around = rows.sort((a, b) => b.dir.length - a.dir.length)[0];
    throw notFound(
      around
        ? `${path} is not a workspace but lies inside workspace ${around.id} at ${around.dir}: act there, or name its workspace (${around.id})`
        : `no workspace is attached at ${path}: run \`cairn ws attach ${path}\` first, or name a workspace that is`,
      { resource: 'workspace', path, ...(around ? { inside: around.id } : {}) },
    );
  }

  listSnapshots(workspace: WorkspaceId): Promise<Snapshot[]> {
    return this.ctx.store.listSnapshots(workspace);
  }

  getSnapshot(id: SnapshotId): Promise<Snapshot> {
    return this.ctx.store.snapshot(id);
  }

  holds(row: Workspace): Holding {
    return this.created.holds(row);
  }

  /**
   * Stops tracking a workspace. A fork's directory can be discarded with it
   * (an overlay fork is unmounted and its upper layer deleted); a directly
   * attached directory is never deleted, nor one this desk did not create on
   * this host (see created.ts): that refusal is audited and changes nothing.
   */
  async detach(workspace: WorkspaceId, options: { discard?: boolean } = {}): Promise<Workspace> {
    const ctx = this.ctx;
    const row = await ctx.store.workspace(workspace);
    if (options.discard && row.forkedFrom === '') {
      throw invalid(
        `workspace ${workspace} was attached, not forked: Cairn never deletes a directory it did not create`,
        {
          workspace,
        },
      );
    }
    // An overlay this desk did not make is not its to unmount: it may only stop tracking it.
    const held = this.created.holds(row);
    const foreign = !held.ok && held.reason === 'not-created';
    if (row.driver === 'overlay' && !options.discard && !foreign) {
      throw invalid(
        `workspace ${workspace} is an overlay fork: detach it with discard (merge it first to keep its changes)`,
        {
          workspace,
        },
      );
    }
    if (options.discard) await this.created.require(row, 'discard');
    this.handles.drop(workspace);
    const detached = await ctx.store.detach(workspace);
    if (options.discard) {
      if (row.driver === 'overlay') {
        await unmountOverlay(row.dir, ctx.mounter);
        rmSync(join(ctx.ensureStateDir(), 'forks', row.id), { recursive: true, force: true });
      } else if (existsSync(row.dir)) {
        for (const name of readdirSync(row.dir))
          rmSync(join(row.dir, name), { recursive: true, force: true });
      }
    }
    this.created.forget(workspace);
    rmSync(ctx.statCachePath(workspace), { force: true });
    return detached;
  }
}
