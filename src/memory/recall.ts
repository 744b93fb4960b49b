import { type Dialect, placeholders, type SqlExecutor, type SqlParam } from '../storage/engine.js';
import type { Identity } from '../types.js';
import { matchClause, queryWords } from './fulltext.js';
import { COLUMNS, type RecordRow, recordsByNumber, toRecord } from './rows.js';
import type { MemoryRecord, RecallItem, ValidList, ValidRecall } from './schema.js';
import { type EmbeddingFunction, nearest } from './vectors.js';
import { currentFilter, currentIsLatest, narrowFilter, trustFilter } from './visibility.js';

/** A text's vector and the function that made it (the caller embeds before the transaction). */
export interface QueryVector {
  embedding: EmbeddingFunction;
  bytes: Buffer;
}

/** Reciprocal rank fusion's constant: a rank r adds 1 / (RRF_K + r). */
const RRF_K = 60;

/**
 * Ranked records for a query, as the reader sees them: by full text, by
 * vector (nearest by cosine), or both fused by reciprocal rank.
 */
export async function recall(
  tx: SqlExecutor,
  dialect: Dialect,
  who: Identity,
  input: ValidRecall,
  vector?: QueryVector,
): Promise<RecallItem[]> {
  const mode = input.mode === 'auto' ? (vector ? 'hybrid' : 'text') : input.mode;
  // Tags are checked on the ranked rows: fetch more when they will thin the list.
  const fetch = input.tags && input.tags.length > 0 ? input.k * 8 : input.k;
  const lists: RecallItem[][] = [];
  if (mode === 'text' || mode === 'hybrid') lists.push(await byText(tx, dialect, who, input, fetch));
  if (mode === 'vector' || mode === 'hybrid') {
    if (!vector) throw new Error('a vector recall needs the query vector');
    const current = await currentFilter(tx, who, input.scope, input.branch, input.asOf);
    const trust = trustFilter(input.minTrust);
    const where = [current.sql, trust.sql];
    const params: SqlParam[] = [...current.params, ...trust.params];
    if (input.kinds && input.kinds.length > 0) {
      where.push(`r.kind IN (${input.kinds.map(() => '?').join(', ')})`);
      params.push(...input.kinds);
    }
    // The index is the tenant's own; what the reader may not see is dropped below, so look further.
    const near = await nearest(tx, who.tenant, vector.embedding, vector.bytes, Math.min(4096, fetch * 8));
    const distance = new Map(near.map((v) => [v.n, v.distance]));
    const rows =
      near.length === 0
        ? []
        : await tx.all<RecordRow>(
            `SELECT ${COLUMNS} FROM ${recordsByNumber(dialect)} WHERE ${where.join(' AND ')} AND r.n IN (${near.map(() => '?').join(', ')})`,
            [...params, ...near.map((v) => v.n)],
          );
    lists.push(
      rows
        .map((row) => ({ ...toRecord(row), score: 1 - (distance.get(Number(row.n)) ?? 1) }))
        .sort((x, y) => y.score - x.score)
        .slice(0, fetch),
    );
  }
  const wanted = input.tags ?? [];
  const keep = (item: RecallItem) => wanted.every((t) => item.tags.includes(t));
  if (lists.length === 1) return (lists[0] ?? []).filter(keep).slice(0, input.k);
  // Reciprocal rank fusion: each list adds 1 / (60 + rank) to an item's score.
  const fused = new Map<string, RecallItem>();
  for (const list of lists)
    list.filter(keep).forEach((item, rank) => {
      const key = `${item.id}/${item.version}`;
      const seen = fused.get(key);
      fused.set(key, { ...item, score: (seen?.score ?? 0) + 1 / (RRF_K + rank + 1) });
    });
  return [...fused.values()].sort((x, y) => y.score - x.score).slice(0, input.k);
}

/** How many of the best unfiltered matches a recall looks at before it filters every match. */
const candidatesFor = (fetch: number) => Math.max(64, fetch * 4);

/**
 * The full-text leg. The index ranks its matches and only the best few are
 * filtered (scope, trust, kinds, current version) and read whole: when the
 * filters keep at least `fetch` of them, those are the filtered ranking's
 * top too (whatever ranks below them is below all of them). When the
 * filters keep fewer — a scope holding a small share of the tenant's
 * records — every match is filtered, through SQLite's narrow recall table.
 */
async function byText(
  tx: SqlExecutor,
  dialect: Dialect,
  who: Identity,
  input: ValidRecall,
  fetch: number,
): Promise<RecallItem[]> {
  const latestIsCurrent = currentIsLatest(input.scope, input.asOf);
  // First, so that a session the reader cannot see is NOT_FOUND whatever the index holds.
  const current = latestIsCurrent
    ? { sql: '1 = 1', params: [] as SqlParam[] }
    : await currentFilter(tx, who, input.scope, input.branch, input.asOf);
  const match = await matchClause(tx, dialect, who.tenant, queryWords(input.query));
  if (!match) return [];
  const filterOn = (alias: string) => {
    const narrow = narrowFilter(input.scope, input.minTrust, input.kinds, latestIsCurrent, alias);
    return { sql: `${narrow.sql} AND ${current.sql}`, params: [...narrow.params, ...current.params] };
  };
  const ranked = (rows: (RecordRow & { score: number })[]) =>
    rows.map((row) => ({ ...toRecord(row), score: Number(row.score) }));
  const limit = candidatesFor(fetch);
  const best = await tx.all<{ n: number; score: number }>(
    `SELECT ${match.n} AS n, ${match.score} AS score FROM ${match.from} WHERE ${match.where} ORDER BY score DESC, n DESC LIMIT ?`,
    [...match.scoreParams, ...match.whereParams, limit],
  );
  if (best.length === 0) return [];
  // The best matches the filters keep, in rank order (their narrow rows only), then the top ones whole.
  const among = match.among(
    best.map((b) => Number(b.n)),
    !latestIsCurrent,
  );
  const filter = filterOn(among.alias);
  const kept = new Set(
    (
      await tx.all<{ n: number }>(
        `SELECT ${among.n} AS n FROM ${among.from} WHERE ${among.where} AND ${filter.sql}`,
        [...among.params, ...filter.params],
      )
    ).map((row) => Number(row.n)),
  );
  const top = best.filter((b) => kept.has(Number(b.n))).slice(0, fetch);
  if (top.length >= fetch || best.length < limit) {
    if (top.length === 0) return [];
    const rows = new Map(
      (
        await tx.all<RecordRow>(
          `SELECT ${COLUMNS} FROM ${recordsByNumber(dialect)} WHERE r.tenant = ? AND r.n IN (${placeholders(top.length)})`,
          [who.tenant, ...top.map((b) => b.n)],
        )
      ).map((row) => [Number(row.n), row]),
    );
    return top.map((b) => ({ ...toRecord(rows.get(Number(b.n)) as RecordRow), score: Number(b.score) }));
  }
  const narrowed = match.narrowed(!latestIsCurrent);
  const every = filterOn(narrowed.alias);
  // CROSS JOIN keeps the top rows outermost: left to the planner, a bound tenant made it scan
  // every record of the tenant against a bloom filter of the top (38 ms on an empty match at 100k).
  return ranked(
    await tx.all<RecordRow & { score: number }>(
      `SELECT ${COLUMNS}, top.score AS score FROM (SELECT ${match.n} AS n, ${match.score} AS score FROM ${narrowed.from} WHERE ${match.where} AND ${every.sql} ORDER BY score DESC, n DESC LIMIT ?) top CROSS JOIN memory_records r ON r.tenant = ? AND r.n = top.n ORDER BY top.score DESC, r.n DESC`,
      [...match.scoreParams, ...narrowed.params, ...match.whereParams, ...every.params, fetch, who.tenant],
    ),
  );
}

/** The current records of a scope, newest first (no ranking, no query). */
export async function list(tx: SqlExecutor, who: Identity, input: ValidList): Promise<MemoryRecord[]> {
  const current = await currentFilter(tx, who, input.scope, input.branch, undefined);
  const rows = await tx.all<RecordRow>(
    `SELECT ${COLUMNS} FROM memory_records r WHERE ${current.sql} ORDER BY r.recorded_at DESC, r.n DESC LIMIT ?`,
    [...current.params, input.limit],
  );
  return rows.map(toRecord);
}
