/**
 * Identity's part of an erasure: an erased user's or agent's principal row
 * (its name is personal data) and its tokens, which stop working at once.
 * Its id stays where other rows and audit entries name it: an id with no
 * name behind it. The cascade refuses to erase the caller itself.
 */
import type { ErasurePart } from '../erasure/part.js';
import { inBatches, placeholders, type SqlExecutor } from '../storage/engine.js';
import { deleteWhereIn, valuesWhereIn } from '../storage/rows-in.js';

export const IDENTITY_ERASURE: ErasurePart = {
  feature: 'identity',
  async erase(tx, scope, preview) {
    const { tenant, principals } = scope;
    const tokens = await valuesWhereIn(tx, 'tokens', tenant, 'principal', principals);
    const counts = {
      tokens: await deleteWhereIn(tx, 'tokens', tenant, 'id', tokens, preview),
      principals: await deleteWhereIn(tx, 'principals', tenant, 'id', principals, preview),
    };
    return { counts, resources: [...principals, ...tokens] };
  },
};

/** The kind of a principal of the tenant, or undefined (for checking an erasure's subject). */
export async function principalKind(
  tx: SqlExecutor,
  tenant: string,
  principal: string,
): Promise<string | undefined> {
  return (await valuesWhereIn(tx, 'principals', tenant, 'id', [principal], 'kind'))[0];
}

/** Revokes, at `now`, the principals' tokens not revoked yet: an erased subject stops acting when its erasure starts. */
export async function revokeTokensOf(
  tx: SqlExecutor,
  tenant: string,
  principals: readonly string[],
  now: number,
): Promise<void> {
  await inBatches(principals, async (slice) => {
    await tx.run(
      `UPDATE tokens SET revoked_at = ? WHERE tenant = ? AND revoked_at IS NULL AND principal IN (${placeholders(slice.length)})`,
      [now, tenant, ...slice],
    );
  });
}
