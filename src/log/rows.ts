import { tupleDigest } from '../digest.js';
import type { EventId, SessionId } from '../ids.js';
import type { Branch, CairnEvent, Session } from '../types.js';

/** Row shapes of the log tables, and their mapping to the public nouns. */
export interface EventRow {
  tenant: string;
  id: EventId;
  session: SessionId;
  branch: string;
  line: string;
  seq: number;
  parent: EventId | '';
  kind: string;
  payload: string;
  actor: string;
  owner: string;
  at: number;
  idem_key: string | null;
}

export interface BranchRow {
  tenant: string;
  id: string;
  session: SessionId;
  name: string;
  owner: string;
  head: EventId | '';
  head_seq: number;
  head_line: string;
  own_line: string;
  forked_from: EventId | '';
  created_at: number;
  updated_at: number;
}

export interface SessionRow {
  tenant: string;
  id: SessionId;
  owner: string;
  title: string;
  meta: string;
  created_at: number;
}

export const EVENT_COLUMNS =
  'tenant, id, session, branch, line, seq, parent, kind, payload, actor, owner, at, idem_key';
export const BRANCH_COLUMNS =
  'tenant, id, session, name, owner, head, head_seq, head_line, own_line, forked_from, created_at, updated_at';

/** Columns a branch read needs; the rest are known from the request. */
export const PATH_COLUMNS = 'id, branch, seq, parent, kind, payload, actor, owner, at, idem_key';
export type PathRow = Pick<
  EventRow,
  'id' | 'branch' | 'seq' | 'parent' | 'kind' | 'payload' | 'actor' | 'owner' | 'at' | 'idem_key'
>;

/** Maps a page of rows, parsing all payloads in one JSON.parse call (the hot part of a read). */
export function toEvents(rows: PathRow[], session: SessionId): CairnEvent[] {
  if (rows.length === 0) return [];
  const payloads = JSON.parse(`[${rows.map((r) => r.payload).join(',')}]`) as unknown[];
  return rows.map((row, i) => ({
    id: row.id,
    session,
    branch: row.branch,
    parent: row.parent,
    seq: row.seq,
    kind: row.kind,
    payload: payloads[i],
    actor: row.actor,
    owner: row.owner,
    at: row.at,
    idempotencyKey: row.idem_key,
  }));
}

export function toEvent(row: EventRow): CairnEvent {
  return {
    id: row.id,
    session: row.session,
    branch: row.branch,
    parent: row.parent,
    seq: row.seq,
    kind: row.kind,
    payload: JSON.parse(row.payload),
    actor: row.actor,
    owner: row.owner,
    at: row.at,
    idempotencyKey: row.idem_key,
  };
}

export function toBranch(row: BranchRow): Branch {
  return {
    id: row.id,
    session: row.session,
    name: row.name,
    owner: row.owner,
    head: row.head,
    headSeq: row.head_seq,
    forkedFrom: row.forked_from,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toSession(row: SessionRow): Session {
  return {
    id: row.id,
    tenant: row.tenant,
    owner: row.owner,
    title: row.title,
    meta: JSON.parse(row.meta),
    createdAt: row.created_at,
  };
}

/**
 * Digest of an event row as stored, payload text included byte for byte. The
 * audit entry of the append commits to it, so an edited event is detected.
 */
export function eventDigest(row: EventRow): string {
  return tupleDigest(eventValues(row));
}

/** An event row's values in EVENT_COLUMNS order: what is inserted is what is hashed. */
export function eventValues(row: EventRow): Array<string | number | null> {
  return [
    row.tenant,
    row.id,
    row.session,
    row.branch,
    row.line,
    row.seq,
    row.parent,
    row.kind,
    row.payload,
    row.actor,
    row.owner,
    row.at,
    row.idem_key,
  ];
}
