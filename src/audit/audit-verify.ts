import { LogWitness } from '../log/audit-witness.js';
import type { Engine, SqlExecutor } from '../storage/engine.js';
import type { AuditBreak, AuditReport } from '../types.js';
import { type AuditEntryRow, entryHash, GENESIS_HASH, payloadCommitment } from './audit-chain.js';
import type { AuditKey } from './note.js';
import { storedKey } from './signing-key.js';
import { checkTombstones, erasedOrBreak, tombstoneEntries } from './tombstones.js';
import { verifyTree } from './tree-verify.js';

const PAGE = 2000;

interface EntryWithPayload extends AuditEntryRow {
  salt: string | null;
  payload: string | null;
}

/**
 * Walks a tenant's chain from genesis and checks, in order: numbering, links,
 * entry hashes, payload commitments, that every appended event still hashes
 * to what its entry committed to, that no event lacks an entry, that the
 * chain head matches the last entry; then that every session row is what its
 * `session.create` entry recorded, that every branch row is what its creating
 * entry and last audited move left (head, head_seq, head_line, own_line), and
 * that every line starts right after its base event; then the Merkle tree and
 * its checkpoints (tree-verify.ts), signed by `auditKey` when the operator
 * holds one. Reports the first break found.
 */
export async function verifyAuditChain(
  engine: Engine,
  tenant: string,
  auditKey?: AuditKey,
): Promise<AuditReport> {
  return engine.read(tenant, (tx) => verifyIn(tx, tenant, auditKey), { consistent: true });
}

async function verifyIn(tx: SqlExecutor, tenant: string, auditKey?: AuditKey): Promise<AuditReport> {
  let erased = 0;
  const report = (entries: number, events: number, firstBreak: AuditBreak | null): AuditReport => ({
    tenant,
    ok: firstBreak === null,
    entries,
    events,
    erased,
    firstBreak,
  });
  // Tombstones first: an entry whose payload is gone verifies only as one a signed tombstone names.
  const checked = checkTombstones(
    tenant,
    await tombstoneEntries(tx, tenant),
    auditKey ?? (await storedKey(tx, tenant)),
  );
  if (!('tombstones' in checked)) return report(0, 0, checked);
  const { tombstones } = checked;
  let prev = GENESIS_HASH;
  let expected = 1;
  // The log checks its own rows against the entries (log/audit-witness.ts): this walk reads only the chain.
  const log = new LogWitness(tx, tenant);
  for (;;) {
    const rows = await tx.all<EntryWithPayload>(
      `SELECT a.tenant, a.seq, a.at, a.actor, a.action, a.resource_type, a.resource_id, a.commitment, a.chain, a.prev_hash, a.hash,
              p.salt, p.payload
       FROM audit_entries a LEFT JOIN audit_payloads p ON p.tenant = a.tenant AND p.seq = a.seq
       WHERE a.tenant = ? AND a.seq >= ? ORDER BY a.seq LIMIT ?`,
      [tenant, expected, PAGE],
    );
    if (rows.length === 0) break;
    await log.load(rows.flatMap((r) => (r.payload === null ? [] : [{ ...r, payload: r.payload }])));
    for (const row of rows) {
      const at = (reason: string) => report(expected - 1, log.eventCount, { seq: row.seq, reason });
      if (row.seq !== expected) return at(`entry ${expected} is missing`);
      if (row.prev_hash !== prev) return at(`entry ${row.seq} does not link to entry ${row.seq - 1}`);
      if (entryHash(row) !== row.hash)
        return at(`entry ${row.seq} was altered (its hash does not match its fields)`);
      if (row.salt === null || row.payload === null) {
        // An erased entry: its leaf stays in the tree; the log's rows it recorded are gone with it.
        const broken = erasedOrBreak(row, tombstones);
        if (broken !== null) return at(broken);
        erased++;
        prev = row.hash;
        expected++;
        continue;
      }
      if (payloadCommitment(row.salt, row.payload) !== row.commitment)
        return at(`payload of entry ${row.seq} was altered`);
      const broken = log.witness({ ...row, payload: row.payload });
      if (broken !== null) return at(broken);
      prev = row.hash;
      expected++;
    }
  }
  const last = expected - 1;
  const done = (reason: string, seq = last) => report(last, log.eventCount, { seq, reason });
  const head = await tx.get<{ seq: number; hash: string }>(
    'SELECT seq, hash FROM audit_heads WHERE tenant = ?',
    [tenant],
  );
  if (!head || head.seq !== last || head.hash !== prev) {
    return done(`the chain head names entry ${head?.seq ?? '(none)'} but the chain ends at entry ${last}`);
  }
  const firstBreak = (await log.finish(last)) ?? (await verifyTree(tx, tenant, last, auditKey));
  return report(last, log.eventCount, firstBreak);
}
