// The branch sweep (issue 22, retention), on the embedded store: a session
// whose workspace is forked into CAIRN_BENCH_RETENTION_FORKS (default 20)
// branches, each given CAIRN_BENCH_RETENTION_EVENTS / forks events
// (default 10,000 in all) and a memory record, then abandoned with no time
// left and reclaimed; main keeps its own events. The store is copied; then
// - `sweepBranches` on one copy: every swept branch's events, lines, ref
//   log, memory, workspace rows and grants, a signed tombstone per audit
//   payload, one transaction;
// - on the other copy, deleting the same branches, ref logs, events and
//   lines with plain SQL in one transaction (better-sqlite3 alone: no
//   planning, no audit, no tombstone).
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { fmt, fromDist, ms, now, report, tempDir } from './lib.mjs';

const FORKS = Number(process.env.CAIRN_BENCH_RETENTION_FORKS ?? 20);
const EVENTS = Number(process.env.CAIRN_BENCH_RETENTION_EVENTS ?? 10_000);

const { Store } = await fromDist('store.js');
const { Units } = await fromDist('unit/unit.js');
const { dir, cleanup } = tempDir('retention');
const ours = join(dir, 'ours');
const plain = join(dir, 'plain');

let t = now();
let store = await Store.openDir(ours);
const admin = await store.localIdentity();
const fabric = store.fabric(admin);
const desk = store.desk(admin, { host: 'bench' });
const units = new Units(fabric, desk);
const work = join(dir, 'work');
mkdirSync(work);
writeFileSync(join(work, 'a.txt'), 'a file\n');
const ws = (await desk.attach({ dir: work })).workspace;
const session = ws.session;
for (let i = 0; i < 100; i++)
  await fabric.append({ session, kind: 'message', payload: { text: `main ${i}` } });
const cp = await units.checkpoint({ workspace: ws.id });
const forked = await units.fork(cp.id, { branches: FORKS, dirRoot: join(dir, 'forks'), driver: 'copy' });
const names = forked.branches.map((b) => b.branch);
await Promise.all(
  names.map(async (branch) => {
    for (let i = 0; i < EVENTS / FORKS; i++)
      await fabric.append({ session, branch, kind: 'message', payload: { text: `${branch} says ${i}` } });
  }),
);
for (const branch of names) await units.abandon(session, branch, 0);
await units.reclaim();
for (const branch of names)
  await fabric.remember({ scope: { session }, branch, text: `what ${branch} learned` });
await desk.close();
await store.close();
console.log(
  `retention — seeded ${FORKS} branches, ${EVENTS} events in ${fmt(ms(t) / 1000)} s; copying the store`,
);
cpSync(ours, plain, { recursive: true });

// Plain SQL on the copy: the same branches' rows, one transaction.
const db = new Database(join(plain, 'cairn.db'));
db.pragma('synchronous = FULL');
const tenant = admin.tenant;
const list = (n) => new Array(n).fill('?').join(', ');
t = now();
db.transaction(() => {
  const branches = db
    .prepare(`SELECT id FROM branches WHERE tenant = ? AND session = ? AND name IN (${list(names.length)})`)
    .all(tenant, session, ...names)
    .map((r) => r.id);
  const lines = db
    .prepare(
      `SELECT DISTINCT line FROM events WHERE tenant = ? AND session = ? AND branch IN (${list(names.length)})`,
    )
    .all(tenant, session, ...names)
    .map((r) => r.line);
  db.prepare(`DELETE FROM ref_log WHERE tenant = ? AND branch IN (${list(branches.length)})`).run(
    tenant,
    ...branches,
  );
  db.prepare(`DELETE FROM branches WHERE tenant = ? AND id IN (${list(branches.length)})`).run(
    tenant,
    ...branches,
  );
  db.prepare(`DELETE FROM events WHERE tenant = ? AND session = ? AND branch IN (${list(names.length)})`).run(
    tenant,
    session,
    ...names,
  );
  db.prepare(`DELETE FROM lines WHERE tenant = ? AND id IN (${list(lines.length)})`).run(tenant, ...lines);
})();
const plainMs = ms(t);
db.close();

store = await Store.openDir(ours);
t = now();
const swept = await store.fabric(admin).sweepBranches({});
const sweepMs = ms(t);
await store.close();
const c = swept.counts;
console.log(
  `  swept ${c.log.branches} branches, ${c.log.events} events, ${c.memory.records} memory records, ${c.desk.workspaces} workspaces, ${c.audit.payloads} audit payloads (each a signed tombstone)`,
);
report({
  metric: `sweep ${FORKS} abandoned branches with ${EVENTS} events (plan, every feature's part, tombstones)`,
  unit: 'ms',
  ours: sweepMs,
  baseline: plainMs,
  baselineLabel: 'their branches, ref logs, events and lines deleted with plain SQL, one transaction',
});
cleanup();
