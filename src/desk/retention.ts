/**
 * The desk's part of the branch sweep (src/retention/part.ts): the rows of
 * the swept branches' workspaces and their snapshots (the objects go by the
 * desk's garbage collection once nothing names them). The sweep takes a
 * branch only when each of its workspaces is detached (a directory is
 * discarded by its own host's desk: `Units.reclaim`) and no workspace that
 * stays starts from one of their snapshots (`blockedBranches`).
 */
import type { RetentionPart } from '../retention/part.js';
import { inBatches, placeholders, type SqlExecutor } from '../storage/engine.js';
import { removeWorkspaces, startingFrom } from './erase.js';
import { lockDesk } from './rows.js';

interface BranchWorkspace {
  id: string;
  branch: string;
  state: string;
}

async function workspacesOfSession(tx: SqlExecutor, tenant: string, session: string) {
  return tx.all<BranchWorkspace>(
    'SELECT id, branch, state FROM desk_workspaces WHERE tenant = ? AND session = ? ORDER BY id',
    [tenant, session],
  );
}

/**
 * Of the session's `branches` (names), why the desk keeps each it keeps:
 * a workspace still attached, or a workspace of another branch started from
 * one of theirs (a fork's base).
 */
export async function blockedBranches(
  tx: SqlExecutor,
  tenant: string,
  session: string,
  branches: readonly string[],
): Promise<Map<string, 'workspace-attached' | 'workspace-forked'>> {
  const named = new Set(branches);
  const mine = (await workspacesOfSession(tx, tenant, session)).filter((w) => named.has(w.branch));
  const blocked = new Map<string, 'workspace-attached' | 'workspace-forked'>();
  for (const w of mine) if (w.state === 'attached') blocked.set(w.branch, 'workspace-attached');
  const branchOf = new Map(mine.map((w) => [w.id, w.branch]));
  for (const { owner } of (await startingFrom(tx, tenant, new Set(branchOf.keys()))).values()) {
    const branch = branchOf.get(owner) as string;
    if (!blocked.has(branch)) blocked.set(branch, 'workspace-forked');
  }
  return blocked;
}

/** The snapshots of the session's `branches`' workspaces, each with its branch's name. */
export async function snapshotsOfBranches(
  tx: SqlExecutor,
  tenant: string,
  session: string,
  branches: readonly string[],
): Promise<Map<string, string>> {
  const named = new Set(branches);
  const branchOf = new Map(
    (await workspacesOfSession(tx, tenant, session))
      .filter((w) => named.has(w.branch))
      .map((w) => [w.id, w.branch]),
  );
  const found = new Map<string, string>();
  await inBatches([...branchOf.keys()], async (slice) => {
    for (const s of await tx.all<{ id: string; workspace: string }>(
      `SELECT id, workspace FROM desk_snapshots WHERE tenant = ? AND workspace IN (${placeholders(slice.length)})`,
      [tenant, ...slice],
    ))
      found.set(s.id, branchOf.get(s.workspace) as string);
  });
  return found;
}

export const DESK_RETENTION: RetentionPart = {
  feature: 'desk',
  async sweep(tx, scope, dryRun) {
    const { tenant, session } = scope;
    if (!dryRun) await lockDesk(tx, tenant);
    const swept = new Set(scope.swept);
    const workspaces = (await workspacesOfSession(tx, tenant, session))
      .filter((w) => swept.has(w.branch))
      .map((w) => w.id);
    return { counts: await removeWorkspaces(tx, tenant, workspaces, dryRun), resources: workspaces };
  },
};
