/**
 * The artifacts' part of an erasure: the artifacts of the scope's sessions
 * and those an erased principal published, with their chunk lists and
 * lineage inputs. Their bytes are blobs: once these rows are gone no row
 * names them, and the cascade's blob sweep deletes them (blob/named.ts).
 * A surviving artifact made from an erased one keeps the input's id in its
 * lineage (an id, no content); showing it finds the input gone.
 */
import type { ErasurePart } from '../erasure/part.js';
import { inBatches, placeholders, type SqlExecutor } from '../storage/engine.js';
import { deleteWhereIn, valuesWhereIn } from '../storage/rows-in.js';

export const ARTIFACTS_ERASURE: ErasurePart = {
  feature: 'artifacts',
  async erase(tx, scope, preview) {
    const { tenant, sessions, principals } = scope;
    const artifacts = [
      ...new Set([
        ...(await valuesWhereIn(tx, 'artifacts', tenant, 'session', sessions)),
        ...(await valuesWhereIn(tx, 'artifacts', tenant, 'owner', principals)),
      ]),
    ];
    const bytes = await sizeOf(tx, tenant, artifacts);
    await deleteWhereIn(tx, 'artifact_inputs', tenant, 'artifact', artifacts, preview);
    await deleteWhereIn(tx, 'artifact_chunks', tenant, 'artifact', artifacts, preview);
    const counts = {
      artifacts: await deleteWhereIn(tx, 'artifacts', tenant, 'id', artifacts, preview),
      bytes,
    };
    return { counts, resources: artifacts };
  },
};

async function sizeOf(tx: SqlExecutor, tenant: string, artifacts: readonly string[]): Promise<number> {
  let bytes = 0;
  await inBatches(artifacts, async (slice) => {
    const row = await tx.get<{ n: number | null }>(
      `SELECT SUM(size) AS n FROM artifacts WHERE tenant = ? AND id IN (${placeholders(slice.length)})`,
      [tenant, ...slice],
    );
    bytes += Number(row?.n ?? 0);
  });
  return bytes;
}
