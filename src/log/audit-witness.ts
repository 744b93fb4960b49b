/**
 * The log's side of `audit verify`: the session log's rows checked against
 * what the audit chain says of them. The audit feature walks its chain and
 * hands each verified entry here (it never reads the log's tables); this
 * module says whether the event an entry committed to is intact, and at the
 * end whether every session, branch and line row is what the entries left.
 */
import type { AuditEntryRow } from '../audit/audit-chain.js';
import { placeholders, type SqlExecutor } from '../storage/engine.js';
import type { AuditBreak } from '../types.js';
import { type BranchRow, EVENT_COLUMNS, type EventRow, eventDigest } from './rows.js';

/** The payload fields verification reads (see session-log.ts for what each action records). */
interface Payload {
  digest?: string;
  branch?: string;
  head?: string;
  headSeq?: number;
  session?: string;
  name?: string;
  title?: string;
  meta?: string;
}

/** What the chain says a branch row must hold: from its creating entry, and from its last move. */
interface BranchClaim {
  created: {
    seq: number;
    session?: string;
    name?: string;
    owner: string;
    forkedFrom?: string;
    at: number;
  } | null;
  moved: { seq: number; action: string; head: string; headSeq?: number; at: number };
}

/** What the chain says a session row must hold: from its `session.create` entry. */
interface SessionClaim {
  seq: number;
  owner: string;
  title?: string;
  meta?: string;
  at: number;
}

interface Claims {
  branches: Map<string, BranchClaim>;
  sessions: Map<string, SessionClaim>;
}

/** A verified audit entry and its payload (JSON text), as the chain walk hands it over. */
export type AuditedEntry = Pick<AuditEntryRow, 'seq' | 'at' | 'actor' | 'action' | 'resource_id'> & {
  payload: string;
};

/** Collects what the chain claims of the log's rows, entry by entry, then checks the rows. */
export class LogWitness {
  private readonly claims: Claims = { branches: new Map(), sessions: new Map() };
  private readonly seen = new Set<string>();
  private events = new Map<string, EventRow>();

  constructor(
    private readonly tx: SqlExecutor,
    private readonly tenant: string,
  ) {}

  /** Events the chain has accounted for so far. */
  get eventCount(): number {
    return this.seen.size;
  }

  /** Loads, in bulk, the events a page of entries appended (before each is witnessed). */
  async load(entries: readonly AuditedEntry[]): Promise<void> {
    const ids = entries.filter((e) => e.action === 'event.append').map((e) => e.resource_id);
    this.events = await eventsById(this.tx, this.tenant, ids);
  }

  /** What is wrong with the log's side of one verified entry, or null; notes what it claims of rows. */
  witness(entry: AuditedEntry): string | null {
    const payload = JSON.parse(entry.payload) as Payload;
    if (entry.action === 'event.append') {
      const event = this.events.get(entry.resource_id);
      if (!event) return `event ${entry.resource_id} recorded by entry ${entry.seq} is missing`;
      if (eventDigest(event) !== payload.digest)
        return `event ${entry.resource_id} was altered after entry ${entry.seq}`;
      this.seen.add(entry.resource_id);
    }
    recordClaims(this.claims, entry, payload);
    return null;
  }

  /** After the whole chain (`last` its final entry): the first row no entry accounts for, or that differs. */
  async finish(last: number): Promise<AuditBreak | null> {
    const all = await this.tx.all<{ id: string }>('SELECT id FROM events WHERE tenant = ? ORDER BY id', [
      this.tenant,
    ]);
    for (const { id } of all) {
      if (!this.seen.has(id)) return { seq: last, reason: `event ${id} has no audit entry` };
    }
    return (
      (await checkSessions(this.tx, this.tenant, this.claims.sessions, last)) ??
      (await checkBranches(this.tx, this.tenant, this.claims.branches, last)) ??
      (await checkLines(this.tx, this.tenant, last))
    );
  }
}

/** Notes what a verified entry says its session or branch row must hold; later entries override moves. */
function recordClaims(claims: Claims, row: AuditedEntry, p: Payload): void {
  if (row.action === 'session.create') {
    claims.sessions.set(row.resource_id, {
      seq: row.seq,
      owner: row.actor,
      title: p.title,
      meta: p.meta,
      at: row.at,
    });
  }
  if (typeof p.branch !== 'string' || typeof p.head !== 'string') return;
  const creates = row.action === 'branch.create' || row.action === 'branch.fork';
  const created = creates
    ? {
        seq: row.seq,
        session: p.session,
        name: p.name,
        owner: row.actor,
        forkedFrom: row.action === 'branch.fork' ? p.head : '',
        at: row.at,
      }
    : (claims.branches.get(p.branch)?.created ?? null);
  const moved = { seq: row.seq, action: row.action, head: p.head, headSeq: p.headSeq, at: row.at };
  claims.branches.set(p.branch, { created, moved });
}

/** The first field where the row differs from what the audit trail claims (claims are unchecked JSON). */
function mismatch<R extends object>(row: R, expected: { [K in keyof R]?: unknown }): string | undefined {
  return (Object.keys(expected) as Array<keyof R>).find((k) => row[k] !== expected[k]) as string | undefined;
}

async function checkSessions(
  tx: SqlExecutor,
  tenant: string,
  claims: Map<string, SessionClaim>,
  last: number,
): Promise<AuditBreak | null> {
  const rows = await tx.all<{ id: string; owner: string; title: string; meta: string; created_at: number }>(
    'SELECT id, owner, title, meta, created_at FROM sessions WHERE tenant = ? ORDER BY id',
    [tenant],
  );
  for (const row of rows) {
    const claim = claims.get(row.id);
    if (!claim) return { seq: last, reason: `session ${row.id} has no audit entry` };
    const wrong = mismatch(row, {
      owner: claim.owner,
      title: claim.title,
      meta: claim.meta,
      created_at: claim.at,
    });
    if (wrong)
      return { seq: claim.seq, reason: `${wrong} of session ${row.id} differs from entry ${claim.seq}` };
  }
  const present = new Set(rows.map((r) => r.id));
  for (const [id, claim] of claims) {
    if (!present.has(id))
      return { seq: claim.seq, reason: `session ${id} created by entry ${claim.seq} is missing` };
  }
  return null;
}

interface BranchWithHead extends Omit<BranchRow, 'tenant'> {
  event_seq: number | null;
  event_line: string | null;
}

async function checkBranches(
  tx: SqlExecutor,
  tenant: string,
  claims: Map<string, BranchClaim>,
  last: number,
): Promise<AuditBreak | null> {
  const rows = await tx.all<BranchWithHead>(
    `SELECT b.id, b.session, b.name, b.owner, b.head, b.head_seq, b.head_line, b.own_line, b.forked_from,
            b.created_at, b.updated_at, e.seq AS event_seq, e.line AS event_line
     FROM branches b LEFT JOIN events e ON e.tenant = b.tenant AND e.id = b.head
     WHERE b.tenant = ? ORDER BY b.id`,
    [tenant],
  );
  for (const row of rows) {
    const claim = claims.get(row.id);
    if (!claim) return { seq: last, reason: `branch ${row.id} has no audit entry` };
    const { created, moved } = claim;
    if (!created)
      return { seq: moved.seq, reason: `branch ${row.id} has no branch.create or branch.fork entry` };
    if (moved.head !== row.head)
      return { seq: moved.seq, reason: `head of branch ${row.id} was moved outside the log` };
    if (row.head !== '' && row.event_seq === null)
      return { seq: moved.seq, reason: `head event ${row.head} of branch ${row.id} is missing` };
    // A root head ('') has seq 0 and no line; after an append the branch extends its head's line.
    const headLine = row.event_line ?? '';
    const ofHead = mismatch(row, { head_seq: row.event_seq ?? 0, head_line: headLine });
    if (ofHead)
      return { seq: moved.seq, reason: `${ofHead} of branch ${row.id} does not match its head event` };
    const ofMove = mismatch(row, {
      head_seq: moved.headSeq,
      own_line: moved.action === 'event.append' ? headLine : '',
      updated_at: moved.at,
    });
    if (ofMove)
      return {
        seq: moved.seq,
        reason: `${ofMove} of branch ${row.id} differs from its last move, entry ${moved.seq}`,
      };
    const ofCreation = mismatch(row, {
      session: created.session,
      name: created.name,
      owner: created.owner,
      forked_from: created.forkedFrom,
      created_at: created.at,
    });
    if (ofCreation)
      return {
        seq: created.seq,
        reason: `${ofCreation} of branch ${row.id} differs from its creating entry ${created.seq}`,
      };
  }
  const present = new Set(rows.map((r) => r.id));
  for (const [id, { created }] of claims) {
    if (created && !present.has(id))
      return { seq: created.seq, reason: `branch ${id} created by entry ${created.seq} is missing` };
  }
  return null;
}

interface LineWithEnds {
  id: string;
  session: string;
  base_line: string;
  base_seq: number;
  first_id: string | null;
  first_seq: number | null;
  first_parent: string | null;
  first_session: string | null;
  base_id: string | null;
}

/**
 * Every line starts right after its base event: its first event has seq
 * base_seq + 1 and the base event as parent (a root line: base ('', 0) and
 * parent ''). Events are audited, so this pins base_line and base_seq. And
 * every event's line has a row.
 */
async function checkLines(tx: SqlExecutor, tenant: string, last: number): Promise<AuditBreak | null> {
  const rows = await tx.all<LineWithEnds>(
    `SELECT l.id, l.session, l.base_line, l.base_seq, f.id AS first_id, f.seq AS first_seq,
            f.parent AS first_parent, f.session AS first_session, b.id AS base_id
     FROM lines l
     LEFT JOIN (SELECT line, MIN(seq) AS seq FROM events WHERE tenant = ? GROUP BY line) m ON m.line = l.id
     LEFT JOIN events f ON f.tenant = l.tenant AND f.line = l.id AND f.seq = m.seq
     LEFT JOIN events b ON b.tenant = l.tenant AND b.line = l.base_line AND b.seq = l.base_seq
     WHERE l.tenant = ? ORDER BY l.id`,
    [tenant, tenant],
  );
  for (const row of rows) {
    const at = (reason: string) => ({ seq: last, reason: `line ${row.id} ${reason}` });
    if (row.first_id === null) return at('has no events');
    if (row.first_session !== row.session)
      return at(`is not in the session of its first event ${row.first_id}`);
    if (row.first_seq !== row.base_seq + 1)
      return at(`has base_seq ${row.base_seq} but its first event ${row.first_id} has seq ${row.first_seq}`);
    if (row.base_line === '' && row.base_seq !== 0)
      return at(`has no base line but base_seq ${row.base_seq}`);
    const parent = row.base_line === '' ? '' : row.base_id;
    if (row.first_parent !== parent)
      return at(
        `has base (${row.base_line || "''"}, ${row.base_seq}) but its first event ${row.first_id} follows ${row.first_parent || 'nothing'}`,
      );
  }
  const orphan = await tx.get<{ id: string; line: string }>(
    `SELECT e.id, e.line FROM events e
     WHERE e.tenant = ? AND NOT EXISTS (SELECT 1 FROM lines l WHERE l.tenant = e.tenant AND l.id = e.line)
     ORDER BY e.id LIMIT 1`,
    [tenant],
  );
  if (orphan) return { seq: last, reason: `line ${orphan.line} of event ${orphan.id} is missing` };
  return null;
}

async function eventsById(tx: SqlExecutor, tenant: string, ids: string[]): Promise<Map<string, EventRow>> {
  const found = new Map<string, EventRow>();
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const rows = await tx.all<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM events WHERE tenant = ? AND id IN (${placeholders(chunk.length)})`,
      [tenant, ...chunk],
    );
    for (const row of rows) found.set(row.id, row);
  }
  return found;
}
