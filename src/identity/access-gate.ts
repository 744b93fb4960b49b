import { forbidden } from '../errors.js';
import type { Identity } from '../types.js';

/**
 * The one access gate. Every library call names its action here before it
 * touches a store; tenant scoping itself happens below, in every query and,
 * on PostgreSQL, in row-level security.
 */
export type Action =
  | 'session.create'
  | 'session.read'
  | 'log.append'
  | 'log.read'
  | 'branch.fork'
  | 'branch.rewind'
  | 'branch.move'
  | 'branch.read'
  | 'token.create.self'
  | 'token.create.other'
  | 'token.revoke.self'
  | 'token.revoke.other'
  | 'audit.verify'
  | 'desk.read'
  | 'desk.write'
  | 'desk.gc'
  | 'keys.read'
  | 'keys.credential'
  | 'keys.grant.root'
  | 'keys.grant.narrow'
  | 'keys.handle'
  | 'keys.approve'
  | 'memory.read'
  | 'memory.write';

/** Admin-only: operator and person-in-the-loop actions. Narrowing an existing grant or taking a handle is not. */
const ADMIN_ONLY: ReadonlySet<Action> = new Set([
  'token.create.other',
  'token.revoke.other',
  'desk.gc',
  'keys.credential',
  'keys.grant.root',
  'keys.approve',
]);

export function authorize(who: Identity, action: Action): void {
  if (ADMIN_ONLY.has(action) && who.role !== 'admin') {
    throw forbidden(
      `principal ${who.principal} may not ${action.replace(/\./g, ' ')}: ask an admin of the tenant`,
      { action, principal: who.principal },
    );
  }
}
