// Step journal target (issue #4): "step overhead ≤ 1 durable write per step,
// amortised — against raw SQLite commits, and on PostgreSQL against DBOS
// steps on the same server in the same run".
//
// A run is BLOCK no-op steps (the function returns a small JSON) followed by
// `journal.flush()`; N steps are taken as N / BLOCK such runs on one journal,
// after a warm-up run on another session.
//
//  1. SQLite (`openFabric`): time per step (p50, and the amortised mean:
//     every step and flush of a run over its steps), beside raw better-sqlite3
//     one-row-per-transaction commits (WAL, synchronous=FULL) of a row the
//     size of a step event; the two series alternate block by block so disk
//     drift hits both alike. Durable writes per step: `cairn.step` events on
//     the branch over the steps (one per step, plus one flush per run), and the
//     WAL fdatasyncs Cairn issued while stepping (counted by wrapping
//     `fs.fdatasync`; SQLite's own checkpoint syncs are not among them).
//  2. PostgreSQL: the same journal on a PostgreSQL store (`cairn_app` on a
//     fresh database), beside DBOS (@dbos-inc/dbos-sdk, its system database
//     fresh on the same server): one DBOS workflow of BLOCK registered steps
//     per run, the step timed inside the workflow, the run from the call to
//     the workflow's result (it writes the workflow's status before and after
//     its steps, as Cairn writes its flush). Also shown: a raw `pg` one-row
//     INSERT per transaction. The three series alternate run by run. Durable
//     writes per step: `cairn.step` events over steps, and for both Cairn and
//     DBOS the server's WAL flushes (pg_stat_wal.wal_sync) per step, each
//     counted around a child process running N steps minus one running none
//     (the difference removes opening, launching and closing; the counter is
//     server-wide, so other activity on the server lands in it too: each count
//     is the least of two tries). To tell where the time goes: the statements
//     each sends per step (round trips; Cairn and DBOS share one `pg`, so a
//     wrapper on its Client counts both).
//
// The PostgreSQL part needs a superuser at $CAIRN_BENCH_PG_URL (else
// $CAIRN_TEST_PG_URL, else postgres://postgres@127.0.0.1:5432/postgres); it
// creates two databases and drops them after, and is skipped, saying why,
// when PostgreSQL is not reachable. Without DBOS installed (it is a
// devDependency) the raw INSERT stands in as the baseline.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { countWalSyncs, fmt, fromDist, ms, now, report, summarize, tempDir } from './lib.mjs';
import { INSERT, openRawDb, rowMaker } from './raw-sqlite.mjs';

const N = Number(process.env.CAIRN_BENCH_STEPS_N ?? 2000);
const BLOCK = Math.min(N, Number(process.env.CAIRN_BENCH_STEPS_BLOCK ?? 250));
const RUNS = Math.ceil(N / BLOCK);
const WARMUP = 50;
const PG_URL =
  process.env.CAIRN_BENCH_PG_URL ||
  process.env.CAIRN_TEST_PG_URL ||
  'postgres://postgres@127.0.0.1:5432/postgres';
const APP_ROLE = 'cairn_app';
const SELF = fileURLToPath(import.meta.url);
const WRITES_TARGET = `≤ 1/step + 1 flush/run (${fmt((N + RUNS) / N)})`;

// Count the WAL syncs Cairn's SQLite engine issues (see countWalSyncs).
const walSyncs = countWalSyncs();

const { openFabric, Store } = await fromDist('index.js');
const { Journal, STEP_EVENT } = await fromDist('entry/steps.js');

// Statements sent to PostgreSQL, per database (Cairn's engine and DBOS share this `pg`), to tell round trips apart.
const statements = new Map();
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (...args) {
  const db = this.connectionParameters?.database;
  statements.set(db, (statements.get(db) ?? 0) + 1);
  return query.apply(this, args);
};
/** Runs fn, adding the statements sent to `db` meanwhile to `into.n`. */
async function counting(db, into, fn) {
  const before = statements.get(db) ?? 0;
  const value = await fn();
  into.n += (statements.get(db) ?? 0) - before;
  return value;
}

const noop = (i) => async () => ({ i, ok: true });

/** `count` steps on the journal, each timed into `sample`, then the run's flush; returns the run's ms. */
async function journalRun(journal, from, count, sample) {
  const t = now();
  for (let i = from; i < from + count; i++) {
    const t0 = now();
    await journal.step('noop', { i }, noop(i));
    sample?.push(ms(t0));
  }
  await journal.flush();
  return ms(t);
}

async function countStepEvents(fabric, session) {
  let events = 0;
  let stepEvents = 0;
  let from = 1;
  while (from !== null) {
    const page = await fabric.readBranch({ session, from, limit: 10_000 });
    events += page.events.length;
    stepEvents += page.events.filter((e) => e.kind === STEP_EVENT).length;
    from = page.next;
  }
  return { events, stepEvents };
}

const series = (label, s, meanMs) =>
  console.log(
    `  ${label.padEnd(42)} p50 ${fmt(s.p50).padStart(7)} ms  p99 ${fmt(s.p99).padStart(7)} ms  ` +
      `max ${fmt(s.max).padStart(7)} ms  mean ${fmt(meanMs).padStart(7)} ms`,
  );

// ---- 1. SQLite ------------------------------------------------------------------

async function sqlite() {
  const { dir, cleanup } = tempDir('steps');
  try {
    const fabric = await openFabric({ dir: join(dir, 'store') });
    const warm = await Journal.open(fabric, { session: (await fabric.createSession({ title: 'warm' })).id });
    await journalRun(warm, 0, WARMUP);
    const session = (await fabric.createSession({ title: 'steps' })).id;
    const journal = await Journal.open(fabric, { session });
    // The raw row carries a payload the size of a step event's (an intent carrying the previous result).
    const sampleEvent = (await fabric.readBranch({ session: warm.session, from: 2, limit: 1 })).events[0];
    const rowPayload = JSON.stringify(sampleEvent.payload);
    const db = openRawDb(dir);
    const insert = db.prepare(INSERT);
    const nextRow = rowMaker(rowPayload);
    for (let i = 0; i < WARMUP; i++) insert.run(nextRow());

    const ours = [];
    const raw = [];
    let oursMs = 0;
    let rawMs = 0;
    let oursSyncs = 0;
    for (let r = 0; r < RUNS; r++) {
      const count = Math.min(BLOCK, N - r * BLOCK);
      const before = walSyncs.syncs;
      oursMs += await journalRun(journal, r * BLOCK, count, ours);
      oursSyncs += walSyncs.syncs - before;
      const t = now();
      for (let k = 0; k < count; k++) {
        const t0 = now();
        insert.run(nextRow()); // autocommit: one transaction per row
        raw.push(ms(t0));
      }
      rawMs += ms(t);
    }
    db.close();
    const { stepEvents } = await countStepEvents(fabric, session);
    await fabric.close();

    const o = summarize(ours);
    const q = summarize(raw);
    const oursMean = oursMs / N;
    const rawMean = rawMs / N;
    console.log(
      `steps on SQLite — N=${N} no-op steps in ${RUNS} runs of ${BLOCK} (each ends with a flush), ` +
        `${Buffer.byteLength(JSON.stringify(sampleEvent))}-byte step event, dir ${dir}`,
    );
    series('cairn journal.step (mean: with flushes)', o, oursMean);
    series('raw SQLite 1-row commit (FULL, WAL)', q, rawMean);
    console.log(
      `  ${stepEvents} cairn.step events for ${N} steps (${fmt(stepEvents / N)}/step); ` +
        `${oursSyncs} WAL fdatasyncs (${fmt(oursSyncs / N)}/step)`,
    );
    report({
      metric: 'step p50, SQLite',
      unit: 'ms',
      ours: o.p50,
      baseline: q.p50,
      baselineLabel: 'raw SQLite 1-row commit',
    });
    report({
      metric: 'step mean incl. flushes, SQLite',
      unit: 'ms',
      ours: oursMean,
      baseline: rawMean,
      baselineLabel: 'raw SQLite 1-row commit',
    });
    report({
      metric: 'step durable writes/step, SQLite',
      unit: 'writes',
      ours: stepEvents / N,
      baseline: 1,
      baselineLabel: 'raw: 1 commit per row',
      target: WRITES_TARGET,
      pass: stepEvents <= N + RUNS && oursSyncs <= N + RUNS,
    });
  } finally {
    cleanup();
  }
}

// ---- 2. PostgreSQL --------------------------------------------------------------

const quoteIdent = (name) => `"${name.replace(/"/g, '""')}"`;

function urlFor(database, role) {
  const url = new URL(PG_URL);
  url.pathname = `/${database}`;
  if (role !== undefined) {
    url.username = role;
    url.password = '';
  }
  return url.toString();
}

async function adminClient(database) {
  const client = new pg.Client({
    connectionString: database ? urlFor(database) : PG_URL,
    connectionTimeoutMillis: 5_000,
  });
  client.on('error', () => {});
  await client.connect();
  return client;
}

/** Why PostgreSQL cannot be used ('' when it can). */
async function pgUnavailable() {
  let client;
  try {
    client = await adminClient();
    const { rows } = await client.query('SELECT rolsuper FROM pg_roles WHERE rolname = current_user');
    return rows[0]?.rolsuper ? '' : `${new URL(PG_URL).username || 'the role'} is not a superuser`;
  } catch (error) {
    const e = error instanceof AggregateError ? error.errors[0] : error;
    return `not reachable at ${new URL(PG_URL).host} (${e?.code ?? e?.message ?? e})`;
  } finally {
    await client?.end().catch(() => {});
  }
}

/** Two fresh databases: one owned by cairn_app for Cairn, one for DBOS's system tables. */
async function createDatabases(admin) {
  const { rows } = await admin.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [APP_ROLE]);
  if (rows.length === 0) await admin.query(`CREATE ROLE ${APP_ROLE} LOGIN NOSUPERUSER NOBYPASSRLS`);
  const tag = randomBytes(6).toString('hex');
  const cairn = `cairn_bench_${tag}`;
  const dbos = `cairn_bench_dbos_${tag}`;
  await admin.query(`CREATE DATABASE ${quoteIdent(cairn)} OWNER ${APP_ROLE} TEMPLATE template0`);
  await admin.query(`CREATE DATABASE ${quoteIdent(dbos)} TEMPLATE template0`);
  return { cairn, dbos };
}

async function dropDatabase(admin, name) {
  await admin.query(
    'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
    [name],
  );
  await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
}

async function openPgStore(database) {
  const { PostgresEngine, PostgresBlobStore } = await fromDist('storage/postgres/index.js');
  const engine = await PostgresEngine.open({ connectionString: urlFor(database, APP_ROLE) });
  return new Store(engine, new PostgresBlobStore(engine));
}

/**
 * DBOS, launched once per process on `database`: `run(from, count, sample)`
 * runs one workflow of `count` registered no-op steps and returns its ms.
 */
async function launchDbos(database) {
  const { DBOS } = await import('@dbos-inc/dbos-sdk');
  DBOS.setConfig({ name: 'cairn-bench-steps', systemDatabaseUrl: urlFor(database), logLevel: 'error' });
  const step = DBOS.registerStep(async (i) => ({ i, ok: true }), { name: 'noop' });
  let sample = null;
  const workflow = DBOS.registerWorkflow(
    async (from, count) => {
      for (let i = from; i < from + count; i++) {
        const t0 = now();
        await step(i);
        sample?.push(ms(t0));
      }
      return count;
    },
    { name: 'steps' },
  );
  await DBOS.launch();
  return {
    async run(from, count, into = null) {
      sample = into;
      const t = now();
      await workflow(from, count);
      const elapsed = ms(t);
      sample = null;
      return elapsed;
    },
    shutdown: () => DBOS.shutdown(),
  };
}

/**
 * `node bench/steps.mjs --wal-child cairn|dbos <database> <steps>`: opens the
 * store (or launches DBOS), takes `steps` steps in runs of BLOCK, and closes.
 */
async function walChild(system, database, steps) {
  if (system === 'cairn') {
    const store = await openPgStore(database);
    const fabric = store.fabric(await store.authenticate(process.env.CAIRN_BENCH_TOKEN));
    const journal = await Journal.open(fabric, {
      session: (await fabric.createSession({ title: 'wal' })).id,
    });
    for (let from = 0; from < steps; from += BLOCK)
      await journalRun(journal, from, Math.min(BLOCK, steps - from));
    await store.close();
  } else {
    const dbos = await launchDbos(database);
    for (let from = 0; from < steps; from += BLOCK) await dbos.run(from, Math.min(BLOCK, steps - from));
    await dbos.shutdown();
  }
}

/** Waits until no backend is connected to any of `names` (a backend's WAL statistics reach pg_stat_wal as it exits). */
async function quiet(admin, names) {
  for (let tries = 0; tries < 100; tries++) {
    const { rows } = await admin.query(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = ANY($1) AND pid <> pg_backend_pid()',
      [names],
    );
    if (rows[0].n === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
}

/** WAL flushes on the whole server while a child takes `steps` steps, counted once its connections are gone. */
async function walFlushes(admin, quietOn, system, database, steps, token) {
  const read = async () => Number((await admin.query('SELECT wal_sync FROM pg_stat_wal')).rows[0].wal_sync);
  await quiet(admin, quietOn);
  const before = await read();
  const child = spawnSync(process.execPath, [SELF, '--wal-child', system, database, String(steps)], {
    encoding: 'utf8',
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, CAIRN_BENCH_TOKEN: token },
  });
  if (child.status !== 0) throw new Error(`wal child ${system} ${steps} exited ${child.status}`);
  await quiet(admin, quietOn);
  return (await read()) - before;
}

/**
 * Marginal WAL flushes per step: a child taking N steps minus one taking
 * none, over N. Each is the least of two tries: the counter is server-wide,
 * so anything else on the server (autovacuum, a checkpoint) only adds to it.
 */
async function walPerStep(admin, quietOn, system, database, token) {
  const least = async (steps) =>
    Math.min(
      await walFlushes(admin, quietOn, system, database, steps, token),
      await walFlushes(admin, quietOn, system, database, steps, token),
    );
  const idle = await least(0);
  const busy = await least(N);
  return { idle, busy, perStep: (busy - idle) / N };
}

async function postgres() {
  const why = await pgUnavailable();
  if (why) {
    console.log(
      `steps on PostgreSQL — skipped: PostgreSQL ${why}; set CAIRN_BENCH_PG_URL to a superuser's URL`,
    );
    return;
  }
  let dbosMissing = '';
  try {
    await import('@dbos-inc/dbos-sdk');
  } catch (error) {
    dbosMissing = `@dbos-inc/dbos-sdk could not be loaded (${error?.code ?? error?.message}); install the devDependencies`;
  }
  const admin = await adminClient();
  const databases = await createDatabases(admin);
  let store;
  let dbos;
  let raw;
  try {
    const version = (await admin.query('SHOW server_version')).rows[0].server_version;
    const settings = (
      await admin.query(
        "SELECT string_agg(name || '=' || setting, ', ' ORDER BY name) AS s FROM pg_settings WHERE name IN ('synchronous_commit', 'fsync', 'wal_sync_method')",
      )
    ).rows[0].s;
    store = await openPgStore(databases.cairn);
    const created = await store.createTenant('bench');
    const fabric = store.fabric(await store.authenticate(created.token.token));
    const warm = await Journal.open(fabric, { session: (await fabric.createSession({ title: 'warm' })).id });
    await journalRun(warm, 0, WARMUP);
    const session = (await fabric.createSession({ title: 'steps' })).id;
    const journal = await Journal.open(fabric, { session });
    const sampleEvent = (await fabric.readBranch({ session: warm.session, from: 2, limit: 1 })).events[0];

    // Raw pg: one row of a step event's size per transaction, in the DBOS database (owned by the admin).
    raw = await adminClient(databases.dbos);
    await raw.query(
      'CREATE TABLE raw_steps (id bigserial PRIMARY KEY, at timestamptz NOT NULL, payload jsonb NOT NULL)',
    );
    const rowPayload = JSON.stringify(sampleEvent.payload);
    const rawInsert = () => raw.query('INSERT INTO raw_steps (at, payload) VALUES (now(), $1)', [rowPayload]);
    for (let i = 0; i < WARMUP; i++) await rawInsert();

    if (!dbosMissing) {
      dbos = await launchDbos(databases.dbos);
      await dbos.run(0, WARMUP);
    }

    const ours = [];
    const base = [];
    const rawSample = [];
    let oursMs = 0;
    let baseMs = 0;
    let rawMs = 0;
    const ourStatements = { n: 0 };
    const dbosStatements = { n: 0 };
    for (let r = 0; r < RUNS; r++) {
      const from = r * BLOCK;
      const count = Math.min(BLOCK, N - from);
      oursMs += await counting(databases.cairn, ourStatements, () => journalRun(journal, from, count, ours));
      if (dbos) baseMs += await counting(databases.dbos, dbosStatements, () => dbos.run(from, count, base));
      const t = now();
      for (let k = 0; k < count; k++) {
        const t0 = now();
        await rawInsert();
        rawSample.push(ms(t0));
      }
      rawMs += ms(t);
    }
    const { stepEvents } = await countStepEvents(fabric, session);
    let dbosRows = null;
    if (dbos) {
      await dbos.shutdown();
      dbos = undefined;
      const { rows } = await raw.query(
        "SELECT (SELECT count(*)::int FROM dbos.operation_outputs o JOIN dbos.workflow_status w USING (workflow_uuid) WHERE w.name = 'steps') AS steps, (SELECT count(*)::int FROM dbos.workflow_status WHERE name = 'steps') AS workflows",
      );
      dbosRows = rows[0];
    }
    await raw.end();
    raw = undefined;
    await store.close();
    store = undefined;

    // WAL flushes per step, each system in child processes of its own.
    const ourWal = await walPerStep(
      admin,
      Object.values(databases),
      'cairn',
      databases.cairn,
      created.token.token,
    );
    const dbosWal = dbosMissing
      ? null
      : await walPerStep(admin, Object.values(databases), 'dbos', databases.dbos, '');

    const o = summarize(ours);
    const q = summarize(rawSample);
    const oursMean = oursMs / N;
    const rawMean = rawMs / N;
    console.log(
      `steps on PostgreSQL ${version} (${settings}) at ${new URL(PG_URL).host} — N=${N} no-op steps ` +
        `in ${RUNS} runs of ${BLOCK}, Cairn, ${dbosMissing ? 'raw pg' : 'DBOS and raw pg'} alternating run by run`,
    );
    series('cairn journal.step (mean: with flushes)', o, oursMean);
    let d = null;
    let dbosMean = null;
    if (!dbosMissing) {
      d = summarize(base);
      dbosMean = baseMs / N;
      series('DBOS step (mean: with workflow start/end)', d, dbosMean);
    } else console.log(`  no DBOS: ${dbosMissing}`);
    series('raw pg 1-row INSERT commit', q, rawMean);
    console.log(
      `  ${stepEvents} cairn.step events for ${N} steps (${fmt(stepEvents / N)}/step)` +
        (dbosRows
          ? `; DBOS recorded ${dbosRows.steps} step outputs and ${dbosRows.workflows} workflows (incl. warm-up)`
          : ''),
    );
    const walLine = (label, w) =>
      console.log(
        `  WAL flushes, ${label.padEnd(6)} child of ${N} steps ${w.busy}, of 0 steps ${w.idle}: ${fmt(w.perStep)}/step`,
      );
    walLine('cairn', ourWal);
    if (dbosWal) walLine('DBOS', dbosWal);
    console.log(
      `  statements sent per step (round trips): cairn ${fmt(ourStatements.n / N, 2)}` +
        (dbosMissing ? '' : `, DBOS ${fmt(dbosStatements.n / N, 2)} (incl. its background polling)`) +
        ', raw 1',
    );

    const vs = dbosMissing
      ? { mean: rawMean, p50: q.p50, label: 'raw pg 1-row commit' }
      : { mean: dbosMean, p50: d.p50, label: 'DBOS step' };
    report({
      metric: 'step p50, PostgreSQL',
      unit: 'ms',
      ours: o.p50,
      baseline: vs.p50,
      baselineLabel: vs.label,
    });
    report({
      metric: 'step mean incl. flushes, PostgreSQL',
      unit: 'ms',
      ours: oursMean,
      baseline: vs.mean,
      baselineLabel: dbosMissing ? vs.label : 'DBOS step incl. workflow',
    });
    if (!dbosMissing) {
      report({
        metric: 'step p50, PostgreSQL vs raw',
        unit: 'ms',
        ours: o.p50,
        baseline: q.p50,
        baselineLabel: 'raw pg 1-row commit',
      });
    }
    report({
      metric: 'step journal writes/step, PostgreSQL',
      unit: 'writes',
      ours: stepEvents / N,
      baseline: 1,
      baselineLabel: 'raw: 1 commit per row',
      target: WRITES_TARGET,
      pass: stepEvents <= N + RUNS,
    });
    report({
      metric: 'step WAL flushes/step, PostgreSQL',
      unit: 'flushes',
      ours: ourWal.perStep,
      baseline: dbosWal?.perStep ?? null,
      baselineLabel: 'DBOS step incl. workflow',
    });
  } finally {
    await dbos?.shutdown().catch(() => {});
    await raw?.end().catch(() => {});
    await store?.close().catch(() => {});
    for (const name of Object.values(databases)) await dropDatabase(admin, name).catch(() => {});
    await admin.end().catch(() => {});
  }
}

if (process.argv[2] === '--wal-child') {
  await walChild(process.argv[3], process.argv[4], Number(process.argv[5]));
} else {
  await sqlite();
  await postgres();
}
