/**
 * The S3 blob engine against a real S3 server (Ceph RGW, test/support/s3.ts):
 * the blob conformance suite unmodified, and what only this engine does —
 * put-if-absent, multipart uploads, per-tenant listing.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { S3BlobStore } from '../src/blob/s3/s3-blob-store.js';
import { sha256Hex } from '../src/digest.js';
import { describeBlobConformance } from '../src/testing/blob-conformance.js';
import { expectCode } from '../src/testing/expect-code.js';
import { describeS3, freshBucket, s3Skip } from './support/s3.js';

const A = 'tn_aaaaaaaaaaaaaaaaaaaaaaaaaa';
const B = 'tn_bbbbbbbbbbbbbbbbbbbbbbbbbb';

describeBlobConformance(
  'S3 (Ceph RGW)',
  async () => {
    const bucket = await freshBucket();
    return {
      blobs: bucket.blobs,
      tenants: [A, B],
      corrupt: (tenant, digest) => bucket.overwrite(`blobs/${tenant}/${digest}`, Buffer.from('tampered')),
      close: () => bucket.close(),
    };
  },
  { skip: s3Skip },
);

describeS3('the S3 blob engine', () => {
  let bucket: Awaited<ReturnType<typeof freshBucket>>;
  beforeAll(async () => {
    bucket = await freshBucket();
  });
  afterAll(() => bucket?.close());

  it('puts only when absent: a second put of a name does not replace what is there', async () => {
    const bytes = Buffer.from('the first bytes stored under this name');
    const digest = await bucket.blobs.put(A, bytes);
    // Behind the store's back, other bytes under the name; a put of the right bytes leaves them (If-None-Match: *).
    await bucket.overwrite(`blobs/${A}/${digest}`, Buffer.from('not these'));
    expect(await bucket.blobs.put(A, bytes)).toBe(digest);
    await expectCode(bucket.blobs.get(A, digest), 'CORRUPT');
  });

  it('uploads a large blob in parts and reads it back whole and by range', async () => {
    const bytes = randomBytes(11 * 1024 * 1024 + 17);
    const parts = new S3BlobStore({
      ...JSON.parse(process.env.CAIRN_TEST_S3 as string),
      bucket: bucket.bucket,
      prefix: 'parts/',
      multipartBytes: 5 * 1024 * 1024,
    });
    try {
      const digest = await parts.put(A, bytes);
      expect(digest).toBe(sha256Hex(bytes));
      expect((await parts.get(A, digest)).equals(bytes)).toBe(true);
      const middle = 8 * 1024 * 1024 - 5;
      expect((await parts.getRange(A, digest, middle, 10)).equals(bytes.subarray(middle, middle + 10))).toBe(
        true,
      );
      await expectCode(parts.getRange(A, digest, bytes.length - 2, 4), 'NOT_FOUND');
      expect(await parts.put(A, bytes)).toBe(digest);
    } finally {
      await parts.close();
    }
  });

  it('lists a tenant’s blobs under its own prefix, page after page, and no other tenant’s', async () => {
    // Past 1,000 objects: a listing page holds at most 1,000. Put sixteen at a time.
    const mine = new Set<string>();
    for (let i = 0; i < 1003; i += 16)
      for (const digest of await Promise.all(
        Array.from({ length: Math.min(16, 1003 - i) }, (_, k) =>
          bucket.blobs.put(B, Buffer.from(`blob ${i + k}`)),
        ),
      ))
        mine.add(digest);
    await bucket.blobs.put(A, Buffer.from('blob 1'));
    const listed: string[] = [];
    for await (const digest of bucket.blobs.list(B)) listed.push(digest);
    expect(listed.sort()).toEqual([...mine].sort());
  });

  it('a server that is not there is UNAVAILABLE, not a crash', async () => {
    const gone = new S3BlobStore({
      endpoint: 'http://127.0.0.1:9',
      bucket: 'nowhere',
      accessKeyId: 'x',
      secretAccessKey: 'y',
    });
    try {
      await expectCode(gone.get(A, 'a'.repeat(64)), 'UNAVAILABLE');
    } finally {
      await gone.close();
    }
  });
});
