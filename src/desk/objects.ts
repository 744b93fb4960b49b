import { randomFillSync } from 'node:crypto';
import { corrupt } from '../errors.js';
import { digestOf } from './chunker.js';
import type { CommitInput, DeskStore } from './desk-store.js';
import { type ObjectKind, type PackEntry, packIndex } from './pack-format.js';
import { PACK_BYTES, PACK_SALT, packIndexBytes } from './pack-limits.js';
import { decodeTree, type TreeItem } from './tree.js';

/**
 * The desk's objects as the side where the directory is sees them. Objects
 * (file chunks and tree manifests) are immutable and named by their sha256;
 * the new objects of one checkpoint are appended to packs of up to
 * PACK_BYTES (see pack-format.ts), stored through the DeskStore. Every object
 * read back is re-hashed here, wherever it came from: a mismatch is CORRUPT,
 * never returned.
 */
/** The new objects of a checkpoint up to this size go into the database, in the snapshot's own transaction. */
export const INLINE_BYTES = 256 * 1024;
const PENDING_BYTES = 2 * 1024 * 1024;
/** Objects this large are looked up one by one and copied straight into the pack. */
const DIRECT_BYTES = 64 * 1024;
const BATCH = 400;

export type { ObjectKind };

/** Objects fetched ahead in one call, at most this many bytes of them (see `prefetch`). */
export const PREFETCH_BYTES = 16 * 1024 * 1024;
const PREFETCH_OBJECTS = 256;

export class ObjectStore {
  /** Decoded tree objects (immutable, so safe to share), most recently used last. */
  private readonly trees = new Map<string, TreeItem[]>();
  /** Objects fetched ahead and not yet read (each is handed out once). */
  private readonly ahead = new Map<string, Buffer>();

  constructor(readonly store: DeskStore) {}

  /** The bytes of an object, re-hashed; NOT_FOUND when the store lacks it, CORRUPT when they do not match. */
  async get(digest: string): Promise<Buffer> {
    const fetched = this.ahead.get(digest);
    if (fetched) {
      this.ahead.delete(digest);
      return checked(digest, fetched);
    }
    const [bytes] = await this.store.getObjects([digest]);
    return checked(digest, bytes as Buffer);
  }

  /**
   * Fetches objects that are about to be read, in one call per
   * PREFETCH_OBJECTS (one round trip to a server instead of one per object),
   * holding at most PREFETCH_BYTES of them; `sizes` bounds what is asked.
   * What is not read is dropped at the next prefetch.
   */
  async prefetch(wanted: readonly { digest: string; size: number }[]): Promise<void> {
    this.ahead.clear();
    let bytes = 0;
    const digests: string[] = [];
    for (const w of wanted) {
      if (bytes + w.size > PREFETCH_BYTES || this.ahead.has(w.digest)) continue;
      bytes += w.size;
      digests.push(w.digest);
    }
    for (let i = 0; i < digests.length; i += PREFETCH_OBJECTS) {
      const slice = digests.slice(i, i + PREFETCH_OBJECTS);
      const got = await this.store.getObjects(slice);
      for (let j = 0; j < slice.length; j++) this.ahead.set(slice[j] as string, got[j] as Buffer);
    }
  }

  /** A tree object, decoded; cached, since restores and forks walk the same trees again and again. */
  async tree(digest: string): Promise<TreeItem[]> {
    const cached = this.trees.get(digest);
    if (cached) {
      this.trees.delete(digest);
      this.trees.set(digest, cached);
      return cached;
    }
    const items = decodeTree(digest, await this.get(digest));
    if (this.trees.size >= 4096) this.trees.delete(this.trees.keys().next().value as string);
    this.trees.set(digest, items);
    return items;
  }

  forget(): void {
    this.trees.clear();
  }

  writer(): PackWriter {
    return new PackWriter(this.store);
  }
}

function checked(digest: string, bytes: Buffer): Buffer {
  const actual = digestOf(bytes);
  if (actual !== digest) {
    throw corrupt(
      `desk object ${digest} is corrupt (the store holds bytes hashing to ${actual}): restore the store from a backup`,
      { digest, actual },
    );
  }
  return bytes;
}

/**
 * Collects the new objects of one checkpoint into packs. `add` skips objects
 * the store already holds (asked in batches) or already added; each full
 * pack is stored at once (`putPack`), the last small one rides with the
 * commit. `commitFields` is what the snapshot's commit needs to make them
 * reachable and to re-check what it reused, so a concurrent GC cannot leave
 * the new snapshot pointing at nothing.
 */
export class PackWriter {
  /** The pack being filled: one buffer reused for every pack of this writer (no per-chunk copies, no concat). */
  private pack: Buffer | null = null;
  private packLength = 0;
  private packRows: PackEntry[] = [];
  private readonly written = new Set<string>();
  private readonly reused = new Set<string>();
  private readonly packs: string[] = [];
  /** A pack being stored whose put has not returned: `discard` removes it too. */
  private readonly announced: string[] = [];
  /** The checkpoint's only pack when it is small: sent with the commit, stored in the snapshot's transaction. */
  private inline: Buffer | null = null;
  private pending: { digest: string; kind: ObjectKind; bytes: Buffer }[] = [];
  private pendingBytes = 0;
  addedBytes = 0;
  /** A preview: objects are counted but never stored. */
  dryRun = false;

  constructor(private readonly store: DeskStore) {}

  /**
   * Stores an object unless the store already has it. Large objects are
   * looked up at once and copied into the pack before `add` returns, so
   * `bytes` may be a view the caller reuses afterwards; small ones are
   * queued and looked up in batches, so the caller must not reuse
   * `bytes` unless it says `owned: false` (they are then copied).
   */
  async add(digest: string, kind: ObjectKind, bytes: Buffer, owned = true): Promise<void> {
    if (this.dryRun) return;
    if (this.written.has(digest) || this.reused.has(digest)) return;
    if (bytes.length >= DIRECT_BYTES) {
      if ((await this.store.missing([digest])).length === 0) this.reused.add(digest);
      else await this.append(digest, kind, bytes);
      return;
    }
    this.pending.push({ digest, kind, bytes: owned ? bytes : Buffer.from(bytes) });
    this.pendingBytes += bytes.length;
    if (this.pending.length >= BATCH || this.pendingBytes >= PENDING_BYTES) await this.resolvePending();
  }

  /** Asks the store about the queued objects and appends the unknown ones to the current pack. */
  private async resolvePending(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    const fresh = batch.filter((o) => !this.written.has(o.digest) && !this.reused.has(o.digest));
    if (fresh.length === 0) return;
    const missing = new Set(await this.store.missing([...new Set(fresh.map((o) => o.digest))]));
    for (const object of fresh) {
      if (!missing.has(object.digest)) this.reused.add(object.digest);
      else if (!this.written.has(object.digest)) await this.append(object.digest, object.kind, object.bytes);
    }
  }

  /** Copies one new object into the current pack, storing the pack first when it would overflow. */
  private async append(digest: string, kind: ObjectKind, bytes: Buffer): Promise<void> {
    if (this.packLength > PACK_SALT && this.packLength + bytes.length > PACK_BYTES) await this.flushPack();
    const index = packIndexBytes(this.packRows.length + 1);
    const need = this.packLength + bytes.length + PACK_SALT + index;
    if (!this.pack || this.pack.length < need) {
      const grown = Buffer.allocUnsafe(Math.max(PACK_BYTES, need) + packIndexBytes(1024));
      this.pack?.copy(grown, 0, 0, this.packLength);
      this.pack = grown;
    }
    if (this.packLength === 0) {
      // Every pack starts with random bytes, so no two packs share a name: a pack GC is deleting
      // can never be taken for a new pack with the same objects.
      randomFillSync(this.pack, 0, PACK_SALT);
      this.packLength = PACK_SALT;
    }
    bytes.copy(this.pack, this.packLength);
    this.packRows.push({ digest, kind, off: this.packLength, len: bytes.length });
    this.packLength += bytes.length;
    this.written.add(digest);
    this.addedBytes += bytes.length;
  }

  private async flushPack(last = false): Promise<void> {
    if (this.packLength <= PACK_SALT || !this.pack) return;
    const index = packIndex(this.packRows);
    if (this.pack.length < this.packLength + index.length) {
      const grown = Buffer.allocUnsafe(this.packLength + index.length);
      this.pack.copy(grown, 0, 0, this.packLength);
      this.pack = grown;
    }
    index.copy(this.pack, this.packLength);
    const bytes = this.pack.subarray(0, this.packLength + index.length);
    this.packLength = 0;
    this.packRows = [];
    if (last && this.packs.length === 0 && bytes.length <= INLINE_BYTES) {
      this.inline = Buffer.from(bytes);
      return;
    }
    const digest = digestOf(bytes);
    this.announced.push(digest);
    // The pack buffer is reused only after this put has returned.
    await this.store.putPack(digest, bytes);
    this.announced.pop();
    this.packs.push(digest);
  }

  /**
   * After a checkpoint failed before its commit (a full disk, a retry): deletes
   * the packs this writer stored, so their space is free for the retry at once
   * rather than after GC's grace. Safe: pack names are salted, so no other
   * writer's pack has the same name, and none of them was committed. Best
   * effort — what it cannot delete, GC still collects.
   */
  async discard(): Promise<void> {
    const announced = [...this.packs, ...this.announced];
    this.packs.length = 0;
    this.announced.length = 0;
    this.pack = null;
    this.packLength = 0;
    await this.store.discardPacks(announced).catch(() => undefined);
  }

  /** Stores everything still buffered (a small remainder is kept for the commit); call before committing. */
  async flush(): Promise<void> {
    await this.resolvePending();
    await this.flushPack(true);
    this.pack = null;
  }

  /** The commit's fields for these objects: the packs stored, the inline pack, and what was reused (plus `alsoNamed`). */
  commitFields(
    alsoNamed: Iterable<string> = [],
  ): Pick<CommitInput, 'packs' | 'inline' | 'reused' | 'addedBytes'> {
    const reused = [...new Set([...this.reused, ...alsoNamed])].filter((d) => !this.written.has(d));
    return {
      packs: [...this.packs],
      ...(this.inline ? { inline: this.inline } : {}),
      reused,
      addedBytes: this.addedBytes,
    };
  }
}
