/**
 * Memory's full-text index, per engine. On SQLite every tenant has an FTS5
 * table of its own (`memfts_<tenant>`): a tenant's index holds only its own
 * texts, so a query never reads another tenant's postings and bm25's
 * document frequencies — which shape every score — count only its own
 * records. On PostgreSQL a `tsvector` column of the records with a GIN index,
 * under the same row-level security as the rows (ts_rank reads one row's
 * vector, no shared statistics).
 */
import { invalidArgument } from '../errors.js';
import { type Dialect, inBatches, placeholders, type SqlExecutor } from '../storage/engine.js';
import { tableExists, tenantTable } from './tenant-tables.js';

/** The SQLite FTS5 table of a tenant. */
const ftsTable = (tenant: string) => tenantTable('memfts', tenant);

/** What the index holds of a record version: its text and its tags. */
function indexedText(text: string, tags: readonly string[]): string {
  return tags.length === 0 ? text : `${text}\n${tags.join(' ')}`;
}

export async function indexRecord(
  tx: SqlExecutor,
  dialect: Dialect,
  tenant: string,
  n: number,
  text: string,
  tags: readonly string[],
): Promise<void> {
  if (dialect === 'postgres') return; // the tsvector is written with the row (see insertSql)
  const table = ftsTable(tenant);
  await tx.run(
    `CREATE VIRTUAL TABLE IF NOT EXISTS ${table} USING fts5(body, tokenize = 'unicode61 remove_diacritics 2')`,
  );
  await tx.run(`INSERT INTO ${table} (rowid, body) VALUES (?, ?)`, [n, indexedText(text, tags)]);
}

/** The column list and value placeholder of the tsvector on PostgreSQL; nothing on SQLite. */
export function vectorColumn(dialect: Dialect): { column: string; value: string } {
  return dialect === 'postgres'
    ? { column: ', tsv', value: ", to_tsvector('simple', ?)" }
    : { column: '', value: '' };
}

export function vectorValue(dialect: Dialect, text: string, tags: readonly string[]): string[] {
  return dialect === 'postgres' ? [indexedText(text, tags)] : [];
}

/** Removes index entries (record versions by their number); returns how many went. */
export async function unindex(
  tx: SqlExecutor,
  dialect: Dialect,
  tenant: string,
  numbers: readonly number[],
): Promise<number> {
  if (numbers.length === 0) return 0;
  if (dialect === 'postgres') return numbers.length; // the vector goes with its row
  const table = ftsTable(tenant);
  if (!(await tableExists(tx, table))) return 0;
  let removed = 0;
  await inBatches(numbers, async (slice) => {
    removed += await tx.run(`DELETE FROM ${table} WHERE rowid IN (${placeholders(slice.length)})`, slice);
  });
  return removed;
}

/** The words of a query, lowercased: a query is words to look for, never the index's own syntax. */
export function queryWords(query: string): string[] {
  const words = [...new Set((query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, 32))];
  if (words.length === 0)
    throw invalidArgument('the query has no words to look for: give a word or two', {
      field: 'query',
    });
  return words;
}

/** The full-text part of a recall over records `r`: score (higher is better), FROM and match, each with its parameters. */
export interface Match {
  score: string;
  scoreParams: string[];
  from: string;
  fromParams: string[];
  where: string;
  whereParams: string[];
}

/** The match of `words` in a tenant's index; null when the tenant has no index yet (nothing remembered). */
export async function matchClause(
  tx: SqlExecutor,
  dialect: Dialect,
  tenant: string,
  words: readonly string[],
): Promise<Match | null> {
  if (dialect === 'postgres') {
    const query = words.join(' | ');
    return {
      score: "ts_rank_cd(r.tsv, to_tsquery('simple', ?))",
      scoreParams: [query],
      from: 'memory_records r',
      fromParams: [],
      where: "r.tsv @@ to_tsquery('simple', ?)",
      whereParams: [query],
    };
  }
  const table = ftsTable(tenant);
  if (!(await tableExists(tx, table))) return null;
  return {
    score: `-bm25(${table})`,
    scoreParams: [],
    // The recall index holds every column the filters read: each match costs one index probe, not a row read.
    from: `${table} f JOIN memory_records r INDEXED BY memory_records_recall ON r.tenant = ? AND r.n = f.rowid`,
    fromParams: [tenant],
    where: `${table} MATCH ?`,
    whereParams: [words.map((w) => `"${w}"`).join(' OR ')],
  };
}
