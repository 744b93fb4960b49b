import { sha256Hex } from '../../digest.js';
import { notFound } from '../../errors.js';
import type { Engine } from '../../storage/engine.js';
import { type BlobStore, checkDigest, checkTenant, rangeNotFound, verifiedBlob } from '../blob-store.js';

/** Digests a listing reads per query. */
const LIST_PAGE = 1000;

/**
 * Blobs as rows of the `blobs` table, under the same row-level security as
 * every other tenant table. Works over any relational engine; PostgreSQL is
 * the one it is meant for.
 */
export class PostgresBlobStore implements BlobStore {
  constructor(private readonly engine: Engine) {}

  async put(tenant: string, bytes: Uint8Array, known?: string): Promise<string> {
    checkTenant(tenant);
    const digest = known ?? sha256Hex(bytes);
    await this.engine.write(tenant, (tx) =>
      tx.run(
        'INSERT INTO blobs (tenant, digest, size, bytes) VALUES (?, ?, ?, ?) ON CONFLICT (tenant, digest) DO NOTHING',
        [tenant, digest, bytes.byteLength, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)],
      ),
    );
    return digest;
  }

  async get(tenant: string, digest: string): Promise<Buffer> {
    checkTenant(tenant);
    checkDigest(digest);
    const row = await this.engine.read(tenant, (tx) =>
      tx.get<{ bytes: Buffer }>('SELECT bytes FROM blobs WHERE tenant = ? AND digest = ?', [tenant, digest]),
    );
    if (!row) throw notFound('blob', digest);
    return verifiedBlob(tenant, digest, Buffer.from(row.bytes));
  }

  async getRange(tenant: string, digest: string, offset: number, length: number): Promise<Buffer> {
    checkTenant(tenant);
    checkDigest(digest);
    const row = await this.engine.read(tenant, (tx) =>
      tx.get<{ part: Buffer; size: number | string }>(
        'SELECT substr(bytes, ?, ?) AS part, size FROM blobs WHERE tenant = ? AND digest = ?',
        [offset + 1, length, tenant, digest],
      ),
    );
    if (!row) throw notFound('blob', digest);
    if (offset + length > Number(row.size)) throw rangeNotFound(digest, offset, length);
    return Buffer.from(row.part);
  }

  async has(tenant: string, digest: string): Promise<boolean> {
    checkTenant(tenant);
    checkDigest(digest);
    const row = await this.engine.read(tenant, (tx) =>
      tx.get('SELECT 1 AS found FROM blobs WHERE tenant = ? AND digest = ?', [tenant, digest]),
    );
    return row !== undefined;
  }

  async delete(tenant: string, digest: string): Promise<void> {
    checkTenant(tenant);
    checkDigest(digest);
    await this.engine.write(tenant, (tx) =>
      tx.run('DELETE FROM blobs WHERE tenant = ? AND digest = ?', [tenant, digest]),
    );
  }

  async *list(tenant: string): AsyncGenerator<string> {
    checkTenant(tenant);
    for (let after = ''; ; ) {
      const page = await this.engine.read(tenant, (tx) =>
        tx.all<{ digest: string }>(
          'SELECT digest FROM blobs WHERE tenant = ? AND digest > ? ORDER BY digest LIMIT ?',
          [tenant, after, LIST_PAGE],
        ),
      );
      for (const row of page) yield row.digest;
      if (page.length < LIST_PAGE) return;
      after = (page.at(-1) as { digest: string }).digest;
    }
  }

  /** Nothing is ever half-written: a row is inserted whole in its transaction. */
  async sweepTemporary(): Promise<number> {
    return 0;
  }

  async close(): Promise<void> {}
}
