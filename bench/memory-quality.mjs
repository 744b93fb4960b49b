// Memory recall quality (issue #12, acceptance): recall@5 on the labelled
// corpus of bench/memory-corpus.mjs (215 memories of one person, 93 queries
// that paraphrase, use a few of a record's words, or other forms of them),
// full text through `store.memory(who).recall` in a fresh SQLite store.
// Beside it, in the same run: the same queries as raw FTS5 bm25 queries over
// a bare `fts5(body)` table of the same texts (the same OR of the query's
// words, so the same ranking is expected), and — for reference, what
// stemming would add (docs/design/memory.md, "Not yet") — the same over a
// table with the porter tokenizer. Vectors and hybrid ranking are not
// measured yet (see the end).
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { fmt, fromDist, report, tempDir } from './lib.mjs';
import { loadCorpus, QUERIES, RECORDS, recallAtK } from './memory-corpus.mjs';

const K = 5;
const { Store } = await fromDist('index.js');
const { hashingEmbedding } = await fromDist('testing/index.js');

/** Recall@K of raw FTS5 bm25 over `tokenize`, the query's words OR'ed as Cairn builds them. */
function rawRecallAtK(dir, name, tokenize) {
  const db = new Database(join(dir, `${name}.db`));
  db.exec(`CREATE VIRTUAL TABLE t USING fts5(body, tokenize = '${tokenize}')`);
  const insert = db.prepare('INSERT INTO t (rowid, body) VALUES (?, ?)');
  db.transaction(() => {
    for (const [i, r] of RECORDS.entries()) insert.run(i + 1, r.text);
  })();
  const search = db.prepare(`SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT ${K}`);
  let sum = 0;
  for (const q of QUERIES) {
    const words = [...new Set(q.text.toLowerCase().match(/[\p{L}\p{N}]+/gu))];
    const found = new Set(
      search.all(words.map((w) => `"${w}"`).join(' OR ')).map((r) => RECORDS[r.rowid - 1].id),
    );
    sum += q.relevant.filter((id) => found.has(id)).length / q.relevant.length;
  }
  db.close();
  return sum / QUERIES.length;
}

const { dir, cleanup } = tempDir('memory-quality');
try {
  const store = await Store.openDir(join(dir, 'store'));
  // Vectors from the deterministic hashing embedding of cairn/testing (words and trigrams; no model).
  const memory = store.memory(await store.authenticate((await store.createTenant('quality')).token.token), {
    embedding: hashingEmbedding(384),
  });
  const ids = await loadCorpus(memory);
  const ours = await recallAtK(memory, ids, K);
  const vector = await recallAtK(memory, ids, K, 'vector');
  const hybrid = await recallAtK(memory, ids, K, 'hybrid');
  await store.close();
  const raw = rawRecallAtK(dir, 'raw', 'unicode61 remove_diacritics 2');
  const porter = rawRecallAtK(dir, 'porter', 'porter unicode61 remove_diacritics 2');

  console.log(
    `memory recall quality — ${RECORDS.length} records, ${QUERIES.length} queries (` +
      Object.entries(ours.byStyle)
        .map(([style, s]) => `${s.n} ${style}`)
        .join(', ') +
      `), k=${K}, full text`,
  );
  console.log(
    `  by style: ${Object.entries(ours.byStyle)
      .map(([style, s]) => `${style} ${fmt(s.recall)}`)
      .join(', ')}`,
  );
  console.log(`  no relevant record in the first ${K} (${ours.missed.length}): ${ours.missed.join('; ')}`);
  report({
    metric: `recall@${K}, full text (labelled corpus)`,
    unit: '',
    ours: ours.recall,
    baseline: raw,
    baselineLabel: 'raw FTS5 bm25, same texts and queries',
  });
  report({
    metric: `recall@${K}, raw FTS5 with porter stemming (reference)`,
    unit: '',
    ours: porter,
    baseline: raw,
    baselineLabel: 'raw FTS5 bm25, no stemming',
  });
  report({
    metric: `recall@${K}, vectors (hashingEmbedding 384, cosine)`,
    unit: '',
    ours: vector.recall,
    baseline: ours.recall,
    baselineLabel: 'full text, same run',
  });
  report({
    metric: `recall@${K}, hybrid (full text + vectors, reciprocal rank fusion)`,
    unit: '',
    ours: hybrid.recall,
    baseline: ours.recall,
    baselineLabel: 'full text, same run',
  });
} finally {
  cleanup();
}
