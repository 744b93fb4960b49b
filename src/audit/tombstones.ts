/**
 * Erased audit payloads and their tombstones (docs/design/audit.md,
 * "Erasure"). An entry's payload and salt can be deleted; the entry itself
 * (its fields and its salted commitment, no personal data) stays a leaf of
 * the tree, so every checkpoint and proof still verifies. Each erased
 * payload gets a tombstone: a later entry (`audit.erase`, its resource the
 * erased entry's number) whose payload is a signed note naming the erased
 * entry's leaf hash, the basis (the erasure), who and when. A payload that
 * is missing without a tombstone that names that leaf and verifies is
 * tampering; with one, the entry verifies as erased.
 */
import type { SqlExecutor } from '../storage/engine.js';
import { appendAudit } from './audit-chain.js';
import { type AuditKey, noteSignedBy } from './note.js';
import { LEAF_COLUMNS, type LeafFields, leafOf } from './tree.js';

export const TOMBSTONE_ACTION = 'audit.erase';

/** Entries read per page when looking for those that name an erased resource. */
const PAGE = 5000;

/** A tombstone as its entry's payload holds it. */
export interface Tombstone {
  /** The erased entry's `seq`. */
  target: number;
  /** Its leaf hash, hex (RFC 9162: SHA-256(0x00 ‖ entry)). */
  leafHash: string;
  /** Why: the erasure that removed it (`erasure <id>`). */
  basis: string;
  /** The signed note over {@link tombstoneBody}. */
  note: string;
}

/** The text a tombstone's signature covers: one field a line, ending in a newline. */
export function tombstoneBody(
  tenant: string,
  t: Omit<Tombstone, 'note'> & { by: string; at: number },
): string {
  return `cairn-audit-tombstone/${tenant}\n${t.target}\n${Buffer.from(t.leafHash, 'hex').toString('base64')}\nbasis ${t.basis}\nby ${t.by}\ntime ${t.at}\n`;
}

/**
 * In the caller's transaction: deletes the payload and salt of every entry
 * whose resource is one of `resources` (but tombstones, which hold no
 * personal data and must outlive what they record), appending a signed
 * tombstone for each. Returns how many payloads were erased.
 */
export async function erasePayloads(
  tx: SqlExecutor,
  input: {
    tenant: string;
    resources: ReadonlySet<string>;
    /** No entry before this seq names one of them (the chain is read from here); default the whole chain. */
    fromSeq?: number;
    basis: string;
    by: string;
    /** The eraser's actor chain (audit-chain.ts `actorChain`), for the tombstone entries. */
    chain?: readonly string[];
    at: number;
    key: AuditKey;
  },
): Promise<number> {
  const { tenant, key } = input;
  const targets = await entriesNaming(tx, tenant, input.resources, input.fromSeq);
  for (const row of targets) {
    const leafHash = leafOf(row).toString('hex');
    const seq = Number(row.seq);
    const fields = { target: seq, leafHash, basis: input.basis, by: input.by, at: input.at };
    const tombstone: Tombstone = {
      target: seq,
      leafHash,
      basis: input.basis,
      note: key.signNote(tombstoneBody(tenant, fields)),
    };
    await tx.run('DELETE FROM audit_payloads WHERE tenant = ? AND seq = ?', [tenant, seq]);
    await appendAudit(tx, {
      tenant,
      actor: input.by,
      chain: input.chain,
      action: TOMBSTONE_ACTION,
      resourceType: 'audit-entry',
      resourceId: String(seq),
      payload: { ...tombstone },
      at: input.at,
    });
  }
  return targets.length;
}

/**
 * The entries whose resource is one of `resources` and whose payload is
 * still held (tombstones aside): a page of the tenant's entries at a time,
 * filtered here (no index on `resource_id`: appends would pay for it).
 */
export async function entriesNaming(
  tx: SqlExecutor,
  tenant: string,
  resources: ReadonlySet<string>,
  fromSeq = 1,
): Promise<LeafFields[]> {
  const found: LeafFields[] = [];
  if (resources.size === 0) return found;
  const columns = LEAF_COLUMNS.split(', ').map((c) => `a.${c}`);
  for (let after = fromSeq - 1; ; ) {
    const page = await tx.all<LeafFields & { held: number }>(
      `SELECT ${columns.join(', ')},
              (SELECT COUNT(*) FROM audit_payloads p WHERE p.tenant = a.tenant AND p.seq = a.seq) AS held
       FROM audit_entries a WHERE a.tenant = ? AND a.seq > ? ORDER BY a.seq LIMIT ?`,
      [tenant, after, PAGE],
    );
    const last = page.at(-1);
    if (!last) return found;
    after = Number(last.seq);
    for (const { held, ...row } of page)
      if (Number(held) > 0 && row.action !== TOMBSTONE_ACTION && resources.has(row.resource_id))
        found.push(row);
  }
}

/** A tombstone entry as verification reads it: its own seq and actor, at, and payload. */
export interface TombstoneEntry {
  seq: number;
  actor: string;
  at: number;
  payload: string | null;
}

/**
 * The tenant's tombstones, by the entry each erased, each checked against
 * the tenant's public key (`name`, `publicKey`): what a tombstone claims is
 * trusted only when its signature holds. A tombstone that does not verify is
 * a break (its reason returned instead).
 */
export function checkTombstones(
  tenant: string,
  entries: readonly TombstoneEntry[],
  key: { name: string; publicKey: Uint8Array } | undefined,
): { tombstones: Map<number, Tombstone & { seq: number }> } | { seq: number; reason: string } {
  const tombstones = new Map<number, Tombstone & { seq: number }>();
  for (const e of entries) {
    if (e.payload === null) return { seq: e.seq, reason: `payload of tombstone entry ${e.seq} is missing` };
    let t: Tombstone;
    try {
      t = JSON.parse(e.payload) as Tombstone;
    } catch {
      return { seq: e.seq, reason: `tombstone entry ${e.seq} holds no tombstone` };
    }
    if (!key) return { seq: e.seq, reason: `tombstone entry ${e.seq} cannot be checked: no audit key` };
    if (
      typeof t.target !== 'number' ||
      typeof t.leafHash !== 'string' ||
      typeof t.basis !== 'string' ||
      typeof t.note !== 'string' ||
      !/^[0-9a-f]{64}$/.test(t.leafHash)
    )
      return { seq: e.seq, reason: `tombstone entry ${e.seq} is malformed` };
    const body = tombstoneBody(tenant, { ...t, by: e.actor, at: e.at });
    if (!noteSignedBy(t.note, body, key.name, key.publicKey))
      return { seq: e.seq, reason: `tombstone entry ${e.seq} is not signed by the tenant's audit key` };
    if (!Number.isSafeInteger(t.target) || t.target < 1)
      return { seq: e.seq, reason: `tombstone entry ${e.seq} names entry ${t.target}, which does not exist` };
    if (t.target >= e.seq)
      return { seq: e.seq, reason: `tombstone entry ${e.seq} names entry ${t.target}, not an earlier one` };
    if (tombstones.has(t.target)) return { seq: e.seq, reason: `entry ${t.target} has two tombstones` };
    tombstones.set(t.target, { ...t, seq: e.seq });
  }
  return { tombstones };
}

/** Whether an entry with no payload is erased (a verified tombstone names its leaf), or why not. */
export function erasedOrBreak(
  row: LeafFields,
  tombstones: ReadonlyMap<number, Tombstone & { seq: number }>,
): string | null {
  const seq = Number(row.seq);
  const t = tombstones.get(seq);
  if (!t) return `payload of entry ${seq} is missing (and no tombstone records its erasure)`;
  if (t.leafHash !== leafOf(row).toString('hex'))
    return `entry ${seq} is not the entry tombstone ${t.seq} erased (its leaf hash differs)`;
  return null;
}

/** The tombstone entries of a tenant, for verification. */
export async function tombstoneEntries(tx: SqlExecutor, tenant: string): Promise<TombstoneEntry[]> {
  const rows = await tx.all<{ seq: number; actor: string; at: number; payload: string | null }>(
    `SELECT a.seq, a.actor, a.at, p.payload FROM audit_entries a
     LEFT JOIN audit_payloads p ON p.tenant = a.tenant AND p.seq = a.seq
     WHERE a.tenant = ? AND a.action = ? ORDER BY a.seq`,
    [tenant, TOMBSTONE_ACTION],
  );
  return rows.map((r) => ({ seq: Number(r.seq), actor: r.actor, at: Number(r.at), payload: r.payload }));
}
