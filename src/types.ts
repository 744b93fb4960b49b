/** The public nouns of the foundation, as every surface (SDK, HTTP, CLI) shows them. */

export type PrincipalKind = 'user' | 'agent' | 'service';
export type Role = 'admin' | 'member';

/** Who is calling: resolved from a token (server) or the store's local principal (embedded). */
export interface Identity {
  tenant: string;
  principal: string;
  kind: PrincipalKind;
  role: Role;
}

export interface Principal {
  id: string;
  tenant: string;
  kind: PrincipalKind;
  name: string;
  role: Role;
  createdAt: number;
}

export interface Session {
  id: string;
  tenant: string;
  owner: string;
  title: string;
  meta: Record<string, unknown>;
  createdAt: number;
}

export interface Branch {
  id: string;
  session: string;
  name: string;
  owner: string;
  /** Id of the head event; '' while the branch is empty. */
  head: string;
  /** Sequence number of the head event (its depth from the root); 0 while empty. */
  headSeq: number;
  /** Event the branch was forked at; '' for a session's first branch. */
  forkedFrom: string;
  createdAt: number;
  updatedAt: number;
}

export interface CairnEvent {
  id: string;
  session: string;
  /** Name of the branch the event was appended on. */
  branch: string;
  /** Id of the previous event on its path; '' for a root event. */
  parent: string;
  /** Position on its path from the root, starting at 1. */
  seq: number;
  kind: string;
  payload: unknown;
  actor: string;
  owner: string;
  at: number;
  idempotencyKey: string | null;
}

export interface AppendResult extends CairnEvent {
  /** True when an earlier append with the same idempotency key answered. */
  deduplicated: boolean;
}

export interface EventPage {
  events: CairnEvent[];
  /** Sequence number to pass as `from` for the next page; null after the head. */
  next: number | null;
  head: string;
  headSeq: number;
}

export interface SessionPage {
  sessions: Session[];
  /** Cursor to pass as `after` for the next page; null on the last page. */
  next: string | null;
}

/** One move of a branch head other than an append: the branch's reflog. */
export interface RefLogEntry {
  branch: string;
  op: 'create' | 'fork' | 'rewind' | 'move';
  headBefore: string;
  headAfter: string;
  by: string;
  at: number;
}

export interface CreatedToken {
  id: string;
  /** The secret bearer token. Shown once: Cairn keeps only its hash. */
  token: string;
  tenant: string;
  principal: string;
  label: string;
}

export interface RevokedToken {
  id: string;
  principal: string;
  /** When it was revoked (the first revocation, if it was revoked before). */
  revokedAt: number;
}

export interface AuditBreak {
  seq: number;
  reason: string;
}

export interface AuditReport {
  tenant: string;
  ok: boolean;
  entries: number;
  events: number;
  /** The first broken link, when `ok` is false. */
  firstBreak: AuditBreak | null;
}
