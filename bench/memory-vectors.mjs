// Memory's vector leg (issue 12): recall with `mode: 'vector'` beside a raw
// sqlite-vec KNN query over the same vectors, same run, alternated query by
// query; target ≤ 2× the raw query. Vectors come from the deterministic
// hashing embedding of cairn/testing (384 dimensions), so both sides search
// the same vectors; ours also embeds the query text (it takes text) and
// reads the winners' rows, the raw side gets the vector ready-made.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { fmt, fromDist, ms, now, percentile, report, tempDir } from './lib.mjs';
import { queries, texts } from './memory-texts.mjs';

const N = Number(process.env.CAIRN_BENCH_MEMORY_VECTORS ?? 20_000);
const Q = 200;
const DIMENSIONS = 384;
const K = 10;

const { Store } = await fromDist('index.js');
const { hashingEmbedding } = await fromDist('testing/index.js');
const embedding = hashingEmbedding(DIMENSIONS);
const { dir, cleanup } = tempDir('memory-vectors');
try {
  const store = await Store.openDir(join(dir, 'store'));
  const memory = store.memory(await store.authenticate((await store.createTenant('vectors')).token.token), {
    embedding,
  });
  const raw = new Database(join(dir, 'raw.db'));
  raw.pragma('journal_mode = WAL');
  // Read as the store's reading connection reads: the database mapped (sqlite-engine.ts, READER_MMAP_BYTES).
  raw.pragma('mmap_size = 1073741824');
  sqliteVec.load(raw);
  raw.exec(`CREATE VIRTUAL TABLE v USING vec0(embedding float[${DIMENSIONS}] distance_metric=cosine)`);
  const insert = raw.prepare('INSERT INTO v (rowid, embedding) VALUES (?, ?)');
  const scope = { user: 'ada' };
  let row = 0;
  let batch = [];
  const flush = async () => {
    await memory.rememberMany({ records: batch.map((text) => ({ scope, text, source: 'person' })) });
    const vectors = await embedding.embed(batch);
    raw.transaction(() => {
      for (const vector of vectors) insert.run(BigInt(++row), Buffer.from(Float32Array.from(vector).buffer));
    })();
    batch = [];
  };
  for (const text of texts(N, { seed: 7 })) {
    batch.push(text);
    if (batch.length === 500) await flush();
  }
  if (batch.length > 0) await flush();
  const knn = raw.prepare(
    'SELECT rowid, distance FROM v WHERE embedding MATCH ? AND k = ? ORDER BY distance',
  );
  const asked = queries(Q + 20, { seed: 9 });
  const ours = [];
  const base = [];
  for (const [i, { text: query }] of asked.entries()) {
    const vector = Buffer.from(Float32Array.from((await embedding.embed([query]))[0]).buffer);
    const order = i % 2 === 0 ? ['ours', 'raw'] : ['raw', 'ours'];
    for (const which of order) {
      const t = now();
      if (which === 'ours') await memory.recall({ query, scope, k: K, mode: 'vector' });
      else knn.all(vector, K);
      const elapsed = ms(t);
      if (i >= 20) (which === 'ours' ? ours : base).push(elapsed);
    }
  }
  console.log(
    `memory vectors — N=${N} records of ${DIMENSIONS} dimensions (cairn/testing hashingEmbedding), ${Q} queries, k=${K}`,
  );
  for (const [label, q] of [
    ['p50', 0.5],
    ['p95', 0.95],
    ['p99', 0.99],
  ])
    report({
      metric: `vector recall ${label}, k=${K} (N=${N})`,
      unit: 'ms',
      ours: percentile(ours, q),
      baseline: percentile(base, q),
      baselineLabel: 'raw sqlite-vec KNN query',
      target: '≤ 2× baseline',
      pass: percentile(ours, q) <= 2 * percentile(base, q),
    });
  console.log(`  ours includes embedding the query text; raw p50 ${fmt(percentile(base, 0.5))} ms`);
  raw.close();
  await store.close();
} finally {
  cleanup();
}
