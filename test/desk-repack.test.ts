import { randomBytes } from 'node:crypto';
import { copyFileSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Desk } from '../src/desk/desk.js';
import type { Store } from '../src/store.js';
import { expectCode } from '../src/testing/expect-code.js';
import type { Identity } from '../src/types.js';
import { describePostgres } from './support/postgres.js';
import { backendStore, tempDir } from './support/stores.js';
import { put } from './support/trees.js';

/**
 * GC's repacking (src/desk/repack.ts) while checkpoints run, on each engine:
 * a pack holding live objects beside dead ones is rewritten and deleted, and
 * nothing a snapshot names is lost — a checkpoint that commits between the
 * new pack's announcement and the move, a reader that located an object in
 * the old pack, and a writer checkpointing through many GC passes. Bounded by
 * rounds and counted passes, not by time.
 */
function repackSuite(backend: 'sqlite' | 'postgres') {
  let temp: { dir: string; remove(): void };
  let store: Store;
  let who: Identity;
  let cleanup: () => Promise<void>;
  const open: Desk[] = [];

  function desk(): Desk {
    const made = store.desk(who, { host: 'test-host', stateDir: join(temp.dir, 'desk-state') });
    open.push(made);
    return made;
  }

  /** Every snapshot of the workspace restores, by a desk that has read nothing yet, to exactly its root. */
  async function everySnapshotRestores(workspace: string): Promise<void> {
    const d = desk();
    for (const s of await d.listSnapshots(workspace as never)) {
      const restored = await d.restore(workspace as never, s.id);
      expect(restored.after.root).toBe(s.root);
    }
  }

  beforeEach(async () => {
    temp = tempDir('cairn-desk-repack-');
    ({ store, who, cleanup } = await backendStore(backend, 'desk-repack'));
  });

  afterEach(async () => {
    for (const d of open.splice(0)) await d.close();
    await cleanup();
    temp.remove();
  });

  it('a checkpoint between the new pack and the move, and a reader of the old pack after it, lose nothing', async () => {
    const work = join(temp.dir, 'work');
    const big = randomBytes(300 * 1024);
    put(work, 'readme.txt', 'attached\n');
    const d = desk();
    // (The first snapshot is the workspace's base, which retention keeps.)
    const { workspace } = await d.attach({ dir: work });
    put(work, 'big.bin', big);
    for (let i = 0; i < 10; i++) put(work, `small/${i}.txt`, `first version of ${i}\n`.repeat(50));
    await d.checkpoint(workspace.id);
    rmSync(join(work, 'small'), { recursive: true });
    const kept = await d.checkpoint(workspace.id);
    // Retention takes the second snapshot: its pack file now holds big.bin (live) beside dead files.
    expect((await desk().gc({ keepLast: 1, graceMs: 0 })).removedObjects).toBeGreaterThan(0);
    // The writer reads big.bin's chunks, so it has located them in that pack.
    unlinkSync(join(work, 'big.bin'));
    await d.restore(workspace.id, kept.snapshot.id);
    expect(readFileSync(join(work, 'big.bin')).equals(big)).toBe(true);

    const blobs = store.blobs;
    const realPut = blobs.put.bind(blobs);
    const realDelete = blobs.delete.bind(blobs);
    let collecting = false;
    let raced: Promise<unknown> | undefined;
    let reread: Promise<unknown> | undefined;
    blobs.put = async (tenant, bytes, digest) => {
      if (collecting && !raced) {
        // The new pack is announced, not yet live: a checkpoint reusing big.bin's chunks (still in the old
        // pack) and adding content of its own commits now.
        copyFileSync(join(work, 'big.bin'), join(work, 'big-copy.bin'));
        put(work, 'new.txt', 'written while GC repacks\n');
        raced = d.checkpoint(workspace.id);
        await raced;
      }
      return realPut(tenant, bytes, digest);
    };
    const realRange = blobs.getRange.bind(blobs);
    const deleted = new Set<string>();
    let staleReads = 0;
    blobs.getRange = async (tenant, digest, offset, length) => {
      if (deleted.has(digest)) staleReads++;
      return realRange(tenant, digest, offset, length);
    };
    blobs.delete = async (tenant, digest) => {
      await realDelete(tenant, digest);
      deleted.add(digest);
      // After the announcement, a deletion is of a pack the repack retired.
      if (collecting && raced && !reread) {
        // The old pack's file is gone: the writer, which located big.bin there, restores it again (not
        // awaited here: this runs under the lock its checkpoint waits for).
        unlinkSync(join(work, 'big.bin'));
        reread = d.restore(workspace.id, kept.snapshot.id);
      }
    };
    collecting = true;
    const gc = await desk().gc({ graceMs: 0, repack: true });
    collecting = false;
    expect(gc.repackedPacks).toBeGreaterThanOrEqual(1);
    expect(raced).toBeDefined();
    expect(reread).toBeDefined();
    await reread;
    blobs.put = realPut;
    blobs.delete = realDelete;
    blobs.getRange = realRange;
    expect(readFileSync(join(work, 'big.bin')).equals(big)).toBe(true);
    // It did look in the old pack first, and found big.bin's chunks where the repack put them.
    expect(staleReads).toBeGreaterThan(0);
    expect(await desk().verify()).toMatchObject({ ok: true });
    await everySnapshotRestores(workspace.id);
  });

  it('a threshold repacks only packs at least that dead; repacked packs are whole and not repacked again', async () => {
    const work = join(temp.dir, 'work');
    put(work, 'readme.txt', 'attached\n');
    const d = desk();
    const { workspace } = await d.attach({ dir: work });
    put(work, 'big.bin', randomBytes(300 * 1024));
    for (let i = 0; i < 10; i++) put(work, `small/${i}.txt`, `short-lived ${i}\n`.repeat(50));
    await d.checkpoint(workspace.id);
    rmSync(join(work, 'small'), { recursive: true });
    await d.checkpoint(workspace.id);
    const gc = desk();
    await expectCode(gc.gc({ repack: { minDeadShare: 1 } }), 'INVALID_ARGUMENT');
    // The small files are a few percent of their pack: kept whole under a 50 % threshold, repacked under 1 %.
    expect((await gc.gc({ keepLast: 1, graceMs: 0, repack: { minDeadShare: 0.5 } })).repackedPacks).toBe(0);
    const repacked = await gc.gc({ graceMs: 0, repack: { minDeadShare: 0.01 } });
    expect(repacked.repackedPacks).toBe(1);
    expect(repacked.repackedBytes).toBeGreaterThanOrEqual(300 * 1024);
    expect(repacked.freedBytes).toBeGreaterThan(0);
    expect((await gc.gc({ graceMs: 0, repack: true })).repackedPacks).toBe(0);
    expect(await gc.verify()).toMatchObject({ ok: true });
    await everySnapshotRestores(workspace.id);
  });

  it('GC repacking in a loop while a writer checkpoints loses nothing referenced', async () => {
    const work = join(temp.dir, 'work');
    const d = desk();
    for (let i = 0; i < 20; i++) put(work, `f${i}.txt`, `v0 ${i}\n`.repeat(40));
    put(work, 'big.bin', randomBytes(300 * 1024));
    const { workspace } = await d.attach({ dir: work });
    const collector = desk();
    let writing = true;
    let passes = 0;
    const writer = (async () => {
      try {
        for (let round = 1; round <= 12; round++) {
          // Half the files new each round, half cycling through three versions, and now and then a new
          // large file: each round's pack ends up partly garbage after a later one.
          for (let i = 0; i < 20; i++)
            put(work, `f${i}.txt`, (i < 10 ? `round ${round} ${i}\n` : `v${round % 3} ${i}\n`).repeat(40));
          if (round % 4 === 0) put(work, 'big.bin', randomBytes(300 * 1024));
          await d.checkpoint(workspace.id);
          // Two whole collector passes after each commit, counted, not timed.
          for (const until = passes + 2; passes < until; ) await new Promise((r) => setTimeout(r, 1));
        }
      } finally {
        writing = false;
      }
    })();
    let repacked = 0;
    while (writing) {
      // The default grace keeps the writer's packs that are not yet committed.
      repacked += (await collector.gc({ keepLast: 1, repack: true })).repackedPacks;
      passes++;
      await new Promise((r) => setTimeout(r, 1));
    }
    await writer;
    repacked += (await collector.gc({ keepLast: 2, graceMs: 0, repack: true })).repackedPacks;
    expect(repacked).toBeGreaterThan(0);
    expect(await collector.verify()).toMatchObject({ ok: true });
    await everySnapshotRestores(workspace.id);
  });
}

describe('desk repacking on SQLite', () => repackSuite('sqlite'));
describePostgres('desk repacking on PostgreSQL', () => repackSuite('postgres'));
