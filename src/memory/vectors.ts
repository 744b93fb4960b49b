/**
 * Memory's vector index (SQLite, sqlite-vec): one `vec0` table per tenant
 * and embedding model, `memvec_<tenant>_<model digest>`, rows keyed by the
 * record version's number. The embedding function is the caller's (no model
 * ships with Cairn); a model of another name or size gets an index of its
 * own, so vectors of two models never mix. PostgreSQL here has no pgvector:
 * there recall is full text only (see docs/design/memory.md).
 */
import { sha256Hex } from '../digest.js';
import { invalidArgument, unavailable } from '../errors.js';
import type { Dialect, EngineCapabilities, SqlExecutor } from '../storage/engine.js';
import { tableExists, tenantTable } from './tenant-tables.js';

/** The user's embedding function, with the model's name and the vectors' size. */
export interface EmbeddingFunction {
  model: string;
  dimensions: number;
  embed(texts: string[]): Promise<ArrayLike<number>[]>;
}

const MAX_DIMENSIONS = 4096;

function vectorTable(tenant: string, embedding: EmbeddingFunction): string {
  return `${tenantTable('memvec', tenant)}_${sha256Hex(`${embedding.model}\n${embedding.dimensions}`).slice(0, 12)}`;
}

/** Whether vectors can be used here: an embedding function given, and an engine with the index. */
export function vectorsOn(
  embedding: EmbeddingFunction | undefined,
  dialect: Dialect,
  capabilities: EngineCapabilities,
): embedding is EmbeddingFunction {
  return embedding !== undefined && dialect === 'sqlite' && capabilities.vectors;
}

/** Refuses a vector recall where there is no vector index, saying why. */
export function noVectors(embedding: EmbeddingFunction | undefined): Error {
  return unavailable(
    embedding === undefined
      ? 'a vector recall needs an embedding function: open memory with one (store.memory(who, {embedding}))'
      : "this store's engine has no vector index (PostgreSQL here has no pgvector; SQLite needs sqlite-vec's binary): recall with mode text",
    { mode: 'vector' },
  );
}

/** Texts' vectors from the user's function, one call for all of them, each checked: the model's size, finite numbers. */
export async function embedTexts(embedding: EmbeddingFunction, texts: readonly string[]): Promise<Buffer[]> {
  if (texts.length === 0) return [];
  const vectors = await embedding.embed([...texts]);
  if (vectors.length !== texts.length)
    throw invalidArgument(
      `the embedding function of ${embedding.model} returned ${vectors.length} vectors for ${texts.length} texts`,
      { model: embedding.model },
    );
  return vectors.map((vector) => {
    if (!vector || vector.length !== embedding.dimensions)
      throw invalidArgument(
        `the embedding function of ${embedding.model} returned ${vector?.length ?? 'no'} numbers, not ${embedding.dimensions}`,
        { model: embedding.model },
      );
    const floats = Float32Array.from(vector);
    if (!floats.every(Number.isFinite))
      throw invalidArgument(
        `the embedding function of ${embedding.model} returned a number that is not finite`,
        {
          model: embedding.model,
        },
      );
    return Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength);
  });
}

export async function indexVector(
  tx: SqlExecutor,
  tenant: string,
  embedding: EmbeddingFunction,
  n: number,
  vector: Buffer,
): Promise<void> {
  if (
    !Number.isSafeInteger(embedding.dimensions) ||
    embedding.dimensions < 1 ||
    embedding.dimensions > MAX_DIMENSIONS
  )
    throw invalidArgument(`an embedding has 1 to ${MAX_DIMENSIONS} dimensions, not ${embedding.dimensions}`, {
      model: embedding.model,
    });
  const table = vectorTable(tenant, embedding);
  await tx.run(
    `CREATE VIRTUAL TABLE IF NOT EXISTS ${table} USING vec0(embedding float[${embedding.dimensions}] distance_metric=cosine)`,
  );
  await tx.run(`INSERT INTO ${table} (rowid, embedding) VALUES (?, ?)`, [BigInt(n), vector]);
}

/** The tenant's vector tables (one per model it has used). */
async function vectorTables(tx: SqlExecutor, tenant: string): Promise<string[]> {
  const prefix = `${tenantTable('memvec', tenant)}_`;
  const rows = await tx.all<{ name: string }>(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE ? AND sql LIKE 'CREATE VIRTUAL TABLE%'",
    [`${prefix}%`],
  );
  // LIKE's `_` matches any character: keep exactly this tenant's tables.
  return rows
    .map((r) => r.name)
    .filter((name) => name.startsWith(prefix) && /^[0-9a-f]{12}$/.test(name.slice(prefix.length)));
}

/**
 * Runs `each` for every model's index of the tenant and every version number
 * (vec0 takes its rowid one at a time) and adds up what it returns.
 */
async function overVectors(
  tx: SqlExecutor,
  dialect: Dialect,
  tenant: string,
  numbers: readonly number[],
  each: (table: string, rowid: bigint) => Promise<number>,
): Promise<number> {
  if (dialect !== 'sqlite' || numbers.length === 0) return 0;
  let total = 0;
  for (const table of await vectorTables(tx, tenant))
    for (const n of numbers) total += await each(table, BigInt(n));
  return total;
}

/** Removes the vectors of record versions (by number) from every model's index; how many went. */
export function unindexVectors(
  tx: SqlExecutor,
  dialect: Dialect,
  tenant: string,
  numbers: readonly number[],
) {
  return overVectors(tx, dialect, tenant, numbers, (table, rowid) =>
    tx.run(`DELETE FROM ${table} WHERE rowid = ?`, [rowid]),
  );
}

/** How many vectors the versions have, over every model's index (for a forget's preview). */
export function countVectors(tx: SqlExecutor, dialect: Dialect, tenant: string, numbers: readonly number[]) {
  return overVectors(tx, dialect, tenant, numbers, async (table, rowid) =>
    (await tx.get(`SELECT 1 AS found FROM ${table} WHERE rowid = ?`, [rowid])) ? 1 : 0,
  );
}

/** The nearest `k` record versions to a vector, nearest first (cosine distance). */
export async function nearest(
  tx: SqlExecutor,
  tenant: string,
  embedding: EmbeddingFunction,
  vector: Buffer,
  k: number,
): Promise<{ n: number; distance: number }[]> {
  const table = vectorTable(tenant, embedding);
  if (!(await tableExists(tx, table))) return [];
  const rows = await tx.all<{ n: number; distance: number }>(
    `SELECT rowid AS n, distance FROM ${table} WHERE embedding MATCH ? AND k = ? ORDER BY distance`,
    [vector, k],
  );
  return rows.map((r) => ({ n: Number(r.n), distance: Number(r.distance) }));
}

/**
 * Up to `limit` record versions of the tenant with no vector in this model's
 * index, oldest first: what a reindex embeds next, and how many remain.
 */
export async function unindexed(
  tx: SqlExecutor,
  tenant: string,
  embedding: EmbeddingFunction,
  limit: number,
): Promise<{ batch: { n: number; text: string }[]; remaining: number }> {
  const table = vectorTable(tenant, embedding);
  const exists = await tableExists(tx, table);
  const missing = exists ? `NOT EXISTS (SELECT 1 FROM ${table} v WHERE v.rowid = r.n)` : '1 = 1';
  const batch = await tx.all<{ n: number; text: string }>(
    `SELECT r.n, r.text FROM memory_records r WHERE r.tenant = ? AND ${missing} ORDER BY r.n LIMIT ?`,
    [tenant, limit],
  );
  const count = await tx.get<{ count: number }>(
    `SELECT COUNT(*) AS count FROM memory_records r WHERE r.tenant = ? AND ${missing}`,
    [tenant],
  );
  return {
    batch: batch.map((b) => ({ n: Number(b.n), text: b.text })),
    remaining: Number(count?.count ?? 0),
  };
}

/** Indexes a version's vector unless the version is gone or already indexed (a reindex racing writers); true when it did. */
export async function indexMissing(
  tx: SqlExecutor,
  tenant: string,
  embedding: EmbeddingFunction,
  n: number,
  vector: Buffer,
): Promise<boolean> {
  if (!(await tx.get('SELECT 1 AS found FROM memory_records WHERE tenant = ? AND n = ?', [tenant, n])))
    return false;
  const table = vectorTable(tenant, embedding);
  const exists = await tableExists(tx, table);
  if (exists && (await tx.get(`SELECT 1 AS found FROM ${table} WHERE rowid = ?`, [BigInt(n)]))) return false;
  await indexVector(tx, tenant, embedding, n, vector);
  return true;
}
