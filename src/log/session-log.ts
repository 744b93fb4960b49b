import { actorChain, appendAudit } from '../audit/audit-chain.js';
import { conflict, corrupt, invalidArgument, notFound, payloadTooLarge } from '../errors.js';
import { type EventId, newId, type SessionId } from '../ids.js';
import { toJsonText } from '../json.js';
import { type PiiCounts, piiField } from '../redaction/pii.js';
import type {
  ValidAppend,
  ValidCreateSession,
  ValidFork,
  ValidListSessions,
  ValidMoveHead,
  ValidReadBranch,
  ValidReadPath,
  ValidRewind,
} from '../schema.js';
import { RetryTransaction, type SqlExecutor, type SqlParam } from '../storage/engine.js';
import type {
  AppendResult,
  Branch,
  CairnEvent,
  EventPage,
  Identity,
  RefLogEntry,
  Session,
  SessionPage,
} from '../types.js';
import {
  BRANCH_COLUMNS,
  type BranchRow,
  EVENT_COLUMNS,
  type EventRow,
  eventDigest,
  eventValues,
  PATH_COLUMNS,
  type PathRow,
  type SessionRow,
  toBranch,
  toEvent,
  toEvents,
  toSession,
} from './rows.js';

/**
 * The session log: a tree of immutable events with movable branch heads.
 *
 * Events are stored in *lines*: a line is a run of consecutive events that one
 * branch appended, starting after a base event (the fork or rewind point). A
 * branch extends its own line while its head is that line's tip; after a fork
 * or a rewind its next append starts a new line. So a path root → head is a
 * short list of (line, seq range) segments, each one index range scan, and a
 * fork or rewind writes one row whatever the branch length.
 */
export const MAX_PAYLOAD_BYTES = 1024 * 1024;

/** A stretch of one line on a branch's path: its events with seq in lo..hi. */
export interface Segment {
  line: string;
  lo: number;
  hi: number;
}

/** A unique constraint lost to a concurrent transaction (PostgreSQL; SQLite writers never race). */
function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string }).code === '23505';
}

async function requireSession(tx: SqlExecutor, tenant: string, session: string): Promise<SessionRow> {
  const row = await tx.get<SessionRow>(
    'SELECT tenant, id, owner, title, meta, created_at FROM sessions WHERE tenant = ? AND id = ?',
    [tenant, session],
  );
  if (!row) throw notFound('session', session);
  return row;
}

async function requireBranch(
  tx: SqlExecutor,
  tenant: string,
  session: string,
  name: string,
  lock = '',
): Promise<BranchRow> {
  const row = await tx.get<BranchRow>(
    `SELECT ${BRANCH_COLUMNS} FROM branches WHERE tenant = ? AND session = ? AND name = ? ${lock}`,
    [tenant, session, name],
  );
  if (!row) {
    // Name the missing thing precisely: the session, or only the branch.
    await requireSession(tx, tenant, session);
    throw notFound('branch', `${name} of session ${session}`);
  }
  return row;
}

async function requireEvent(tx: SqlExecutor, tenant: string, id: string): Promise<EventRow> {
  const row = await tx.get<EventRow>(`SELECT ${EVENT_COLUMNS} FROM events WHERE tenant = ? AND id = ?`, [
    tenant,
    id,
  ]);
  if (!row) throw notFound('event', id);
  return row;
}

/**
 * Run once the tenant's chain is the caller's (its audit entry appended): a
 * branch sweep (log/retention.ts) that committed meanwhile may have taken
 * the event a fork or head move read before, and a branch must not point
 * at what is gone. On PostgreSQL the statement sees that commit; SQLite has
 * one writer, so there it always finds the event.
 */
async function stillThere(tx: SqlExecutor, tenant: string, id: string): Promise<void> {
  if (id === '') return;
  if (!(await tx.get('SELECT 1 AS here FROM events WHERE tenant = ? AND id = ?', [tenant, id])))
    throw new RetryTransaction(`event ${id} was swept meanwhile`);
}

/** The path root → head as segments, root first. */
/**
 * Bounds the walk, so a damaged store with a cycle of lines is reported, not looped on. A branch
 * whose ancestry is more forks and rewinds deep than this is refused as CORRUPT (docs/design/store-format.md).
 */
const MAX_LINE_DEPTH = 100_000;

export async function pathSegments(
  tx: SqlExecutor,
  tenant: string,
  branch: Pick<BranchRow, 'head' | 'head_line' | 'head_seq'>,
): Promise<Segment[]> {
  if (branch.head_line === '') return [];
  // One recursive query walks head line → base line → … → root line, however many forks or rewinds deep.
  const rows = await tx.all<{ id: string; base_line: string; base_seq: number; depth: number }>(
    `WITH RECURSIVE chain (id, base_line, base_seq, depth) AS (
       SELECT id, base_line, base_seq, 0 FROM lines WHERE tenant = ? AND id = ?
       UNION ALL
       SELECT l.id, l.base_line, l.base_seq, c.depth + 1
       FROM lines l JOIN chain c ON l.tenant = ? AND l.id = c.base_line
       WHERE c.depth < ${MAX_LINE_DEPTH}
     )
     SELECT id, base_line, base_seq, depth FROM chain ORDER BY depth`,
    [tenant, branch.head_line, tenant],
  );
  const segments: Segment[] = [];
  let expected = branch.head_line;
  let hi = branch.head_seq;
  for (const row of rows) {
    if (row.id !== expected) break;
    segments.push({ line: row.id, lo: row.base_seq + 1, hi });
    expected = row.base_line;
    hi = row.base_seq;
  }
  if (expected !== '') {
    throw corrupt(
      `line ${expected} on the path to ${branch.head || 'the root'} is missing: the store is damaged`,
      {
        line: expected,
      },
    );
  }
  return segments.reverse();
}

function onPath(segments: Segment[], event: EventRow): boolean {
  return segments.some((s) => s.line === event.line && event.seq >= s.lo && event.seq <= s.hi);
}

async function recordRefMove(
  tx: SqlExecutor,
  who: Identity,
  branch: { id: string; session: string; name: string },
  op: RefLogEntry['op'],
  headBefore: string,
  headAfter: string,
  headSeq: number,
  at: number,
): Promise<void> {
  const auditSeq = await appendAudit(tx, {
    tenant: who.tenant,
    actor: who.principal,
    chain: actorChain(who, branch.id),
    action: `branch.${op}`,
    resourceType: 'branch',
    resourceId: branch.id,
    payload: {
      session: branch.session,
      name: branch.name,
      branch: branch.id,
      head: headAfter,
      headSeq,
      headBefore,
    },
    at,
  });
  await tx.run(
    `INSERT INTO ref_log (tenant, branch, at, audit_seq, op, head_before, head_after, by_principal)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    [who.tenant, branch.id, at, auditSeq, op, headBefore, headAfter, who.principal],
  );
}

async function insertBranch(tx: SqlExecutor, row: BranchRow): Promise<void> {
  await tx.run(`INSERT INTO branches (${BRANCH_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
    row.tenant,
    row.id,
    row.session,
    row.name,
    row.owner,
    row.head,
    row.head_seq,
    row.head_line,
    row.own_line,
    row.forked_from,
    row.created_at,
    row.updated_at,
  ]);
}

export async function createSession(
  tx: SqlExecutor,
  who: Identity,
  input: ValidCreateSession,
  now: number,
  /** Personal data the tenant's redaction policy replaced in the title and meta, per kind: counted in the audit entry. */
  pii: PiiCounts = {},
): Promise<Session> {
  const row: SessionRow = {
    tenant: who.tenant,
    id: newId('session', now),
    owner: who.principal,
    title: input.title,
    meta: toJsonText(input.meta, 'meta'),
    created_at: now,
  };
  await tx.run(
    'INSERT INTO sessions (tenant, id, owner, title, meta, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    [row.tenant, row.id, row.owner, row.title, row.meta, row.created_at],
  );
  await appendAudit(tx, {
    tenant: who.tenant,
    actor: who.principal,
    chain: actorChain(who),
    action: 'session.create',
    resourceType: 'session',
    resourceId: row.id,
    payload: { title: row.title, meta: row.meta, ...piiField(pii) },
    at: now,
  });
  const main: BranchRow = {
    tenant: who.tenant,
    id: newId('branch', now),
    session: row.id,
    name: 'main',
    owner: who.principal,
    head: '',
    head_seq: 0,
    head_line: '',
    own_line: '',
    forked_from: '',
    created_at: now,
    updated_at: now,
  };
  await insertBranch(tx, main);
  await recordRefMove(tx, who, main, 'create', '', '', 0, now);
  return toSession(row);
}

export async function getSession(tx: SqlExecutor, who: Identity, id: string): Promise<Session> {
  return toSession(await requireSession(tx, who.tenant, id));
}

export async function listSessions(
  tx: SqlExecutor,
  who: Identity,
  input: ValidListSessions,
): Promise<SessionPage> {
  const rows = await tx.all<SessionRow>(
    'SELECT tenant, id, owner, title, meta, created_at FROM sessions WHERE tenant = ? AND id > ? ORDER BY id LIMIT ?',
    [who.tenant, input.after ?? '', input.limit + 1],
  );
  const page = rows.slice(0, input.limit);
  return {
    sessions: page.map(toSession),
    next: rows.length > input.limit ? page[page.length - 1]!.id : null,
  };
}

function sameAppend(row: EventRow, input: ValidAppend, payload: string, actor: string): boolean {
  return (
    row.branch === input.branch && row.kind === input.kind && row.payload === payload && row.actor === actor
  );
}

export function encodePayload(payload: unknown): string {
  const text = toJsonText(payload, 'payload');
  if (Buffer.byteLength(text) > MAX_PAYLOAD_BYTES) {
    throw payloadTooLarge(
      `event payload is ${Buffer.byteLength(text)} bytes, over the ${MAX_PAYLOAD_BYTES}-byte limit: store large content as a blob and reference its digest`,
      { limit: MAX_PAYLOAD_BYTES },
    );
  }
  return text;
}

/** Event kinds under this prefix are Cairn's own (steps, units, memory, the desk): no surface appends them. */
export const RESERVED_KIND_PREFIX = 'cairn.';

/**
 * Whether a kind is Cairn's own. Kinds are ASCII (schema.EventKind) and stored
 * as given; the test also folds case and compatibility forms, so no spelling
 * that a store or a reader might normalise slips past it.
 */
export function isReservedKind(kind: string): boolean {
  return kind.normalize('NFKC').toLowerCase().trimStart().startsWith(RESERVED_KIND_PREFIX);
}

/**
 * Appends one of Cairn's own events (a kind under `cairn.`): the path Cairn's
 * operations write them by, inside the library; the table's `append` refuses
 * such kinds, and this is not exported from the package.
 */
export function appendOwnEvent(
  tx: SqlExecutor,
  who: Identity,
  input: ValidAppend,
  payload: string,
  now: number,
): Promise<AppendResult> {
  if (!isReservedKind(input.kind))
    throw new Error(`appendOwnEvent is for Cairn's own kinds, not ${input.kind}`);
  return appendEvent(tx, who, input, payload, now);
}

export async function appendEvent(
  tx: SqlExecutor,
  who: Identity,
  input: ValidAppend,
  payload: string,
  now: number,
  stored: {
    /** Credentials the guard replaced in the payload (redactEncoded): counted in the audit entry. */
    redacted?: number;
    /** Personal data the tenant's redaction policy replaced, per kind: counted in the audit entry. */
    pii?: PiiCounts;
    /**
     * The payload as the caller sent it, before the redaction policy: a retry
     * with the same idempotency key of an append stored before the policy
     * changed is still the same append.
     */
    asSent?: string;
  } = {},
): Promise<AppendResult> {
  const { redacted = 0, pii = {}, asSent } = stored;
  const actor = input.actor ?? who.principal;
  if (input.idempotencyKey !== undefined) {
    const earlier = await tx.get<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM events WHERE tenant = ? AND session = ? AND idem_key = ?`,
      [who.tenant, input.session, input.idempotencyKey],
    );
    if (earlier) {
      if (
        !sameAppend(earlier, input, payload, actor) &&
        !(asSent && sameAppend(earlier, input, asSent, actor))
      ) {
        throw conflict(
          `idempotency key "${input.idempotencyKey}" was already used for a different append (event ${earlier.id}): use a new key for a new event`,
          { event: earlier.id },
        );
      }
      return { ...toEvent(earlier), deduplicated: true };
    }
  }
  const branch = await requireBranch(tx, who.tenant, input.session, input.branch, tx.lockRows);
  let line = branch.own_line;
  if (line === '') {
    line = newId('line', now);
    await tx.run('INSERT INTO lines (tenant, id, session, base_line, base_seq) VALUES (?, ?, ?, ?, ?)', [
      who.tenant,
      line,
      input.session,
      branch.head_line,
      branch.head_seq,
    ]);
  }
  const row: EventRow = {
    tenant: who.tenant,
    id: newId('event', now),
    session: input.session,
    branch: branch.name,
    line,
    seq: branch.head_seq + 1,
    parent: branch.head,
    kind: input.kind,
    payload,
    actor,
    owner: who.principal,
    at: now,
    idem_key: input.idempotencyKey ?? null,
  };
  try {
    await tx.run(
      `INSERT INTO events (${EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      eventValues(row),
    );
  } catch (error) {
    // A concurrent append with the same idempotency key won the race: run again to answer with its event.
    if (isUniqueViolation(error)) throw new RetryTransaction('idempotency key raced');
    throw error;
  }
  const swapped = await tx.run(
    `UPDATE branches SET head = ?, head_seq = ?, head_line = ?, own_line = ?, updated_at = ?
     WHERE tenant = ? AND id = ? AND head = ?`,
    [row.id, row.seq, line, line, now, who.tenant, branch.id, branch.head],
  );
  if (swapped !== 1) throw new RetryTransaction(`head of branch ${branch.id} moved`);
  await appendAudit(tx, {
    tenant: who.tenant,
    actor: who.principal,
    chain: actorChain(who, branch.id),
    action: 'event.append',
    resourceType: 'event',
    resourceId: row.id,
    payload: {
      digest: eventDigest(row),
      branch: branch.id,
      head: row.id,
      headSeq: row.seq,
      ...(redacted > 0 ? { redacted } : {}),
      ...piiField(pii),
    },
    at: now,
  });
  return { ...toEvent(row), deduplicated: false };
}

export async function readBranch(tx: SqlExecutor, who: Identity, input: ValidReadBranch): Promise<EventPage> {
  const branch = await requireBranch(tx, who.tenant, input.session, input.branch);
  return readPathPage(tx, who.tenant, input.session, branch, input);
}

/** The path root → an event, paged like a branch: what a branch whose head is that event would read. */
export async function readPath(tx: SqlExecutor, who: Identity, input: ValidReadPath): Promise<EventPage> {
  const event = await requireEvent(tx, who.tenant, input.to);
  return readPathPage(
    tx,
    who.tenant,
    event.session,
    { head: event.id, head_line: event.line, head_seq: event.seq },
    input,
  );
}

async function readPathPage(
  tx: SqlExecutor,
  tenant: string,
  session: SessionId,
  head: Pick<BranchRow, 'head' | 'head_line' | 'head_seq'>,
  page: { from: number; limit: number },
): Promise<EventPage> {
  const last = Math.min(head.head_seq, page.from + page.limit - 1);
  const events: CairnEvent[] = [];
  if (page.from <= last) {
    for (const segment of await pathSegments(tx, tenant, head)) {
      const lo = Math.max(segment.lo, page.from);
      const hi = Math.min(segment.hi, last);
      if (lo > hi) continue;
      const rows = await tx.all<PathRow>(
        `SELECT ${PATH_COLUMNS} FROM events WHERE tenant = ? AND line = ? AND seq >= ? AND seq <= ? ORDER BY seq`,
        [tenant, segment.line, lo, hi],
      );
      for (const event of toEvents(rows, session)) events.push(event);
    }
  }
  return {
    events,
    next: last < head.head_seq ? last + 1 : null,
    head: head.head,
    headSeq: head.head_seq,
  };
}

/** An event with the line it was appended on (where it lies in the session's tree). */
export interface PlacedEvent {
  event: CairnEvent;
  line: string;
}

/**
 * Events of one kind in a session, newest first — by time, then by place on
 * their line (exact within a branch; events of one millisecond on different
 * lines in a fixed order) — on every branch, those no branch's path holds
 * any more too (a restore or a rewind leaves them in the log); optionally
 * only those a branch appended, or those after `before` in this order. It
 * reads the session's lines and, per line, its events by the (line, seq)
 * index: meant for kinds that are few and read rarely (unit checkpoints),
 * not for a hot path.
 */
export async function eventsOfKind(
  tx: SqlExecutor,
  who: Identity,
  input: { session: SessionId; kind: string; branch?: string; before?: string; limit: number },
): Promise<PlacedEvent[]> {
  await requireSession(tx, who.tenant, input.session);
  const where = ['l.tenant = ?', 'l.session = ?', 'e.kind = ?'];
  const values: SqlParam[] = [who.tenant, input.session, input.kind];
  if (input.branch !== undefined) {
    where.push('e.branch = ?');
    values.push(input.branch);
  }
  if (input.before !== undefined) {
    const cursor = await requireEvent(tx, who.tenant, input.before);
    where.push('(e.at < ? OR (e.at = ? AND (e.seq < ? OR (e.seq = ? AND e.id < ?))))');
    const at = Number(cursor.at);
    const seq = Number(cursor.seq);
    values.push(at, at, seq, seq, cursor.id);
  }
  const columns = PATH_COLUMNS.split(', ')
    .map((c) => `e.${c}`)
    .join(', ');
  const rows = await tx.all<PathRow & { line: string }>(
    `SELECT ${columns}, e.line FROM lines l JOIN events e ON e.tenant = l.tenant AND e.line = l.id
     WHERE ${where.join(' AND ')} ORDER BY e.at DESC, e.seq DESC, e.id DESC LIMIT ?`,
    [...values, input.limit],
  );
  const events = toEvents(rows, input.session);
  return events.map((event, i) => ({ event, line: rows[i]!.line }));
}

export async function getEvent(tx: SqlExecutor, who: Identity, id: string): Promise<CairnEvent> {
  return toEvent(await requireEvent(tx, who.tenant, id));
}

async function eventInSession(
  tx: SqlExecutor,
  who: Identity,
  id: string,
  session: string,
): Promise<EventRow> {
  const event = await requireEvent(tx, who.tenant, id);
  if (event.session !== session) {
    throw invalidArgument(
      `event ${id} belongs to session ${event.session}, not ${session}: pass an event of the same session`,
      { event: id, session: event.session },
    );
  }
  return event;
}

async function freeForkName(tx: SqlExecutor, tenant: string, session: string): Promise<string> {
  const { n } = (await tx.get<{ n: number }>(
    'SELECT COUNT(*) AS n FROM branches WHERE tenant = ? AND session = ?',
    [tenant, session],
  ))!;
  for (let i = Number(n); ; i++) {
    const name = `fork-${i}`;
    const taken = await tx.get(
      'SELECT 1 AS taken FROM branches WHERE tenant = ? AND session = ? AND name = ?',
      [tenant, session, name],
    );
    if (!taken) return name;
  }
}

export async function forkBranch(
  tx: SqlExecutor,
  who: Identity,
  input: ValidFork,
  now: number,
): Promise<Branch> {
  await requireSession(tx, who.tenant, input.session);
  let at: { id: EventId | ''; seq: number; line: string };
  if (input.at !== undefined) {
    at = await eventInSession(tx, who, input.at, input.session);
  } else {
    const source = await requireBranch(tx, who.tenant, input.session, input.from ?? 'main');
    at = { id: source.head, seq: source.head_seq, line: source.head_line };
  }
  const name = input.name ?? (await freeForkName(tx, who.tenant, input.session));
  const taken = await tx.get('SELECT id FROM branches WHERE tenant = ? AND session = ? AND name = ?', [
    who.tenant,
    input.session,
    name,
  ]);
  if (taken) {
    if (input.name === undefined) throw new RetryTransaction('generated branch name raced');
    throw conflict(`session ${input.session} already has a branch named "${name}": choose another name`, {
      name,
    });
  }
  const row: BranchRow = {
    tenant: who.tenant,
    id: newId('branch', now),
    session: input.session,
    name,
    owner: who.principal,
    head: at.id,
    head_seq: at.seq,
    head_line: at.line,
    own_line: '',
    forked_from: at.id,
    created_at: now,
    updated_at: now,
  };
  try {
    await insertBranch(tx, row);
  } catch (error) {
    // A concurrent fork took the name first: run again to answer CONFLICT or pick the next free name.
    if (isUniqueViolation(error)) throw new RetryTransaction('branch name raced');
    throw error;
  }
  await recordRefMove(tx, who, row, 'fork', '', at.id, at.seq, now);
  await stillThere(tx, who.tenant, at.id);
  return toBranch(row);
}

export async function rewindBranch(
  tx: SqlExecutor,
  who: Identity,
  input: ValidRewind,
  now: number,
): Promise<Branch> {
  const branch = await requireBranch(tx, who.tenant, input.session, input.branch, tx.lockRows);
  const target = await eventInSession(tx, who, input.to, input.session);
  if (!onPath(await pathSegments(tx, who.tenant, branch), target)) {
    throw invalidArgument(
      `event ${input.to} is not on branch ${input.branch} (root → head): rewind moves a head back along its own path; use a head move (move) to go to any event of the session, or fork to start a new branch there`,
      { event: input.to, branch: input.branch },
    );
  }
  return setHead(tx, who, branch, target, 'rewind', now);
}

/**
 * Moves a branch head to any event of its session — back, forward, or onto
 * another line — as a new operation: no event is written or removed, the
 * old head stays readable, and `branchHistory` records the move. With
 * `ifHead` the move happens only while the head is still that event.
 */
export async function moveHead(
  tx: SqlExecutor,
  who: Identity,
  input: ValidMoveHead,
  now: number,
): Promise<Branch> {
  const branch = await requireBranch(tx, who.tenant, input.session, input.branch, tx.lockRows);
  const target = await eventInSession(tx, who, input.to, input.session);
  if (input.ifHead !== undefined && input.ifHead !== branch.head) {
    throw conflict(
      `branch ${input.branch} is at ${branch.head || '(root)'}, not ${input.ifHead}: it moved since you read it; read it again and decide`,
      { branch: input.branch, head: branch.head, expected: input.ifHead },
    );
  }
  return setHead(tx, who, branch, target, 'move', now);
}

/** Points a branch at an event by compare-and-swap on its head; a move to the head itself records nothing. */
async function setHead(
  tx: SqlExecutor,
  who: Identity,
  branch: BranchRow,
  target: EventRow,
  op: 'rewind' | 'move',
  now: number,
): Promise<Branch> {
  if (target.id === branch.head) return toBranch(branch);
  const swapped = await tx.run(
    `UPDATE branches SET head = ?, head_seq = ?, head_line = ?, own_line = '', updated_at = ?
     WHERE tenant = ? AND id = ? AND head = ?`,
    [target.id, target.seq, target.line, now, who.tenant, branch.id, branch.head],
  );
  if (swapped !== 1) throw new RetryTransaction(`head of branch ${branch.id} moved`);
  await recordRefMove(tx, who, branch, op, branch.head, target.id, target.seq, now);
  await stillThere(tx, who.tenant, target.id);
  return toBranch({
    ...branch,
    head: target.id,
    head_seq: target.seq,
    head_line: target.line,
    own_line: '',
    updated_at: now,
  });
}

/**
 * How many times a branch's head was set (its ref log: creation, fork,
 * rewinds, moves), read inside the caller's transaction. With the head it
 * tells a branch that moved away and back (A→B→A) from one that never moved.
 */
export async function branchMoves(
  tx: SqlExecutor,
  who: Identity,
  session: string,
  branch: string,
): Promise<number> {
  const row = await requireBranch(tx, who.tenant, session, branch, tx.lockRows);
  const counted = await tx.get<{ n: number }>(
    'SELECT COUNT(*) AS n FROM ref_log WHERE tenant = ? AND branch = ?',
    [who.tenant, row.id],
  );
  return Number(counted?.n ?? 0);
}

/** Who owns a branch (its principal), or null when the session has no branch of that name. */
export async function branchOwner(
  tx: SqlExecutor,
  tenant: string,
  session: string,
  branch: string,
): Promise<string | null> {
  const row = await tx.get<{ owner: string }>(
    'SELECT owner FROM branches WHERE tenant = ? AND session = ? AND name = ?',
    [tenant, session, branch],
  );
  return row?.owner ?? null;
}

/** A branch's head event id ('' at the root), read inside the caller's transaction. */
export async function branchHead(
  tx: SqlExecutor,
  who: Identity,
  session: string,
  branch: string,
): Promise<string> {
  return (await requireBranch(tx, who.tenant, session, branch, tx.lockRows)).head;
}

export async function listBranches(tx: SqlExecutor, who: Identity, session: string): Promise<Branch[]> {
  await requireSession(tx, who.tenant, session);
  const rows = await tx.all<BranchRow>(
    `SELECT ${BRANCH_COLUMNS} FROM branches WHERE tenant = ? AND session = ? ORDER BY created_at, name`,
    [who.tenant, session],
  );
  return rows.map(toBranch);
}

export async function branchHistory(
  tx: SqlExecutor,
  who: Identity,
  session: string,
  name: string,
): Promise<RefLogEntry[]> {
  const branch = await requireBranch(tx, who.tenant, session, name);
  const rows = await tx.all<{
    op: RefLogEntry['op'];
    head_before: string;
    head_after: string;
    by_principal: string;
    at: number;
  }>(
    'SELECT op, head_before, head_after, by_principal, at FROM ref_log WHERE tenant = ? AND branch = ? ORDER BY audit_seq',
    [who.tenant, branch.id],
  );
  return rows.map((r) => ({
    branch: name,
    op: r.op,
    headBefore: r.head_before,
    headAfter: r.head_after,
    by: r.by_principal,
    at: r.at,
  }));
}

/**
 * The stretches of lines that make up a branch's path, root to head: an event
 * is on the branch's path exactly when its (line, seq) lies in one of them.
 * Memory uses it to tell what a branch may see (records anchored on its path).
 */
export async function branchPath(
  tx: SqlExecutor,
  who: Identity,
  session: string,
  branch: string,
): Promise<Segment[]> {
  await requireSession(tx, who.tenant, session);
  return pathSegments(tx, who.tenant, await requireBranch(tx, who.tenant, session, branch));
}

/** Where an event of the caller's tenant lies: its line and sequence number. */
export async function eventPosition(
  tx: SqlExecutor,
  who: Identity,
  id: string,
): Promise<{ line: string; seq: number }> {
  const row = await requireEvent(tx, who.tenant, id);
  return { line: row.line, seq: Number(row.seq) };
}
