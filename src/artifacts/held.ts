/**
 * Artifacts' facade for the desk: which blobs an artifact names as a chunk.
 * Blobs are one content-addressed space per tenant, so a desk pack and an
 * artifact chunk of the same bytes are one blob: the desk asks here before
 * it deletes one (docs/design/artifacts.md, "One blob space").
 */
import { inBatches, placeholders, type SqlExecutor } from '../storage/engine.js';

/** Of `digests`, those some artifact of the tenant (live or being written) names as a chunk. */
export async function heldByArtifacts(
  tx: SqlExecutor,
  tenant: string,
  digests: readonly string[],
): Promise<Set<string>> {
  const held = new Set<string>();
  await inBatches([...digests], async (slice) => {
    for (const r of await tx.all<{ digest: string }>(
      `SELECT DISTINCT digest FROM artifact_chunks WHERE tenant = ? AND digest IN (${placeholders(slice.length)})`,
      [tenant, ...slice],
    ))
      held.add(r.digest);
  });
  return held;
}
