/**
 * What the branch sweep asks of the artifacts: an artifact outlives the
 * branch that made it (its own TTL decides), and its lineage names that
 * branch's events, checkpoint and snapshot, so a branch with an artifact is
 * kept until its artifacts are gone (docs/design/retention.md).
 */
import type { SqlExecutor } from '../storage/engine.js';
import { valuesWhereIn } from '../storage/rows-in.js';

/** Of the session's `branches` (names), those some artifact was published from. */
export async function branchesWithArtifacts(
  tx: SqlExecutor,
  tenant: string,
  session: string,
  branches: readonly string[],
): Promise<Set<string>> {
  return new Set(await valuesWhereIn(tx, 'artifacts', tenant, 'branch', branches, 'branch', { session }));
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
  for (const column of ['event', 'checkpoint', 'snapshot', 'step_event', 'source_event'])
    for (const id of await valuesWhereIn(tx, 'artifacts', tenant, column, ids, column)) found.add(id);
  const inputs = await valuesWhereIn(tx, 'artifact_inputs', tenant, 'ref', ids, 'ref', { kind: 'snapshot' });
  for (const id of inputs) found.add(id);
  return found;
}
