/** Inclusion and consistency proofs (RFC 9162 §2.1.3–2.1.4) from a tenant's stored tree (./tree.ts). */
import { corrupt, invalidArgument, notFound } from '../errors.js';
import type { SqlExecutor } from '../storage/engine.js';
import { consistencyPath, inclusionPath, rootAt } from './merkle.js';
import { LEAF_COLUMNS, type LeafFields, latestCheckpoint, leafEntry, Tiles, treeSize } from './tree.js';

/** The signed checkpoint of a tree of `size` entries, if one was signed at that size. */
function signedAt(tx: SqlExecutor, tenant: string, size: number) {
  return tx.get<{ root: string; note: string }>(
    'SELECT root, note FROM audit_checkpoints WHERE tenant = ? AND size = ?',
    [tenant, size],
  );
}

/**
 * The root of the tree of `size` entries: a signed checkpoint's, stored, when
 * one is of that size (`audit verify` holds it to the tiles); else hashed up
 * from the tiles.
 */
async function rootOf(tx: SqlExecutor, tiles: Tiles, tenant: string, size: number): Promise<string> {
  return (await signedAt(tx, tenant, size))?.root ?? (await rootAt(tiles, size)).toString('hex');
}

/** The first line of a C2SP tlog-proof (https://c2sp.org/tlog-proof). */
export const TLOG_PROOF_HEADER = 'c2sp.org/tlog-proof@v1';

/**
 * An inclusion proof as a C2SP tlog-proof: the header; `extra`, the entry's
 * bytes in base64 (what a verifier hashes into the leaf — unauthenticated
 * until the proof checks out); the zero-based index; the audit path, one
 * base64 hash a line, leaf to root; an empty line; the signed checkpoint
 * verbatim.
 */
export function tlogProofText(entry: string, index: number, path: readonly Buffer[], note: string): string {
  return [
    TLOG_PROOF_HEADER,
    `extra ${Buffer.from(entry, 'utf8').toString('base64')}`,
    `index ${index}`,
    ...path.map((h) => h.toString('base64')),
    '',
    note,
  ].join('\n');
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
    `SELECT ${LEAF_COLUMNS} FROM audit_entries WHERE tenant = ? AND seq = ?`,
    [tenant, index + 1],
  );
  if (!row)
    throw corrupt(`audit entry ${index} of tenant ${tenant} is missing: the store was changed outside Cairn`);
  const tiles = new Tiles(tx, tenant);
  const leaf = await tiles.node(0, index);
  const entry = leafEntry(row);
  const path = await inclusionPath(tiles, index, n);
  const signed = await signedAt(tx, tenant, n);
  return {
    index,
    size: n,
    entry,
    leafHash: leaf.toString('hex'),
    root: signed?.root ?? (await rootAt(tiles, n)).toString('hex'),
    path: hex(path),
    tlogProof: signed ? tlogProofText(entry, index, path, signed.note) : null,
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
    fromRoot: await rootOf(tx, tiles, tenant, from),
    toRoot: await rootOf(tx, tiles, tenant, n),
    path: hex(await consistencyPath(tiles, from, n)),
  };
}
