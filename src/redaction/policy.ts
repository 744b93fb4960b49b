/**
 * A tenant's redaction policy (docs/design/redaction.md): read in the
 * transaction that stores what it applies to, so a change holds from the
 * next write on every replica; set by a person who is an admin.
 */
import type { z } from 'zod';
import { appendAudit } from '../audit/audit-chain.js';
import type { SqlExecutor } from '../storage/engine.js';
import type { Identity } from '../types.js';
import type { PiiCounts, PiiRules } from './pii.js';
import { redactValue } from './pii.js';
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
    action: 'redaction.policy',
    resourceType: 'tenant',
    resourceId: who.tenant,
    payload: policy,
    at: now,
  });
  return { ...policy, updatedBy: who.principal, updatedAt: now };
}

/** The rules in force for a tenant, or null when its policy is off. */
export async function rulesOf(tx: SqlExecutor, tenant: string): Promise<PiiRules | null> {
  const policy = await getPolicy(tx, tenant);
  return policy.enabled ? policy : null;
}

/**
 * `value` redacted by the tenant's policy, in the caller's transaction, with
 * the counts per kind (empty when the policy is off or nothing matched).
 */
export async function redactByPolicy<T>(
  tx: SqlExecutor,
  tenant: string,
  value: T,
): Promise<{ value: T; counts: PiiCounts }> {
  const rules = await rulesOf(tx, tenant);
  if (!rules) return { value, counts: {} };
  const done = redactValue(value, rules);
  return { value: done.value as T, counts: done.counts };
}
