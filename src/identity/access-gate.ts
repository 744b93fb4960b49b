import type { Action } from '../contract/access.js';
import { forbidden } from '../errors.js';
import type { Identity } from '../types.js';

export type { Action } from '../contract/access.js';

/**
 * The one access gate. Every operation declares its action (`access`) and
 * `runOp` checks it here before the handler runs; the library's facades
 * (the keys, the desk store) check theirs too, for callers that reach them
 * without the table. Tenant scoping itself happens below, in every query
 * and, on PostgreSQL, in row-level security.
 */
/** Admin-only: operator and person-in-the-loop actions. Narrowing an existing grant or taking a handle is not. */
const ADMIN_ONLY: ReadonlySet<Action> = new Set([
  'token.create.other',
  'token.revoke.other',
  'desk.gc',
  'keys.credential',
  'keys.grant.root',
  'keys.approve',
  'artifact.quota',
  'artifact.sweep',
  'erasure',
  'branch.sweep',
  'redaction',
]);

export function authorize(who: Identity, action: Action): void {
  if (ADMIN_ONLY.has(action) && who.role !== 'admin') {
    throw forbidden(
      `principal ${who.principal} may not ${action.replace(/\./g, ' ')}: ask an admin of the tenant`,
      { action, principal: who.principal },
    );
  }
}
