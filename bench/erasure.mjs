// The erasure cascade (issue 22), on the embedded store: a subject (a user)
// with CAIRN_BENCH_ERASE_EVENTS (default 10,000) events over 10 sessions,
// CAIRN_BENCH_ERASE_MEMORIES (1,000) memory records and
// CAIRN_BENCH_ERASE_ARTIFACTS (100) artifacts, beside another user with a
// tenth of that, which stays. The store is copied; then
// - `erase` on one copy: every feature's rows, a signed tombstone per audit
//   payload, the blob and desk sweeps, the database rewritten (VACUUM) and
//   its log truncated, the tree integrated and the receipt signed;
// - on the other copy, deleting the same rows with plain SQL in one
//   transaction (better-sqlite3 alone: no audit, no tombstone, no rewrite),
//   then, apart, a VACUUM of that copy: what the rewrite costs by itself.
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { fmt, fromDist, ms, now, report, tempDir } from './lib.mjs';

const EVENTS = Number(process.env.CAIRN_BENCH_ERASE_EVENTS ?? 10_000);
const MEMORIES = Number(process.env.CAIRN_BENCH_ERASE_MEMORIES ?? 1_000);
const ARTIFACTS = Number(process.env.CAIRN_BENCH_ERASE_ARTIFACTS ?? 100);
const SESSIONS = 10;

const { Store } = await fromDist('store.js');
const { dir, cleanup } = tempDir('erasure');
const ours = join(dir, 'ours');
const plain = join(dir, 'plain');

/** A user with `events` events over SESSIONS sessions, `memories` records and `artifacts` artifacts. */
async function user(store, admin, name, scale) {
  const minted = await store.fabric(admin).createToken({ kind: 'user', name, role: 'member' });
  const who = await store.authenticate(minted.token);
  const fabric = store.fabric(who);
  const sessions = [];
  for (let s = 0; s < SESSIONS; s++)
    sessions.push((await fabric.createSession({ title: `${name} ${s}` })).id);
  await Promise.all(
    sessions.map(async (session, s) => {
      for (let i = 0; i < (EVENTS * scale) / SESSIONS; i++)
        await fabric.append({ session, kind: 'message', payload: { text: `${name} says ${s}-${i}` } });
    }),
  );
  for (let done = 0; done < MEMORIES * scale; done += 1000)
    await fabric.rememberMany({
      records: Array.from({ length: Math.min(1000, MEMORIES * scale - done) }, (_, i) => ({
        scope: { user: who.principal },
        text: `${name} fact number ${done + i} about tea and maps`,
      })),
    });
  for (let i = 0; i < ARTIFACTS * scale; i++)
    await fabric.publishArtifact({
      session: sessions[i % SESSIONS],
      name: `a-${i}.txt`,
      bytes: Buffer.from(`${name} artifact ${i} `.repeat(64)),
    });
  return { who, sessions };
}

let t = now();
let store = await Store.openDir(ours);
const admin = await store.localIdentity();
const subject = await user(store, admin, 'gone', 1);
await user(store, admin, 'kept', 0.1);
await store.close();
console.log(`erasure — seeded in ${fmt(ms(t) / 1000)} s; copying the store`);
cpSync(ours, plain, { recursive: true });

// Plain SQL on the copy: the same rows, one transaction.
const db = new Database(join(plain, 'cairn.db'));
const tenant = admin.tenant;
const list = (n) => new Array(n).fill('?').join(', ');
const ss = subject.sessions;
t = now();
db.transaction(() => {
  const artifacts = db
    .prepare(`SELECT id FROM artifacts WHERE tenant = ? AND session IN (${list(ss.length)})`)
    .all(tenant, ...ss)
    .map((r) => r.id);
  for (const table of ['artifact_chunks', 'artifact_inputs'])
    db.prepare(`DELETE FROM ${table} WHERE tenant = ? AND artifact IN (${list(artifacts.length)})`).run(
      tenant,
      ...artifacts,
    );
  db.prepare(`DELETE FROM artifacts WHERE tenant = ? AND id IN (${list(artifacts.length)})`).run(
    tenant,
    ...artifacts,
  );
  db.prepare('DELETE FROM memory_records WHERE tenant = ? AND scope_user = ?').run(
    tenant,
    subject.who.principal,
  );
  const branches = db
    .prepare(`SELECT id FROM branches WHERE tenant = ? AND session IN (${list(ss.length)})`)
    .all(tenant, ...ss)
    .map((r) => r.id);
  db.prepare(`DELETE FROM ref_log WHERE tenant = ? AND branch IN (${list(branches.length)})`).run(
    tenant,
    ...branches,
  );
  for (const table of ['branches', 'events', 'lines'])
    db.prepare(`DELETE FROM ${table} WHERE tenant = ? AND session IN (${list(ss.length)})`).run(
      tenant,
      ...ss,
    );
  db.prepare(`DELETE FROM sessions WHERE tenant = ? AND id IN (${list(ss.length)})`).run(tenant, ...ss);
  db.prepare('DELETE FROM tokens WHERE tenant = ? AND principal = ?').run(tenant, subject.who.principal);
  db.prepare('DELETE FROM principals WHERE tenant = ? AND id = ?').run(tenant, subject.who.principal);
})();
const plainMs = ms(t);
t = now();
db.exec('VACUUM');
db.pragma('wal_checkpoint(TRUNCATE)');
const vacuumMs = ms(t);
db.close();

store = await Store.openDir(ours);
t = now();
const erased = await store.fabric(admin).erase({ subject: `user:${subject.who.principal}` });
const eraseMs = ms(t);
await store.close();
const c = erased.counts;
console.log(
  `  erased ${c.log.events} events, ${c.memory.versions ?? c.memory.records} memory versions, ${c.artifacts.artifacts} artifacts, ${c.audit.payloads} audit payloads (each a signed tombstone)`,
);
report({
  metric: `erase a user with ${EVENTS} events, ${MEMORIES} memory records, ${ARTIFACTS} artifacts (tombstones, sweeps, VACUUM, receipt)`,
  unit: 'ms',
  ours: eraseMs,
  baseline: plainMs,
  baselineLabel: 'the same rows deleted with plain SQL, one transaction',
});
report({
  metric: '  of which the database rewrite alone (VACUUM + log truncate of the plain copy)',
  unit: 'ms',
  ours: vacuumMs,
  baseline: plainMs,
  baselineLabel: 'the plain SQL delete',
});
cleanup();
