/**
 * An S3-compatible server for test suites: Debian's Ceph RGW, started by
 * `scripts/s3-radosgw.sh` (a single-node cluster: one monitor, one memstore
 * OSD, RGW's beast frontend on loopback). `.ci/run` starts it and hands its
 * address on.
 *
 * Environment:
 *
 * - `CAIRN_TEST_S3`: the JSON line `scripts/s3-radosgw.sh start DIR` prints
 *   (`{"endpoint", "accessKeyId", "secretAccessKey", "region"}`).
 * - `CAIRN_REQUIRE_S3=1`: the server must be there; without it the suites
 *   fail instead of being skipped. Set in CI.
 *
 * Without it the suites declared with `describeS3` are skipped, each saying
 * why. Every suite gets a bucket of its own (`freshBucket`), so none leans on
 * another's objects.
 */
import { randomBytes } from 'node:crypto';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { describe } from 'vitest';
import { S3BlobStore } from '../../src/blob/s3/s3-blob-store.js';

interface S3Server {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
}

function server(): { s3?: S3Server; reason: string } {
  const text = process.env.CAIRN_TEST_S3;
  if (!text)
    return {
      reason:
        'no S3 server: start one with `scripts/s3-radosgw.sh start DIR` and set CAIRN_TEST_S3 to the line it prints (.ci/run does)',
    };
  try {
    const s3 = JSON.parse(text) as S3Server;
    if (!s3.endpoint || !s3.accessKeyId || !s3.secretAccessKey) throw new Error('missing fields');
    return { s3: { region: 'us-east-1', ...s3 }, reason: '' };
  } catch (error) {
    throw new Error(
      `CAIRN_TEST_S3 is not the JSON line scripts/s3-radosgw.sh prints: ${(error as Error).message}`,
    );
  }
}

const found = server();
if (!found.s3 && process.env.CAIRN_REQUIRE_S3 === '1')
  throw new Error(`CAIRN_REQUIRE_S3=1 but ${found.reason}`);

/** Why the S3 suites are skipped, or undefined when the server is there. */
export const s3Skip: string | undefined = found.s3 ? undefined : found.reason;

let warned = false;

/** `describe` for a suite that needs the S3 server: skipped, saying why, when it is not there. */
export function describeS3(name: string, fn: () => void): void {
  if (s3Skip && !warned) {
    warned = true;
    console.warn(`[cairn] skipping S3 suites: ${s3Skip}`);
  }
  describe.skipIf(s3Skip !== undefined)(s3Skip ? `${name} (skipped: ${s3Skip})` : name, fn);
}

function client(s3: S3Server): S3Client {
  return new S3Client({
    endpoint: s3.endpoint,
    region: s3.region,
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/** A new bucket of the test server and a blob store over it; `overwrite` writes an object behind the store's back. */
export async function freshBucket(): Promise<{
  blobs: S3BlobStore;
  bucket: string;
  /** The options `blobs` was made with: for another store (a child process's) over the same bucket. */
  options: ConstructorParameters<typeof S3BlobStore>[0];
  overwrite(key: string, bytes: Uint8Array): Promise<void>;
  close(): Promise<void>;
}> {
  const s3 = found.s3;
  if (!s3) throw new Error(`no S3 server: ${found.reason}`);
  const raw = client(s3);
  const bucket = `cairn-test-${randomBytes(6).toString('hex')}`;
  await raw.send(new CreateBucketCommand({ Bucket: bucket }));
  const options = { ...s3, bucket, prefix: 'blobs/' };
  const blobs = new S3BlobStore(options);
  return {
    blobs,
    bucket,
    options,
    overwrite: async (key, bytes) => {
      await raw.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: bytes }));
    },
    close: async () => {
      await blobs.close();
      raw.destroy();
    },
  };
}
