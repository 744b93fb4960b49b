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
import { recordsByNumber } from './rows.js';
import { RECALL_KEY_SPAN } from './tables.js';
import { tableExists, tenantTable } from './tenant-tables.js';

/** The SQLite FTS5 table of a tenant. */
const ftsTable = (tenant: string) => tenantTable('memfts', tenant);

/** What the index holds of a record version: its text and its tags. */
function indexedText(text: string, tags: readonly string[]): string {
  return tags.length === 0 ? text : `${text}\n${tags.join(' ')}`;
}

/** Adds index entries for record versions (by their number), several to a statement. */
export async function indexRecords(
  tx: SqlExecutor,
  dialect: Dialect,
  tenant: string,
  entries: readonly { n: number; text: string; tags: readonly string[] }[],
): Promise<void> {
  if (dialect === 'postgres' || entries.length === 0) return; // the tsvector is written with the row
  const table = ftsTable(tenant);
  await tx.run(
    `CREATE VIRTUAL TABLE IF NOT EXISTS ${table} USING fts5(body, tokenize = 'unicode61 remove_diacritics 2')`,
  );
  await inBatches(
    entries,
    async (slice) => {
      await tx.run(
        `INSERT INTO ${table} (rowid, body) VALUES ${slice.map(() => '(?, ?)').join(', ')}`,
        slice.flatMap((e) => [e.n, indexedText(e.text, e.tags)]),
      );
    },
    2,
    (e) => e.text.length,
  );
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

/**
 * Rewrites the tenant's FTS5 index as one segment of live entries, so
 * nothing of a deleted entry stays in its shadow tables: a DELETE only adds a
 * tombstone, the terms and postings stay in older segments' `%_data` pages
 * until a merge reaches them. FTS5's `secure-delete` option is not enough:
 * it clears the leaves but a deleted term that began a leaf page stays in
 * `%_idx` as the page's separator; it also makes the table unreadable by
 * SQLite before 3.42 and costs a leaf rewrite per term of each deleted entry
 * (1M entries: 1,000 deleted 1.9 s against optimize's 1.6 s, 100 deleted
 * 0.2 s against 1.3 s). 'optimize' costs one pass over the tenant's index,
 * less than the vacuum an erasure runs anyway, and nothing when the index is
 * one segment already. The pages it frees keep their bytes until that vacuum.
 * PostgreSQL's vector is a column of the deleted row: nothing to do here.
 */
export async function purgeIndex(tx: SqlExecutor, dialect: Dialect, tenant: string): Promise<void> {
  if (dialect === 'postgres') return;
  const table = ftsTable(tenant);
  if (await tableExists(tx, table)) await tx.run(`INSERT INTO ${table} (${table}) VALUES ('optimize')`);
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

/**
 * The full-text part of a recall: score (higher is better, its parameters
 * first), FROM and match; `n` is the matched version's number. `reach(on)`
 * joins, to a version numbered `on`, what the filters read: on SQLite the
 * narrow `memory_recall` table `s` (one rowid probe, see migration 7) and,
 * `withRecords`, the records `r`; on PostgreSQL the records `r`, which the
 * matches already are when `on` is their own number.
 */
export interface Match {
  score: string;
  scoreParams: string[];
  from: string;
  where: string;
  whereParams: string[];
  n: string;
  reach(on: string, withRecords: boolean): { joins: string; params: string[]; alias: string };
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
      where: "r.tenant = ? AND r.tsv @@ to_tsquery('simple', ?)",
      whereParams: [tenant, query],
      n: 'r.n',
      reach: (on) =>
        on === 'r.n'
          ? { joins: '', params: [], alias: 'r' }
          : {
              joins: ` JOIN memory_records r ON r.tenant = ? AND r.n = ${on}`,
              params: [tenant],
              alias: 'r',
            },
    };
  }
  const table = ftsTable(tenant);
  if (!(await tableExists(tx, table))) return null;
  return {
    score: `-bm25(${table})`,
    scoreParams: [],
    from: `${table} f`,
    where: `${table} MATCH ?`,
    whereParams: [words.map((w) => `"${w}"`).join(' OR ')],
    n: 'f.rowid',
    // CROSS JOIN fixes the order: the matches outermost, each probed once in the narrow table.
    reach: (on, withRecords) => ({
      joins:
        ` CROSS JOIN memory_recall s ON s.key = (SELECT no FROM memory_tenants WHERE tenant = ?) * ${RECALL_KEY_SPAN} + ${on}` +
        (withRecords ? ` CROSS JOIN ${recordsByNumber(dialect)} ON r.tenant = ? AND r.n = ${on}` : ''),
      params: withRecords ? [tenant, tenant] : [tenant],
      alias: 's',
    }),
  };
}
