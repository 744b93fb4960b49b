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

/**
 * Of `ids` (events and snapshots), those some artifact's lineage names: its
 * event, checkpoint, snapshot, step or source event, or a snapshot input. An
 * artifact may name another branch's checkpoint or file (checkLineage takes
 * any of the tenant's), so the branch that holds them stays too.
 */
export async function namedByArtifacts(
  tx: SqlExecutor,
  tenant: string,
  ids: readonly string[],
): Promise<Set<string>> {
  const found = new Set<string>();
  const columns = ['event', 'checkpoint', 'snapshot', 'step_event', 'source_event'];
  await inBatches(ids, async (slice) => {
    const marks = placeholders(slice.length);
    for (const column of columns)
      for (const r of await tx.all<{ v: string }>(
        `SELECT DISTINCT ${column} AS v FROM artifacts WHERE tenant = ? AND ${column} IN (${marks})`,
        [tenant, ...slice],
      ))
        found.add(r.v);
    for (const r of await tx.all<{ v: string }>(
      `SELECT DISTINCT ref AS v FROM artifact_inputs WHERE tenant = ? AND kind = 'snapshot' AND ref IN (${marks})`,
      [tenant, ...slice],
    ))
      found.add(r.v);
  });
  return found;
}
