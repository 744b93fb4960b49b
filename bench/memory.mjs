// Memory targets (issue #12, performance): "recall p50/p95/p99 with 1M
// records in one tenant plus a second tenant ≤ 1.5× a raw FTS5 bm25 query;
// bulk remember ≥ 0.5× raw batched inserts" (the vector leg, ≤ 2× raw
// sqlite-vec, is not measured yet: see the end).
//
// One SQLite store (`Store.openDir`) with tenant A holding N records (scope
// {user: 'ada'}) and tenant B holding N/10 ({user: 'bo'}); N is
// $CAIRN_BENCH_MEMORY_RECORDS (default 100,000: the 1,000,000 takes
// too long to load on this VM). The texts come from bench/memory-texts.mjs:
// seeded, Zipf-distributed words (8–28 per text, ≈ 108 characters).
//
//  1. Bulk remember: the N + N/10 records (every 11th one tenant B's) go
//     through `store.memory(who).remember`, IN_FLIGHT calls at a time so the
//     engine's group commit batches them, in chunks of CHUNK records;
//     alternating chunk by chunk with raw better-sqlite3 inserts of the same
//     texts into two bare `fts5(body)` tables (one per tenant; WAL,
//     synchronous=FULL), in transactions of the batch size Cairn's commits
//     had in the warm-up (counted by wrapping better-sqlite3's COMMIT).
//  2. Recall: Q queries (bench/memory-texts.mjs: half keywords, half
//     questions with function words such as "the"), each through
//     `recall({query, scope: {user: 'ada'}, k: 10})` and as the raw
//     `SELECT rowid, bm25(a) FROM a WHERE a MATCH ? ORDER BY bm25(a) LIMIT 10`
//     with the same OR of the query's words Cairn builds; alternating query
//     by query, after a warm-up. The two rankings are compared (top-10
//     scores), which also shows tenant B's texts do not move A's scores.
//
// $CAIRN_BENCH_MEMORY_QUERIES sets Q (default 400).
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { countWalSyncs, fmt, fromDist, ms, now, percentile, report, tempDir } from './lib.mjs';
import { queries, texts } from './memory-texts.mjs';

const N = Number(process.env.CAIRN_BENCH_MEMORY_RECORDS ?? 100_000);
const Q = Number(process.env.CAIRN_BENCH_MEMORY_QUERIES ?? 400);
const B_RECORDS = Math.floor(N / 10);
const TOTAL = N + B_RECORDS;
const IN_FLIGHT = 32;
const BATCH = 500;
const CHUNK = Math.min(5_000, TOTAL);
const WARMUP_RECORDS = 2_000;
const WARMUP_QUERIES = 20;
const KINDS = ['fact', 'fact', 'episode', 'procedure'];

// Count the store's commits and WAL syncs while Cairn writes (the raw baseline syncs inside SQLite, unseen here).
let commits = 0;
const walSyncs = countWalSyncs();
const exec = Database.prototype.exec;
Database.prototype.exec = function (sql) {
  if (sql === 'COMMIT') commits++;
  return exec.call(this, sql);
};

const { Store } = await fromDist('index.js');

/** The MATCH expression Cairn's recall builds from a query (memory/fulltext.ts): its words, quoted, OR'ed. */
const matchOf = (query) =>
  [...new Set((query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, 32))]
    .map((w) => `"${w}"`)
    .join(' OR ');

/** Runs `call(i)` for i in [from, to), IN_FLIGHT at a time. */
async function concurrently(from, to, call) {
  let next = from;
  const worker = async () => {
    while (next < to) await call(next++);
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
}

/** Adds the process's user and system CPU time since `from` (a process.cpuUsage()) to `into`, in ms. */
function addCpu(into, from) {
  const d = process.cpuUsage(from);
  into.user += d.user / 1000;
  into.system += d.system / 1000;
}
const cpuText = (c) => `CPU user ${fmt(c.user / 1000, 1)} s, system ${fmt(c.system / 1000, 1)} s`;

const summary = (sample) => ({
  p50: percentile(sample, 0.5),
  p95: percentile(sample, 0.95),
  p99: percentile(sample, 0.99),
});

const { dir, cleanup } = tempDir('memory');
try {
  const store = await Store.openDir(join(dir, 'store'));
  const tenant = async (name) => store.authenticate((await store.createTenant(name)).token.token);
  const memA = store.memory(await tenant('bench-a'));
  const memB = store.memory(await tenant('bench-b'));
  const memWarm = store.memory(await tenant('bench-warm'));
  const raw = new Database(join(dir, 'raw.db'));
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = FULL');
  // Read as the store's reading connection reads: the database mapped (sqlite-engine.ts, READER_MMAP_BYTES).
  raw.pragma('mmap_size = 1073741824');
  for (const t of ['a', 'b', 'warm']) raw.exec(`CREATE VIRTUAL TABLE ${t} USING fts5(body)`);
  const inserts = Object.fromEntries(
    ['a', 'b', 'warm'].map((t) => [t, raw.prepare(`INSERT INTO ${t} (body) VALUES (?)`)]),
  );

  console.log(
    `memory — N=${N.toLocaleString('en-US')} records in tenant A, ${B_RECORDS.toLocaleString('en-US')} in tenant B ` +
      `(the issue's target is stated at N=1,000,000; set CAIRN_BENCH_MEMORY_RECORDS), ${Q} recall queries`,
  );

  // ---- 1. bulk remember --------------------------------------------------------------------------
  const all = [...texts(TOTAL)];
  const warm = [...texts(WARMUP_RECORDS, { seed: 99 })];
  const isB = (i) => i % 11 === 10;
  const scopeOf = (i) => (isB(i) ? { user: 'bo' } : { user: 'ada' });
  const remember = (mem, text, i) =>
    mem.remember({ scope: scopeOf(i), text, kind: KINDS[i % KINDS.length], source: 'agent' });

  // One remember per call, IN_FLIGHT at a time (the warm-up): the rate beside raw inserts in
  // transactions of the batch Cairn's group commit made of them.
  const c0 = commits;
  let t0 = now();
  await concurrently(0, WARMUP_RECORDS, (i) => remember(memWarm, warm[i], i));
  const perCallMs = ms(t0);
  const groupBatch = Math.max(1, Math.round(WARMUP_RECORDS / (commits - c0)));
  // The same texts in the same order, per tenant table, in transactions of `batch`.
  const rawTx = raw.transaction((lo, hi, tableOf, textOf) => {
    for (let i = lo; i < hi; i++) inserts[tableOf(i)].run(textOf(i));
  });
  const rawInsert = (from, to, tableOf, textOf, batch) => {
    for (let lo = from; lo < to; lo += batch) rawTx(lo, Math.min(lo + batch, to), tableOf, textOf);
  };
  t0 = now();
  rawInsert(
    0,
    WARMUP_RECORDS,
    () => 'warm',
    (i) => warm[i],
    groupBatch,
  );
  const rawPerCallMs = ms(t0);
  report({
    metric: `remember, one record a call, ${IN_FLIGHT} in flight (${WARMUP_RECORDS} records)`,
    unit: 'records/s',
    ours: WARMUP_RECORDS / (perCallMs / 1000),
    baseline: WARMUP_RECORDS / (rawPerCallMs / 1000),
    baselineLabel: `raw FTS5 inserts, ${groupBatch}/transaction`,
  });

  // Bulk: rememberMany, BATCH records a call per tenant (a batch the secret guard refuses is retried
  // without the refused text, found by remembering its records one by one).
  const rememberBulk = async (from, to) => {
    for (let lo = from; lo < to; lo += BATCH) {
      const hi = Math.min(lo + BATCH, to);
      for (const [mem, mine] of [
        [memA, (i) => !isB(i)],
        [memB, isB],
      ]) {
        const records = [];
        for (let i = lo; i < hi; i++)
          if (mine(i))
            records.push({ scope: scopeOf(i), text: all[i], kind: KINDS[i % KINDS.length], source: 'agent' });
        if (records.length === 0) continue;
        await mem.rememberMany({ records }).catch(async (error) => {
          if (error?.code !== 'FORBIDDEN') throw error;
          for (const record of records)
            await mem.remember(record).catch((e) => {
              if (e?.code !== 'FORBIDDEN') throw e;
              refused++;
            });
        });
      }
    }
  };
  let oursMs = 0;
  let rawMs = 0;
  let refused = 0;
  const oursCpu = { user: 0, system: 0 };
  const rawCpu = { user: 0, system: 0 };
  const commitsBefore = commits;
  const syncsBefore = walSyncs.syncs;
  const loadStart = now();
  for (let from = 0; from < TOTAL; from += CHUNK) {
    const to = Math.min(from + CHUNK, TOTAL);
    let t = now();
    let c = process.cpuUsage();
    await rememberBulk(from, to);
    oursMs += ms(t);
    addCpu(oursCpu, c);
    t = now();
    c = process.cpuUsage();
    rawInsert(
      from,
      to,
      (i) => (isB(i) ? 'b' : 'a'),
      (i) => all[i],
      BATCH,
    );
    rawMs += ms(t);
    addCpu(rawCpu, c);
    if ((to / CHUNK) % 4 === 0 || to === TOTAL)
      process.stdout.write(
        `  … ${to.toLocaleString('en-US')} records: ours ${fmt(to / (oursMs / 1000), 0)}/s, raw ${fmt(to / (rawMs / 1000), 0)}/s (${fmt(ms(loadStart) / 1000, 1)} s)\n`,
      );
  }
  const ourRate = TOTAL / (oursMs / 1000);
  const rawRate = TOTAL / (rawMs / 1000);
  console.log(
    `  bulk remember: ${TOTAL.toLocaleString('en-US')} records, rememberMany of ${BATCH} a call per tenant, chunks of ${CHUNK.toLocaleString('en-US')} ` +
      `alternating with raw; ${fmt(TOTAL / (commits - commitsBefore), 1)} records/commit, ` +
      `${fmt(TOTAL / (walSyncs.syncs - syncsBefore), 1)} records/WAL sync; raw: transactions of ${BATCH}` +
      (refused > 0 ? `; ${refused} refused by the secret guard` : '') +
      `\n  … ours ${cpuText(oursCpu)} in ${fmt(oursMs / 1000, 1)} s; raw ${cpuText(rawCpu)} in ${fmt(rawMs / 1000, 1)} s`,
  );
  report({
    metric: `bulk remember, rememberMany of ${BATCH} (N=${N})`,
    unit: 'records/s',
    ours: ourRate,
    baseline: rawRate,
    baselineLabel: `raw FTS5 inserts, ${BATCH}/transaction`,
    target: '≥ 0.5×',
    pass: ourRate / rawRate >= 0.5,
  });

  // ---- 2. recall ---------------------------------------------------------------------------------
  const asked = queries(Q + WARMUP_QUERIES);
  const rawRecall = raw.prepare(
    'SELECT rowid, bm25(a) AS score FROM a WHERE a MATCH ? ORDER BY bm25(a) LIMIT 10',
  );
  const rawCount = raw.prepare('SELECT count(*) AS n FROM a WHERE a MATCH ?');
  const scope = { user: 'ada' };
  for (const q of asked.slice(0, WARMUP_QUERIES)) {
    await memA.recall({ query: q.text, scope, k: 10, mode: 'text' });
    rawRecall.all(matchOf(q.text));
  }
  const ours = { all: [], keywords: [], question: [] };
  const base = { all: [], keywords: [], question: [] };
  const matches = [];
  let agree = 0;
  const recallCpu = { ours: { user: 0, system: 0 }, raw: { user: 0, system: 0 } };
  for (const [i, q] of asked.slice(WARMUP_QUERIES).entries()) {
    const match = matchOf(q.text);
    let ourItems;
    let rawRows;
    const timeOurs = async () => {
      const c = process.cpuUsage();
      const t = now();
      ourItems = (await memA.recall({ query: q.text, scope, k: 10, mode: 'text' })).items;
      const elapsed = ms(t);
      addCpu(recallCpu.ours, c);
      return elapsed;
    };
    const timeRaw = () => {
      const c = process.cpuUsage();
      const t = now();
      rawRows = rawRecall.all(match);
      const elapsed = ms(t);
      addCpu(recallCpu.raw, c);
      return elapsed;
    };
    let o;
    let r;
    if (i % 2 === 0) {
      o = await timeOurs();
      r = timeRaw();
    } else {
      r = timeRaw();
      o = await timeOurs();
    }
    for (const key of ['all', q.kind]) {
      ours[key].push(o);
      base[key].push(r);
    }
    matches.push(rawCount.get(match).n);
    const a = ourItems.map((item) => item.score.toFixed(6)).join(' ');
    const b = rawRows.map((row) => (-row.score).toFixed(6)).join(' ');
    if (a === b) agree++;
  }
  const m = summary(matches);
  console.log(
    `  recall: ${Q} queries after ${WARMUP_QUERIES} warm-up, alternating with raw; rows matched per query ` +
      `p50 ${fmt(m.p50, 0)}, p95 ${fmt(m.p95, 0)}, p99 ${fmt(m.p99, 0)} of ${N.toLocaleString('en-US')}; ` +
      `top-10 scores identical to raw in ${agree}/${Q}; ours ${cpuText(recallCpu.ours)}, raw ${cpuText(recallCpu.raw)}`,
  );
  for (const kind of ['keywords', 'question']) {
    const o = summary(ours[kind]);
    const r = summary(base[kind]);
    console.log(
      `  ${kind.padEnd(9)} (${ours[kind].length}): ours p50 ${fmt(o.p50)} p95 ${fmt(o.p95)} p99 ${fmt(o.p99)} ms; ` +
        `raw p50 ${fmt(r.p50)} p95 ${fmt(r.p95)} p99 ${fmt(r.p99)} ms`,
    );
  }
  const o = summary(ours.all);
  const r = summary(base.all);
  for (const p of ['p50', 'p95', 'p99'])
    report({
      metric: `recall ${p}, k=10 (N=${N} + ${B_RECORDS} other tenant)`,
      unit: 'ms',
      ours: o[p],
      baseline: r[p],
      baselineLabel: 'raw FTS5 bm25 query',
      target: '≤ 1.5×',
      pass: o[p] / r[p] <= 1.5,
    });

  console.log('  the vector leg (recall ≤ 2× a raw sqlite-vec query): node bench/memory-vectors.mjs');
  console.log(
    '  mem0ai side by side: not run — it needs an embedding/LLM model, and this machine has no network',
  );
  raw.close();
  await store.close();
} finally {
  cleanup();
}
