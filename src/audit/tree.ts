/**
 * The audit log's Merkle tree as stored (format 10, docs/design/audit.md):
 * each tenant's entries are the leaves, in order, entry i being the chain's
 * `seq` i + 1. The tree is kept as tiles: tile `idx` of level L holds, as
 * 32-byte hashes side by side, the nodes of height 4·L numbered idx·16 …
 * idx·16 + 15 (a partial last tile holds fewer, and grows). Appends do not
 * touch it: the entries not yet in the tree are integrated in a batch when a
 * checkpoint is asked for, which signs the new tree's root.
 */

import { canonicalJson } from '../digest.js';
import { corrupt, internal } from '../errors.js';
import type { SqlExecutor } from '../storage/engine.js';
import type { AuditEntryRow } from './audit-chain.js';
import { HASH_BYTES, leafHash, type NodeSource, nodeHash, rootAt } from './merkle.js';
import { type AuditKey, checkpointBody } from './note.js';
import { originOf, roundMaySign, tenantKey } from './signing-key.js';

/**
 * 16 hashes a tile, 4 levels of the tree: a node is hashed up from at most 8
 * of one tile's hashes, so a proof in a tree of a million entries hashes
 * about 150 nodes, not about 1,000 as 256-wide tiles would make it.
 */
export const TILE_WIDTH = 16;
const TILE_HEIGHT = 4;
/** The most entries one transaction integrates: a long backlog is taken in several, each signed. */
export const BATCH = 16_384;

/** An audit entry as a leaf: the canonical (RFC 8785) JSON of these fields, UTF-8 (no chain link). */
export type LeafFields = Omit<AuditEntryRow, 'prev_hash' | 'hash'>;

/** The columns of `audit_entries` a leaf is made of, for a SELECT. */
export const LEAF_COLUMNS = 'tenant, seq, at, actor, action, resource_type, resource_id, commitment, chain';

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
    // Only where there is one (format 12): the leaves of earlier entries are as they were.
    ...(row.chain ? { chain: JSON.parse(row.chain) as string[] } : {}),
  });
}

export const leafOf = (row: LeafFields): Buffer => leafHash(Buffer.from(leafEntry(row), 'utf8'));

/** The hash of `hashes.length` (a power of two) adjacent nodes' subtree. */
export function perfectHash(hashes: readonly Buffer[]): Buffer {
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
  operatorKey?: AuditKey,
  batch = BATCH,
  /** A background round's: sign only as {@link roundMaySign} allows, else answer why not (`skipped`). */
  round = false,
): Promise<{ checkpoint: Checkpoint | undefined; more: boolean; skipped?: string }> {
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
    `SELECT ${LEAF_COLUMNS} FROM audit_entries WHERE tenant = ? AND seq > ? ORDER BY seq LIMIT ?`,
    [tenant, size, batch],
  );
  const latest = await latestCheckpoint(tx, tenant);
  if (rows.length === 0 && (latest || size > 0)) return { checkpoint: latest, more: false };
  // The key first: a tenant that cannot be signed for costs no hashing. A round decides in this
  // transaction, so no checkpoint asked for meanwhile can settle the key under it.
  if (round) {
    const may = await roundMaySign(tx, tenant, operatorKey);
    if (may !== true) return { checkpoint: latest, more: false, skipped: may };
  }
  const key = await tenantKey(tx, tenant, now, operatorKey);
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
  const root = await rootAt(tiles, grown);
  const note = key.signNote(checkpointBody(originOf(key, tenant), grown, root, now));
  const checkpoint = { size: grown, root: root.toString('hex'), at: now, note };
  await tx.run(
    'INSERT INTO audit_checkpoints (tenant, size, at, root, note) VALUES (?, ?, ?, ?, ?) ON CONFLICT (tenant, size) DO NOTHING',
    [tenant, grown, now, checkpoint.root, note],
  );
  return { checkpoint, more: rows.length === batch };
}

/** How a caller runs one write transaction: its own engine's, for one tenant (OpContext.write's shape). */
export type TenantWrite = <T>(fn: (tx: SqlExecutor, now: number) => Promise<T>) => Promise<T>;

/** Integrates a batch per transaction until none is left (or `stopped` says so between batches). */
async function integrateAll(
  write: TenantWrite,
  tenant: string,
  operatorKey: AuditKey | undefined,
  options: { batch?: number; stopped?: () => boolean; round?: boolean },
): Promise<{ checkpoint: Checkpoint } | { skipped: string }> {
  for (;;) {
    const { checkpoint, more, skipped } = await write((tx, now) =>
      integrate(tx, tenant, now, operatorKey, options.batch, options.round),
    );
    if (skipped !== undefined) return { skipped };
    if (!checkpoint) throw internal('an integration signed no checkpoint');
    if (!more || options.stopped?.()) return { checkpoint };
  }
}

/**
 * Integrates every entry of the tenant committed before the call and
 * answers the checkpoint signed over them (the `auditCheckpoint` operation).
 */
export async function checkpointNow(write: TenantWrite, tenant: string, operatorKey?: AuditKey) {
  const done = await integrateAll(write, tenant, operatorKey, {});
  if ('skipped' in done) throw internal('an integration asked for was skipped');
  return done.checkpoint;
}

/**
 * A background round's integration of one tenant: `batch` entries per
 * transaction, signed only as {@link roundMaySign} allows (`skipped` says
 * why not); `stopped`, asked between batches, ends it with the checkpoint
 * so far.
 */
export function roundCheckpoint(
  write: TenantWrite,
  tenant: string,
  operatorKey: AuditKey | undefined,
  options: { batch: number; stopped: () => boolean },
): Promise<{ checkpoint: Checkpoint } | { skipped: string }> {
  return integrateAll(write, tenant, operatorKey, { ...options, round: true });
}

/**
 * The tenants with entries their tree does not hold yet, read across
 * tenants: for an engine that can (SQLite; on PostgreSQL each tenant's rows
 * are its own, and this sees none).
 */
export async function tenantsWaiting(tx: SqlExecutor): Promise<string[]> {
  const rows = await tx.all<{ tenant: string }>(
    `SELECT h.tenant FROM audit_heads h LEFT JOIN audit_trees t ON t.tenant = h.tenant
     WHERE h.seq > COALESCE(t.size, 0) ORDER BY h.tenant`,
  );
  return rows.map((r) => r.tenant);
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
export async function treeSize(tx: SqlExecutor, tenant: string): Promise<number> {
  const row = await tx.get<{ size: number }>('SELECT size FROM audit_trees WHERE tenant = ?', [tenant]);
  return Number(row?.size ?? 0);
}
