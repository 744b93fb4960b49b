/**
 * The keys' part of an erasure: the grants, branch handles and approvals of
 * the scope's sessions (an approval's preview holds a request's body), and
 * the handles issued to an erased principal. Credentials are the tenant's,
 * not a subject's: they stay. A grant made on an erased person's behalf for
 * a branch of a session that stays is not touched (docs/design/erasure.md).
 */
import type { ErasurePart } from '../erasure/part.js';
import { deleteWhereIn, valuesWhereIn } from '../storage/rows-in.js';

export const KEYS_ERASURE: ErasurePart = {
  feature: 'keys',
  async erase(tx, scope, preview) {
    const { tenant, sessions, principals } = scope;
    const handles = [
      ...new Set([
        ...(await valuesWhereIn(tx, 'key_handles', tenant, 'session', sessions)),
        ...(await valuesWhereIn(tx, 'key_handles', tenant, 'principal', principals)),
      ]),
    ];
    const grants = await valuesWhereIn(tx, 'key_grants', tenant, 'session', sessions);
    const approvals = await valuesWhereIn(tx, 'key_approvals', tenant, 'session', sessions);
    const counts = {
      approvals: await deleteWhereIn(tx, 'key_approvals', tenant, 'id', approvals, preview),
      handles: await deleteWhereIn(tx, 'key_handles', tenant, 'id', handles, preview),
      grants: await deleteWhereIn(tx, 'key_grants', tenant, 'id', grants, preview),
    };
    return { counts, resources: [...grants, ...handles, ...approvals] };
  },
};
