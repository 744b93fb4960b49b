import { type CairnError, invalidArgument } from '../errors.js';
import { digestOf } from './chunker.js';
import { PACK_ENTRY as ENTRY, PACK_SALT, PACK_TAIL as TAIL } from './pack-limits.js';
import { decodeTree } from './tree.js';

/**
 * A desk pack is self-describing: after its objects comes an index of them,
 * so whoever receives a pack (the store, from a client over the network) can
 * check every object against its digest before any of them is indexed, and a
 * store's object index could be rebuilt from its packs alone.
 *
 *   salt (16 random bytes) | object bytes … | entries | count (u32 BE) | "CPK1"
 *
 * Each entry is 41 bytes: the object's sha256 (32), its kind (1: 0 chunk,
 * 1 tree), its offset and length in the pack (u32 BE each). Objects lie
 * between the salt and the entries and do not overlap. The pack's name is
 * the sha256 of all of it. See docs/design/desk.md.
 */
const MAGIC = Buffer.from('CPK1', 'latin1');

export type ObjectKind = 'chunk' | 'tree';

export interface PackEntry {
  digest: string;
  kind: ObjectKind;
  off: number;
  len: number;
}

/** The bytes of the index that ends a pack holding `entries`. */
export function packIndex(entries: readonly PackEntry[]): Buffer {
  const out = Buffer.allocUnsafe(entries.length * ENTRY + TAIL);
  let at = 0;
  for (const e of entries) {
    out.write(e.digest, at, 32, 'hex');
    out[at + 32] = e.kind === 'tree' ? 1 : 0;
    out.writeUInt32BE(e.off, at + 33);
    out.writeUInt32BE(e.len, at + 37);
    at += ENTRY;
  }
  out.writeUInt32BE(entries.length, at);
  MAGIC.copy(out, at + 4);
  return out;
}

/** Bytes the index of `count` objects adds to a pack. */

function malformed(why: string, data: Record<string, unknown> = {}): CairnError {
  return invalidArgument(`the pack is malformed (${why}): send the pack as the desk wrote it`, data);
}

/** The index that ends a pack (its entries, count and magic), as stored while the pack is staged. */
export function packIndexOf(pack: Buffer): Buffer {
  if (pack.length < PACK_SALT + TAIL || !pack.subarray(pack.length - 4).equals(MAGIC))
    throw malformed('no pack index at its end');
  const count = pack.readUInt32BE(pack.length - TAIL);
  return pack.subarray(Math.max(0, pack.length - TAIL - count * ENTRY));
}

/** The entries of an index `packIndexOf` returned (trusted: it was checked when the pack came in). */
export function indexEntries(index: Buffer): PackEntry[] {
  const entries: PackEntry[] = [];
  for (let at = 0; at + ENTRY <= index.length - TAIL; at += ENTRY) {
    entries.push({
      digest: index.toString('hex', at, at + 32),
      kind: index[at + 32] === 1 ? 'tree' : 'chunk',
      off: index.readUInt32BE(at + 33),
      len: index.readUInt32BE(at + 37),
    });
  }
  return entries;
}

/** Reads a pack's index, checking its shape (bounds, order, kinds); not the digests (see `verifyPack`). */
export function readPackIndex(pack: Buffer): PackEntry[] {
  if (pack.length < PACK_SALT + TAIL || !pack.subarray(pack.length - 4).equals(MAGIC))
    throw malformed('no pack index at its end');
  const count = pack.readUInt32BE(pack.length - TAIL);
  const start = pack.length - TAIL - count * ENTRY;
  if (count === 0 || start < PACK_SALT) throw malformed(`its index claims ${count} objects`);
  const entries: PackEntry[] = [];
  let end = PACK_SALT;
  for (let at = start; at < pack.length - TAIL; at += ENTRY) {
    const kind = pack[at + 32];
    const off = pack.readUInt32BE(at + 33);
    const len = pack.readUInt32BE(at + 37);
    if (kind !== 0 && kind !== 1) throw malformed(`object kind ${kind}`);
    if (off < end || off + len > start)
      throw malformed(`object at ${off} (${len} bytes) overlaps another or the index`);
    end = off + len;
    entries.push({
      digest: pack.toString('hex', at, at + 32),
      kind: kind === 1 ? 'tree' : 'chunk',
      off,
      len,
    });
  }
  return entries;
}

/**
 * Checks a pack received from outside the store: it hashes to its name and
 * each object to its digest. Throws INVALID_ARGUMENT (nothing is stored) on
 * any mismatch; returns the index.
 */
export function verifyPack(name: string, pack: Buffer): PackEntry[] {
  const actual = digestOf(pack);
  if (actual !== name)
    throw invalidArgument(`pack ${name} hashes to ${actual}: send the pack's bytes unchanged`, {
      pack: name,
      actual,
    });
  const entries = readPackIndex(pack);
  for (const e of entries) {
    const bytes = pack.subarray(e.off, e.off + e.len);
    const got = digestOf(bytes);
    if (got !== e.digest)
      throw invalidArgument(
        `pack ${name} says the object at ${e.off} is ${e.digest} but its bytes hash to ${got}: nothing was stored`,
        { pack: name, digest: e.digest, actual: got },
      );
    // A tree must read as one: a malformed tree would break every walk of the tenant's snapshots (GC, verify).
    if (e.kind === 'tree') {
      try {
        decodeTree(e.digest, Buffer.from(bytes));
      } catch (error) {
        throw invalidArgument(
          `pack ${name} holds tree ${e.digest} that is not a valid tree (${(error as Error).message}): nothing was stored`,
          { pack: name, digest: e.digest },
        );
      }
    }
  }
  return entries;
}
