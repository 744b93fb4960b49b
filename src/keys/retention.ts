/**
 * The keys' part of the branch sweep (src/retention/part.ts): a swept
 * branch's grants, handles and approvals go with it. They are rows of that
 * branch alone: were they left, a branch later given the same name would
 * find them. A grant narrowed from one of them for a branch that stays
 * would lose its parent, so the sweep keeps such a branch (`narrowedElsewhere`).
 */
import type { RetentionPart } from '../retention/part.js';
import { inBatches, placeholders, type SqlExecutor } from '../storage/engine.js';
import { deleteWhereIn, valuesWhereIn } from '../storage/rows-in.js';

/** Of the session's `branches` (names), those with a grant that a grant of another branch narrows. */
export async function narrowedElsewhere(
  tx: SqlExecutor,
  tenant: string,
  session: string,
  branches: readonly string[],
): Promise<Set<string>> {
  const found = new Set<string>();
  await inBatches(branches, async (slice) => {
    for (const r of await tx.all<{ branch: string }>(
      `SELECT DISTINCT p.branch FROM key_grants p JOIN key_grants c ON c.tenant = p.tenant AND c.parent = p.id
       WHERE p.tenant = ? AND p.session = ? AND p.branch IN (${placeholders(slice.length)})
       AND NOT (c.session = p.session AND c.branch IN (${placeholders(slice.length)}))`,
      [tenant, session, ...slice, ...slice],
    ))
      found.add(r.branch);
  });
  return found;
}

export const KEYS_RETENTION: RetentionPart = {
  feature: 'keys',
  async sweep(tx, scope, dryRun) {
    const { tenant, session, swept } = scope;
    const ofBranches = (table: string) =>
      valuesWhereIn(tx, table, tenant, 'branch', swept, 'id', { session });
    const grants = await ofBranches('key_grants');
    const handles = await ofBranches('key_handles');
    const approvals = await ofBranches('key_approvals');
    const counts = {
      approvals: await deleteWhereIn(tx, 'key_approvals', tenant, 'id', approvals, dryRun),
      handles: await deleteWhereIn(tx, 'key_handles', tenant, 'id', handles, dryRun),
      grants: await deleteWhereIn(tx, 'key_grants', tenant, 'id', grants, dryRun),
    };
    return { counts, resources: [...grants, ...handles, ...approvals] };
  },
};
