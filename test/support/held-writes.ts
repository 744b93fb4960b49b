import type { Keys } from '../../src/keys/keys.js';

/**
 * A `billing` bearer credential (value `value`), a live each-write grant of
 * the session's main branch on it, and `bodies.length` POSTs held for a
 * person — recorded through the library, as the proxy would.
 */
export async function heldWrites(
  keys: Keys,
  session: string,
  value: string,
  bodies: string[],
): Promise<{ grant: string; approvals: string[] }> {
  await keys.addCredential({
    name: 'billing',
    kind: 'bearer',
    upstream: 'http://127.0.0.1:9/api',
    value: Buffer.from(value),
  });
  const grant = await keys.grant({
    session,
    branch: 'main',
    credential: 'billing',
    mode: 'live',
    approval: 'each-write',
  });
  const { handle } = await keys.issueHandle({ session, branch: 'main' });
  const approvals: string[] = [];
  for (const body of bodies) {
    const decision = await keys.authorizeRequest({
      handle,
      credential: 'billing',
      method: 'POST',
      pathAndQuery: '/pay',
      body: Buffer.from(body),
    });
    if (decision.outcome !== 'hold') throw new Error(`expected a held write, got ${decision.outcome}`);
    approvals.push(decision.approval.id);
  }
  return { grant: grant.id, approvals };
}
