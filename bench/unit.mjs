// The unit of work (issue 4): a unit checkpoint after 10 small edits on the
// synthetic 10,000-file tree (target ≤ 15 ms p50), beside a plain desk
// checkpoint of the same edits (what the unit adds) and `git add -A && git
// commit` (same rounds); and a fork of the unit into 3 branches with the
// overlay driver (target ≤ 20 ms), beside 3 plain overlay workspace forks.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fmt, fromDist, ms, now, percentile, report, tempDir } from './lib.mjs';
import { generateTree, scaled, scaleFrom } from './tree-gen.mjs';

const ROUNDS = Number(process.env.CAIRN_BENCH_UNIT_ROUNDS ?? 20);
const FORKS = 5;
const EDITS = 10;

const { Store } = await fromDist('index.js');
const { Units } = await fromDist('entry/steps.js');
const { dir, cleanup } = tempDir('unit');
let store;
let desk;
try {
  const tree = generateTree(join(dir, 'tree'), scaled(scaleFrom()));
  const git = (...args) => spawnSync('git', ['-C', join(dir, 'git'), ...args], { encoding: 'utf8' });
  spawnSync('cp', ['-a', join(dir, 'tree'), join(dir, 'git')]);
  git('init', '-q');
  git('-c', 'gc.auto=0', 'add', '-A');
  git('-c', 'user.email=b@b', '-c', 'user.name=b', '-c', 'gc.auto=0', 'commit', '-qm', 'base');

  store = await Store.openDir(join(dir, 'store'));
  const who = await store.localIdentity();
  desk = store.desk(who, { watch: true });
  const units = new Units(store.fabric(who), desk);
  const { workspace } = await desk.attach({ dir: join(dir, 'tree') });
  const files = tree.textFiles;
  const edit = (root, round) => {
    for (let k = 0; k < EDITS; k++) {
      const path = join(root, files[(round * 131 + k * 977) % files.length]);
      writeFileSync(path, `${readFileSync(path, 'utf8')}// round ${round} edit ${k}\n`);
    }
  };
  const unitMs = [];
  const deskMs = [];
  const gitMs = [];
  for (let round = 0; round < ROUNDS + 2; round++) {
    edit(join(dir, 'tree'), round * 2);
    let t = now();
    await units.checkpoint({ workspace: workspace.id });
    const u = ms(t);
    edit(join(dir, 'tree'), round * 2 + 1);
    t = now();
    await desk.checkpoint(workspace.id);
    const d = ms(t);
    edit(join(dir, 'git'), round);
    t = now();
    git('-c', 'gc.auto=0', 'add', '-A');
    git('-c', 'user.email=b@b', '-c', 'user.name=b', '-c', 'gc.auto=0', 'commit', '-qm', `r${round}`);
    const g = ms(t);
    if (round >= 2) {
      unitMs.push(u);
      deskMs.push(d);
      gitMs.push(g);
    }
  }
  const checkpoint = await units.checkpoint({ workspace: workspace.id, label: 'fork point' });
  const forkMs = [];
  const plainMs = [];
  for (let f = 0; f < FORKS + 1; f++) {
    let t = now();
    const forked = await units.fork(checkpoint.id, {
      branches: 3,
      dirRoot: join(dir, `unit-forks-${f}`),
      driver: 'overlay',
      allowUnaccepted: true,
    });
    const u = ms(t);
    for (const b of forked.branches) await desk.detach(b.workspace.id, { discard: true });
    t = now();
    const plain = [];
    for (let i = 0; i < 3; i++)
      plain.push(await desk.fork(workspace.id, { dir: join(dir, `plain-${f}-${i}`), driver: 'overlay' }));
    const p = ms(t);
    for (const b of plain) await desk.detach(b.workspace.id, { discard: true });
    // The first fork materialises the shared lower layer: left out of the p50.
    if (f > 0) {
      forkMs.push(u);
      plainMs.push(p);
    }
  }
  const p50 = (sample) => percentile(sample, 0.5);
  console.log(`unit — ${tree.files} files, ${ROUNDS} rounds of ${EDITS} edits, ${FORKS} forks of 3 branches`);
  console.log(
    `  unit checkpoint p50 ${fmt(p50(unitMs))} ms, desk checkpoint p50 ${fmt(p50(deskMs))} ms, git ${fmt(p50(gitMs))} ms`,
  );
  report({
    metric: 'unit checkpoint after 10 edits p50',
    unit: 'ms',
    ours: p50(unitMs),
    baseline: p50(gitMs),
    baselineLabel: 'git add -A && git commit',
    target: '≤ 15 ms',
    pass: p50(unitMs) <= 15,
  });
  report({
    metric: 'unit checkpoint overhead over a desk checkpoint p50',
    unit: 'ms',
    ours: p50(unitMs),
    baseline: p50(deskMs),
    baselineLabel: 'desk checkpoint of the same kind of edit',
  });
  report({
    metric: 'fork of the unit into 3 branches (overlay) p50',
    unit: 'ms',
    ours: p50(forkMs),
    baseline: p50(plainMs),
    baselineLabel: '3 plain overlay workspace forks',
    target: '≤ 20 ms',
    pass: p50(forkMs) <= 20,
  });
} finally {
  await desk?.close();
  await store?.close();
  rmSync(join(dir, 'git'), { recursive: true, force: true });
  cleanup();
}
