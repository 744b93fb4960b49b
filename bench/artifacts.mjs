// Artifacts (issue 21), on the embedded store (SQLite + a blob folder):
// - publishing a 100 MB file (streamed from the file, chunked, hashed, each
//   chunk stored and fsynced, the record committed) beside `cp` of the same file on the same
//   disk, and beside `cp` then `sync -f` (what makes the copy durable);
//   medians of CAIRN_BENCH_ARTIFACT_ROUNDS, alternated. Target ≥ 0.7× cp.
// - a 1 MiB range read from a CAIRN_BENCH_ARTIFACT_GB (default 1) GB
//   artifact: the bytes the blob store returned for it, counted by a wrapper
//   around the store's blobs. Target ≤ 2 MiB.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, createReadStream, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fmt, fromDist, ms, now, report, tempDir } from './lib.mjs';

const ROUNDS = Number(process.env.CAIRN_BENCH_ARTIFACT_ROUNDS ?? 5);
const GB = Number(process.env.CAIRN_BENCH_ARTIFACT_GB ?? 1);
const MB = 1024 * 1024;

const { Store } = await fromDist('store.js');
const { dir, cleanup } = tempDir('artifacts');
const store = await Store.openDir(join(dir, 'store'));
const who = await store.localIdentity();
const fabric = store.fabric(who);
const session = (await fabric.createSession({ title: 'bench' })).id;

const file = join(dir, 'report.bin');
writeFileSync(file, randomBytes(100 * MB));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const timings = { ours: [], cp: [], cpSync: [] };
const run = (command, args) => {
  const done = spawnSync(command, args);
  if (done.status !== 0) throw new Error(`${command} failed: ${done.stderr}`);
};
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? ['ours', 'cp', 'cpSync'] : ['cpSync', 'cp', 'ours'];
  for (const which of order) {
    const target = join(dir, `copy-${round}-${which}`);
    if (which === 'ours') {
      const handle = openSync(file, 'r+');
      writeSync(handle, Buffer.from([round]), 0, 1, 0);
      closeSync(handle);
    }
    const t = now();
    if (which === 'ours') {
      // Streamed from the file, as `cairn artifact publish` does; distinct bytes each round (the first
      // byte, written before the clock starts): a publication of bytes the tenant holds stores nothing.
      await fabric.publishArtifact({
        session,
        name: `report-${round}.bin`,
        bytes: createReadStream(file, { highWaterMark: MB }),
      });
    } else if (which === 'cp') run('cp', [file, target]);
    else {
      run('cp', [file, target]);
      run('sync', ['-f', target]);
    }
    timings[which].push(ms(t));
  }
}
const mbps = (t) => 100 / (t / 1000);
console.log(`artifacts — publish of 100 MB, ${ROUNDS} rounds, alternated (medians)`);
report({
  metric: 'publishArtifact of 100 MB (filesystem blobs), throughput',
  unit: 'MB/s',
  ours: mbps(median(timings.ours)),
  baseline: mbps(median(timings.cp)),
  baselineLabel: 'cp of the file',
  target: '≥ 0.7× baseline',
  pass: mbps(median(timings.ours)) >= 0.7 * mbps(median(timings.cp)),
});
report({
  metric: 'publishArtifact of 100 MB beside a durable copy, throughput',
  unit: 'MB/s',
  ours: mbps(median(timings.ours)),
  baseline: mbps(median(timings.cpSync)),
  baselineLabel: 'cp, then sync -f',
});

// A range of 1 MiB from a large artifact: what the blob store hands back.
const big = Buffer.allocUnsafe(GB * 1024 * MB);
for (let off = 0; off < big.length; off += 64 * MB)
  randomBytes(Math.min(64 * MB, big.length - off)).copy(big, off);
const published = await fabric.publishArtifact({ session, name: 'big.bin', bytes: big });
let returned = 0;
const blobs = store.blobs;
const counting = {
  ...blobs,
  get: async (...args) => {
    const b = await blobs.get(...args);
    returned += b.length;
    return b;
  },
  getRange: async (...args) => {
    const b = await blobs.getRange(...args);
    returned += b.length;
    return b;
  },
  has: (...args) => blobs.has(...args),
};
const { EmbeddedFabric } = await fromDist('embedded-fabric.js');
const reader = new EmbeddedFabric(store.engine, who, undefined, { blobs: counting });
const offset = Math.floor(big.length / 2) + 12345;
const t = now();
const { bytes: range } = await reader.readArtifact({ artifact: published.id, offset, length: MB });
const rangeMs = ms(t);
if (!Buffer.from(range).equals(big.subarray(offset, offset + MB)))
  throw new Error('the range read back differs');
report({
  metric: `readArtifact of 1 MiB from a ${GB} GB artifact: bytes read from the blob store`,
  unit: 'MiB',
  ours: returned / MB,
  target: '≤ 2 MiB',
  pass: returned <= 2 * MB,
});
console.log(`  the range read took ${fmt(rangeMs)} ms`);
await store.close();
cleanup();
