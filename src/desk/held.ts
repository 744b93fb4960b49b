/**
 * The desk's facade for artifacts: which blobs are desk packs. Blobs are one
 * content-addressed space per tenant (see artifacts/held.ts), so an artifact
 * deleting a chunk asks here first.
 */
import { inBatches, placeholders, type SqlExecutor } from '../storage/engine.js';

/** Of `digests`, those the tenant's desk holds as packs (in any state). */
export async function heldByDesk(
  tx: SqlExecutor,
  tenant: string,
  digests: readonly string[],
): Promise<Set<string>> {
  const held = new Set<string>();
  await inBatches([...digests], async (slice) => {
    for (const r of await tx.all<{ digest: string }>(
      `SELECT digest FROM desk_packs WHERE tenant = ? AND digest IN (${placeholders(slice.length)})`,
      [tenant, ...slice],
    ))
      held.add(r.digest);
  });
  return held;
}
