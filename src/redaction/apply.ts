/**
 * Writing under the tenant's redaction policy (docs/design/redaction.md).
 * The text is redacted before the write transaction opens (finding phone
 * numbers can take a while; no writer should wait on it), with the policy
 * this store last saw for the tenant; the transaction then reads the policy
 * and, when it changed since, gives up and the write is prepared again with
 * the new one. So a change holds from the next write, on every replica, and
 * the write transaction pays one primary-key read.
 */
import type { Engine, SqlExecutor } from '../storage/engine.js';
import type { PiiRules } from './pii.js';
import { getPolicy, type RedactionPolicy } from './policy.js';

interface Seen {
  rules: PiiRules | null;
  /** The policy as read (two changes in one millisecond differ here). */
  text: string;
}

/** The policy each store (by its engine) last saw, per tenant: no ambient state beyond the store's own life. */
const seen = new WeakMap<Engine, Map<string, Seen>>();

class PolicyMoved extends Error {
  constructor(readonly policy: RedactionPolicy) {
    super('the redaction policy changed');
  }
}

const rulesIn = (policy: RedactionPolicy): Seen =>
  policy.updatedAt === 0
    ? { rules: null, text: NEVER_SET }
    : { rules: policy.enabled ? policy : null, text: JSON.stringify(policy) };

/** Before this store read any: what a tenant without a policy has. */
const NEVER_SET = '';

/**
 * Prepares a write with the tenant's rules (`null`: redaction is off), then
 * runs it in a write transaction that checks the policy it was prepared
 * with is still the tenant's.
 */
export async function underPolicy<P, T>(
  engine: Engine,
  tenant: string,
  write: <R>(fn: (tx: SqlExecutor, now: number) => Promise<R>) => Promise<R>,
  prepare: (rules: PiiRules | null) => Promise<P>,
  run: (tx: SqlExecutor, now: number, prepared: P) => Promise<T>,
): Promise<T> {
  let known = seen.get(engine);
  if (!known) {
    known = new Map();
    seen.set(engine, known);
  }
  for (;;) {
    const assumed = known.get(tenant);
    const prepared = await prepare(assumed?.rules ?? null);
    try {
      return await write(async (tx, now) => {
        const policy = await getPolicy(tx, tenant);
        if (rulesIn(policy).text !== (assumed?.text ?? NEVER_SET)) throw new PolicyMoved(policy);
        return run(tx, now, prepared);
      });
    } catch (error) {
      if (!(error instanceof PolicyMoved)) throw error;
      known.set(tenant, rulesIn(error.policy));
    }
  }
}
