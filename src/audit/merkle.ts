/**
 * The audit log's Merkle tree in the shape of RFC 9162 §2.1: a leaf is
 * `SHA-256(0x00 ‖ entry)`, an inner node `SHA-256(0x01 ‖ left ‖ right)`, the
 * tree over n leaves splits at the largest power of two below n. Proofs are
 * computed from the hashes of perfect subtrees (`NodeSource`: ./tiles.ts keeps
 * them); this file knows nothing of storage. docs/design/audit.md.
 */
import * as crypto from 'node:crypto';

export const HASH_BYTES = 32;

/**
 * SHA-256 of one buffer: node:crypto's one-shot `hash` (Node ≥ 20.12), about
 * 1.5× the speed of a `createHash` per small input, which is what a tree is
 * made of; `createHash` where it is missing.
 */
const sha256: (data: Uint8Array) => Buffer =
  typeof crypto.hash === 'function'
    ? (data) => crypto.hash('sha256', data, 'buffer') as unknown as Buffer
    : (data) => crypto.createHash('sha256').update(data).digest();

/** 0x00 ‖ entry, written in place for an entry that fits (hashing is synchronous): no buffer per leaf. */
const LEAF_INPUT = Buffer.alloc(64 * 1024);

export function leafHash(entry: Uint8Array): Buffer {
  if (entry.length < LEAF_INPUT.length) {
    LEAF_INPUT.set(entry, 1);
    return sha256(LEAF_INPUT.subarray(0, entry.length + 1));
  }
  const input = Buffer.allocUnsafe(entry.length + 1);
  input[0] = 0;
  input.set(entry, 1);
  return sha256(input);
}

/** 0x01 ‖ left ‖ right, written in place: hashing is synchronous, so one buffer serves every node. */
const NODE_INPUT = Buffer.alloc(1 + 2 * HASH_BYTES, 1);

export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  NODE_INPUT.set(left, 1);
  NODE_INPUT.set(right, 1 + HASH_BYTES);
  return sha256(NODE_INPUT);
}

/** The root of the empty tree: SHA-256 of nothing. */
export const EMPTY_ROOT = sha256(new Uint8Array(0));

/**
 * The root of the tree over `entries`, in order (RFC 9162's MTH), in one
 * pass: each leaf joins the perfect subtrees before it while their sizes
 * match (the stack holds one per set bit of the count so far), and the ones
 * left are folded from the right. What an offline verifier does with a
 * log's entries and a checkpoint: about two hashes an entry, no tree kept.
 */
export function rootOfEntries(entries: Iterable<Uint8Array>): Buffer {
  const stack: Buffer[] = [];
  let count = 0;
  for (const entry of entries) {
    let top = leafHash(entry);
    for (let c = count; c % 2 === 1; c = (c - 1) / 2) top = nodeHash(stack.pop() as Buffer, top);
    stack.push(top);
    count++;
  }
  let root = stack.pop() ?? EMPTY_ROOT;
  while (stack.length > 0) root = nodeHash(stack.pop() as Buffer, root);
  return root;
}

/** The hashes of the perfect subtrees of a tree: `node(height, index)` covers leaves [index·2^height, (index+1)·2^height). */
export interface NodeSource {
  node(height: number, index: number): Promise<Buffer>;
}

/** The largest power of two strictly below n (n ≥ 2). */
export function splitOf(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

const isPowerOfTwo = (n: number) => n > 0 && 2 ** Math.floor(Math.log2(n)) === n;

/** MTH of the leaves [from, to): a perfect subtree's stored hash, or its two halves hashed. */
export async function rangeHash(source: NodeSource, from: number, to: number): Promise<Buffer> {
  const n = to - from;
  if (n === 0) return EMPTY_ROOT;
  if (isPowerOfTwo(n) && from % n === 0) return source.node(Math.log2(n), from / n);
  const k = splitOf(n);
  return nodeHash(await rangeHash(source, from, from + k), await rangeHash(source, from + k, to));
}

/** The root of the tree of the first `size` leaves. */
export function rootAt(source: NodeSource, size: number): Promise<Buffer> {
  return rangeHash(source, 0, size);
}

/** RFC 9162 §2.1.3.1: the audit path of leaf `index` in the tree of `size` leaves, leaf to root. */
export async function inclusionPath(source: NodeSource, index: number, size: number): Promise<Buffer[]> {
  const path: Buffer[] = [];
  // Walked root-down; each step's sibling is the last hash the path needs, so they are gathered in reverse.
  let from = 0;
  let to = size;
  while (to - from > 1) {
    const k = splitOf(to - from);
    if (index < from + k) {
      path.push(await rangeHash(source, from + k, to));
      to = from + k;
    } else {
      path.push(await rangeHash(source, from, from + k));
      from += k;
    }
  }
  return path.reverse();
}

/** RFC 9162 §2.1.4.1: the consistency path from the tree of `from` leaves to the tree of `to` (0 < from ≤ to). */
export async function consistencyPath(source: NodeSource, from: number, to: number): Promise<Buffer[]> {
  const path: Buffer[] = [];
  // SUBPROOF(m, D[start:end], whole), walked root-down: each level's sibling comes after its subtree's proof.
  let start = 0;
  let end = to;
  let whole = true;
  while (from !== end) {
    const k = splitOf(end - start);
    if (from - start <= k) {
      path.push(await rangeHash(source, start + k, end));
      end = start + k;
    } else {
      path.push(await rangeHash(source, start, start + k));
      start += k;
      whole = false;
    }
  }
  if (!whole) path.push(await rangeHash(source, start, end));
  return path.reverse();
}
