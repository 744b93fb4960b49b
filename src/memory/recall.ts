import { type Dialect, outerFirstJoin, type SqlExecutor, type SqlParam } from '../storage/engine.js';
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
    const current = await currentFilter(tx, dialect, who, input.scope, input.branch, input.asOf);
    const narrow = narrowFilter(input.scope, input.minTrust, input.kinds, false, 'r');
    const where = [current.sql, narrow.sql];
    const params: SqlParam[] = [...current.params, ...narrow.params];
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

/** How many of the best unfiltered matches a recall filters before it filters every match. */
const candidatesFor = (fetch: number) => Math.max(64, fetch * 4);

/**
 * The full-text leg, one statement in the common case: the index ranks its
 * matches unfiltered, the best few are filtered (scope, trust, kinds,
 * current version) and the top `fetch` of those read whole. When the
 * filters keep at least `fetch`, they are the filtered ranking's top too
 * (whatever ranks below them is below all of them). When they keep fewer —
 * a scope holding a small share of the matches, or fewer matches than
 * `fetch` — every match is filtered (on SQLite through the narrow recall
 * table), which costs a second ranking.
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
    : await currentFilter(tx, dialect, who, input.scope, input.branch, input.asOf);
  const match = await matchClause(tx, dialect, who.tenant, queryWords(input.query));
  if (!match) return [];
  /** The top `fetch` that the filters keep of the versions `source` yields (number `on`, score `score`), read whole. */
  const top = async (
    score: { sql: string; params: SqlParam[] },
    source: { sql: string; params: SqlParam[] },
    on: string,
    where: { sql: string; params: SqlParam[] },
  ) => {
    const reach = match.reach(on, !latestIsCurrent);
    const narrow = narrowFilter(input.scope, input.minTrust, input.kinds, latestIsCurrent, reach.alias);
    const rows = await tx.all<RecordRow & { score: number }>(
      // CROSS JOIN keeps the top rows outermost: left to the planner, a bound tenant made it scan
      // every record of the tenant against a bloom filter of the top (38 ms on an empty match at 100k).
      `SELECT ${COLUMNS}, top.score AS score FROM (SELECT ${on} AS n, ${score.sql} AS score FROM ${source.sql}${reach.joins} WHERE ${where.sql} AND ${narrow.sql} AND ${current.sql} ORDER BY score DESC, n DESC LIMIT ?) top ${outerFirstJoin(dialect)} memory_records r ON r.tenant = ? AND r.n = top.n ORDER BY top.score DESC, r.n DESC`,
      [
        ...score.params,
        ...source.params,
        ...reach.params,
        ...where.params,
        ...narrow.params,
        ...current.params,
        fetch,
        who.tenant,
      ],
    );
    return rows.map((row) => ({ ...toRecord(row), score: Number(row.score) }));
  };
  const none = { sql: '1 = 1', params: [] };
  const best = await top(
    { sql: 'u.score', params: [] },
    {
      sql: `(SELECT ${match.n} AS n, ${match.score} AS score FROM ${match.from} WHERE ${match.where} ORDER BY score DESC, n DESC LIMIT ?) u`,
      params: [...match.scoreParams, ...match.whereParams, candidatesFor(fetch)],
    },
    'u.n',
    none,
  );
  if (best.length >= fetch) return best;
  return top({ sql: match.score, params: match.scoreParams }, { sql: match.from, params: [] }, match.n, {
    sql: match.where,
    params: match.whereParams,
  });
}

/** The current records of a scope down to `minTrust`, newest first (no ranking, no query). */
export async function list(
  tx: SqlExecutor,
  dialect: Dialect,
  who: Identity,
  input: ValidList,
): Promise<MemoryRecord[]> {
  const current = await currentFilter(tx, dialect, who, input.scope, input.branch, undefined);
  const trust = trustFilter(input.minTrust, 'r');
  const rows = await tx.all<RecordRow>(
    `SELECT ${COLUMNS} FROM memory_records r WHERE ${current.sql} AND ${trust.sql} ORDER BY r.recorded_at DESC, r.n DESC LIMIT ?`,
    [...current.params, ...trust.params, input.limit],
  );
  return rows.map(toRecord);
}
