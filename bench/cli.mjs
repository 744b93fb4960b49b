// Whole-process start of the CLI: `cairn --version` ≤ 1.5× `node -e 0`
// (issue 11), each run a fresh process, the two alternated, medians of ROUNDS.
// Also `cairn session ls` on a fresh store beside the same baseline: what a
// command that opens a store costs to start.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { fmt, ms, now, report, tempDir } from './lib.mjs';

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
const runs = { node: [], version: [], ls: [] };
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? ['node', 'version', 'ls'] : ['ls', 'version', 'node'];
  for (const which of order) {
    const args =
      which === 'node'
        ? ['-e', '0']
        : which === 'version'
          ? [bin, '--version']
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
  metric: 'cairn session ls on a fresh store, whole process',
  unit: 'ms',
  ours: median(runs.ls),
  baseline: base,
  baselineLabel: 'node -e 0',
});
console.log(
  `  medians: node ${fmt(base)} ms, --version ${fmt(median(runs.version))} ms, session ls ${fmt(median(runs.ls))} ms`,
);
cleanup();
