// Target 2 (issue #2): at least 50,000 durable events/s with 16 concurrent
// appenders on the embedded engine, in one process.
//
// Ours: 16 appenders, each awaiting its own appends in a loop for a fixed
// time, (a) each to its own session, (b) all to the same main branch.
// Baseline, same disk and run: raw better-sqlite3 (WAL, synchronous=FULL)
// with one INSERT per transaction; also 16 INSERTs per transaction, the
// ceiling for 16 appenders that each have one append in flight (a group
// commit can fold at most 16 appends into one commit). Issue 22's target is
// ≥ 0.5× that ceiling. Also measured, to tell SQLite's share from Cairn's
// code: the statements one Cairn append runs (appendEvent + appendAudit, as
// of format 12), 16 appends per commit, straight through better-sqlite3 on a
// store Cairn made — no validation, hashing, guard or queue: the floor any
// change to Cairn's JavaScript alone could reach with this schema.
import { join } from 'node:path';
import Database from 'better-sqlite3';
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

/** The statements of one append, in order, for the session's main branch (see the header). */
function schemaFloor(path, sessions) {
  const db = new Database(path);
  db.pragma('synchronous = FULL');
  const prepare = (sql) => db.prepare(sql);
  const policy = prepare('SELECT policy, updated_by, updated_at FROM redaction_policies WHERE tenant = ?');
  const branch = prepare(
    'SELECT tenant, id, session, name, owner, head, head_seq, head_line, own_line, forked_from, created_at, updated_at FROM branches WHERE tenant = ? AND session = ?',
  );
  const event = prepare(
    'INSERT INTO events (tenant, id, session, branch, line, seq, parent, kind, payload, actor, owner, at, idem_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const head = prepare(
    'UPDATE branches SET head = ?, head_seq = ?, head_line = ?, own_line = ?, updated_at = ? WHERE tenant = ? AND id = ? AND head = ?',
  );
  const chainHead = prepare('SELECT seq, hash FROM audit_heads WHERE tenant = ?');
  const entry = prepare(
    'INSERT INTO audit_entries (tenant, seq, at, actor, action, resource_type, resource_id, commitment, prev_hash, hash, chain) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const entryPayload = prepare('INSERT INTO audit_payloads (tenant, seq, salt, payload) VALUES (?, ?, ?, ?)');
  const moveChain = prepare('UPDATE audit_heads SET seq = ?, hash = ? WHERE tenant = ?');
  // Values shaped like a real append's: copied from the last ones Cairn wrote.
  const e = db.prepare('SELECT * FROM events ORDER BY rowid DESC LIMIT 1').get();
  const a = db.prepare('SELECT * FROM audit_entries ORDER BY tenant, seq DESC LIMIT 1').get();
  const p = db.prepare('SELECT * FROM audit_payloads ORDER BY rowid DESC LIMIT 1').get();
  let n = 0;
  const nextId = () =>
    `ev_${Date.now().toString(32).padStart(10, '0')}${(n++).toString(32).padStart(16, '0')}`;
  const one = (session) => {
    policy.get(e.tenant);
    const b = branch.get(e.tenant, session);
    const id = nextId();
    const seq = b.head_seq + 1;
    event.run(
      e.tenant,
      id,
      session,
      'main',
      b.own_line,
      seq,
      b.head,
      e.kind,
      e.payload,
      e.actor,
      e.owner,
      Date.now(),
      null,
    );
    head.run(id, seq, b.own_line, b.own_line, Date.now(), e.tenant, b.id, b.head);
    const h = chainHead.get(e.tenant);
    entry.run(
      e.tenant,
      h.seq + 1,
      Date.now(),
      a.actor,
      a.action,
      a.resource_type,
      id,
      a.commitment,
      h.hash,
      a.hash,
      a.chain,
    );
    entryPayload.run(e.tenant, h.seq + 1, p.salt, p.payload);
    moveChain.run(h.seq + 1, a.hash, e.tenant);
  };
  const commit = db.transaction((list) => {
    for (const session of list) one(session);
  });
  for (let k = 0; k < 50; k++) commit(sessions);
  const deadline = now() + BigInt(Math.round(Math.min(SECONDS, 2) * 1e9));
  let count = 0;
  const t0 = now();
  while (now() < deadline) {
    commit(sessions);
    count += sessions.length;
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
  const floorRate = schemaFloor(join(dir, 'store', 'cairn.db'), own);

  console.log(`append throughput — ${APPENDERS} appenders, ${SECONDS} s each run, dir ${dir}`);
  console.log(`  raw SQLite, 1 insert/commit:  ${fmt(rawOne)} events/s`);
  console.log(`  raw SQLite, ${APPENDERS} inserts/commit: ${fmt(rawBatch)} events/s`);
  console.log(`  cairn, own sessions:          ${fmt(ownRate)} events/s`);
  console.log(`  cairn, same branch:           ${fmt(sharedRate)} events/s`);
  console.log(
    `  cairn's statements alone, ${APPENDERS} appends/commit, own sessions: ${fmt(floorRate)} events/s`,
  );
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
  for (const [metric, ours] of [
    [`${APPENDERS} appenders, own sessions, against the ceiling`, ownRate],
    [`${APPENDERS} appenders, same branch, against the ceiling`, sharedRate],
    [`cairn's append statements alone, ${APPENDERS}/commit`, floorRate],
  ]) {
    report({
      metric,
      unit: 'events/s',
      ours,
      baseline: rawBatch,
      baselineLabel: `raw SQLite ${APPENDERS} rows/commit`,
      target: '≥ 0.5× baseline (issue 22)',
      pass: ours >= 0.5 * rawBatch,
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
