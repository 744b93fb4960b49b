/**
 * What the branch sweep asks of the artifacts: an artifact outlives the
 * branch that made it (its own TTL decides), and its lineage names that
 * branch's events, checkpoint and snapshot, so a branch with an artifact is
 * kept until its artifacts are gone (docs/design/retention.md).
 */
import { inBatches, placeholders, type SqlExecutor } from '../storage/engine.js';

/** Of the session's `branches` (names), those some artifact was published from. */
export async function branchesWithArtifacts(
  tx: SqlExecutor,
  tenant: string,
  session: string,
  branches: readonly string[],
): Promise<Set<string>> {
  const found = new Set<string>();
  await inBatches(branches, async (slice) => {
    for (const r of await tx.all<{ branch: string }>(
      `SELECT DISTINCT branch FROM artifacts WHERE tenant = ? AND session = ? AND branch IN (${placeholders(slice.length)})`,
      [tenant, session, ...slice],
    ))
      found.add(r.branch);
  });
  return found;
}
