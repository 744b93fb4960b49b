/**
 * Every action an audit entry can name: a closed list, so a new kind of
 * entry is a line here (and in docs/design/audit-chain.md) and a misspelt
 * one does not compile. Entries already in stores keep their names; these
 * are the names they were written with.
 */
export const AUDIT_ACTIONS = [
  // identity
  'principal.create',
  'token.create',
  'token.revoke',
  'authority.refused',
  // the session log
  'session.create',
  'event.append',
  'log.append.reserved',
  'branch.create',
  'branch.fork',
  'branch.rewind',
  'branch.move',
  // the desk
  'desk.refused',
  // the keys
  'keys.credential.add',
  'keys.credential.rotate',
  'keys.credential.delete',
  'keys.grant.create',
  'keys.grant.revoke',
  'keys.handle.issue',
  'keys.handle.revoke',
  'keys.use',
  'keys.deny',
  'keys.leak',
  'keys.approval.request',
  'keys.approval.approve',
  'keys.approval.deny',
  'keys.approval.expire',
  // memory
  'memory.remember',
  'memory.forget',
  'memory.promote',
  'memory.quarantine',
  'memory.carry',
  'memory.drop-branch',
  'memory.claim.refused',
  // artifacts
  'artifact.publish',
  'artifact.remove',
  'artifact.expire',
  'artifact.quota',
  // erasure
  'audit.erase',
  'erasure.finish',
  // retention
  'retention.sweep',
  // redaction
  'redaction.policy',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];
