// Whole-process start of the CLI: `cairn --version` and `cairn --help` ≤ 1.5× `node -e 0`
// (issue 11), each run a fresh process, the two alternated, medians of ROUNDS.
// Also `cairn session ls` on a fresh store beside the same baseline: what a
// command that opens a store costs to start. And `cairn checkpoint`, whole
// process, on the 10,000-file tree of bench/tree-gen.mjs after 10 edits,
// beside `git add -A && git commit` of a copy after the same edits (issue 11:
// target ≤ 1.5×; CAIRN_BENCH_CLI_CHECKPOINTS rounds, medians).
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, GIT_ENV, ms, now, report, tempDir } from './lib.mjs';
import { generateTree, prng, scaled, scaleFrom } from './tree-gen.mjs';

const ROUNDS = Number(process.env.CAIRN_BENCH_CLI_ROUNDS ?? 21);
const bin = fileURLToPath(new URL('../bin/cairn.js', import.meta.url));
const { dir: store, cleanup } = tempDir('cli');

function timedRun(args) {
  const t = now();
  const run = spawnSync(process.execPath, args, { encoding: 'utf8' });
  const elapsed = ms(t);
  if (run.status !== 0) throw new Error(`${args.join(' ')} failed: ${run.stderr}`);
  return elapsed;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
if (spawnSync(process.execPath, [bin, 'init', '--store', store]).status !== 0)
  throw new Error('cairn init failed');
const runs = { node: [], version: [], help: [], ls: [] };
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? ['node', 'version', 'help', 'ls'] : ['ls', 'help', 'version', 'node'];
  for (const which of order) {
    const args =
      which === 'node'
        ? ['-e', '0']
        : which === 'version'
          ? [bin, '--version']
          : which === 'help'
            ? [bin, '--help']
            : [bin, 'session', 'ls', '--store', store];
    runs[which].push(timedRun(args));
  }
}
const base = median(runs.node);
console.log(`cli — ${ROUNDS} fresh processes each, alternated`);
report({
  metric: 'cairn --version, whole process',
  unit: 'ms',
  ours: median(runs.version),
  baseline: base,
  baselineLabel: 'node -e 0',
  target: '≤ 1.5× baseline',
  pass: median(runs.version) <= 1.5 * base,
});
report({
  metric: 'cairn --help, whole process',
  unit: 'ms',
  ours: median(runs.help),
  baseline: base,
  baselineLabel: 'node -e 0',
  target: '≤ 1.5× baseline (issue 20)',
  pass: median(runs.help) <= 1.5 * base,
});
report({
  metric: 'cairn session ls on a fresh store, whole process',
  unit: 'ms',
  ours: median(runs.ls),
  baseline: base,
  baselineLabel: 'node -e 0',
  target: '≤ 2× baseline (issue 20)',
  pass: median(runs.ls) <= 2 * base,
});
console.log(
  `  medians: node ${fmt(base)} ms, --version ${fmt(median(runs.version))} ms, --help ${fmt(median(runs.help))} ms, session ls ${fmt(median(runs.ls))} ms`,
);

// `cairn checkpoint` against `git commit`, each a fresh process.
const CHECKPOINTS = Number(process.env.CAIRN_BENCH_CLI_CHECKPOINTS ?? 7);
const run = (command, args, cwd) => {
  const t = now();
  const done = spawnSync(command, args, { cwd, env: GIT_ENV, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const elapsed = ms(t);
  if (done.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${done.stderr}`);
  return elapsed;
};
const { dir: work, cleanup: cleanWork } = tempDir('cli-trees');
const ours = join(work, 'tree');
const theirs = join(work, 'git-tree');
const tree = generateTree(ours, scaled(scaleFrom()));
cpSync(ours, theirs, { recursive: true, preserveTimestamps: true });
run(process.execPath, [bin, 'ws', 'attach', '.', '--store', store], ours);
run('git', ['init', '-q'], theirs);
run('git', ['-c', 'gc.auto=0', 'add', '-A'], theirs);
run('git', ['-c', 'gc.auto=0', 'commit', '-q', '-m', 'first'], theirs);
const rand = prng(11);
const timings = { cairn: [], git: [] };
for (let round = 0; round < CHECKPOINTS; round++) {
  const chosen = new Set();
  while (chosen.size < 10) chosen.add(tree.textFiles[Math.floor(rand() * tree.textFiles.length)]);
  for (const rel of chosen)
    for (const root of [ours, theirs])
      writeFileSync(join(root, rel), `${readFileSync(join(root, rel), 'utf8')}// ${round}\n`);
  const order = round % 2 === 0 ? ['cairn', 'git'] : ['git', 'cairn'];
  for (const which of order) {
    if (which === 'cairn')
      timings.cairn.push(
        run(process.execPath, [bin, 'checkpoint', '--label', `r${round}`, '--store', store], ours),
      );
    else
      timings.git.push(
        run('sh', ['-c', `git -c gc.auto=0 add -A && git -c gc.auto=0 commit -q -m r${round}`], theirs),
      );
  }
}
report({
  metric: `cairn checkpoint after 10 edits, ${tree.files} files, whole process, no watcher`,
  unit: 'ms',
  ours: median(timings.cairn),
  baseline: median(timings.git),
  baselineLabel: 'git add -A && git commit',
});

// The same with `cairn watch` holding the store: the CLI hands the command line to it.
const watcher = spawn(process.execPath, [bin, 'watch', '--json', '--store', store], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
await new Promise((resolve, reject) => {
  watcher.stdout.once('data', resolve);
  watcher.once('exit', (code) => reject(new Error(`cairn watch exited with ${code}`)));
});
const watched = { cairn: [], git: [] };
for (let round = 0; round < CHECKPOINTS; round++) {
  const chosen = new Set();
  while (chosen.size < 10) chosen.add(tree.textFiles[Math.floor(rand() * tree.textFiles.length)]);
  for (const rel of chosen)
    for (const root of [ours, theirs])
      writeFileSync(join(root, rel), `${readFileSync(join(root, rel), 'utf8')}// w${round}\n`);
  const order = round % 2 === 0 ? ['cairn', 'git'] : ['git', 'cairn'];
  for (const which of order) {
    if (which === 'cairn')
      watched.cairn.push(
        run(process.execPath, [bin, 'checkpoint', '--label', `w${round}`, '--store', store], ours),
      );
    else
      watched.git.push(
        run('sh', ['-c', `git -c gc.auto=0 add -A && git -c gc.auto=0 commit -q -m w${round}`], theirs),
      );
  }
}
watcher.kill('SIGTERM');
await new Promise((resolve) => watcher.once('exit', resolve));
report({
  metric: `cairn checkpoint after 10 edits, ${tree.files} files, whole process, cairn watch running`,
  unit: 'ms',
  ours: median(watched.cairn),
  baseline: median(watched.git),
  baselineLabel: 'git add -A && git commit',
  target: '≤ 1.5× baseline',
  pass: median(watched.cairn) <= 1.5 * median(watched.git),
});
cleanWork();
cleanup();
