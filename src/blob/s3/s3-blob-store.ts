import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { sha256Hex } from '../../digest.js';
import { corrupt, notFound, unavailable } from '../../errors.js';
import { type BlobStore, checkDigest, checkTenant, rangeNotFound, verifiedBlob } from '../blob-store.js';

/** Where the blobs are: an S3-compatible endpoint, a bucket, and a key prefix of the store's own. */
export interface S3BlobOptions {
  /** e.g. `http://127.0.0.1:7480` (Ceph RGW) or `https://s3.eu-west-1.amazonaws.com`. */
  endpoint: string;
  bucket: string;
  region?: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Put before every key (`<prefix><tenant>/<digest>`); default none. Ends in `/` when set. */
  prefix?: string;
  /** Objects larger than this go up in parts (S3's parts are at least 5 MiB); default 16 MiB. */
  multipartBytes?: number;
}

/** A multipart upload's part size: S3's minimum is 5 MiB for all but the last. */
const PART_BYTES = 8 * 1024 * 1024;

/**
 * Blobs as objects of one S3 bucket: `<prefix><tenant>/<digest>`, so a
 * tenant's blobs are a key prefix of their own and a listing is per tenant.
 * A put is put-if-absent (`If-None-Match: *`; content-addressed, so a
 * refusal means the object is there); a get re-hashes the bytes (CORRUPT on a
 * mismatch); large objects go up in parts. Every request names the tenant's
 * key, so nothing of one tenant is reachable through another's calls; the
 * bucket's credentials are the operator's, never a tenant's.
 *
 * Ceph RGW and other S3-compatible servers: path-style addressing, and
 * request checksums only where the API requires them (the SDK's default
 * trailing checksums are refused by servers that do not know them).
 */
export class S3BlobStore implements BlobStore {
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly multipartBytes: number;

  constructor(options: S3BlobOptions) {
    const config: S3ClientConfig = {
      endpoint: options.endpoint,
      region: options.region ?? 'us-east-1',
      credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey },
      forcePathStyle: true,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    };
    this.client = new S3Client(config);
    this.bucket = options.bucket;
    this.prefix = options.prefix ?? '';
    this.multipartBytes = Math.max(options.multipartBytes ?? 16 * 1024 * 1024, 5 * 1024 * 1024);
  }

  private key(tenant: string, digest: string): string {
    checkTenant(tenant);
    checkDigest(digest);
    return `${this.prefix}${tenant}/${digest}`;
  }

  async put(tenant: string, bytes: Uint8Array, known?: string): Promise<string> {
    const digest = known ?? sha256Hex(bytes);
    const Key = this.key(tenant, digest);
    try {
      if (bytes.byteLength > this.multipartBytes) await this.putInParts(Key, bytes);
      else
        await this.client.send(
          new PutObjectCommand({ Bucket: this.bucket, Key, Body: bytes, IfNoneMatch: '*' }),
        );
    } catch (error) {
      // There already: the same name is the same bytes. A 409 is a conditional put racing another of the
      // same name (AWS): whichever wins stored these bytes, once it is there.
      if (statusOf(error) === 412) return digest;
      if (statusOf(error) === 409 && (await this.has(tenant, digest))) return digest;
      throw failure(error, `store blob ${digest}`);
    }
    return digest;
  }

  /** A multipart upload, aborted if any part fails (no half-object is ever visible). */
  private async putInParts(Key: string, bytes: Uint8Array): Promise<void> {
    const { UploadId } = await this.client.send(
      new CreateMultipartUploadCommand({ Bucket: this.bucket, Key }),
    );
    try {
      const parts: { ETag: string; PartNumber: number }[] = [];
      for (let offset = 0, n = 1; offset < bytes.byteLength; offset += PART_BYTES, n++) {
        const { ETag } = await this.client.send(
          new UploadPartCommand({
            Bucket: this.bucket,
            Key,
            UploadId,
            PartNumber: n,
            Body: bytes.subarray(offset, Math.min(bytes.byteLength, offset + PART_BYTES)),
          }),
        );
        parts.push({ ETag: ETag as string, PartNumber: n });
      }
      await this.client.send(
        new CompleteMultipartUploadCommand({
          Bucket: this.bucket,
          Key,
          UploadId,
          MultipartUpload: { Parts: parts },
          IfNoneMatch: '*',
        }),
      );
    } catch (error) {
      await this.client
        .send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key, UploadId }))
        .catch(() => undefined);
      throw error;
    }
  }

  private async read(tenant: string, digest: string, range?: string): Promise<Buffer | undefined> {
    const Key = this.key(tenant, digest);
    try {
      const answer = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key, Range: range }));
      // A server that ignored the range answers the whole object: not what was asked.
      if (
        range !== undefined &&
        !answer.ContentRange?.startsWith(`bytes ${range.slice('bytes='.length).split('-')[0]}-`)
      )
        return undefined;
      return Buffer.from(
        await (answer.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray(),
      );
    } catch (error) {
      const status = statusOf(error);
      if (status === 404 || (status === 416 && range !== undefined)) return undefined;
      throw failure(error, `read blob ${digest}`);
    }
  }

  async get(tenant: string, digest: string): Promise<Buffer> {
    const bytes = await this.read(tenant, digest);
    if (!bytes) throw notFound('blob', digest);
    return verifiedBlob(tenant, digest, bytes);
  }

  async getRange(tenant: string, digest: string, offset: number, length: number): Promise<Buffer> {
    if (length === 0) {
      if (!(await this.has(tenant, digest))) throw notFound('blob', digest);
      return Buffer.alloc(0);
    }
    const bytes = await this.read(tenant, digest, `bytes=${offset}-${offset + length - 1}`);
    // A range past the end: 416, or (a range that starts inside) fewer bytes than asked.
    if (!bytes || bytes.length !== length) {
      if (!bytes && !(await this.has(tenant, digest))) throw notFound('blob', digest);
      throw rangeNotFound(digest, offset, length);
    }
    return bytes;
  }

  async has(tenant: string, digest: string): Promise<boolean> {
    const Key = this.key(tenant, digest);
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key }));
      return true;
    } catch (error) {
      if (statusOf(error) === 404) return false;
      throw failure(error, `look for blob ${digest}`);
    }
  }

  async delete(tenant: string, digest: string): Promise<void> {
    const Key = this.key(tenant, digest);
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key }));
    } catch (error) {
      if (statusOf(error) === 404) return;
      throw failure(error, `delete blob ${digest}`);
    }
  }

  /** Every blob digest of a tenant, in key order, a page at a time. */
  async *list(tenant: string): AsyncGenerator<string> {
    checkTenant(tenant);
    const Prefix = `${this.prefix}${tenant}/`;
    for (let token: string | undefined; ; ) {
      const page = await this.client
        .send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix, ContinuationToken: token }))
        .catch((error: unknown) => {
          throw failure(error, `list the blobs of ${tenant}`);
        });
      for (const object of page.Contents ?? []) {
        const digest = (object.Key ?? '').slice(Prefix.length);
        if (/^[0-9a-f]{64}$/.test(digest)) yield digest;
        else
          throw corrupt(`object ${object.Key} in the blob bucket is not a blob's name`, { key: object.Key });
      }
      if (!page.IsTruncated) return;
      token = page.NextContinuationToken;
    }
  }

  /** Nothing is ever half-written: a PutObject stores the object whole or not at all. */
  async sweepTemporary(): Promise<number> {
    return 0;
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}

function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
}

/** What a failed request is to a caller: the server is unreachable or refused, and retrying may help. */
function failure(error: unknown, what: string) {
  const status = statusOf(error);
  const detail = error instanceof Error ? error.message : String(error);
  return unavailable(
    `could not ${what} in the S3 bucket (${status ?? 'no answer'}: ${detail}): check the endpoint, the bucket and its credentials`,
    {
      status,
    },
    { cause: error },
  );
}
