// The audit log's Merkle tree (issue 22), on the embedded store, with
// CAIRN_BENCH_AUDIT_ENTRIES (default 1,000,000) entries in one tenant:
// - integrating them (leaf hashes, tiles, one signed checkpoint per 16,384),
//   beside hashing the same entries' bytes once each with node:crypto alone;
// - an inclusion proof of a random entry at the full size, p50 of
//   CAIRN_BENCH_AUDIT_PROOFS (target ≤ 1 ms), and a consistency proof;
// - offline verification of the whole log from its entries (every leaf and
//   node hashed again, the root compared with the signed checkpoint's)
//   beside the same hashing-alone baseline (target ≥ 0.5×).
// The entries are written straight into audit_entries (a million appends
// would measure the log, not the tree); their chain hashes are not made, so
// `audit verify` is not what this measures.
import { hash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { fmt, fromDist, ms, now, percentile, report, tempDir } from './lib.mjs';

const ENTRIES = Number(process.env.CAIRN_BENCH_AUDIT_ENTRIES ?? 1_000_000);
const PROOFS = Number(process.env.CAIRN_BENCH_AUDIT_PROOFS ?? 1000);
const VERIFY_ROUNDS = 5;

const { Store } = await fromDist('store.js');
const { leafEntry } = await fromDist('audit/tree.js');
const { rootOfEntries } = await fromDist('audit/merkle.js');
const { dir, cleanup } = tempDir('audit');
const store = await Store.openDir(join(dir, 'store'));
const who = await store.localIdentity();
const fabric = store.fabric(who);
await fabric.auditCheckpoint({});

// The entries, written after the ones the store already has.
const db = new Database(join(dir, 'store', 'cairn.db'));
const head = db.prepare('SELECT seq FROM audit_heads WHERE tenant = ?').get(who.tenant).seq;
const insert = db.prepare(
  `INSERT INTO audit_entries (tenant, seq, at, actor, action, resource_type, resource_id, commitment, prev_hash, hash)
   VALUES (?, ?, ?, ?, 'event.append', 'event', ?, ?, '', '')`,
);
const written = now();
db.transaction(() => {
  for (let i = 1; i <= ENTRIES; i++) {
    const id = `ev_${String(i).padStart(26, '0')}`;
    insert.run(
      who.tenant,
      head + i,
      1_796_000_000_000 + i,
      who.principal,
      id,
      randomBytes(32).toString('hex'),
    );
  }
})();
db.prepare('UPDATE audit_heads SET seq = ? WHERE tenant = ?').run(head + ENTRIES, who.tenant);
db.close();
console.log(`audit — ${ENTRIES} entries written straight to the table in ${fmt(ms(written) / 1000)} s`);

// The entries' bytes, as the tree hashes them (read back through the proofs' format, leafEntry).
const rows = new Database(join(dir, 'store', 'cairn.db'), { readonly: true })
  .prepare(
    'SELECT tenant, seq, at, actor, action, resource_type, resource_id, commitment FROM audit_entries WHERE tenant = ? ORDER BY seq',
  )
  .all(who.tenant);
const entries = rows.map((row) => Buffer.from(leafEntry(row), 'utf8'));
const bytes = entries.reduce((n, e) => n + e.length, 0);

// Baseline: one SHA-256 per entry over the same bytes, node:crypto alone (its one-shot `hash`, the
// fastest it has for small inputs; the verifier below uses the same).
const sha256 = (data) => hash('sha256', data, 'buffer');
let t = now();
for (const entry of entries) sha256(entry);
const hashOnly = ms(t);

// Integration: every entry into the tree, checkpoints signed.
t = now();
const checkpoint = await fabric.auditCheckpoint({});
const integrate = ms(t);
if (checkpoint.size !== entries.length)
  throw new Error(`checkpoint of ${checkpoint.size}, not ${entries.length}`);
report({
  metric: `integrating ${entries.length} entries (${fmt(bytes / 1e6)} MB) into the tree, signed`,
  unit: 'ms',
  ours: integrate,
  baseline: hashOnly,
  baselineLabel: 'one sha256 per entry, node:crypto alone',
});

// Offline verification: every leaf and node again (the library's one-pass `rootOfEntries`), the root
// against the checkpoint's. Five rounds alternating with the baseline, medians: one pass of either
// varies 1.2–2.1 s on this VM.
const hashed = [];
const verified = [];
for (let round = 0; round < VERIFY_ROUNDS; round++) {
  t = now();
  for (const entry of entries) sha256(entry);
  hashed.push(ms(t));
  t = now();
  const root = rootOfEntries(entries);
  verified.push(ms(t));
  if (root.toString('hex') !== checkpoint.root)
    throw new Error('the offline root differs from the checkpoint');
}
const hashMedian = percentile(hashed, 0.5);
const verify = percentile(verified, 0.5);
report({
  metric: `offline verification of ${entries.length} entries from their bytes (root = the signed checkpoint's), median of ${VERIFY_ROUNDS}`,
  unit: 'ms',
  ours: verify,
  baseline: hashMedian,
  baselineLabel: 'one sha256 per entry, median',
  ratio: hashMedian / verify,
  target: '≥ 0.5× the baseline’s speed',
  pass: hashMedian / verify >= 0.5,
});

// Proofs at the full size.
const timings = [];
for (let i = 0; i < PROOFS; i++) {
  const entry = Math.floor(Math.random() * entries.length);
  const started = now();
  await fabric.auditProof({ entry });
  timings.push(ms(started));
}
const p50 = percentile(timings, 0.5);
report({
  metric: `inclusion proof of a random entry in a ${entries.length}-entry log, p50 of ${PROOFS} (SDK, in process)`,
  unit: 'ms',
  ours: p50,
  target: '≤ 1 ms',
  pass: p50 <= 1,
});
const consistency = [];
for (let i = 0; i < Math.min(PROOFS, 200); i++) {
  const from = 1 + Math.floor(Math.random() * (entries.length - 1));
  const started = now();
  await fabric.auditConsistency({ from });
  consistency.push(ms(started));
}
report({
  metric: `consistency proof from a random size to ${entries.length}, p50`,
  unit: 'ms',
  ours: percentile(consistency, 0.5),
});
await store.close();
cleanup();
