/** `audit verify`'s check of the Merkle tree and its checkpoints (./tree.ts, docs/design/audit.md). */
import type { SqlExecutor } from '../storage/engine.js';
import type { AuditBreak } from '../types.js';
import { rootAt } from './merkle.js';
import { type AuditKey, checkpointBody, noteSignedBy } from './note.js';
import {
  BATCH,
  type Checkpoint,
  LEAF_COLUMNS,
  type LeafFields,
  leafOf,
  perfectHash,
  TILE_WIDTH,
  Tiles,
  treeSize,
} from './tree.js';

/**
 * `audit verify`'s check of the tree: every stored tile is what the entries
 * hash to (no more, no fewer), and every checkpoint's root is the tree's at
 * its size, its note the body it states, signed by the tenant's key. The
 * first break found, or null.
 */
export async function verifyTree(
  tx: SqlExecutor,
  tenant: string,
  entries: number,
  auditKey?: AuditKey,
): Promise<AuditBreak | null> {
  const size = await treeSize(tx, tenant);
  if (size > entries)
    return { seq: entries, reason: `the audit tree holds ${size} entries, the chain ${entries}` };
  const tiles = new Tiles(tx, tenant);
  const pending: Buffer[][] = [];
  let stored = 0;
  /** Compares a tile as the entries make it with the stored one; a full one's hash goes up a level. */
  const settle = async (level: number, idx: number, made: Buffer[]): Promise<AuditBreak | null> => {
    const have = await tiles.tile(level, idx);
    stored++;
    const first = made.findIndex((h, i) => !have[i]?.equals(h));
    if (first >= 0 || have.length !== made.length) {
      const at = (idx * TILE_WIDTH + Math.max(first, 0)) * TILE_WIDTH ** level;
      return {
        seq: at + 1,
        reason: `audit tree tile ${level}/${idx} was altered (it does not match the entries)`,
      };
    }
    if (made.length === TILE_WIDTH) return push(level + 1, perfectHash(made));
    return null;
  };
  const counts: number[] = [];
  const push = async (level: number, hash: Buffer): Promise<AuditBreak | null> => {
    const tile = pending[level] ?? [];
    pending[level] = tile;
    tile.push(hash);
    if (tile.length < TILE_WIDTH) return null;
    const idx = counts[level] ?? 0;
    counts[level] = idx + 1;
    pending[level] = [];
    return settle(level, idx, tile);
  };
  for (let seq = 0; seq < size; ) {
    const rows = await tx.all<LeafFields>(
      `SELECT ${LEAF_COLUMNS} FROM audit_entries WHERE tenant = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?`,
      [tenant, seq, size, BATCH],
    );
    if (rows.length === 0) return { seq: seq + 1, reason: `audit entry ${seq + 1} is missing` };
    for (const row of rows) {
      const broken = await push(0, leafOf(row));
      if (broken) return broken;
    }
    seq += rows.length;
  }
  for (let level = 0; level < pending.length; level++) {
    const tile = pending[level] ?? [];
    if (tile.length === 0) continue;
    const broken = await settle(level, counts[level] ?? 0, tile);
    if (broken) return broken;
  }
  const row = await tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM audit_tiles WHERE tenant = ?', [tenant]);
  if (Number(row?.n) !== stored)
    return { seq: size, reason: 'the audit tree holds tiles its entries do not make' };
  return verifyCheckpoints(tx, tenant, tiles, size, auditKey);
}

async function verifyCheckpoints(
  tx: SqlExecutor,
  tenant: string,
  tiles: Tiles,
  size: number,
  auditKey?: AuditKey,
): Promise<AuditBreak | null> {
  const key = await tx.get<{ name: string; public_key: string }>(
    'SELECT name, public_key FROM audit_keys WHERE tenant = ?',
    [tenant],
  );
  // The operator's key, when given, is the one the checkpoints must be signed with: a key row in the store
  // (which whoever writes the store can replace) is not taken on its word.
  if (key && auditKey && key.public_key !== auditKey.publicKey.toString('hex'))
    return {
      seq: size,
      reason: `the tenant's checkpoints are signed with ${key.name}, not the operator's audit key ${auditKey.name}`,
    };
  let after = -1;
  for (;;) {
    const rows = await tx.all<Checkpoint>(
      'SELECT size, root, at, note FROM audit_checkpoints WHERE tenant = ? AND size > ? ORDER BY size LIMIT 1000',
      [tenant, after],
    );
    if (rows.length === 0) return null;
    for (const row of rows) {
      const n = Number(row.size);
      const broken = (reason: string) => ({ seq: n, reason: `audit checkpoint of size ${n} ${reason}` });
      if (n > size) return broken(`is past the tree's ${size} entries`);
      if (!key) return broken('has no key to check its signature by');
      const root = await rootAt(tiles, n);
      if (row.root !== root.toString('hex')) return broken('names a root the tree does not have');
      const body = checkpointBody(`${key.name}/${tenant}`, n, root, Number(row.at));
      if (!noteSignedBy(row.note, body, key.name, Buffer.from(key.public_key, 'hex')))
        return broken('was altered: its note is not the tenant key’s signature of its size, root and time');
      after = n;
    }
  }
}
