/**
 * One blob space per tenant: the desk's packs and artifacts' chunks are
 * blobs of the same content-addressed space, so equal bytes are one blob
 * whoever stored them. A feature declares the columns that name blobs (its
 * `FeatureTables.blobNames`, features.ts); a blob is deleted only when none
 * of them names it, under the tenant's lock, whichever feature lets go of it.
 * Every feature writes the row that names a blob before it stores the blob,
 * so a blob a listing finds unnamed under the lock is nobody's: a crash
 * between a removal's rows and its blobs left it.
 */
import { FEATURE_TABLES } from '../features.js';
import { lockTenant } from '../identity/identity-store.js';
import { type Engine, inBatches, placeholders, type SqlExecutor } from '../storage/engine.js';
import type { BlobStore } from './blob-store.js';

/** Of `digests`, those a row of the tenant names: any feature's, or any but `except`'s (a feature asking about others). */
export async function namedBlobs(
  tx: SqlExecutor,
  tenant: string,
  digests: readonly string[],
  except?: string,
): Promise<Set<string>> {
  const named = new Set<string>();
  for (const feature of FEATURE_TABLES) {
    if (feature.folder === except) continue;
    for (const { table, column } of feature.blobNames ?? [])
      await inBatches([...digests], async (slice) => {
        for (const r of await tx.all<{ digest: string }>(
          `SELECT DISTINCT ${column} AS digest FROM ${table} WHERE tenant = ? AND ${column} IN (${placeholders(slice.length)})`,
          [tenant, ...slice],
        ))
          named.add(r.digest);
      });
  }
  return named;
}

/** Blobs checked and deleted per transaction. */
const DELETE_BATCH = 200;

/**
 * Deletes those of `digests` no row names, a couple of hundred per
 * transaction, each batch under the tenant's lock and re-checked there (so no
 * writer of the tenant waits long, and none can start naming one between the
 * check and its deletion). `done` hears each batch's deleted digests as it
 * ends. Returns every digest deleted.
 */
export async function deleteUnnamed(
  engine: Engine,
  blobs: BlobStore,
  tenant: string,
  digests: readonly string[],
  done?: (deleted: string[]) => void,
): Promise<string[]> {
  const deleted: string[] = [];
  for (let i = 0; i < digests.length; i += DELETE_BATCH) {
    const batch = digests.slice(i, i + DELETE_BATCH);
    const gone = await engine.write(tenant, async (tx) => {
      await lockTenant(tx, tenant);
      const named = await namedBlobs(tx, tenant, batch);
      const unnamed = batch.filter((digest) => !named.has(digest));
      for (const digest of unnamed) await blobs.delete(tenant, digest);
      return unnamed;
    });
    deleted.push(...gone);
    done?.(gone);
  }
  return deleted;
}

/**
 * Lists the tenant's blobs and deletes those no row names (`deleteUnnamed`,
 * a batch at a time as the listing goes). What a crash between a removal's
 * rows and its blobs leaked; `cairn gc` runs it.
 */
export async function collectUnnamedBlobs(
  engine: Engine,
  blobs: BlobStore,
  tenant: string,
  temporaryBefore: number,
): Promise<{ listed: number; deleted: number; temporary: number }> {
  // What killed puts left half-written first: no row names those, and they are no blob yet.
  const temporary = await blobs.sweepTemporary(tenant, temporaryBefore);
  let listed = 0;
  let deleted = 0;
  let batch: string[] = [];
  for await (const digest of blobs.list(tenant)) {
    listed++;
    batch.push(digest);
    if (batch.length >= DELETE_BATCH) {
      deleted += (await deleteUnnamed(engine, blobs, tenant, batch)).length;
      batch = [];
    }
  }
  deleted += (await deleteUnnamed(engine, blobs, tenant, batch)).length;
  return { listed, deleted, temporary };
}
