// Workspace ("desk") targets, on a synthetic tree from bench/tree-gen.mjs
// (10,000 files, ~200 MB at scale 1; `--scale S` or $CAIRN_BENCH_SCALE):
//
//  1. initial snapshot (attach) ≤ 2 s and ≥ 5× faster than `git add -A &&
//     git commit` of a copy of the same tree (the `git init` is not timed);
//  2. a checkpoint after editing 10 small files, p50 ≤ 10 ms and ≥ 10× faster
//     than `git add -A && git commit` after the same edits (watch: true; the
//     watch: false stat-cache scan is shown on a second line);
//  3. restoring the snapshot from before those edits, p50 ≤ 5 ms, beside
//     `git reset --hard` to the commit before them;
//  4. an overlay fork ≤ 5 ms whatever the tree size (the first fork, which
//     materialises the shared lower layer, shown apart; then p50 of forks of
//     this tree and of one a tenth its size, taken round-robin), and a copy
//     fork ≤ 1.5× `cp -a` of the same tree;
//  1b. the same attach with full-size streaming content scans ≤ 1.2× the
//     attach with content scanning off (fresh stores, alternated over an even
//     number of rounds so each mode runs first equally often, medians);
//  5. with `--big` (or CAIRN_BENCH_BIG=1): peak RSS of a child process
//     attaching a 2 GB tree ≤ 200 MB, beside the same child only opening the
//     store.
//
// Git runs with its defaults (no fsync tuning) apart from gc.auto=0, so no
// background `git gc` lands inside another measurement; that only helps git.
// Each round edits both trees the same way, untimed, then times Cairn and
// git one after the other, so drift hits both alike.
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, fromDist, GIT_ENV, ms, now, report, summarize, tempDir } from './lib.mjs';
import { generateTree, prng, scaled, scaleFrom } from './tree-gen.mjs';

const ROUNDS = Number(process.env.CAIRN_BENCH_DESK_ROUNDS ?? 20);
const FORKS = Number(process.env.CAIRN_BENCH_DESK_FORKS ?? 10);
const COPY_ROUNDS = 3;
// Even, so each mode runs first in a round as often as the other: the first attach of a round runs
// while the kernel is still freeing the previous round's store, and is the slower one.
const GUARD_ROUNDS = 2 * Math.ceil(Number(process.env.CAIRN_BENCH_GUARD_ROUNDS ?? 6) / 2);
const WARMUP = 2;
const EDITS = 10;
const MB = 1024 * 1024;
const SELF = fileURLToPath(import.meta.url);

function git(cwd, ...args) {
  const run = spawnSync('git', ['-c', 'gc.auto=0', ...args], {
    cwd,
    env: GIT_ENV,
    encoding: 'utf8',
    maxBuffer: 64 * MB,
  });
  if (run.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${run.stderr || run.error}`);
  return run.stdout.trim();
}

function sh(command, ...args) {
  const run = spawnSync(command, args, { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${run.stderr || run.error}`);
}

/** Lets the kernel write back what earlier steps left dirty, so it does not land inside the next measurement. */
const settle = () => spawnSync('sync');

/** Times fn() in milliseconds. */
async function timed(fn) {
  const t = now();
  const value = await fn();
  return { ms: ms(t), value };
}

/** Overlay mounts below `dir` (ours: forks a failed run left behind), unmounted one by one by path. */
function unmountUnder(dir) {
  const mounts = readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[1])
    .filter((mp) => mp?.startsWith(`${dir}/`))
    .sort()
    .reverse();
  for (const mp of mounts) spawnSync('umount', [mp.replace(/\\040/g, ' ')]);
}

/**
 * `node bench/desk.mjs --child attach|noop <store> <tree>`: one attach (or
 * none) in a fresh process, then its peak RSS. VmHWM is the figure:
 * getrusage's maxRSS survives exec on Linux, so a child spawned from this
 * (large) process starts with the parent's.
 */
async function child(mode, storeDir, treeDir) {
  const { Store } = await fromDist('index.js');
  const t = now();
  const store = await Store.openDir(storeDir);
  const who = await store.localIdentity();
  const desk = store.desk(who, { watch: false });
  const result = mode === 'attach' ? (await desk.attach({ dir: treeDir })).checkpoint : null;
  const elapsed = ms(t);
  await desk.close();
  await store.close();
  const status = readFileSync('/proc/self/status', 'utf8');
  console.log(
    JSON.stringify({
      ms: elapsed,
      hwmKB: Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]),
      maxRssKB: process.resourceUsage().maxRSS,
      files: result?.snapshot.files ?? 0,
      bytes: result?.snapshot.bytes ?? 0,
      findings: result?.findings.length ?? 0,
    }),
  );
}

function runChild(mode, storeDir, treeDir) {
  const run = spawnSync(process.execPath, [SELF, '--child', mode, storeDir, treeDir], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 16 * MB,
  });
  if (run.status !== 0) throw new Error(`child ${mode} exited ${run.status}`);
  return JSON.parse(run.stdout.trim().split('\n').pop());
}

/** Ten distinct text files for one round, the same sequence on every run. */
function editPicker(textFiles) {
  const rand = prng(42);
  return () => {
    const chosen = new Set();
    while (chosen.size < Math.min(EDITS, textFiles.length))
      chosen.add(textFiles[Math.floor(rand() * textFiles.length)]);
    return [...chosen];
  };
}

const edit = (root, paths, round) => {
  for (const p of paths) appendFileSync(join(root, p), `// edited in round ${round}\n`);
};

/**
 * Rounds of: edit 10 files in both trees; checkpoint (Cairn) and `git add -A
 * && git commit`; restore the snapshot from before the edits and `git reset
 * --hard` to the commit from before them. Returns the four samples.
 */
async function editRounds(desk, ws, head, tree, gitTree, textFiles, label) {
  const pick = editPicker(textFiles);
  const out = { checkpoint: [], gitCommit: [], restore: [], gitReset: [] };
  const base = git(gitTree, 'rev-parse', 'HEAD');
  for (let r = 0; r < WARMUP + ROUNDS; r++) {
    const keep = r >= WARMUP;
    const paths = pick();
    const before = head;
    edit(tree, paths, r);
    const c = await timed(() => desk.checkpoint(ws));
    if (!c.value.created) throw new Error(`${label} round ${r}: the checkpoint saw no change`);
    head = c.value.snapshot;
    edit(gitTree, paths, r);
    const g = await timed(() => {
      git(gitTree, 'add', '-A');
      git(gitTree, 'commit', '-q', '-m', `round ${r}`);
    });
    const back = await timed(() => desk.restore(ws, before.id));
    if (back.value.changes.length !== paths.length || back.value.after.root !== before.root) {
      throw new Error(
        `${label} round ${r}: restore changed ${back.value.changes.length} of ${paths.length} paths`,
      );
    }
    head = back.value.after;
    const reset = await timed(() => git(gitTree, 'reset', '-q', '--hard', base));
    if (keep) {
      out.checkpoint.push(c.ms);
      out.gitCommit.push(g.ms);
      out.restore.push(back.ms);
      out.gitReset.push(reset.ms);
    }
  }
  return { samples: out, head };
}

/** One fork, timed, then discarded (untimed). */
async function forkOnce(desk, ws, dir, driver, live) {
  const f = await timed(() => desk.fork(ws, { dir, driver }));
  const id = f.value.workspace.id;
  live.add(id);
  const entries = readdirSync(dir).length;
  await desk.detach(id, { discard: true });
  live.delete(id);
  rmSync(dir, { recursive: true, force: true });
  return { ms: f.ms, entries };
}

const line = (label, s) =>
  console.log(
    `  ${label.padEnd(44)} p50 ${fmt(s.p50).padStart(9)} ms  p99 ${fmt(s.p99).padStart(9)} ms  (n=${s.n})`,
  );

async function main() {
  const scale = scaleFrom();
  const big = process.argv.includes('--big') || process.env.CAIRN_BENCH_BIG === '1';
  const { Store } = await fromDist('index.js');
  const { dir, cleanup } = tempDir('desk');
  const live = new Set();
  let store;
  let desk;
  try {
    const treeDir = join(dir, 'tree');
    const t0 = now();
    const tree = generateTree(treeDir, scaled(scale));
    const small = generateTree(join(dir, 'small'), scaled(scale / 10));
    const mbText = (b) => `${(b / MB).toFixed(0)} MB`;
    console.log(
      `desk — dir ${dir}, scale ${scale}: tree ${tree.files} files (${tree.binaries.length} binaries) in ${tree.dirs} dirs, ` +
        `${mbText(tree.bytes)}; small tree ${small.files} files, ${mbText(small.bytes)}; generated in ${fmt(ms(t0), 0)} ms`,
    );

    // ---- 1. initial snapshot ----------------------------------------------------
    const gitTree = join(dir, 'git');
    sh('cp', '-a', treeDir, gitTree);
    git(gitTree, 'init', '-q');
    settle();
    const gitInit = await timed(() => {
      git(gitTree, 'add', '-A');
      git(gitTree, 'commit', '-q', '-m', 'initial');
    });
    store = await Store.openDir(join(dir, 'store'));
    const who = await store.localIdentity();
    desk = store.desk(who, { watch: true });
    settle();
    const attach = await timed(() => desk.attach({ dir: treeDir }));
    const ws = attach.value.workspace.id;
    const first = attach.value.checkpoint;
    console.log(
      `  attach: ${fmt(attach.ms, 0)} ms, snapshot of ${first.snapshot.files} files, ${mbText(first.snapshot.bytes)}, ` +
        `${mbText(first.snapshot.addedBytes)} stored, ${first.findings.length} credential findings; git add+commit ${fmt(gitInit.ms, 0)} ms`,
    );
    if (first.snapshot.files !== tree.files)
      console.log(`  WARNING: snapshot holds ${first.snapshot.files} of ${tree.files} files`);
    // ---- 1b. the guard's share of an attach: full-size streaming scans vs content scanning off ----
    // Fresh stores, alternated, so page cache and drift hit both alike; the median of GUARD_ROUNDS each.
    const guardRuns = { on: [], off: [] };
    for (let round = 0; round < GUARD_ROUNDS; round++) {
      for (const mode of round % 2 === 0 ? ['on', 'off'] : ['off', 'on']) {
        const s2 = await Store.openDir(join(dir, `guard-${mode}-${round}`));
        const d2 = s2.desk(await s2.localIdentity(), { watch: false, guard: { scanContent: mode === 'on' } });
        settle();
        guardRuns[mode].push((await timed(() => d2.attach({ dir: treeDir }))).ms);
        await d2.close();
        await s2.close();
        rmSync(join(dir, `guard-${mode}-${round}`), { recursive: true, force: true });
      }
    }
    const median = (xs) => {
      const sorted = [...xs].sort((a, b) => a - b);
      const mid = sorted.length / 2;
      return sorted.length % 2 === 1 ? sorted[Math.floor(mid)] : (sorted[mid - 1] + sorted[mid]) / 2;
    };
    const guardOn = median(guardRuns.on);
    const guardOff = median(guardRuns.off);
    console.log(
      `  attach with content scans ${fmt(guardOn, 0)} ms vs scanning off ${fmt(guardOff, 0)} ms ` +
        `(${(guardOn / guardOff).toFixed(2)}×; medians of ${GUARD_ROUNDS}: on ${guardRuns.on.map((x) => fmt(x, 0)).join(', ')}; off ${guardRuns.off.map((x) => fmt(x, 0)).join(', ')})`,
    );
    const smallAttach = await timed(() => desk.attach({ dir: join(dir, 'small') }));
    const smallWs = smallAttach.value.workspace.id;
    console.log(`  attach of the small tree: ${fmt(smallAttach.ms, 0)} ms`);

    // ---- 2 & 3. checkpoint and restore, watch: true ---------------------------------
    const watched = await editRounds(desk, ws, first.snapshot, treeDir, gitTree, tree.textFiles, 'watch');
    const w = watched.samples;

    // ---- 4. forks ------------------------------------------------------------------
    const forks = join(dir, 'forks');
    mkdirSync(forks);
    let n = 0;
    const nextDir = () => join(forks, `f${n++}`);
    settle();
    const firstBig = await forkOnce(desk, ws, nextDir(), 'overlay', live);
    const firstSmall = await forkOnce(desk, smallWs, nextDir(), 'overlay', live);
    const overlayBig = [];
    const overlaySmall = [];
    for (let f = 0; f < FORKS; f++) {
      overlayBig.push((await forkOnce(desk, ws, nextDir(), 'overlay', live)).ms);
      overlaySmall.push((await forkOnce(desk, smallWs, nextDir(), 'overlay', live)).ms);
    }
    if (firstBig.entries !== readdirSync(treeDir).length)
      console.log('  WARNING: the overlay fork does not list the tree');
    const copyFork = [];
    const cp = [];
    for (let k = 0; k < COPY_ROUNDS; k++) {
      const target = join(dir, `cp-${k}`);
      settle();
      cp.push((await timed(() => sh('cp', '-a', treeDir, target))).ms);
      rmSync(target, { recursive: true, force: true });
      settle();
      copyFork.push((await forkOnce(desk, ws, nextDir(), 'copy', live)).ms);
    }
    await desk.close();
    desk = undefined;

    // ---- 2 & 3 again, and overlay forks, watch: false (stat-cache scans) ------------------
    desk = store.desk(who, { watch: false });
    const unwatched = await editRounds(desk, ws, watched.head, treeDir, gitTree, tree.textFiles, 'scan');
    const u = unwatched.samples;
    const scanBig = [];
    const scanSmall = [];
    for (let f = 0; f < FORKS; f++) {
      scanBig.push((await forkOnce(desk, ws, nextDir(), 'overlay', live)).ms);
      scanSmall.push((await forkOnce(desk, smallWs, nextDir(), 'overlay', live)).ms);
    }
    const lowers = join(dir, 'store', 'desk', 'lower');
    const lowerBytes = Number(spawnSync('du', ['-sb', lowers], { encoding: 'utf8' }).stdout.split('\t')[0]);
    // Every fork is discarded: GC removes the shared lower layers no fork uses any more.
    const gc = await desk.gc({ graceMs: 0 });
    await desk.close();
    desk = undefined;
    await store.close();
    store = undefined;

    const s = Object.fromEntries(
      Object.entries({
        ck: w.checkpoint,
        gitCk: w.gitCommit,
        rs: w.restore,
        gitRs: w.gitReset,
        ckScan: u.checkpoint,
        gitCkScan: u.gitCommit,
        rsScan: u.restore,
        gitRsScan: u.gitReset,
        ovBig: overlayBig,
        ovSmall: overlaySmall,
        scanBig,
        scanSmall,
        copy: copyFork,
        cp,
      }).map(([k, v]) => [k, summarize(v)]),
    );
    console.log(`  ${ROUNDS} rounds of ${EDITS} edits (after ${WARMUP} warm-up), ${FORKS} forks per size:`);
    line('cairn checkpoint, watch: true', s.ck);
    line('git add -A && git commit', s.gitCk);
    line('cairn restore, watch: true', s.rs);
    line('git reset --hard', s.gitRs);
    line('cairn checkpoint, watch: false (stat scan)', s.ckScan);
    line('git add -A && git commit (same rounds)', s.gitCkScan);
    line('cairn restore, watch: false', s.rsScan);
    line('git reset --hard (same rounds)', s.gitRsScan);
    console.log(
      `  first overlay fork (materialises the lower layer): ${fmt(firstBig.ms)} ms; small tree ${fmt(firstSmall.ms)} ms`,
    );
    line(`overlay fork, ${tree.files} files, watch: true`, s.ovBig);
    line(`overlay fork, ${small.files} files, watch: true`, s.ovSmall);
    line(`overlay fork, ${tree.files} files, watch: false`, s.scanBig);
    line(`overlay fork, ${small.files} files, watch: false`, s.scanSmall);
    line('copy fork', s.copy);
    line('cp -a', s.cp);
    console.log(
      `  after every fork was discarded: ${mbText(lowerBytes)} of lower layers; gc removed ${gc.removedLayers}, ` +
        `${readdirSync(lowers, { recursive: true }).length} entries left below ${lowers}`,
    );

    const size = `${tree.files} files, ${mbText(tree.bytes)}`;
    report({
      metric: `desk initial snapshot (attach), ${size}`,
      unit: 'ms',
      ours: attach.ms,
      baseline: gitInit.ms,
      baselineLabel: 'git add -A && git commit',
      target: '≤ 2,000 ms at scale 1, ≤ 0.2× baseline',
      pass: (scale !== 1 || attach.ms <= 2000) && attach.ms * 5 <= gitInit.ms,
    });
    report({
      metric: `desk attach, full-size streaming content scans, ${size}`,
      unit: 'ms',
      ours: guardOn,
      baseline: guardOff,
      baselineLabel: 'the same attach, content scanning off',
      target: '≤ 1.2× baseline',
      pass: guardOn <= 1.2 * guardOff,
    });
    report({
      metric: `desk checkpoint after ${EDITS} edits p50, watch`,
      unit: 'ms',
      ours: s.ck.p50,
      baseline: s.gitCk.p50,
      baselineLabel: 'git add -A && git commit',
      target: '≤ 10 ms, ≤ 0.1× baseline',
      pass: s.ck.p50 <= 10 && s.ck.p50 * 10 <= s.gitCk.p50,
    });
    report({
      metric: `desk checkpoint after ${EDITS} edits p50, stat scan`,
      unit: 'ms',
      ours: s.ckScan.p50,
      baseline: s.gitCkScan.p50,
      baselineLabel: 'git add -A && git commit',
    });
    report({
      metric: 'desk restore before the edits p50, watch',
      unit: 'ms',
      ours: s.rs.p50,
      baseline: s.gitRs.p50,
      baselineLabel: 'git reset --hard',
      target: '≤ 5 ms',
      pass: s.rs.p50 <= 5,
    });
    report({
      metric: 'desk restore before the edits p50, stat scan',
      unit: 'ms',
      ours: s.rsScan.p50,
      baseline: s.gitRsScan.p50,
      baselineLabel: 'git reset --hard',
    });
    report({
      metric: 'desk first overlay fork (materialises lower)',
      unit: 'ms',
      ours: firstBig.ms,
      baseline: s.cp.p50,
      baselineLabel: 'cp -a',
    });
    report({
      metric: `desk overlay fork p50, ${tree.files} vs ${small.files} files`,
      unit: 'ms',
      ours: s.ovBig.p50,
      baseline: s.ovSmall.p50,
      baselineLabel: `fork of ${small.files}-file tree`,
      target: '≤ 5 ms at both sizes',
      pass: s.ovBig.p50 <= 5 && s.ovSmall.p50 <= 5,
    });
    report({
      metric: `desk overlay fork p50, stat scan, ${tree.files} vs ${small.files}`,
      unit: 'ms',
      ours: s.scanBig.p50,
      baseline: s.scanSmall.p50,
      baselineLabel: `fork of ${small.files}-file tree`,
    });
    report({
      metric: `desk copy fork p50, ${size}`,
      unit: 'ms',
      ours: s.copy.p50,
      baseline: s.cp.p50,
      baselineLabel: 'cp -a',
      target: '≤ 1.5× baseline',
      pass: s.copy.p50 <= 1.5 * s.cp.p50,
    });
  } finally {
    for (const id of live) await desk?.detach(id, { discard: true }).catch(() => undefined);
    await desk?.close().catch(() => undefined);
    await store?.close().catch(() => undefined);
    unmountUnder(dir);
    cleanup();
  }
  if (big) await bigTree();
}

/** Target 5: peak RSS of a fresh process attaching a 2 GB tree, beside one that only opens the store. */
async function bigTree() {
  const { dir, cleanup } = tempDir('desk-big');
  try {
    const t0 = now();
    const tree = generateTree(join(dir, 'tree'), {
      files: 20_000,
      totalMB: 2048,
      textShare: 0.05,
      binMinMB: 64,
      binMaxMB: 256,
      seed: 2,
    });
    console.log(
      `desk big tree — dir ${dir}: ${tree.files} files (${tree.binaries.length} binaries), ` +
        `${(tree.bytes / MB).toFixed(0)} MB, generated in ${fmt(ms(t0), 0)} ms`,
    );
    const idle = runChild('noop', join(dir, 'store-noop'), join(dir, 'tree'));
    const busy = runChild('attach', join(dir, 'store'), join(dir, 'tree'));
    console.log(
      `  child opening the store only: VmHWM ${fmt(idle.hwmKB / 1024, 1)} MB (maxRSS ${fmt(idle.maxRssKB / 1024, 1)} MB)`,
    );
    console.log(
      `  child attaching: ${fmt(busy.ms, 0)} ms for ${busy.files} files, ${(busy.bytes / MB).toFixed(0)} MB ` +
        `(${fmt(busy.bytes / MB / (busy.ms / 1000), 0)} MB/s), VmHWM ${fmt(busy.hwmKB / 1024, 1)} MB (maxRSS ${fmt(busy.maxRssKB / 1024, 1)} MB)`,
    );
    report({
      metric: `desk peak RSS attaching ${(tree.bytes / MB / 1024).toFixed(1)} GB`,
      unit: 'MB',
      ours: busy.hwmKB / 1024,
      baseline: idle.hwmKB / 1024,
      baselineLabel: 'same child, store opened only',
      target: '≤ 200 MB',
      pass: busy.files === tree.files && busy.hwmKB / 1024 <= 200,
    });
  } finally {
    cleanup();
  }
}

if (process.argv[2] === '--child') await child(process.argv[3], process.argv[4], process.argv[5]);
else await main();
