import { randomFillSync } from 'node:crypto';
import type { CairnError } from '../errors.js';
import { inBatches, type SqlExecutor } from '../storage/engine.js';
import { digestOf } from './chunker.js';
import type { LocalDeskStore } from './local-store.js';
import { INLINE_BYTES } from './objects.js';
import { type PackEntry, packIndex } from './pack-format.js';
import { PACK_BYTES, PACK_SALT, packIndexBytes } from './pack-limits.js';
import { lockDesk } from './rows.js';

/**
 * Repacking, GC's last step (gc.ts): a pack that holds live objects beside
 * dead bytes (objects no snapshot reaches any more — an erased session's
 * chunks that shared a checkpoint's pack with a chunk another session still
 * has, old versions of files — or bytes no index row names) has its live
 * objects copied into a new pack, and is then deleted. Without it the dead
 * bytes stay as long as one object of their pack lives, which erasure cannot
 * accept. Several packs' live objects share one new pack, up to PACK_BYTES.
 *
 * The new pack has the format every pack has (pack-format.ts), each object
 * re-hashed as it is copied (a pack whose objects do not match is left whole
 * for `verify` to name). It is stored as a checkpoint stores its packs, content
 * first and pointer last:
 *
 * 1. up to INLINE_BYTES it is written into its `desk_packs` row in step 2's
 *    transaction; larger, it is announced (a `writing` row, under the desk
 *    lock) and its blob stored — a crash here leaves a pack nothing indexes,
 *    which GC removes once its grace is over;
 * 2. one transaction under the desk lock makes it `live` (if a concurrent
 *    GC took it as abandoned, nothing moves) and, for each old pack whose
 *    index rows are all objects it copied, points those rows at the new pack
 *    and deletes the old pack's row. An old pack that some row it did not copy
 *    points at stays whole;
 * 3. the old packs' blobs are deleted (deleteUnnamed: under the lock, those
 *    no row names) — a crash before leaves blobs no row names, which
 *    `collectUnnamedBlobs` removes.
 *
 * Safe while checkpoints run: a commit checks the objects it reuses under the
 * same lock, and finds each either in its old pack or in the new one; no
 * commit adds rows pointing at an existing pack (packs are salted, so a new
 * pack never has an old pack's name). A reader that located an object in the
 * old pack finds it gone and looks it up again (LocalDeskStore.objectBytes).
 */

/** Objects one new pack holds at most: the index a pack the store takes may have (pack-limits.ts). */
const MAX_ENTRIES = 1 << 16;

/** A pack holding live objects and dead bytes, as the sweep found it. */
export interface PartlyDead {
  pack: string;
  inline: boolean;
  size: number;
  /** Its live objects and where they lie in it. */
  live: PackEntry[];
}

/** Bytes a pack of just these objects takes. */
export function packedSize(entries: readonly PackEntry[]): number {
  return PACK_SALT + entries.reduce((sum, e) => sum + e.len, 0) + packIndexBytes(entries.length);
}

/** How much of a pack is dead, 0 to 1 (0: it holds nothing a pack of its live objects would not). */
export function deadShare(pack: PartlyDead): number {
  return Math.max(0, 1 - packedSize(pack.live) / pack.size);
}

export interface Repacked {
  /** Old packs whose live objects now lie in a new pack, and which were deleted. */
  repacked: number;
  /** Live bytes copied into new packs. */
  copied: number;
  /** Bytes of the old packs less those of the new ones. */
  freedBytes: number;
  /** Blobs to delete once this is done: old packs stored as blobs, and new ones no row kept. */
  doomed: string[];
}

/** Copies the live objects of `packs` into new packs and retires the old ones (steps 1 and 2 above). */
export async function repack(store: LocalDeskStore, packs: readonly PartlyDead[]): Promise<Repacked> {
  const out: Repacked = { repacked: 0, copied: 0, freedBytes: 0, doomed: [] };
  let group: PartlyDead[] = [];
  let bytes = 0;
  let count = 0;
  for (const p of [...packs].sort((a, b) => (a.pack < b.pack ? -1 : 1))) {
    const live = p.live.reduce((sum, e) => sum + e.len, 0);
    if (group.length > 0 && (bytes + live > PACK_BYTES || count + p.live.length > MAX_ENTRIES)) {
      await repackGroup(store, group, out);
      group = [];
      bytes = 0;
      count = 0;
    }
    group.push(p);
    bytes += live;
    count += p.live.length;
  }
  if (group.length > 0) await repackGroup(store, group, out);
  return out;
}

/** An old pack's live objects, checked, with where they lie in the new pack. */
interface Part {
  from: PartlyDead;
  objects: Buffer[];
  entries: PackEntry[];
}

async function repackGroup(
  store: LocalDeskStore,
  group: readonly PartlyDead[],
  out: Repacked,
): Promise<void> {
  const parts: Part[] = [];
  let at = PACK_SALT;
  for (const from of group) {
    const objects = await liveObjects(store, from);
    if (!objects) continue;
    const entries = from.live.map((e, i) => {
      const entry = { digest: e.digest, kind: e.kind, off: at, len: e.len };
      at += (objects[i] as Buffer).length;
      return entry;
    });
    parts.push({ from, objects, entries });
  }
  if (parts.length === 0) return;
  const pack = packOf(parts, at);
  const digest = digestOf(pack);
  const inline = pack.length <= INLINE_BYTES;
  if (!inline) await announce(store, digest, pack);
  const moved = await store.engine.write(store.tenant, (tx) => move(tx, store.tenant, digest, pack, parts));
  if (!moved?.kept && !inline) out.doomed.push(digest);
  if (!moved) return;
  for (const from of moved.retired) {
    out.repacked++;
    out.freedBytes += from.size;
    if (!from.inline) out.doomed.push(from.pack);
    if (moved.kept) out.copied += from.live.reduce((sum, e) => sum + e.len, 0);
  }
  if (moved.kept) out.freedBytes -= pack.length;
}

/** The new pack's bytes: a fresh salt (so its name is new, see PackWriter.append), the objects, the index. */
function packOf(parts: readonly Part[], end: number): Buffer {
  const index = packIndex(parts.flatMap((p) => p.entries));
  const pack = Buffer.allocUnsafe(end + index.length);
  randomFillSync(pack, 0, PACK_SALT);
  for (const part of parts) {
    for (let i = 0; i < part.objects.length; i++)
      (part.objects[i] as Buffer).copy(pack, (part.entries[i] as PackEntry).off);
  }
  index.copy(pack, end);
  return pack;
}

/** Step 1 for a pack stored as a blob: its `writing` row (under the lock blobs are deleted under), then its bytes. */
async function announce(store: LocalDeskStore, digest: string, pack: Buffer): Promise<void> {
  const { engine, blobs, tenant } = store;
  await engine.write(tenant, async (tx) => {
    await lockDesk(tx, tenant);
    await tx.run(
      `INSERT INTO desk_packs (tenant, digest, state, size, created_at, inline) VALUES (?, ?, 'writing', ?, ?, 0)`,
      [tenant, digest, pack.length, Date.now()],
    );
  });
  await blobs.put(tenant, pack, digest);
}

/**
 * Step 2, in one transaction: the new pack made live (an inline one
 * written), the old packs' rows moved to it and the old packs' rows deleted.
 * Null when the announced pack is gone (a concurrent GC took it): nothing
 * moved. `kept` is false when no row moved, and the new pack's row is gone.
 */
async function move(
  tx: SqlExecutor,
  tenant: string,
  digest: string,
  pack: Buffer,
  parts: readonly Part[],
): Promise<{ retired: PartlyDead[]; kept: boolean } | null> {
  await lockDesk(tx, tenant);
  if (pack.length <= INLINE_BYTES) {
    await tx.run(
      `INSERT INTO desk_packs (tenant, digest, state, size, created_at, inline, bytes) VALUES (?, ?, 'live', ?, ?, 1, ?)`,
      [tenant, digest, pack.length, Date.now(), pack],
    );
  } else {
    const announced = await tx.run(
      `UPDATE desk_packs SET state = 'live' WHERE tenant = ? AND digest = ? AND state = 'writing'`,
      [tenant, digest],
    );
    if (announced === 0) return null;
  }
  const retired: PartlyDead[] = [];
  let moved = 0;
  for (const part of parts) {
    const n = await movePart(tx, tenant, digest, part);
    if (n === null) continue;
    moved += n;
    retired.push(part.from);
  }
  if (moved > 0) return { retired, kept: true };
  await tx.run('DELETE FROM desk_packs WHERE tenant = ? AND digest = ?', [tenant, digest]);
  return { retired, kept: false };
}

/**
 * Inside the move: points the old pack's index rows at the new pack and
 * deletes the old pack's row, when every row pointing at it is an object this
 * copied; returns how many rows moved, or null when the old pack stays whole.
 */
async function movePart(tx: SqlExecutor, tenant: string, pack: string, part: Part): Promise<number | null> {
  const old = part.from.pack;
  const pointing = await tx.all<{ digest: string }>(
    'SELECT digest FROM desk_objects WHERE tenant = ? AND pack = ?',
    [tenant, old],
  );
  const copied = new Set(part.entries.map((e) => e.digest));
  if (pointing.some((r) => !copied.has(r.digest))) return null;
  const still = new Set(pointing.map((r) => r.digest));
  const moving = part.entries.filter((e) => still.has(e.digest));
  await tx.run('DELETE FROM desk_objects WHERE tenant = ? AND pack = ?', [tenant, old]);
  await inBatches(
    moving,
    async (slice) => {
      await tx.run(
        `INSERT INTO desk_objects (tenant, digest, kind, pack, off, len) VALUES ${slice.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')}`,
        slice.flatMap((e) => [tenant, e.digest, e.kind, pack, e.off, e.len]),
      );
    },
    6,
  );
  const gone = await tx.run('DELETE FROM desk_packs WHERE tenant = ? AND digest = ?', [tenant, old]);
  return gone === 0 && moving.length === 0 ? null : moving.length;
}

/**
 * The live objects of an old pack, each re-hashed; null when the pack is gone
 * (a concurrent GC took it) or an object does not match its digest (corrupt:
 * the pack stays whole, and `verify` names it).
 */
async function liveObjects(store: LocalDeskStore, from: PartlyDead): Promise<Buffer[] | null> {
  const { engine, blobs, tenant } = store;
  let bytes: Buffer;
  try {
    if (from.inline) {
      const row = await engine.read(tenant, (tx) =>
        tx.get<{ bytes: Buffer | null }>('SELECT bytes FROM desk_packs WHERE tenant = ? AND digest = ?', [
          tenant,
          from.pack,
        ]),
      );
      if (!row?.bytes) return null;
      bytes = Buffer.from(row.bytes);
    } else bytes = await blobs.get(tenant, from.pack);
  } catch (error) {
    const code = (error as CairnError).code;
    if (code === 'NOT_FOUND' || code === 'CORRUPT') return null;
    throw error;
  }
  const objects: Buffer[] = [];
  for (const e of from.live) {
    if (e.off + e.len > bytes.length) return null;
    const object = bytes.subarray(e.off, e.off + e.len);
    if (digestOf(object) !== e.digest) return null;
    // A copy, so the old pack's buffer is let go: a group holds its live bytes, not its packs.
    objects.push(Buffer.from(object));
  }
  return objects;
}
