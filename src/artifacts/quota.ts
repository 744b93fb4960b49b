/**
 * A tenant's artifact quota: its limit (set by a person who is an admin, or
 * the default) against what its artifacts hold, publications under way
 * included.
 */
import { actorChain, appendAudit } from '../audit/audit-chain.js';
import { quotaExceeded } from '../errors.js';
import { lockTenant } from '../identity/identity-store.js';
import type { OpContext } from '../ops/op.js';
import type { SqlExecutor } from '../storage/engine.js';

/** A tenant's artifact quota when no admin set one: 10 GiB. */
export const DEFAULT_QUOTA_BYTES = 10 * 1024 * 1024 * 1024;

async function quotaOf(tx: SqlExecutor, tenant: string) {
  const set = await tx.get<{ bytes: number }>('SELECT bytes FROM artifact_quotas WHERE tenant = ?', [tenant]);
  const held = await tx.get<{ used: number | null; n: number }>(
    'SELECT SUM(size) AS used, COUNT(*) AS n FROM artifacts WHERE tenant = ?',
    [tenant],
  );
  return {
    limit: set ? Number(set.bytes) : DEFAULT_QUOTA_BYTES,
    used: Number(held?.used ?? 0),
    artifacts: Number(held?.n ?? 0),
  };
}

/** The tenant's artifacts, this publication's bytes so far included, must fit its quota. */
export async function checkQuota(
  tx: SqlExecutor,
  tenant: string,
  size: number,
  declared: boolean,
): Promise<void> {
  const quota = await quotaOf(tx, tenant);
  if (quota.used > quota.limit)
    throw quotaExceeded(
      `publishing ${size} bytes${declared ? '' : ' (so far)'} takes your tenant's artifacts to ${quota.used} bytes, past its quota of ${quota.limit}: remove artifacts you no longer need, or ask an admin to raise the quota`,
      { limit: quota.limit, used: quota.used - size },
    );
}

export function quota(ctx: OpContext) {
  return ctx.read((tx) => quotaOf(tx, ctx.who.tenant));
}

export async function setQuota(ctx: OpContext, bytes: number) {
  const who = ctx.who;
  return ctx.write(async (tx, now) => {
    await lockTenant(tx, who.tenant);
    const before = await tx.get<{ bytes: number }>('SELECT bytes FROM artifact_quotas WHERE tenant = ?', [
      who.tenant,
    ]);
    if (before) await tx.run('UPDATE artifact_quotas SET bytes = ? WHERE tenant = ?', [bytes, who.tenant]);
    else await tx.run('INSERT INTO artifact_quotas (tenant, bytes) VALUES (?, ?)', [who.tenant, bytes]);
    await appendAudit(tx, {
      tenant: who.tenant,
      actor: who.principal,
      chain: actorChain(who),
      action: 'artifact.quota',
      resourceType: 'tenant',
      resourceId: who.tenant,
      payload: { bytes, before: before ? Number(before.bytes) : null },
      at: now,
    });
    return quotaOf(tx, who.tenant);
  });
}
