import { EVENT_COLUMNS, type EventRow, eventDigest } from '../log/rows.js';
import type { Engine, SqlExecutor } from '../storage/engine.js';
import type { AuditBreak, AuditReport } from '../types.js';
import { type AuditEntryRow, entryHash, GENESIS_HASH, payloadCommitment } from './audit-chain.js';

const PAGE = 2000;

interface EntryWithPayload extends AuditEntryRow {
  salt: string | null;
  payload: string | null;
}

interface HeadClaim {
  seq: number;
  head: string;
}

/**
 * Walks a tenant's chain from genesis and checks, in order: numbering, links,
 * entry hashes, payload commitments, that every appended event still hashes
 * to what its entry committed to, that no event lacks an entry, that the
 * chain head matches the last entry, and that every branch head is where its
 * last audited move left it. Reports the first break found.
 */
export async function verifyAuditChain(engine: Engine, tenant: string): Promise<AuditReport> {
  return engine.read(tenant, (tx) => verifyIn(tx, tenant), { consistent: true });
}

async function verifyIn(tx: SqlExecutor, tenant: string): Promise<AuditReport> {
  const report = (entries: number, events: number, firstBreak: AuditBreak | null): AuditReport => ({
    tenant,
    ok: firstBreak === null,
    entries,
    events,
    firstBreak,
  });
  let prev = GENESIS_HASH;
  let expected = 1;
  const seenEvents = new Set<string>();
  const heads = new Map<string, HeadClaim>();
  for (;;) {
    const rows = await tx.all<EntryWithPayload>(
      `SELECT a.tenant, a.seq, a.at, a.actor, a.action, a.resource_type, a.resource_id, a.commitment, a.prev_hash, a.hash,
              p.salt, p.payload
       FROM audit_entries a LEFT JOIN audit_payloads p ON p.tenant = a.tenant AND p.seq = a.seq
       WHERE a.tenant = ? AND a.seq >= ? ORDER BY a.seq LIMIT ?`,
      [tenant, expected, PAGE],
    );
    if (rows.length === 0) break;
    const events = await eventsById(
      tx,
      tenant,
      rows.filter((r) => r.action === 'event.append').map((r) => r.resource_id),
    );
    for (const row of rows) {
      const at = (reason: string) => report(expected - 1, seenEvents.size, { seq: row.seq, reason });
      if (row.seq !== expected) return at(`entry ${expected} is missing`);
      if (row.prev_hash !== prev) return at(`entry ${row.seq} does not link to entry ${row.seq - 1}`);
      if (entryHash(row) !== row.hash)
        return at(`entry ${row.seq} was altered (its hash does not match its fields)`);
      if (row.salt === null || row.payload === null) return at(`payload of entry ${row.seq} is missing`);
      if (payloadCommitment(row.salt, row.payload) !== row.commitment)
        return at(`payload of entry ${row.seq} was altered`);
      const payload = JSON.parse(row.payload) as { digest?: string; branch?: string; head?: string };
      if (row.action === 'event.append') {
        const event = events.get(row.resource_id);
        if (!event) return at(`event ${row.resource_id} recorded by entry ${row.seq} is missing`);
        if (eventDigest(event) !== payload.digest)
          return at(`event ${row.resource_id} was altered after entry ${row.seq}`);
        seenEvents.add(row.resource_id);
      }
      if (typeof payload.branch === 'string' && typeof payload.head === 'string') {
        heads.set(payload.branch, { seq: row.seq, head: payload.head });
      }
      prev = row.hash;
      expected++;
    }
  }
  const last = expected - 1;
  const done = (reason: string, seq = last) => report(last, seenEvents.size, { seq, reason });
  const head = await tx.get<{ seq: number; hash: string }>(
    'SELECT seq, hash FROM audit_heads WHERE tenant = ?',
    [tenant],
  );
  if (!head || head.seq !== last || head.hash !== prev) {
    return done(`the chain head names entry ${head?.seq ?? '(none)'} but the chain ends at entry ${last}`);
  }
  const stray = await tx.all<{ id: string }>('SELECT id FROM events WHERE tenant = ? ORDER BY id', [tenant]);
  for (const { id } of stray) {
    if (!seenEvents.has(id)) return done(`event ${id} has no audit entry`);
  }
  const branches = await tx.all<{ id: string; head: string }>(
    'SELECT id, head FROM branches WHERE tenant = ?',
    [tenant],
  );
  for (const branch of branches) {
    const claim = heads.get(branch.id);
    if (!claim) return done(`branch ${branch.id} has no audit entry`);
    if (claim.head !== branch.head)
      return done(`head of branch ${branch.id} was moved outside the log`, claim.seq);
  }
  return report(last, seenEvents.size, null);
}

async function eventsById(tx: SqlExecutor, tenant: string, ids: string[]): Promise<Map<string, EventRow>> {
  const found = new Map<string, EventRow>();
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const rows = await tx.all<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM events WHERE tenant = ? AND id IN (${chunk.map(() => '?').join(', ')})`,
      [tenant, ...chunk],
    );
    for (const row of rows) found.set(row.id, row);
  }
  return found;
}
