// Target 2 (issue #2): at least 50,000 durable events/s with 16 concurrent
// appenders on the embedded engine, in one process.
//
// Ours: 16 appenders, each awaiting its own appends in a loop for a fixed
// time, (a) each to its own session, (b) all to the same main branch.
// Baseline, same disk and run: raw better-sqlite3 (WAL, synchronous=FULL)
// with one INSERT per transaction; also 16 INSERTs per transaction, the
// ceiling for 16 appenders that each have one append in flight (a group
// commit can fold at most 16 appends into one commit).
import { join } from 'node:path';
import { fmt, fromDist, ms, now, payload, report, tempDir } from './lib.mjs';
import { INSERT, openRawDb, rowMaker } from './raw-sqlite.mjs';

const APPENDERS = 16;
const SECONDS = Number(process.env.CAIRN_BENCH_SECONDS ?? 3);
const TARGET = 50_000;

async function appenders(fabric, sessions) {
  const deadline = now() + BigInt(Math.round(SECONDS * 1e9));
  let count = 0;
  const t0 = now();
  await Promise.all(
    sessions.map(async (session) => {
      let i = 0;
      while (now() < deadline) {
        await fabric.append({ session, kind: 'message', payload: payload(i++) });
        count++;
      }
    }),
  );
  return count / (ms(t0) / 1000);
}

function rawSqlite(dir, perCommit) {
  const db = openRawDb(dir, `raw-${perCommit}.db`);
  const next = rowMaker(JSON.stringify(payload(0)));
  const insert = db.prepare(INSERT);
  const commit = db.transaction((n) => {
    for (let k = 0; k < n; k++) insert.run(next());
  });
  for (let k = 0; k < 50; k++) commit(perCommit);
  const deadline = now() + BigInt(Math.round(Math.min(SECONDS, 2) * 1e9));
  let count = 0;
  const t0 = now();
  while (now() < deadline) {
    commit(perCommit);
    count += perCommit;
  }
  const rate = count / (ms(t0) / 1000);
  db.close();
  return rate;
}

const { openFabric } = await fromDist('index.js');
const { dir, cleanup } = tempDir('throughput');
try {
  const rawOne = rawSqlite(dir, 1);
  const rawBatch = rawSqlite(dir, APPENDERS);

  const fabric = await openFabric({ dir: join(dir, 'store') });
  const own = [];
  for (let a = 0; a < APPENDERS; a++) own.push((await fabric.createSession({ title: `appender ${a}` })).id);
  const shared = (await fabric.createSession({ title: 'shared' })).id;
  // Warm up: statement caches, JIT, WAL file.
  await Promise.all(own.map((s) => fabric.append({ session: s, kind: 'message', payload: payload(0) })));

  const ownRate = await appenders(fabric, own);
  const sharedRate = await appenders(fabric, Array(APPENDERS).fill(shared));
  await fabric.close();

  console.log(`append throughput — ${APPENDERS} appenders, ${SECONDS} s each run, dir ${dir}`);
  console.log(`  raw SQLite, 1 insert/commit:  ${fmt(rawOne)} events/s`);
  console.log(`  raw SQLite, ${APPENDERS} inserts/commit: ${fmt(rawBatch)} events/s`);
  console.log(`  cairn, own sessions:          ${fmt(ownRate)} events/s`);
  console.log(`  cairn, same branch:           ${fmt(sharedRate)} events/s`);
  for (const [metric, ours] of [
    [`${APPENDERS} appenders, own sessions`, ownRate],
    [`${APPENDERS} appenders, same branch`, sharedRate],
  ]) {
    report({
      metric,
      unit: 'events/s',
      ours,
      baseline: rawOne,
      baselineLabel: 'raw SQLite 1 row/commit',
      target: `≥ ${TARGET.toLocaleString('en-US')}`,
      pass: ours >= TARGET,
    });
  }
  report({
    metric: `raw SQLite ${APPENDERS} rows/commit (ceiling)`,
    unit: 'events/s',
    ours: rawBatch,
    baseline: rawOne,
    baselineLabel: 'raw SQLite 1 row/commit',
  });
} finally {
  cleanup();
}
