/**
 * A tenant's redaction policy (docs/design/redaction.md): checked in the
 * transaction that stores what it applies to (apply.ts), so a change holds
 * from the next write on every replica; set by a person who is an admin.
 */
import type { z } from 'zod';
import { actorChain, appendAudit } from '../audit/audit-chain.js';
import type { SqlExecutor } from '../storage/engine.js';
import type { Identity } from '../types.js';
import type * as shape from './shapes.js';

export type RedactionPolicy = z.output<typeof shape.RedactionPolicy>;
type PolicyInput = z.output<typeof shape.RedactionPolicyInput>;

const OFF: RedactionPolicy = {
  enabled: false,
  kinds: [],
  nationalIds: [],
  updatedBy: '',
  updatedAt: 0,
};

export async function getPolicy(tx: SqlExecutor, tenant: string): Promise<RedactionPolicy> {
  const row = await tx.get<{ policy: string; updated_by: string; updated_at: number }>(
    'SELECT policy, updated_by, updated_at FROM redaction_policies WHERE tenant = ?',
    [tenant],
  );
  if (!row) return OFF;
  return {
    ...(JSON.parse(row.policy) as PolicyInput),
    updatedBy: row.updated_by,
    updatedAt: Number(row.updated_at),
  };
}

export async function setPolicy(
  tx: SqlExecutor,
  who: Identity,
  input: PolicyInput,
  now: number,
): Promise<RedactionPolicy> {
  const policy: PolicyInput = {
    enabled: input.enabled,
    kinds: [...new Set(input.kinds)],
    nationalIds: [...new Set(input.nationalIds)],
    ...(input.phoneRegion ? { phoneRegion: input.phoneRegion } : {}),
  };
  const text = JSON.stringify(policy);
  const changed = await tx.run(
    'UPDATE redaction_policies SET policy = ?, updated_by = ?, updated_at = ? WHERE tenant = ?',
    [text, who.principal, now, who.tenant],
  );
  if (changed === 0)
    await tx.run(
      'INSERT INTO redaction_policies (tenant, policy, updated_by, updated_at) VALUES (?, ?, ?, ?)',
      [who.tenant, text, who.principal, now],
    );
  await appendAudit(tx, {
    tenant: who.tenant,
    actor: who.principal,
    chain: actorChain(who),
    action: 'redaction.policy',
    resourceType: 'tenant',
    resourceId: who.tenant,
    payload: policy,
    at: now,
  });
  return { ...policy, updatedBy: who.principal, updatedAt: now };
}
