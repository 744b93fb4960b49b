/**
 * The access actions: what an operation does, as the access gate sees it.
 * Each operation declares one (`access` in its spec); the gate checks it
 * against the caller before the handler runs (ops/op.ts `runOp`), and a
 * handler asks for a further one only where its input decides (minting a
 * token for another principal, a root grant, moving a head while committing).
 * Which are a person's or an admin's alone: identity/access-gate.ts.
 */
export const ACCESS_ACTIONS = [
  'identity.read',
  'session.create',
  'session.read',
  'log.append',
  'log.read',
  'branch.fork',
  'branch.rewind',
  'branch.move',
  'branch.read',
  'token.create.self',
  'token.create.other',
  'token.revoke.self',
  'token.revoke.other',
  'audit.verify',
  'desk.read',
  'desk.write',
  'desk.gc',
  'keys.read',
  'keys.credential',
  'keys.grant.root',
  'keys.grant.narrow',
  'keys.handle',
  'keys.approve',
  'memory.read',
  'memory.write',
  'artifact.read',
  'artifact.write',
  'artifact.quota',
  'artifact.sweep',
  'erasure',
  'branch.sweep',
  'redaction',
] as const;

export type Action = (typeof ACCESS_ACTIONS)[number];
