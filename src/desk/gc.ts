import { deleteUnnamed, namedBlobs } from '../blob/named.js';
import { type CairnError, corrupt, invalidArgument as invalid, unavailable } from '../errors.js';
import { authorize } from '../identity/access-gate.js';
import * as log from '../log/session-log.js';
import { inBatches, placeholders } from '../storage/engine.js';

import type { LocalDeskStore } from './local-store.js';
import { dirNode, loadDir } from './model.js';
import type { ObjectStore } from './objects.js';
import { deadShare, type PartlyDead, repack } from './repack.js';
import { lockDesk } from './rows.js';

/**
 * Integrity and garbage collection of a tenant's desk objects: they run where
 * the store is (its database and blobs), over the object store's re-hashing
 * reads.
 */

export interface VerifyReport {
  ok: boolean;
  snapshots: number;
  objects: number;
  bytes: number;
  /** The first problem found: a corrupt or missing object, and a snapshot that needs it. */
  problem?: { code: string; message: string; snapshot: string; digest?: string };
}

export interface GcReport {
  /** Snapshot rows removed by the retention rule (`keepLast`). */
  expiredSnapshots: number;
  /** Objects reachable from the remaining snapshots. */
  marked: number;
  removedObjects: number;
  removedPacks: number;
  /** Overlay lower layers (this host's desk state) no attached fork uses. */
  removedLayers: number;
  /** Partly-garbage packs whose live objects were copied into new packs, then deleted (with `repack`). */
  repackedPacks: number;
  /** Live bytes those copies took. */
  repackedBytes: number;
  freedBytes: number;
  /** Snapshots with a tree GC could not read (missing or corrupt): what lies below it is unknowable, and `verify` names the problem. */
  brokenSnapshots: string[];
}

/** Walks every tree from every snapshot root, re-hashing each object once; stops at the first problem. */
export async function verifyStore(store: LocalDeskStore, objects: ObjectStore): Promise<VerifyReport> {
  const { engine, tenant, who } = store;
  authorize(who, 'desk.read');
  const snapshots = await engine.read(tenant, (tx) =>
    tx.all<{ id: string; root: string; event: string }>(
      'SELECT id, root, event FROM desk_snapshots WHERE tenant = ? ORDER BY id',
      [tenant],
    ),
  );
  const seen = new Set<string>();
  let bytes = 0;
  const visit = async (digest: string, tree: boolean): Promise<void> => {
    if (seen.has(digest)) return;
    seen.add(digest);
    const data = await objects.get(digest);
    bytes += data.length;
    if (!tree) return;
    for (const child of (await loadDir(objects, dirNode(digest))).values()) {
      if (child.kind === 'file') for (const c of child.chunks) await visit(c, false);
      else if (child.kind === 'dir') await visit(child.tree as string, true);
    }
  };
  for (const s of snapshots) {
    try {
      const event = await engine.read(tenant, (tx) => log.getEvent(tx, who, s.event));
      if ((event.payload as { root?: string } | null)?.root !== s.root) {
        throw corrupt(`snapshot ${s.id} names root ${s.root} but its log event ${s.event} says otherwise`);
      }
      await visit(s.root, true);
    } catch (error) {
      const e = error as CairnError;
      return {
        ok: false,
        snapshots: snapshots.length,
        objects: seen.size,
        bytes,
        problem: {
          code: e.code ?? 'INTERNAL',
          message: e.message,
          snapshot: s.id,
          digest: e.data?.digest as string | undefined,
        },
      };
    }
  }
  return { ok: true, snapshots: snapshots.length, objects: seen.size, bytes };
}

/**
 * What to do with a pack that is only partly garbage: keep it whole (no
 * `repack`, the default: its dead bytes go when all of it is garbage),
 * repack every one (`true`: what erasure needs, so no dead byte stays), or
 * repack those at least `minDeadShare` dead (0 to 1, of the pack's bytes).
 */
export type RepackOption = boolean | { minDeadShare: number };

/** What `collectGarbage` is asked: the snapshot retention rule, the writers' grace, repacking, a dry run. */
export type GcOptions = SnapshotRetention & {
  graceMs?: number;
  repack?: RepackOption;
  /** Count the snapshots the retention rule would remove; remove nothing and collect nothing. */
  dryRun?: boolean;
};

/**
 * Retention, then mark and sweep: marks every object reachable from a
 * snapshot, removes index rows of the rest, deletes packs left with no live
 * object, and deletes packs (and their staged objects) abandoned mid-write
 * more than `graceMs` before `started`. With `repack`, a pack holding live
 * objects beside dead bytes has its live objects copied into a new pack and
 * is deleted (repack.ts). Safe while checkpoints run: a checkpoint re-checks
 * the objects it reuses when it commits, and the sweep re-marks any snapshot
 * that appeared after the mark. `removedLayers` is left 0: layers are the
 * desk host's.
 */
export async function collectGarbage(
  store: LocalDeskStore,
  objects: ObjectStore,
  options: GcOptions & {
    started: number;
    onProgress?: (phase: 'mark' | 'sweep', done: number) => void;
  },
): Promise<GcReport> {
  const { engine, tenant, who, blobs } = store;
  const progress = options.onProgress;
  authorize(who, 'desk.gc');
  const graceMs = options.graceMs ?? 60 * 60 * 1000;
  if (!Number.isSafeInteger(graceMs) || graceMs < 0) {
    throw invalid(`graceMs must be a whole number of milliseconds, at least 0, not ${graceMs}`, {
      graceMs,
    });
  }
  const { started } = options;
  const minDead = repackThreshold(options.repack);
  checkRule(options);
  const ruled = options.keepLast !== undefined || options.maxAgeMs !== undefined;
  const expired = ruled ? await expireSnapshots(store, options, started, options.dryRun === true) : 0;
  const live = new Set<string>();
  const marked = new Set<string>();
  let broken = false;
  const mark = async (digest: string): Promise<void> => {
    if (live.has(digest)) return;
    live.add(digest);
    let children: Awaited<ReturnType<typeof loadDir>>;
    try {
      children = await loadDir(objects, dirNode(digest));
    } catch (error) {
      // One bad snapshot (a client committed a tree naming what is not there) must not stop GC for the
      // whole tenant: the snapshot is reported, the rest is collected.
      const code = (error as CairnError).code;
      if (code !== 'NOT_FOUND' && code !== 'CORRUPT') throw error;
      broken = true;
      return;
    }
    for (const child of children.values()) {
      if (child.kind === 'file') for (const c of child.chunks) live.add(c);
      else if (child.kind === 'dir') await mark(child.tree as string);
    }
    if (live.size % 1000 < 50) progress?.('mark', live.size);
  };
  const report: GcReport = {
    expiredSnapshots: expired,
    marked: 0,
    removedObjects: 0,
    removedPacks: 0,
    removedLayers: 0,
    repackedPacks: 0,
    repackedBytes: 0,
    freedBytes: 0,
    brokenSnapshots: [],
  };
  if (options.dryRun) return report;
  const doomedPacks: string[] = [];
  let partlyDead: PartlyDead[] = [];
  for (let round = 0; ; round++) {
    const snaps = await engine.read(tenant, (tx) =>
      tx.all<{ id: string; root: string }>('SELECT id, root FROM desk_snapshots WHERE tenant = ?', [tenant]),
    );
    for (const s of snaps) {
      if (!marked.has(s.id)) {
        broken = false;
        await mark(s.root);
        if (broken) report.brokenSnapshots.push(s.id);
        marked.add(s.id);
      }
    }
    const swept = await engine.write(tenant, async (tx) => {
      await lockDesk(tx, tenant);
      const now = await tx.all<{ id: string }>('SELECT id FROM desk_snapshots WHERE tenant = ?', [tenant]);
      if (now.some((s) => !marked.has(s.id))) return false;
      const rows = await tx.all<ObjectRow>(
        'SELECT digest, kind, pack, off, len FROM desk_objects WHERE tenant = ?',
        [tenant],
      );
      const dead = rows.filter((r) => !live.has(r.digest));
      await inBatches(dead, async (slice) => {
        await tx.run(
          `DELETE FROM desk_objects WHERE tenant = ? AND digest IN (${placeholders(slice.length)})`,
          [tenant, ...slice.map((r) => r.digest)],
        );
      });
      report.removedObjects = dead.length;
      const used = new Set(rows.filter((r) => live.has(r.digest)).map((r) => r.pack));
      const packs = await tx.all<{
        digest: string;
        state: string;
        size: number;
        created_at: number;
        inline: number;
      }>('SELECT digest, state, size, created_at, inline FROM desk_packs WHERE tenant = ?', [tenant]);
      // A pack whose bytes another feature also names (an artifact's chunk) is one blob with it: its row
      // goes, the blob stays.
      const artifacts = await namedBlobs(
        tx,
        tenant,
        packs.map((p) => p.digest),
        'desk',
      );
      for (const p of packs) {
        // A pack some live object points at is never taken, whatever its state says.
        const abandoned =
          p.state === 'writing' && Number(p.created_at) < started - graceMs && !used.has(p.digest);
        if ((p.state === 'live' && !used.has(p.digest)) || abandoned) {
          await tx.run('DELETE FROM desk_packs WHERE tenant = ? AND digest = ?', [tenant, p.digest]);
          if (abandoned)
            await tx.run('DELETE FROM desk_staged WHERE tenant = ? AND pack = ?', [tenant, p.digest]);
          // An inline pack's bytes went with its row; a pack file is deleted once this commits.
          if (!Number(p.inline) && !artifacts.has(p.digest)) doomedPacks.push(p.digest);
          else report.removedPacks++;
          report.freedBytes += Number(p.size);
        }
      }
      if (minDead !== null) partlyDead = partlyDeadPacks(rows, live, packs, minDead);
      return true;
    });
    if (swept) break;
    if (round > 100) throw unavailable('gc could not keep up with new snapshots: run it again later');
  }
  report.marked = live.size;
  // The pack files, a couple of hundred at a time under the lock, each re-checked there: a pack put again
  // since (its row back) or named by another feature meanwhile stays (blob/named.ts).
  await deleteUnnamed(engine, blobs, tenant, doomedPacks, (batch) => {
    report.removedPacks += batch.length;
    progress?.('sweep', report.removedPacks);
  });
  if (partlyDead.length > 0) {
    const repacked = await repack(store, partlyDead);
    report.repackedPacks = repacked.repacked;
    report.repackedBytes = repacked.copied;
    report.freedBytes += repacked.freedBytes;
    await deleteUnnamed(engine, blobs, tenant, repacked.doomed);
  }
  return report;
}

interface ObjectRow {
  digest: string;
  kind: 'chunk' | 'tree';
  pack: string;
  off: number;
  len: number;
}

function repackThreshold(option: RepackOption | undefined): number | null {
  if (option === undefined || option === false) return null;
  if (option === true) return 0;
  const share = option.minDeadShare;
  if (typeof share !== 'number' || !(share >= 0 && share < 1)) {
    throw invalid(`repack.minDeadShare must be a number from 0 up to (not including) 1, not ${share}`, {
      minDeadShare: share,
    });
  }
  return share;
}

/**
 * In the sweep: the `live` packs some live object points at that hold more
 * than their live objects (dead objects' bytes, or bytes no row names), at
 * least `minDead` of them. A `writing` pack is a checkpoint's, still in flight.
 */
function partlyDeadPacks(
  rows: readonly ObjectRow[],
  live: ReadonlySet<string>,
  packs: readonly { digest: string; state: string; size: number; inline: number }[],
  minDead: number,
): PartlyDead[] {
  const byPack = new Map<string, PartlyDead['live']>();
  for (const r of rows) {
    if (!live.has(r.digest)) continue;
    const entries = byPack.get(r.pack) ?? [];
    entries.push({ digest: r.digest, kind: r.kind, off: Number(r.off), len: Number(r.len) });
    byPack.set(r.pack, entries);
  }
  const out: PartlyDead[] = [];
  for (const p of packs) {
    const entries = byPack.get(p.digest);
    if (p.state !== 'live' || !entries) continue;
    const candidate = { pack: p.digest, inline: Number(p.inline) === 1, size: Number(p.size), live: entries };
    const dead = deadShare(candidate);
    if (dead > 0 && dead >= minDead) out.push(candidate);
  }
  return out;
}

/**
 * The snapshot retention rule: each workspace keeps its newest `keepLast`
 * snapshots and those younger than `maxAgeMs`; with one of them given, it
 * alone decides. A workspace's head and every snapshot a fork started from
 * are always kept.
 */
export interface SnapshotRetention {
  keepLast?: number;
  maxAgeMs?: number;
}

function checkRule(rule: SnapshotRetention): void {
  const { keepLast, maxAgeMs } = rule;
  if (keepLast !== undefined && (!Number.isSafeInteger(keepLast) || keepLast < 1))
    throw invalid(`keepLast must be a whole number of at least 1, not ${keepLast}`, { keepLast });
  if (maxAgeMs !== undefined && (!Number.isSafeInteger(maxAgeMs) || maxAgeMs < 0))
    throw invalid(`maxAgeMs must be a whole number of milliseconds, at least 0, not ${maxAgeMs}`, {
      maxAgeMs,
    });
}

/**
 * Retention (`SnapshotRetention`): removes the snapshot rows the rule does
 * not keep (with `dryRun`, counts them). Their log events stay; restoring
 * one of them is then NOT_FOUND.
 */
async function expireSnapshots(
  store: LocalDeskStore,
  rule: SnapshotRetention,
  now: number,
  dryRun: boolean,
): Promise<number> {
  const { engine, tenant } = store;
  const { keepLast, maxAgeMs } = rule;
  const run = dryRun ? engine.read.bind(engine) : engine.write.bind(engine);
  return run(tenant, async (tx) => {
    if (!dryRun) await lockDesk(tx, tenant);
    const pinned = new Set<string>();
    for (const w of await tx.all<{ head_snapshot: string; base_snapshot: string }>(
      'SELECT head_snapshot, base_snapshot FROM desk_workspaces WHERE tenant = ?',
      [tenant],
    )) {
      pinned.add(w.head_snapshot);
      pinned.add(w.base_snapshot);
    }
    const rows = await tx.all<{ id: string; workspace: string; created_at: number }>(
      'SELECT id, workspace, created_at FROM desk_snapshots WHERE tenant = ? ORDER BY workspace, created_at DESC, id DESC',
      [tenant],
    );
    const seen = new Map<string, number>();
    const doomed: string[] = [];
    for (const r of rows) {
      const rank = (seen.get(r.workspace) ?? 0) + 1;
      seen.set(r.workspace, rank);
      const newest = keepLast !== undefined && rank <= keepLast;
      const young = maxAgeMs !== undefined && Number(r.created_at) > now - maxAgeMs;
      if (!newest && !young && !pinned.has(r.id)) doomed.push(r.id);
    }
    if (dryRun) return doomed.length;
    await inBatches(doomed, async (slice) => {
      await tx.run(`DELETE FROM desk_snapshots WHERE tenant = ? AND id IN (${placeholders(slice.length)})`, [
        tenant,
        ...slice,
      ]);
    });
    return doomed.length;
  });
}
