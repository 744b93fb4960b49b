import { sha256Hex } from '../digest.js';
import { type CairnError, corrupt, invalidArgument, notFound } from '../errors.js';

/**
 * Immutable content named by its sha256 digest, kept per tenant: the same
 * bytes in two tenants are two objects (cross-tenant dedup would leak).
 */
export interface BlobStore {
  /**
   * Stores bytes durably and returns their digest; storing existing content
   * is a no-op. A caller that has just hashed the bytes may pass the digest
   * to save hashing them again; it is trusted (and checked on a full `get`).
   */
  put(tenant: string, bytes: Uint8Array, digest?: string): Promise<string>;
  /** Returns the bytes, after checking they still hash to the digest (CORRUPT otherwise). */
  get(tenant: string, digest: string): Promise<Buffer>;
  /**
   * Returns `length` bytes from `offset` without re-hashing the whole blob:
   * for containers (desk packs) whose parts carry their own digests, which
   * the caller checks. A range past the end is NOT_FOUND.
   */
  getRange(tenant: string, digest: string, offset: number, length: number): Promise<Buffer>;
  has(tenant: string, digest: string): Promise<boolean>;
  /** Removes an object; deleting a missing object is a no-op. */
  delete(tenant: string, digest: string): Promise<void>;
  /**
   * Every blob digest of one tenant, a page at a time (what a listing-based
   * GC walks: blobs no row names, left by a crash between a removal's rows
   * and its blobs). A blob put or deleted during the walk may or may not be listed.
   */
  list(tenant: string): AsyncIterable<string>;
  /**
   * Deletes what killed puts of the tenant left half-written, last changed
   * before `before` (ms since the epoch: a put still running is younger);
   * resolves to how many. The folder engine's `.tmp-…` files; PostgreSQL and
   * S3 write a blob whole or not at all, so there is never any (0).
   */
  sweepTemporary(tenant: string, before: number): Promise<number>;
  close(): Promise<void>;
}

export const DIGEST = /^[0-9a-f]{64}$/;
const TENANT = /^[a-z]{2}_[0-9a-z]{26}$/;

export function checkDigest(digest: string): void {
  if (!DIGEST.test(digest)) {
    throw invalidArgument(
      `"${digest.slice(0, 80)}" is not a blob digest: pass 64 lowercase hex characters (sha256)`,
      {
        field: 'digest',
      },
    );
  }
}

export function checkTenant(tenant: string): void {
  if (!TENANT.test(tenant)) {
    throw invalidArgument(`"${tenant.slice(0, 80)}" is not a tenant id: pass an id like tn_…`, {
      field: 'tenant',
    });
  }
}

/** Re-hashes bytes read back from an engine; a mismatch is reported, never repaired. */
export function verifiedBlob(tenant: string, digest: string, bytes: Buffer): Buffer {
  const actual = sha256Hex(bytes);
  if (actual !== digest) {
    throw corrupt(
      `blob ${digest} of tenant ${tenant} is corrupt (its bytes hash to ${actual}): restore it from a backup`,
      {
        tenant,
        digest,
        actual,
      },
    );
  }
  return bytes;
}

export function rangeNotFound(digest: string, offset: number, length: number): CairnError {
  return notFound(
    `blob ${digest} has no bytes ${offset}..${offset + length}: the reference to it is wrong or the blob was truncated`,
    { digest, offset, length },
  );
}
