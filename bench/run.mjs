// `npm run bench`: runs each benchmark in its own process, in sequence, then
// prints one summary table. Every figure sits beside a baseline measured in
// the same run on the same machine and disk, so the ratio holds even where the
// absolute numbers do not. Benchmarks print; they do not fail the build.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, fmtRatio } from './lib.mjs';

const BENCHES = [
  'append-latency.mjs',
  'append-throughput.mjs',
  'read-fork.mjs',
  'http.mjs',
  'desk.mjs',
  'desk-remote.mjs',
  'steps.mjs',
  'keys.mjs',
  'unit.mjs',
  'cli.mjs',
  'memory.mjs',
  'memory-quality.mjs',
  'memory-vectors.mjs',
  'artifacts.mjs',
  'audit.mjs',
  'erasure.mjs',
  'retention.mjs',
];
const here = fileURLToPath(new URL('.', import.meta.url));
const results = join(tmpdir(), `cairn-bench-results-${process.pid}.jsonl`);
rmSync(results, { force: true });

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
console.log(
  `cairn bench — node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), load ${load()}`,
);
const started = process.hrtime.bigint();
const failed = [];
for (const bench of BENCHES) {
  console.log(`\n== ${bench}`);
  const t0 = process.hrtime.bigint();
  const run = spawnSync(process.execPath, [join(here, bench)], {
    stdio: 'inherit',
    env: { ...process.env, CAIRN_BENCH_RESULTS: results },
  });
  if (run.status !== 0) failed.push(bench);
  console.log(
    `   (${(Number(process.hrtime.bigint() - t0) / 1e9).toFixed(1)} s${run.status === 0 ? '' : `, exit ${run.status}`})`,
  );
}

let rows = [];
try {
  rows = readFileSync(results, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
} catch {}
rmSync(results, { force: true });

const table = [
  ['metric', 'ours', 'baseline', 'ratio', 'target', ''],
  ...rows.map((r) => [
    r.metric,
    `${fmt(r.ours)} ${r.unit}`,
    r.baseline === null ? '—' : `${fmt(r.baseline)} ${r.unit} (${r.baselineLabel})`,
    fmtRatio(r.ratio),
    r.target || '—',
    r.pass === null ? '' : r.pass ? 'PASS' : 'MISS',
  ]),
];
const widths = table[0].map((_, c) => Math.max(...table.map((row) => row[c].length)));
const line = (row) =>
  row
    .map((cell, c) => cell.padEnd(widths[c]))
    .join('  ')
    .trimEnd();
const total = (Number(process.hrtime.bigint() - started) / 1e9).toFixed(1);
console.log(`\n== summary (${total} s, load ${load()})`);
console.log(line(table[0]));
console.log(widths.map((w) => '-'.repeat(w)).join('  '));
for (const row of table.slice(1)) console.log(line(row));
const judged = rows.filter((r) => r.pass !== null);
console.log(`\n${judged.filter((r) => r.pass).length}/${judged.length} targets met.`);
if (failed.length > 0) console.log(`benchmarks that did not finish: ${failed.join(', ')}`);
