/**
 * The sizes of a desk pack (its layout: pack-format.ts), apart from the code
 * that writes and reads packs, so the contract (desk/contract.ts) takes the
 * largest pack body from here and loads nothing else of the desk.
 */

/** Bytes of the random salt at a pack's start. */
export const PACK_SALT = 16;
/** Bytes of one index entry: sha256 (32), kind (1), offset and length (u32 BE each). */
export const PACK_ENTRY = 41;
/** Bytes of the index's tail: the entry count (u32 BE) and "CPK1". */
export const PACK_TAIL = 8;

/** A pack is closed once its objects reach this many bytes (a larger object gets a pack of its own). */
export const PACK_BYTES = 8 * 1024 * 1024;

/** Bytes of a pack's index of `count` objects. */
export function packIndexBytes(count: number): number {
  return count * PACK_ENTRY + PACK_TAIL;
}

/** The largest pack the store takes: a full pack, one more object of up to 4 MiB, an index of 65,536 entries. */
export const MAX_PACK_BYTES = PACK_BYTES + 4 * 1024 * 1024 + packIndexBytes(1 << 16);
