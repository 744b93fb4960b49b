import type { Keys } from '../../src/keys/keys.js';

/** A write of one branch through one of its credentials, as an agent sends it to the proxy. */
export interface HeldWriteRequest {
  session: string;
  branch: string;
  credential: string;
  /** Default POST. */
  method?: string;
  /** Path (and query) under the credential's upstream, starting with `/`. */
  path: string;
  body: string;
  /** A handle of the branch to send it with; default a fresh one. */
  handle?: string;
}

/**
 * Records a write held for a person, through the library as the proxy would
 * (a handle for the branch, then the request under the branch's grants);
 * the approval's id. The branch needs a grant that holds writes (`live`,
 * `each-write`) on the credential.
 */
export async function holdWrite(keys: Keys, request: HeldWriteRequest): Promise<string> {
  const handle =
    request.handle ?? (await keys.issueHandle({ session: request.session, branch: request.branch })).handle;
  const decision = await keys.authorizeRequest({
    handle,
    credential: request.credential,
    method: request.method ?? 'POST',
    pathAndQuery: request.path,
    body: Buffer.from(request.body),
  });
  if (decision.outcome !== 'hold') throw new Error(`expected a held write, got ${decision.outcome}`);
  return decision.approval.id;
}

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
  for (const body of bodies)
    approvals.push(
      await holdWrite(keys, { session, branch: 'main', credential: 'billing', path: '/pay', body, handle }),
    );
  return { grant: grant.id, approvals };
}
