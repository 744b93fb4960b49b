/**
 * The audit log's Merkle tree as stored (format 10, docs/design/audit.md):
 * each tenant's entries are the leaves, in order, entry i being the chain's
 * `seq` i + 1. The tree is kept as tiles: tile `idx` of level L holds, as 32-byte
 * hashes side by side, the nodes of height 8·L numbered idx·256 … idx·256 + 255
 * (a partial last tile holds fewer, and grows). Appends do not touch it: the
 * entries not yet in the tree are integrated in a batch when a checkpoint is
 * asked for, which signs the new tree's root.
 */
import { randomBytes } from 'node:crypto';
import { canonicalJson } from '../digest.js';
import { corrupt, invalidArgument, notFound } from '../errors.js';
import type { SqlExecutor } from '../storage/engine.js';
import type { AuditBreak } from '../types.js';
import {
  consistencyPath,
  HASH_BYTES,
  inclusionPath,
  leafHash,
  type NodeSource,
  nodeHash,
  rootAt,
} from './merkle.js';
import { AuditKey, checkpointBody, noteSignedBy, verifierKeyOf } from './note.js';

export const TILE_WIDTH = 256;
const TILE_HEIGHT = 8;
/** The most entries one transaction integrates: a long backlog is taken in several, each signed. */
const BATCH = 16_384;

/** An audit entry as a leaf: the canonical (RFC 8785) JSON of these fields, UTF-8. */
export interface LeafFields {
  tenant: string;
  seq: number;
  at: number;
  actor: string;
  action: string;
  resource_type: string;
  resource_id: string;
  commitment: string;
}

/** The bytes entry `seq − 1` contributes to the tree: no payload, only its salted commitment. */
export function leafEntry(row: LeafFields): string {
  return canonicalJson({
    tenant: row.tenant,
    index: row.seq - 1,
    at: row.at,
    actor: row.actor,
    action: row.action,
    resource: { type: row.resource_type, id: row.resource_id },
    commitment: row.commitment,
  });
}

export const leafOf = (row: LeafFields): Buffer => leafHash(Buffer.from(leafEntry(row), 'utf8'));

/** The hash of `hashes.length` (a power of two) adjacent nodes' subtree. */
function perfectHash(hashes: readonly Buffer[]): Buffer {
  let level = hashes;
  while (level.length > 1) {
    const up: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) up.push(nodeHash(level[i] as Buffer, level[i + 1] as Buffer));
    level = up;
  }
  return level[0] as Buffer;
}

function split(tile: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < tile.length; at += HASH_BYTES) out.push(tile.subarray(at, at + HASH_BYTES));
  return out;
}

/** A tenant's tiles as read in one transaction: the perfect subtrees' hashes (merkle.ts `NodeSource`). */
export class Tiles implements NodeSource {
  private readonly read = new Map<string, Buffer[]>();

  constructor(
    private readonly tx: SqlExecutor,
    private readonly tenant: string,
  ) {}

  async tile(level: number, idx: number): Promise<Buffer[]> {
    const key = `${level}/${idx}`;
    const known = this.read.get(key);
    if (known) return known;
    const row = await this.tx.get<{ hashes: Uint8Array }>(
      'SELECT hashes FROM audit_tiles WHERE tenant = ? AND level = ? AND idx = ?',
      [this.tenant, level, idx],
    );
    const hashes = row ? split(Buffer.from(row.hashes)) : [];
    this.read.set(key, hashes);
    return hashes;
  }

  async node(height: number, index: number): Promise<Buffer> {
    const level = Math.floor(height / TILE_HEIGHT);
    const span = 2 ** (height - level * TILE_HEIGHT);
    const first = index * span;
    const idx = Math.floor(first / TILE_WIDTH);
    const hashes = await this.tile(level, idx);
    const offset = first - idx * TILE_WIDTH;
    if (hashes.length < offset + span)
      throw corrupt(
        `the audit tree of tenant ${this.tenant} lacks node ${index} of height ${height} (tile ${level}/${idx} holds ${hashes.length} hashes): the store was changed outside Cairn`,
      );
    return perfectHash(hashes.slice(offset, offset + span));
  }

  /** Writes the hashes of tile `idx` of `level`, replacing a shorter one. */
  async write(level: number, idx: number, hashes: readonly Buffer[]): Promise<void> {
    this.read.set(`${level}/${idx}`, [...hashes]);
    await this.tx.run(
      `INSERT INTO audit_tiles (tenant, level, idx, hashes) VALUES (?, ?, ?, ?)
       ON CONFLICT (tenant, level, idx) DO UPDATE SET hashes = excluded.hashes`,
      [this.tenant, level, idx, Buffer.concat(hashes)],
    );
  }
}

/**
 * Adds the hashes of nodes `count` … of `level` (the leaves at level 0) to
 * its tiles; each tile they fill adds its subtree's hash to the level above.
 */
async function extend(tiles: Tiles, level: number, count: number, fresh: Buffer[]): Promise<void> {
  const completed: Buffer[] = [];
  let idx = Math.floor(count / TILE_WIDTH);
  let tile = count % TILE_WIDTH === 0 ? [] : [...(await tiles.tile(level, idx))];
  if (tile.length !== count % TILE_WIDTH)
    throw corrupt(
      `audit tile ${level}/${idx} holds ${tile.length} hashes where ${count % TILE_WIDTH} were written`,
    );
  for (const hash of fresh) {
    tile.push(hash);
    if (tile.length === TILE_WIDTH) {
      await tiles.write(level, idx, tile);
      completed.push(perfectHash(tile));
      idx++;
      tile = [];
    }
  }
  if (tile.length > 0) await tiles.write(level, idx, tile);
  if (completed.length > 0) await extend(tiles, level + 1, Math.floor(count / TILE_WIDTH), completed);
}

/** The tenant's signing key, made on its first checkpoint; its seed stays in the store (docs/design/audit.md). */
export async function tenantKey(tx: SqlExecutor, tenant: string, now: number): Promise<AuditKey> {
  const load = () =>
    tx.get<{ name: string; seed: Uint8Array }>('SELECT name, seed FROM audit_keys WHERE tenant = ?', [
      tenant,
    ]);
  let row = await load();
  if (!row) {
    const seed = randomBytes(32);
    const key = new AuditKey(`cairn-audit-${randomBytes(4).toString('hex')}`, seed);
    await tx.run(
      'INSERT INTO audit_keys (tenant, name, public_key, seed, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (tenant) DO NOTHING',
      [tenant, key.name, key.publicKey.toString('hex'), seed, now],
    );
    row = await load();
    if (!row) throw corrupt('the audit key was written and is not there');
  }
  return new AuditKey(row.name, Buffer.from(row.seed));
}

/** The origin line of a tenant's checkpoints: the key's name and the tenant. */
export const originOf = (key: AuditKey, tenant: string) => `${key.name}/${tenant}`;

export interface Checkpoint {
  size: number;
  /** hex */
  root: string;
  at: number;
  note: string;
}

/**
 * Integrates the tenant's entries not yet in its tree, at most a batch in
 * the caller's transaction, and signs a checkpoint of the new tree (of the
 * empty tree, the first time). Answers the latest checkpoint, and whether
 * entries are left for another batch.
 */
export async function integrate(
  tx: SqlExecutor,
  tenant: string,
  now: number,
): Promise<{ checkpoint: Checkpoint | undefined; more: boolean }> {
  // A tenant's tree row is made by its first integration (a tenant made before format 10 has none either).
  await tx.run('INSERT INTO audit_trees (tenant, size) VALUES (?, 0) ON CONFLICT (tenant) DO NOTHING', [
    tenant,
  ]);
  const tree = await tx.get<{ size: number }>(
    `SELECT size FROM audit_trees WHERE tenant = ? ${tx.lockRows}`,
    [tenant],
  );
  const size = Number(tree?.size ?? 0);
  const rows = await tx.all<LeafFields>(
    `SELECT tenant, seq, at, actor, action, resource_type, resource_id, commitment
     FROM audit_entries WHERE tenant = ? AND seq > ? ORDER BY seq LIMIT ?`,
    [tenant, size, BATCH],
  );
  const latest = await latestCheckpoint(tx, tenant);
  if (rows.length === 0 && (latest || size > 0)) return { checkpoint: latest, more: false };
  rows.forEach((row, i) => {
    if (Number(row.seq) !== size + i + 1)
      throw corrupt(
        `audit entry ${size + i + 1} of tenant ${tenant} is missing: the store was changed outside Cairn`,
      );
  });
  const tiles = new Tiles(tx, tenant);
  if (rows.length > 0) await extend(tiles, 0, size, rows.map(leafOf));
  const grown = size + rows.length;
  await tx.run('UPDATE audit_trees SET size = ? WHERE tenant = ?', [grown, tenant]);
  const key = await tenantKey(tx, tenant, now);
  const root = await rootAt(tiles, grown);
  const note = key.signNote(checkpointBody(originOf(key, tenant), grown, root, now));
  const checkpoint = { size: grown, root: root.toString('hex'), at: now, note };
  await tx.run(
    'INSERT INTO audit_checkpoints (tenant, size, at, root, note) VALUES (?, ?, ?, ?, ?) ON CONFLICT (tenant, size) DO NOTHING',
    [tenant, grown, now, checkpoint.root, note],
  );
  return { checkpoint, more: rows.length === BATCH };
}

/** The tenant's latest signed checkpoint. */
export async function latestCheckpoint(tx: SqlExecutor, tenant: string): Promise<Checkpoint | undefined> {
  const row = await tx.get<Checkpoint>(
    'SELECT size, root, at, note FROM audit_checkpoints WHERE tenant = ? ORDER BY size DESC LIMIT 1',
    [tenant],
  );
  return row && { ...row, size: Number(row.size), at: Number(row.at) };
}

/** How many entries the tenant's tree holds (those integrated). */
async function treeSize(tx: SqlExecutor, tenant: string): Promise<number> {
  const row = await tx.get<{ size: number }>('SELECT size FROM audit_trees WHERE tenant = ?', [tenant]);
  return Number(row?.size ?? 0);
}

/** `size`, or the latest checkpoint's, checked against what the tree holds. */
async function sizeFor(tx: SqlExecutor, tenant: string, size: number | undefined): Promise<number> {
  const integrated = await treeSize(tx, tenant);
  const chosen = size ?? (await latestCheckpoint(tx, tenant))?.size;
  if (chosen === undefined)
    throw notFound('no audit checkpoint has been signed yet: ask for a checkpoint first', {
      resource: 'audit checkpoint',
    });
  if (chosen > integrated)
    throw invalidArgument(
      `the audit tree holds ${integrated} entries, fewer than ${chosen}: ask for a checkpoint first, then for a tree size up to its size`,
      { field: 'size' },
    );
  return chosen;
}

const hex = (hashes: readonly Buffer[]) => hashes.map((h) => h.toString('hex'));

/** RFC 9162 inclusion proof of entry `index` in the tree of `size` entries (the latest checkpoint's by default). */
export async function inclusionProof(tx: SqlExecutor, tenant: string, index: number, size?: number) {
  const n = await sizeFor(tx, tenant, size);
  if (index >= n)
    throw invalidArgument(`entry ${index} is beyond the tree of ${n} entries (entries are numbered from 0)`, {
      field: 'entry',
    });
  const row = await tx.get<LeafFields>(
    `SELECT tenant, seq, at, actor, action, resource_type, resource_id, commitment
     FROM audit_entries WHERE tenant = ? AND seq = ?`,
    [tenant, index + 1],
  );
  if (!row)
    throw corrupt(`audit entry ${index} of tenant ${tenant} is missing: the store was changed outside Cairn`);
  const tiles = new Tiles(tx, tenant);
  const leaf = await tiles.node(0, index);
  const entry = leafEntry({ ...row, seq: Number(row.seq), at: Number(row.at) });
  return {
    index,
    size: n,
    entry,
    leafHash: leaf.toString('hex'),
    root: (await rootAt(tiles, n)).toString('hex'),
    path: hex(await inclusionPath(tiles, index, n)),
  };
}

/** RFC 9162 consistency proof between the trees of `from` and `to` entries. */
export async function consistencyProof(tx: SqlExecutor, tenant: string, from: number, to?: number) {
  const n = await sizeFor(tx, tenant, to);
  if (from < 1 || from > n)
    throw invalidArgument(
      `a consistency proof runs from a tree of 1 to ${n} entries to a larger or equal one: ${from} is not in that range`,
      { field: 'from' },
    );
  const tiles = new Tiles(tx, tenant);
  return {
    from,
    to: n,
    fromRoot: (await rootAt(tiles, from)).toString('hex'),
    toRoot: (await rootAt(tiles, n)).toString('hex'),
    path: hex(await consistencyPath(tiles, from, n)),
  };
}

/** The tenant's audit signing key, public parts only. */
export async function publicKey(tx: SqlExecutor, tenant: string) {
  const row = await tx.get<{ name: string; public_key: string }>(
    'SELECT name, public_key FROM audit_keys WHERE tenant = ?',
    [tenant],
  );
  if (!row)
    throw notFound('no audit checkpoint has been signed yet: ask for a checkpoint first', {
      resource: 'audit key',
    });
  const raw = Buffer.from(row.public_key, 'hex');
  return {
    name: row.name,
    publicKey: row.public_key,
    verifierKey: verifierKeyOf(row.name, raw),
    algorithm: 'Ed25519' as const,
  };
}

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
      `SELECT tenant, seq, at, actor, action, resource_type, resource_id, commitment
       FROM audit_entries WHERE tenant = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?`,
      [tenant, seq, size, BATCH],
    );
    if (rows.length === 0) return { seq: seq + 1, reason: `audit entry ${seq + 1} is missing` };
    for (const row of rows) {
      const broken = await push(0, leafOf({ ...row, seq: Number(row.seq), at: Number(row.at) }));
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
  return verifyCheckpoints(tx, tenant, tiles, size);
}

async function verifyCheckpoints(
  tx: SqlExecutor,
  tenant: string,
  tiles: Tiles,
  size: number,
): Promise<AuditBreak | null> {
  const key = await tx.get<{ name: string; public_key: string }>(
    'SELECT name, public_key FROM audit_keys WHERE tenant = ?',
    [tenant],
  );
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
