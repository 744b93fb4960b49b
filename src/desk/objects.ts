import { randomFillSync } from 'node:crypto';
import type { BlobStore } from '../blob/blob-store.js';
import { CairnError } from '../errors.js';
import { type Engine, placeholders, type SqlExecutor } from '../storage/engine.js';
import { digestOf } from './chunker.js';
import { decodeTree, type TreeItem } from './tree.js';

/**
 * The desk's object store. Objects (file chunks and tree manifests) are
 * immutable and named by their sha256; new objects of one checkpoint are
 * appended to packs of up to PACK_BYTES, each pack one blob. The index
 * (`desk_objects`) maps a digest to its pack range; an object is re-hashed
 * on every read and a mismatch is CORRUPT, never returned.
 *
 * Write order (content first, pointer last): a pack is announced
 * (`desk_packs` state `writing`), then stored, and only the transaction that
 * records the snapshot indexes its objects and marks the pack `live`. A crash
 * anywhere before leaves an unreferenced pack that GC removes.
 */
export const PACK_BYTES = 8 * 1024 * 1024;
/** The new objects of a checkpoint up to this size go into the database, in the snapshot's own transaction. */
export const INLINE_BYTES = 256 * 1024;
const PENDING_BYTES = 2 * 1024 * 1024;
/** Random bytes at the start of every pack (see `append`). */
const PACK_SALT = 16;
/** Objects this large are looked up one by one and copied straight into the pack. */
const DIRECT_BYTES = 64 * 1024;
const BATCH = 400;

export type ObjectKind = 'chunk' | 'tree';

export interface IndexRow {
  digest: string;
  kind: ObjectKind;
  pack: string;
  off: number;
  len: number;
  /** 1 when the pack's bytes live in `desk_packs.bytes` rather than the blob store. */
  inline: number;
}

/** Runs `fn` over `items` in slices small enough for one statement's parameters. */
export async function inBatches<T>(
  items: readonly T[],
  fn: (slice: readonly T[]) => Promise<void>,
): Promise<void> {
  for (let i = 0; i < items.length; i += BATCH) await fn(items.slice(i, i + BATCH));
}

export async function findObjects(
  tx: SqlExecutor,
  tenant: string,
  digests: readonly string[],
): Promise<Map<string, IndexRow>> {
  const found = new Map<string, IndexRow>();
  await inBatches(digests, async (slice) => {
    // Joined with the pack, so an object whose pack row is gone counts as missing.
    const rows = await tx.all<IndexRow>(
      `SELECT o.digest, o.kind, o.pack, o.off, o.len, p.inline FROM desk_objects o
       JOIN desk_packs p ON p.tenant = o.tenant AND p.digest = o.pack
       WHERE o.tenant = ? AND o.digest IN (${placeholders(slice.length)})`,
      [tenant, ...slice],
    );
    for (const row of rows) {
      found.set(row.digest, {
        ...row,
        off: Number(row.off),
        len: Number(row.len),
        inline: Number(row.inline),
      });
    }
  });
  return found;
}

export class ObjectStore {
  private readonly located = new Map<string, IndexRow>();
  /** Decoded tree objects (immutable, so safe to share), most recently used last. */
  private readonly trees = new Map<string, TreeItem[]>();

  constructor(
    readonly engine: Engine,
    readonly blobs: BlobStore,
    readonly tenant: string,
  ) {}

  /** The bytes of an object, re-hashed; NOT_FOUND when unindexed, CORRUPT when they do not match. */
  async get(digest: string): Promise<Buffer> {
    let row = this.located.get(digest);
    if (!row) {
      row = (await this.engine.read(this.tenant, (tx) => findObjects(tx, this.tenant, [digest]))).get(digest);
      if (!row) {
        throw new CairnError(
          'NOT_FOUND',
          `desk object ${digest} is not in the store: the snapshot that names it is damaged`,
          {
            digest,
          },
        );
      }
      this.remember(row);
    }
    let bytes: Buffer;
    try {
      bytes = row.inline
        ? await this.inlineRange(row)
        : await this.blobs.getRange(this.tenant, row.pack, row.off, row.len);
    } catch (error) {
      // GC may have repacked the object since it was located: look it up once more.
      this.located.delete(digest);
      if ((error as CairnError).code !== 'NOT_FOUND' || !(await this.relocated(digest, row))) throw error;
      return this.get(digest);
    }
    const actual = digestOf(bytes);
    if (actual !== digest) {
      throw new CairnError(
        'CORRUPT',
        `desk object ${digest} is corrupt (pack ${row.pack} at ${row.off} holds bytes hashing to ${actual}): restore the store from a backup`,
        { digest, pack: row.pack, offset: row.off, actual },
      );
    }
    return bytes;
  }

  private async inlineRange(row: IndexRow): Promise<Buffer> {
    const found = await this.engine.read(this.tenant, (tx) =>
      tx.get<{ part: Buffer | null }>(
        'SELECT substr(bytes, ?, ?) AS part FROM desk_packs WHERE tenant = ? AND digest = ?',
        [row.off + 1, row.len, this.tenant, row.pack],
      ),
    );
    if (!found?.part) throw new CairnError('NOT_FOUND', `desk pack ${row.pack} is gone`, { pack: row.pack });
    return Buffer.from(found.part);
  }

  private async relocated(digest: string, was: IndexRow): Promise<boolean> {
    const now = (await this.engine.read(this.tenant, (tx) => findObjects(tx, this.tenant, [digest]))).get(
      digest,
    );
    return now !== undefined && (now.pack !== was.pack || now.off !== was.off);
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

  remember(row: IndexRow): void {
    if (this.located.size > 100_000) this.located.clear();
    this.located.set(row.digest, row);
  }

  forget(): void {
    this.located.clear();
    this.trees.clear();
  }

  writer(now: () => number): PackWriter {
    return new PackWriter(this, now);
  }
}

/**
 * Collects the new objects of one checkpoint into packs. `add` skips objects
 * already indexed (asked in batches) or already added; `commit` (inside the
 * snapshot's transaction) indexes what was written and re-checks that every
 * reused object is still there, so a concurrent GC cannot leave the new
 * snapshot pointing at nothing.
 */
export class PackWriter {
  /** The pack being filled: one buffer reused for every pack of this writer (no per-chunk copies, no concat). */
  private pack: Buffer | null = null;
  private packLength = 0;
  private packRows: IndexRow[] = [];
  private readonly written = new Map<string, IndexRow>();
  private readonly reused = new Set<string>();
  private readonly packs: string[] = [];
  /** A pack announced (its row written) whose blob put has not returned: `discard` removes it too. */
  private readonly announced: string[] = [];
  /** The checkpoint's only pack when it is small: stored by `commit`, in the snapshot's transaction. */
  private inline: { digest: string; bytes: Buffer } | null = null;
  private pending: { digest: string; kind: ObjectKind; bytes: Buffer }[] = [];
  private pendingBytes = 0;
  addedBytes = 0;
  /** A preview: objects are counted but never stored. */
  dryRun = false;

  constructor(
    private readonly store: ObjectStore,
    private readonly now: () => number,
  ) {}

  /**
   * Stores an object unless the index already has it. Large objects are
   * looked up at once and copied into the pack before `add` returns, so
   * `bytes` may be a view the caller reuses afterwards; small ones are
   * queued and looked up in batches, so the caller must not reuse
   * `bytes` unless it says `owned: false` (they are then copied).
   */
  async add(digest: string, kind: ObjectKind, bytes: Buffer, owned = true): Promise<void> {
    if (this.dryRun) return;
    if (this.written.has(digest) || this.reused.has(digest)) return;
    if (bytes.length >= DIRECT_BYTES) {
      const known = await this.store.engine.read(this.store.tenant, (tx) =>
        findObjects(tx, this.store.tenant, [digest]),
      );
      if (known.has(digest)) this.reused.add(digest);
      else await this.append(digest, kind, bytes);
      return;
    }
    this.pending.push({ digest, kind, bytes: owned ? bytes : Buffer.from(bytes) });
    this.pendingBytes += bytes.length;
    if (this.pending.length >= BATCH || this.pendingBytes >= PENDING_BYTES) await this.resolvePending();
  }

  /** Asks the index about the queued objects and appends the unknown ones to the current pack. */
  private async resolvePending(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    const fresh = batch.filter((o) => !this.written.has(o.digest) && !this.reused.has(o.digest));
    if (fresh.length === 0) return;
    const known = await this.store.engine.read(this.store.tenant, (tx) =>
      findObjects(tx, this.store.tenant, [...new Set(fresh.map((o) => o.digest))]),
    );
    for (const object of fresh) {
      if (known.has(object.digest)) this.reused.add(object.digest);
      else if (!this.written.has(object.digest)) await this.append(object.digest, object.kind, object.bytes);
    }
  }

  /** Copies one new object into the current pack, storing the pack first when it would overflow. */
  private async append(digest: string, kind: ObjectKind, bytes: Buffer): Promise<void> {
    if (this.packLength > PACK_SALT && this.packLength + bytes.length > PACK_BYTES) await this.flushPack();
    if (!this.pack || this.pack.length < this.packLength + bytes.length + PACK_SALT) {
      const grown = Buffer.allocUnsafe(Math.max(PACK_BYTES, this.packLength + bytes.length + PACK_SALT));
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
    const row: IndexRow = { digest, kind, pack: '', off: this.packLength, len: bytes.length, inline: 0 };
    this.packLength += bytes.length;
    this.packRows.push(row);
    this.written.set(digest, row);
    this.addedBytes += bytes.length;
  }

  private async flushPack(last = false): Promise<void> {
    if (this.packLength <= PACK_SALT || !this.pack) return;
    const bytes = this.pack.subarray(0, this.packLength);
    const rows = this.packRows;
    this.packLength = 0;
    this.packRows = [];
    const digest = digestOf(bytes);
    for (const row of rows) row.pack = digest;
    if (last && this.packs.length === 0 && bytes.length <= INLINE_BYTES) {
      for (const row of rows) row.inline = 1;
      this.inline = { digest, bytes: Buffer.from(bytes) };
      return;
    }
    const { engine, tenant, blobs } = this.store;
    await engine.write(tenant, (tx) =>
      tx.run(
        `INSERT INTO desk_packs (tenant, digest, state, size, created_at, inline) VALUES (?, ?, 'writing', ?, ?, 0)
         ON CONFLICT (tenant, digest) DO NOTHING`,
        [tenant, digest, bytes.length, this.now()],
      ),
    );
    this.announced.push(digest);
    // The pack buffer is reused only after this put has returned.
    await blobs.put(tenant, bytes, digest);
    this.announced.pop();
    this.packs.push(digest);
  }

  /**
   * After a checkpoint failed before its commit (a full disk, a retry): deletes
   * the packs this writer stored, so their space is free for the retry at once
   * rather than after GC's grace. Safe: pack names are salted, so no other
   * writer's pack has the same name, and none of them was indexed. Best effort —
   * what it cannot delete, GC still collects.
   */
  async discard(): Promise<void> {
    const { engine, tenant, blobs } = this.store;
    const announced = [...this.packs, ...this.announced];
    this.packs.length = 0;
    this.announced.length = 0;
    this.pack = null;
    this.packLength = 0;
    // Blobs first: on a full disk they are what frees the space, and a 'writing' row left without its
    // blob is what GC sweeps anyway.
    for (const digest of announced) await blobs.delete(tenant, digest).catch(() => undefined);
    if (announced.length === 0) return;
    await engine
      .write(tenant, (tx) =>
        inBatches(announced, async (slice) => {
          await tx.run(
            `DELETE FROM desk_packs WHERE tenant = ? AND state = 'writing' AND digest IN (${placeholders(slice.length)})`,
            [tenant, ...slice],
          );
        }),
      )
      .catch(() => undefined);
  }

  /** Stores everything still buffered (a small remainder is kept for `commit`); call before the snapshot's transaction. */
  async flush(): Promise<void> {
    await this.resolvePending();
    await this.flushPack(true);
    this.pack = null;
  }

  /**
   * Inside the snapshot's transaction: checks that the reused objects (plus
   * `alsoNamed`) are still indexed and this writer's packs still announced,
   * then indexes the new objects and marks their packs live. Returns what
   * went missing (a concurrent GC took it); the caller then retries the
   * checkpoint and the transaction is rolled back.
   */
  async commit(tx: SqlExecutor, alsoNamed: Iterable<string> = []): Promise<string[]> {
    const tenant = this.store.tenant;
    const expected = [...new Set([...this.reused, ...alsoNamed])].filter((d) => !this.written.has(d));
    const present = await findObjects(tx, tenant, expected);
    const missing = expected.filter((d) => !present.has(d));
    if (missing.length > 0) return missing;
    await inBatches([...this.written.values()], async (slice) => {
      await tx.run(
        `INSERT INTO desk_objects (tenant, digest, kind, pack, off, len) VALUES ${slice.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')}
         ON CONFLICT (tenant, digest) DO NOTHING`,
        slice.flatMap((r) => [tenant, r.digest, r.kind, r.pack, r.off, r.len]),
      );
    });
    // A pack GC took for abandoned (its grace ran out) must not be indexed: report it missing.
    let announced = 0;
    await inBatches(this.packs, async (slice) => {
      announced += await tx.run(
        `UPDATE desk_packs SET state = 'live' WHERE tenant = ? AND digest IN (${placeholders(slice.length)})`,
        [tenant, ...slice],
      );
    });
    if (announced !== this.packs.length) return this.packs;
    if (this.inline) {
      await tx.run(
        `INSERT INTO desk_packs (tenant, digest, state, size, created_at, inline, bytes) VALUES (?, ?, 'live', ?, ?, 1, ?)
         ON CONFLICT (tenant, digest) DO NOTHING`,
        [tenant, this.inline.digest, this.inline.bytes.length, this.now(), this.inline.bytes],
      );
    }
    for (const row of this.written.values()) this.store.remember(row);
    return [];
  }
}
