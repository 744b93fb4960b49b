/**
 * The desk under kill -9: a checkpoint cut off at any point leaves the store
 * sound and every earlier snapshot restorable, byte for byte.
 *
 * A child process (test/fixtures/desk-checkpoint-child.mjs, which imports the
 * built dist/) edits a workspace directory and checkpoints it in a loop,
 * printing each acknowledged snapshot with a digest of the tree it computed
 * from the files right before the checkpoint. The test SIGKILLs it at a
 * random moment — while it edits, scans, writes packs, commits, or between
 * checkpoints — then reopens the store and checks that it verifies, that no
 * row points at a missing snapshot, object, pack or blob, that every
 * acknowledged snapshot is listed, and that restoring the last one (and a
 * snapshot committed but not yet acknowledged, if the kill left one) brings
 * back exactly the tree the child saw. At the end GC (no grace) collects the
 * packs killed children abandoned, and everything is checked again.
 * Run `npx tsc -p tsconfig.json` first.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Desk } from '../src/desk/desk.js';
import type { Snapshot } from '../src/desk/rows.js';
import { Store } from '../src/store.js';
import { inParallel, randomInt, runToKill, STALL_MS, scratchRoot, spawnChild } from './support/kill.js';
import { describeTree } from './support/trees.js';

const CHILD = fileURLToPath(new URL('./fixtures/desk-checkpoint-child.mjs', import.meta.url));

/** STORES stores (one workspace each) killed ROUNDS times each, PARALLEL stores at a time. */
const STORES = 4;
const ROUNDS = 26;
const PARALLEL = 2;
const HOST = 'crash-host';
/** Snapshots restored per store after GC, besides the last acknowledged one. */
const RESTORE_SAMPLE = 6;

const root = scratchRoot('cairn-desk-crash-');

/** The digest the child prints for a tree (see the fixture): sorted `path NUL kind NUL exec NUL sha|target`. */
function treeDigest(dir: string): string {
  const entries = [...describeTree(dir)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const hash = createHash('sha256');
  for (const [path, d] of entries) {
    const exec = d.kind === 'file' && d.exec ? 1 : 0;
    const content = d.kind === 'file' ? d.sha : d.kind === 'symlink' ? d.target : '';
    hash.update(`${path}\0${d.kind}\0${exec}\0${content}\n`);
  }
  return hash.digest('hex');
}

/** Blob temporary files (`.tmp-…`) under the store's blob folder: a put cut off by the kill. */
function blobTempFiles(dir: string): number {
  let count = 0;
  const walk = (abs: string) => {
    if (!existsSync(abs)) return;
    for (const e of readdirSync(abs, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(abs, e.name));
      else if (e.name.startsWith('.tmp-')) count++;
    }
  };
  walk(join(dir, 'blobs'));
  return count;
}

// ---------------------------------------------------------------------------
// The child.

interface Ack {
  step: number;
  snapshot: string;
  root: string;
  digest: string;
  workspace: string;
}

/** Where the kill is aimed: `delayMs` after the `nth` line starting with `after`. */
interface KillPlan {
  after: 'ready' | 'begin';
  nth: number;
  delayMs: number;
}

interface ChildRound {
  plan: KillPlan;
  /** The workspace the child found when it opened the store ('' for none). */
  ready: string;
  acks: Ack[];
  /** The last `begin` line, when the child was killed after it and before its ack: the checkpoint in flight. */
  inFlight: { step: number; digest: string } | null;
  /** What the child was doing at the kill, by its last complete line. */
  phase: 'editing' | 'checkpointing';
}

const READY = /^ready (ws_[0-9a-z]{26}|-)$/;
const BEGIN = /^begin (\d+) ([0-9a-f]{64})$/;
const ACK = /^ack (\d+) (sn_[0-9a-z]{26}) ([0-9a-f]{64}) ([0-9a-f]{64}) (ws_[0-9a-z]{26})$/;

/** `lines`: the complete lines the child printed (a line cut by the kill says nothing). */
function parseRound(lines: readonly string[], plan: KillPlan): ChildRound {
  const first = READY.exec(lines[0] ?? '');
  if (!first) throw new Error(`child did not start with a ready line: ${JSON.stringify(lines[0])}`);
  const round: ChildRound = {
    plan,
    ready: first[1] === '-' ? '' : first[1]!,
    acks: [],
    inFlight: null,
    phase: 'editing',
  };
  let expectStep = -1;
  for (const line of lines.slice(1)) {
    const b = BEGIN.exec(line);
    const a = ACK.exec(line);
    if (b) {
      if (round.inFlight) throw new Error(`child began step ${b[1]} before acknowledging the last one`);
      round.inFlight = { step: Number(b[1]), digest: b[2]! };
      if (expectStep >= 0 && round.inFlight.step !== expectStep)
        throw new Error(`child skipped from step ${expectStep - 1} to ${b[1]}`);
      expectStep = round.inFlight.step + 1;
    } else if (a) {
      const ack = { step: Number(a[1]), snapshot: a[2]!, root: a[3]!, digest: a[4]!, workspace: a[5]! };
      if (round.inFlight?.step !== ack.step || round.inFlight.digest !== ack.digest)
        throw new Error(`child acknowledged step ${ack.step} it had not begun: ${line}`);
      round.inFlight = null;
      round.acks.push(ack);
    } else throw new Error(`child printed a malformed line: ${JSON.stringify(line)}`);
  }
  round.phase = round.inFlight ? 'checkpointing' : 'editing';
  return round;
}

interface SpareChild {
  /** Lets the child open the store and run; kills it as the plan says. */
  run(plan: KillPlan): Promise<ChildRound>;
  /** Ends a child that was never run. */
  discard(): Promise<void>;
}

/**
 * Spawns a child that loads the library and then waits on stdin, so the next
 * round's process starts up while the test still checks the last round.
 */
function spareChild(dir: string, work: string): SpareChild {
  const child = spawnChild('child', CHILD, [dir, work, HOST, 'stdin']);
  return {
    discard: () => child.discard(),
    async run(plan) {
      let seen = 0;
      await runToKill(child, 'go\n', {
        after: (line) => line.startsWith(`${plan.after} `) && ++seen >= plan.nth,
        delayMs: plan.delayMs,
        stallMs: STALL_MS,
        stall: `did not reach its kill point within ${STALL_MS} ms`,
      });
      if (child.err !== '') throw new Error(`child wrote to stderr: ${child.err}`);
      return parseRound(child.lines, plan);
    },
  };
}

/** Kills aimed at the whole loop, or just inside one of the first checkpoints of the process. */
function killPlan(): KillPlan {
  if (Math.random() < 0.4) return { after: 'ready', nth: 1, delayMs: randomInt(0, 200) };
  return { after: 'begin', nth: randomInt(1, 3), delayMs: randomInt(0, 15) };
}

// ---------------------------------------------------------------------------
// The checks.

interface Known {
  root: string;
  /** The tree digest the snapshot must restore to. */
  digest: string;
  /** How the test learnt of it. */
  how: string;
}

interface StoreState {
  n: number;
  dir: string;
  work: string;
  workspace: string;
  /** A second workspace that snapshots are also restored into, leaving the child's directory as the kill left it. */
  scratch: string;
  scratchWorkspace: string;
  /** Every snapshot of the workspace, with the tree it holds. */
  known: Map<string, Known>;
  /** Acknowledged snapshots, in order. */
  acked: string[];
  /** Packs seen announced and not (yet) committed; blob temporary files after the last round. */
  writing: Set<string>;
  temps: number;
}

interface Tally {
  kills: number;
  acks: number;
  editing: number;
  checkpointing: number;
  /** Kills that left a pack announced (state `writing`) and never committed. */
  packAnnounced: number;
  /** Kills inside a blob put (a `.tmp-` file left). */
  blobCut: number;
  /** Kills after the commit and before the ack: snapshot stored, never acknowledged. */
  committedUnacked: number;
  restores: { workspace: number; scratch: number };
  abandonedPacks: number;
  gcRemovedPacks: number;
  tempFilesSwept: number;
  /** Packs still announced-only at the end, which GC (no grace) must collect. */
  collectedAbandoned: number;
  tempFilesLeft: number;
  /** Milliseconds spent running children and checking, summed over rounds. */
  childMs: number;
  checkMs: number;
}

const tally: Tally = {
  kills: 0,
  acks: 0,
  editing: 0,
  checkpointing: 0,
  packAnnounced: 0,
  blobCut: 0,
  committedUnacked: 0,
  restores: { workspace: 0, scratch: 0 },
  abandonedPacks: 0,
  gcRemovedPacks: 0,
  tempFilesSwept: 0,
  collectedAbandoned: 0,
  tempFilesLeft: 0,
  childMs: 0,
  checkMs: 0,
};

/**
 * Row-level references: every workspace head and base, and every snapshot
 * parent, is a snapshot; every indexed object lies inside a live pack whose
 * blob exists. Returns the packs announced but never committed.
 */
async function checkRefs(store: Store, tenant: string, where: string): Promise<string[]> {
  const q = <T>(sql: string) => store.engine.read(tenant, (tx) => tx.all<T>(sql, [tenant]));
  const snaps = await q<{ id: string; parent: string }>(
    'SELECT id, parent FROM desk_snapshots WHERE tenant = ?',
  );
  const ids = new Set(snaps.map((s) => s.id));
  for (const s of snaps) {
    if (s.parent !== '' && !ids.has(s.parent))
      expect.fail(`${where}: snapshot ${s.id} has parent ${s.parent}, which is missing`);
  }
  for (const w of await q<{ id: string; head_snapshot: string; base_snapshot: string }>(
    'SELECT id, head_snapshot, base_snapshot FROM desk_workspaces WHERE tenant = ?',
  )) {
    if (!ids.has(w.head_snapshot) || !ids.has(w.base_snapshot))
      expect.fail(`${where}: workspace ${w.id} names a missing snapshot (${JSON.stringify(w)})`);
  }
  const stray = await q<{ digest: string; pack: string; state: string | null }>(
    `SELECT o.digest, o.pack, p.state FROM desk_objects o
       LEFT JOIN desk_packs p ON p.tenant = o.tenant AND p.digest = o.pack
     WHERE o.tenant = ? AND (p.state IS NULL OR p.state <> 'live' OR o.off + o.len > p.size)`,
  );
  if (stray.length > 0)
    expect.fail(`${where}: ${stray.length} objects outside a live pack, e.g. ${JSON.stringify(stray[0])}`);
  const packs = await q<{ digest: string; state: string; inline: number; held: number | null; size: number }>(
    'SELECT digest, state, inline, length(bytes) AS held, size FROM desk_packs WHERE tenant = ?',
  );
  for (const p of packs) {
    // A small checkpoint's pack is inline: its bytes are in the row, committed with the snapshot.
    if (Number(p.inline) === 1) {
      if (Number(p.held) !== Number(p.size))
        expect.fail(`${where}: inline pack ${p.digest} holds ${p.held} of ${p.size} bytes`);
    } else if (p.state === 'live' && !(await store.blobs.has(tenant, p.digest)))
      expect.fail(`${where}: live pack ${p.digest} has no blob`);
  }
  return packs.filter((p) => p.state === 'writing').map((p) => p.digest);
}

/**
 * Restores `id` into the workspace itself, or into the scratch workspace
 * (attached on first use), and checks the directory then holds exactly its tree.
 */
async function restoreExactly(
  desk: Desk,
  s: StoreState,
  id: string,
  into: 'workspace' | 'scratch',
  where: string,
): Promise<void> {
  const target = s.known.get(id)!;
  const dir = into === 'workspace' ? s.work : s.scratch;
  if (into === 'scratch' && s.scratchWorkspace === '')
    s.scratchWorkspace = (await desk.attach({ dir: s.scratch })).workspace.id;
  const current = into === 'workspace' ? treeDigest(dir) : '';
  const result = await desk.restore(into === 'workspace' ? s.workspace : s.scratchWorkspace, id);
  tally.restores[into]++;
  const got = treeDigest(dir);
  if (got !== target.digest) {
    const diff = await desk.diff({ from: id, to: result.after.id, patches: false });
    expect.fail(
      `${where}: restoring ${id} (${target.how}) into the ${into} gave tree ${got}, not ${target.digest}; ` +
        `snapshot vs restored: ${JSON.stringify(diff.map((d) => [d.path, d.change]))}`,
    );
  }
  expect(result.after.root, `${where}: root of the tree restored into the ${into}`).toBe(target.root);
  if (into === 'workspace') {
    // The checkpoint taken first holds what was on disk; the one after holds the restored tree.
    learn(s, result.before, current, 'pre-restore checkpoint', where);
    learn(s, result.after, target.digest, `restore of ${id}`, where);
  }
}

function learn(s: StoreState, snap: Snapshot, digest: string, how: string, where: string): void {
  const had = s.known.get(snap.id);
  if (had) {
    expect(had.root, `${where}: ${how} ${snap.id} root`).toBe(snap.root);
    expect(had.digest, `${where}: ${how} ${snap.id} is ${had.how}, with another tree`).toBe(digest);
  } else s.known.set(snap.id, { root: snap.root, digest, how });
}

/** Opens the store (running its integrity check) and hands `fn` the desk; closes both. */
async function withDesk<T>(
  s: StoreState,
  fn: (desk: Desk, store: Store, tenant: string) => Promise<T>,
): Promise<T> {
  const store = await Store.openDir(s.dir);
  try {
    const who = await store.localIdentity();
    const desk = store.desk(who, { host: HOST });
    try {
      return await fn(desk, store, who.tenant);
    } finally {
      await desk.close();
    }
  } finally {
    await store.close();
  }
}

/** Store sound, snapshots all there and chained: returns the snapshots not yet known. */
async function checkStore(
  desk: Desk,
  store: Store,
  tenant: string,
  s: StoreState,
  where: string,
): Promise<{ writing: string[]; unknown: Snapshot[]; head: string }> {
  const report = await desk.verify();
  if (!report.ok) expect.fail(`${where}: verify failed: ${JSON.stringify(report.problem)}`);
  const writing = await checkRefs(store, tenant, where);
  const workspaces = await desk.listWorkspaces();
  const scratch = workspaces.filter((w) => w.id === s.scratchWorkspace);
  const others = workspaces.filter((w) => w.id !== s.scratchWorkspace);
  expect(others.length, `${where}: workspaces`).toBeLessThanOrEqual(1);
  const scratchSnapshots = scratch.length === 0 ? 0 : (await desk.listSnapshots(s.scratchWorkspace)).length;
  if (others.length === 0) {
    expect(s.workspace, `${where}: the attached workspace is gone`).toBe('');
    expect(report.snapshots).toBe(scratchSnapshots);
    return { writing, unknown: [], head: '' };
  }
  const ws = others[0]!;
  if (s.workspace === '') s.workspace = ws.id; // an attach that committed before its ack
  expect(ws.id, `${where}: workspace`).toBe(s.workspace);
  expect(ws.dir, `${where}: workspace directory`).toBe(realpathSync(s.work));
  const snaps = await desk.listSnapshots(ws.id);
  expect(report.snapshots, `${where}: verified snapshots`).toBe(snaps.length + scratchSnapshots);
  const byId = new Map(snaps.map((x) => [x.id, x]));
  for (const [id, k] of s.known) {
    const snap = byId.get(id);
    if (!snap) expect.fail(`${where}: snapshot ${id} (${k.how}) is not listed`);
    expect(snap.root, `${where}: root of ${id} (${k.how})`).toBe(k.root);
  }
  // One line of history: the head's parents reach every snapshot, ending at the first.
  const chain = new Set<string>();
  for (let at = ws.headSnapshot; at !== ''; at = byId.get(at)?.parent ?? '') {
    if (!byId.has(at)) expect.fail(`${where}: the head's history reaches missing snapshot ${at}`);
    if (chain.has(at)) expect.fail(`${where}: snapshot history loops at ${at}`);
    chain.add(at);
  }
  expect(chain.size, `${where}: snapshots on the head's line`).toBe(snaps.length);
  return { writing, unknown: snaps.filter((x) => !s.known.has(x.id)), head: ws.headSnapshot };
}

async function checkRound(s: StoreState, round: ChildRound, r: number): Promise<void> {
  const into = Math.random() < 0.5 ? 'workspace' : 'scratch';
  const where = `store ${s.n} round ${r} (restoring into the ${into}, ${JSON.stringify(round.plan)}, killed ${round.phase}${round.inFlight ? ` step ${round.inFlight.step}` : ''}, ${round.acks.length} acks)`;
  expect(round.ready, `${where}: workspace the child found`).toBe(s.workspace);
  for (const ack of round.acks) {
    if (s.workspace === '') s.workspace = ack.workspace;
    expect(ack.workspace, `${where}: ack ${ack.step}`).toBe(s.workspace);
    learn(s, { id: ack.snapshot, root: ack.root } as Snapshot, ack.digest, `ack of step ${ack.step}`, where);
    s.acked.push(ack.snapshot);
  }
  tally.kills++;
  tally.acks += round.acks.length;
  tally[round.phase]++;
  const tempBefore = blobTempFiles(s.dir);
  await withDesk(s, async (desk, store, tenant) => {
    const { writing, unknown, head } = await checkStore(desk, store, tenant, s, where);
    const fresh = writing.filter((d) => !s.writing.has(d));
    if (fresh.length > 0) tally.packAnnounced++;
    for (const d of fresh) s.writing.add(d);
    tally.abandonedPacks += fresh.length;
    if (tempBefore > s.temps) tally.blobCut++;
    tally.tempFilesLeft += tempBefore - s.temps;
    s.temps = tempBefore;
    // A snapshot no one reported: only the checkpoint in flight, committed just before the kill.
    if (unknown.length > 0) {
      const inFlight = round.inFlight;
      if (unknown.length > 1 || !inFlight)
        expect.fail(`${where}: snapshots nobody acknowledged: ${unknown.map((x) => x.id).join(', ')}`);
      const snap = unknown[0]!;
      expect(snap.id, `${where}: the unacknowledged snapshot is the head`).toBe(head);
      learn(s, snap, inFlight.digest, `step ${inFlight.step}, committed but not acknowledged`, where);
      tally.committedUnacked++;
      await restoreExactly(desk, s, snap.id, into, where);
    }
    // The last acknowledged snapshot restores exactly. Restored in place, the next child goes on
    // from it; restored into the scratch workspace, from the directory the kill left.
    const last = s.acked.at(-1);
    if (last !== undefined) await restoreExactly(desk, s, last, into, where);
  });
}

/** GC with no grace collects abandoned packs and nothing else; then everything is checked again. */
async function finalCheck(s: StoreState): Promise<void> {
  const where = `store ${s.n} after GC`;
  await withDesk(s, async (desk, store, tenant) => {
    const before = await checkStore(desk, store, tenant, s, `store ${s.n} before GC`);
    expect(before.unknown).toEqual([]);
    const gc = await desk.gc({ graceMs: 0 });
    tally.gcRemovedPacks += gc.removedPacks;
    // The blob GC takes what killed puts left half-written (no writer runs now: no grace).
    const temps = blobTempFiles(s.dir);
    const blobs = await store.collectUnnamedBlobs(tenant, { graceMs: 0 });
    expect(blobs.temporary, `${where}: temporary files swept`).toBe(temps);
    expect(blobTempFiles(s.dir), `${where}: temporary files left`).toBe(0);
    tally.tempFilesSwept += blobs.temporary;
    expect(gc.removedPacks, `${where}: packs removed`).toBeGreaterThanOrEqual(before.writing.length);
    tally.collectedAbandoned += before.writing.length;
    const after = await checkStore(desk, store, tenant, s, where);
    expect(after.writing, `${where}: abandoned packs left`).toEqual([]);
    expect(after.unknown).toEqual([]);
    const live = new Set(
      (
        await store.engine.read(tenant, (tx) =>
          tx.all<{ digest: string }>('SELECT digest FROM desk_packs WHERE tenant = ?', [tenant]),
        )
      ).map((p) => p.digest),
    );
    for (const digest of before.writing) {
      if (!live.has(digest) && (await store.blobs.has(tenant, digest)))
        expect.fail(`${where}: abandoned pack ${digest} was unlisted but its blob kept`);
    }
    // The first acknowledged snapshot and a sample of the others restore exactly into the
    // scratch workspace, the last one into the workspace itself.
    const last = s.acked.at(-1)!;
    const sample = new Set([s.acked[0]!]);
    while (sample.size < Math.min(s.acked.length - 1, RESTORE_SAMPLE))
      sample.add(s.acked[randomInt(0, s.acked.length - 2)]!);
    for (const id of sample) await restoreExactly(desk, s, id, 'scratch', where);
    await restoreExactly(desk, s, last, 'scratch', where);
    await restoreExactly(desk, s, last, 'workspace', where);
    const report = await desk.verify();
    if (!report.ok) expect.fail(`${where}: verify after restores: ${JSON.stringify(report.problem)}`);
  });
}

describe('kill -9 of a desk checkpoint', () => {
  it(`keeps the store sound and every acknowledged snapshot restorable (${STORES} stores × ${ROUNDS} SIGKILLs)`, async () => {
    const started = Date.now();
    await inParallel(STORES, PARALLEL, async (n, stopped) => {
      const s: StoreState = {
        n,
        dir: join(root(), `store-${n}`),
        work: join(root(), `work-${n}`),
        workspace: '',
        scratch: join(root(), `scratch-${n}`),
        scratchWorkspace: '',
        known: new Map(),
        acked: [],
        writing: new Set(),
        temps: 0,
      };
      mkdirSync(s.work);
      mkdirSync(s.scratch);
      let next = spareChild(s.dir, s.work);
      try {
        for (let r = 0; r < ROUNDS && !stopped(); r++) {
          const current = next;
          const t0 = Date.now();
          const round = await current.run(killPlan());
          // The next round's process loads the library while this round is checked.
          next = spareChild(s.dir, s.work);
          const t1 = Date.now();
          await checkRound(s, round, r);
          tally.childMs += t1 - t0;
          tally.checkMs += Date.now() - t1;
        }
      } finally {
        await next.discard();
      }
      expect(s.acked.length, `store ${n}: acknowledged snapshots`).toBeGreaterThan(0);
      await finalCheck(s);
    });
    expect(tally.kills).toBe(STORES * ROUNDS);
    expect(tally.kills).toBeGreaterThanOrEqual(100);
    // The kills landed both inside checkpoints and between them.
    expect(tally.checkpointing).toBeGreaterThan(0);
    expect(tally.editing).toBeGreaterThan(0);
    // How many kills land inside a pack write varies (most checkpoints here store inline packs);
    // that GC collects an abandoned pack is also shown deterministically in test/desk.test.ts.
    console.log(
      `desk: ${tally.kills} SIGKILLs in ${((Date.now() - started) / 1000).toFixed(1)} s — ` +
        `${tally.checkpointing} inside a checkpoint (${tally.packAnnounced} leaving a pack announced, ` +
        `${tally.blobCut} inside a blob write, ${tally.committedUnacked} after the commit but before the ack), ` +
        `${tally.editing} while editing; ${tally.acks} acks; exact restores: ${tally.restores.workspace} ` +
        `in place, ${tally.restores.scratch} into a second workspace; ${tally.abandonedPacks} packs ` +
        `announced by killed checkpoints, ${tally.collectedAbandoned} still abandoned at the end and ` +
        `collected by GC (${tally.gcRemovedPacks} packs removed); blob temp files left by kills: ${tally.tempFilesLeft}, swept by the blob GC: ${tally.tempFilesSwept}; ` +
        `${tally.childMs} ms in children, ${tally.checkMs} ms checking`,
    );
  });
});
