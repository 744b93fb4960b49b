// Target 3 (issue #2): reading a 10,000-event branch takes at most 10 ms
// (warm, p50 of 20 reads), and a fork costs the same whatever the branch length.
//
// Read baseline: raw better-sqlite3 selecting 10,000 rows of the same shape
// and size from an events-like table, same run, same disk. Fork: p50 of
// forks of branches of 10, 1,000 and 10,000 events, taken round-robin so disk
// drift hits each length alike; the figure is the ratio longest/shortest.
import { join } from 'node:path';
import { fmt, fromDist, ms, now, payload, report, summarize, tempDir } from './lib.mjs';
import { INSERT, openRawDb, rowMaker } from './raw-sqlite.mjs';

const READS = 20;
const FORKS = Number(process.env.CAIRN_BENCH_FORKS ?? 25);
const LENGTHS = [10, 1_000, 10_000];
const READ_TARGET_MS = 10;
const FORK_RATIO_TARGET = 1.5;

/** Fills a branch quickly: appends in flight together are folded into few commits. */
async function fill(fabric, session, count) {
  for (let done = 0; done < count; ) {
    const chunk = Math.min(500, count - done);
    const pending = [];
    for (let k = 0; k < chunk; k++)
      pending.push(fabric.append({ session, kind: 'message', payload: payload(done + k) }));
    await Promise.all(pending);
    done += chunk;
  }
}

/** An events-like table of `rows` rows in one line, and a read of all of them. */
function rawTable(dir, rows) {
  const db = openRawDb(dir);
  const next = rowMaker(JSON.stringify(payload(0)));
  const insert = db.prepare(INSERT);
  db.transaction(() => {
    for (let k = 0; k < rows; k++) insert.run(next());
  })();
  const [tenant, , , , line] = next();
  const select = db.prepare(
    'SELECT * FROM events WHERE tenant = ? AND line = ? AND seq >= ? AND seq <= ? ORDER BY seq',
  );
  return { read: () => select.all(tenant, line, 1, rows).length, close: () => db.close() };
}

const { openFabric } = await fromDist('index.js');
const { dir, cleanup } = tempDir('read-fork');
try {
  const rawDb = rawTable(dir, 10_000);

  const fabric = await openFabric({ dir: join(dir, 'store') });
  const sessions = [];
  const t0 = now();
  for (const length of LENGTHS) {
    const session = (await fabric.createSession({ title: `${length} events` })).id;
    await fill(fabric, session, length);
    sessions.push(session);
  }
  const fillMs = ms(t0);

  // Cairn's read and the raw read alternate, so load from elsewhere hits both alike.
  const longest = sessions[sessions.length - 1];
  const readTimes = [];
  const rawTimes = [];
  let got = 0;
  let rawGot = 0;
  for (let r = 0; r < READS + 3; r++) {
    let t = now();
    rawGot = rawDb.read();
    if (r >= 3) rawTimes.push(ms(t));
    t = now();
    const page = await fabric.readBranch({ session: longest, limit: 10_000 });
    if (r >= 3) readTimes.push(ms(t));
    got = page.events.length;
  }
  rawDb.close();
  const read = summarize(readTimes);
  const raw = { ...summarize(rawTimes), got: rawGot };

  const forkTimes = LENGTHS.map(() => []);
  for (let f = 0; f < FORKS + 2; f++) {
    for (let l = 0; l < LENGTHS.length; l++) {
      const t = now();
      await fabric.fork({ session: sessions[l], name: `fork-bench-${f}` });
      if (f >= 2) forkTimes[l].push(ms(t));
    }
  }
  await fabric.close();
  const forks = forkTimes.map(summarize);

  console.log(`read & fork — dir ${dir}; filled ${LENGTHS.join(' + ')} events in ${fmt(fillMs, 0)} ms`);
  console.log(`  raw SQLite SELECT ${raw.got} rows: p50 ${fmt(raw.p50)} ms  p99 ${fmt(raw.p99)} ms`);
  console.log(`  cairn readBranch ${got} events:  p50 ${fmt(read.p50)} ms  p99 ${fmt(read.p99)} ms`);
  LENGTHS.forEach((length, l) => {
    console.log(
      `  fork of a ${length}-event branch: p50 ${fmt(forks[l].p50)} ms  p99 ${fmt(forks[l].p99)} ms  (n=${forks[l].n})`,
    );
  });
  report({
    metric: `readBranch ${got} events p50`,
    unit: 'ms',
    ours: read.p50,
    baseline: raw.p50,
    baselineLabel: `raw SQLite SELECT ${raw.got} rows`,
    target: `≤ ${READ_TARGET_MS} ms`,
    pass: got === 10_000 && read.p50 <= READ_TARGET_MS,
  });
  const shortest = forks[0].p50;
  const longestFork = forks[forks.length - 1].p50;
  report({
    metric: `fork p50, ${LENGTHS[LENGTHS.length - 1]} vs ${LENGTHS[0]} events`,
    unit: 'ms',
    ours: longestFork,
    baseline: shortest,
    baselineLabel: `fork of ${LENGTHS[0]}-event branch`,
    target: `ratio ≤ ${FORK_RATIO_TARGET}×`,
    pass: longestFork <= FORK_RATIO_TARGET * shortest,
  });
} finally {
  cleanup();
}
