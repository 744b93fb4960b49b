import type { ErasedRows, ErasurePart, ErasureScope } from '../erasure/part.js';
import { conflict } from '../errors.js';
import { inBatches, placeholders, type SqlExecutor } from '../storage/engine.js';
import { valuesWhereIn } from '../storage/rows-in.js';
import { lockDesk } from './rows.js';

/**
 * The desk's part of an erasure (erasure/part.ts): every workspace of the
 * erased sessions and every snapshot row of those workspaces.
 *
 * What it takes and why:
 *
 * - `desk_workspaces` whose `session` is erased. A workspace's `branch` is a
 *   branch *name* inside its session (`main`, a fork's name), not a branch
 *   id, so it is never matched against `scope.branches` (names recur across
 *   sessions); the sessions are erased whole, so the session already takes
 *   every workspace on any of their branches.
 * - `desk_snapshots` of those workspaces. A snapshot's `parent` is an earlier
 *   snapshot of the same workspace, so those go together.
 * - Not `desk_objects` and `desk_packs`: objects are content-addressed and
 *   shared across sessions (a chunk two sessions both hold is one object), so
 *   they go by garbage collection once nothing names them: run
 *   `collectGarbage` with `repack: true` after this commits (gc.ts, repack.ts)
 *   so the bytes of erased objects that shared a pack with live ones go too.
 *   Not `desk_staged`: staged indexes belong to packs, not to workspaces, and
 *   GC drops them with their abandoned packs.
 * - The resources (audit `resource_id`) are the workspace ids: `desk.refused`
 *   is the desk's one audit entry, and it names the workspace.
 *
 * What could still point at an erased row: a surviving workspace whose base or
 * head snapshot is erased. A fork's base is a snapshot of the workspace it was
 * forked from (or, with `at`, of another workspace of its session), but a fork
 * is made in its parent's session (`LocalDeskStore.fork` refuses a base of
 * another session and copies the parent's session), merges run only between
 * a fork and its relatives, and attaching starts a workspace at its own
 * snapshot: so every workspace whose base or head is one session's snapshot
 * is of that session, and is erased with it. A restore may copy another
 * session's snapshot into a new snapshot of the target; the objects are then
 * that snapshot's too and stay live through it (only its event payload names
 * the erased snapshot's id). So no surviving row can name an erased one;
 * should one anyway (a store written by other code), nothing is erased and
 * the erasure fails with CONFLICT naming the surviving workspaces — deleting
 * their base or head would leave them unusable (`head` NOT_FOUND, an overlay
 * fork unmountable, GC's layer sweep failing) — in a preview as well, so it
 * shows before the erasure runs. A fork's `forked_from` is only an id (merge
 * compares it; nothing reads through it), so it is not checked.
 *
 * The desk lock (`lockDesk`) is taken as every desk writer takes it, so a
 * checkpoint of an erased workspace commits either before (and is erased) or
 * after (and finds its workspace gone, NOT_FOUND). A preview counts only, and
 * takes no lock (it may run in a read-only transaction).
 *
 * Host state (stat caches, overlay layers, the registry of created
 * directories) is not in the database: `eraseDeskState` (erase-state.ts)
 * removes it, given the workspace ids this returns as `resources`.
 */
export const DESK_ERASURE: ErasurePart = {
  feature: 'desk',
  erase: eraseDesk,
};

async function eraseDesk(tx: SqlExecutor, scope: ErasureScope, preview: boolean): Promise<ErasedRows> {
  const { tenant } = scope;
  if (!preview) await lockDesk(tx, tenant);
  const workspaces = await workspacesOf(tx, tenant, scope.sessions);
  if (workspaces.length === 0) return { counts: { workspaces: 0, snapshots: 0 }, resources: [] };
  await refuseDangling(tx, tenant, new Set(workspaces));
  return { counts: await removeWorkspaces(tx, tenant, workspaces, preview), resources: workspaces };
}

/** Deletes the workspaces' rows and their snapshots' (with `preview`, counts them); the caller holds the desk lock. */
export async function removeWorkspaces(
  tx: SqlExecutor,
  tenant: string,
  workspaces: readonly string[],
  preview: boolean,
): Promise<{ workspaces: number; snapshots: number }> {
  let snapshots = 0;
  let removed = 0;
  await inBatches(workspaces, async (slice) => {
    const list = placeholders(slice.length);
    if (preview) {
      const row = await tx.get<{ n: number }>(
        `SELECT COUNT(*) AS n FROM desk_snapshots WHERE tenant = ? AND workspace IN (${list})`,
        [tenant, ...slice],
      );
      snapshots += Number(row?.n ?? 0);
      removed += slice.length;
      return;
    }
    snapshots += await tx.run(`DELETE FROM desk_snapshots WHERE tenant = ? AND workspace IN (${list})`, [
      tenant,
      ...slice,
    ]);
    removed += await tx.run(`DELETE FROM desk_workspaces WHERE tenant = ? AND id IN (${list})`, [
      tenant,
      ...slice,
    ]);
  });
  return { workspaces: removed, snapshots };
}

/** The ids of the workspaces bound to these sessions, in id order. */
export async function workspacesOf(
  tx: SqlExecutor,
  tenant: string,
  sessions: readonly string[],
): Promise<string[]> {
  return (await valuesWhereIn(tx, 'desk_workspaces', tenant, 'session', [...new Set(sessions)])).sort();
}

/**
 * Fails when a workspace that stays has an erased workspace's snapshot as its
 * base or head (see above: by construction there is none). One query over the
 * tenant's workspaces joined to the snapshots they start from and stand at,
 * keeping those owned by another workspace (what a fork's base is).
 */
async function refuseDangling(tx: SqlExecutor, tenant: string, erased: ReadonlySet<string>): Promise<void> {
  const dangling = await startingFrom(tx, tenant, erased);
  if (dangling.size === 0) return;
  const named = [...dangling].slice(0, 20).map(([id, l]) => `${id} (session ${l.session})`);
  throw conflict(
    `workspaces outside the erased sessions start from a snapshot of an erased workspace: ${named.join(', ')}. Nothing was erased: erase their sessions too, or remove those workspaces first`,
    { workspaces: [...dangling.keys()].slice(0, 100) },
  );
}

/**
 * The workspaces outside `gone` whose base or head is a snapshot of one in
 * `gone` (by id, with their sessions): what removing `gone` would leave
 * pointing at nothing. One query over the tenant's workspaces joined to the
 * snapshots they start from and stand at, keeping those owned by another
 * workspace (what a fork's base is). The branch sweep keeps such a branch.
 */
export async function startingFrom(
  tx: SqlExecutor,
  tenant: string,
  gone: ReadonlySet<string>,
): Promise<Map<string, { session: string; owner: string }>> {
  const links = await tx.all<{ id: string; session: string; owner: string }>(
    `SELECT w.id, w.session, s.workspace AS owner FROM desk_workspaces w
     JOIN desk_snapshots s ON s.tenant = w.tenant AND (s.id = w.base_snapshot OR s.id = w.head_snapshot)
     WHERE w.tenant = ? AND s.workspace <> w.id`,
    [tenant],
  );
  const found = new Map<string, { session: string; owner: string }>();
  for (const l of links) if (!gone.has(l.id) && gone.has(l.owner)) found.set(l.id, l);
  return found;
}
