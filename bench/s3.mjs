// Blobs on S3 (issue 21), against a real S3 server: Ceph RGW started by
// scripts/s3-radosgw.sh (or the one $CAIRN_TEST_S3 names). Two stores on the
// same engine (SQLite) side by side, one with blobs in a folder, one with
// blobs in a bucket:
// - a desk checkpoint after 10 edits of a CAIRN_BENCH_S3_FILES-file tree
//   (default 2,000), medians of CAIRN_BENCH_S3_ROUNDS alternated (target:
//   S3 ≤ 1.5× the folder; small checkpoints ride inline in the database);
// - publishing a 100 MB artifact on the S3 store beside a plain multipart
//   PutObject of the same bytes (8 MiB parts, the engine's) into the same
//   bucket (target ≥ 0.7×).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, fromDist, ms, now, report, tempDir } from './lib.mjs';
import { generateTree, prng, scaled } from './tree-gen.mjs';

const ROUNDS = Number(process.env.CAIRN_BENCH_S3_ROUNDS ?? 9);
const FILES = Number(process.env.CAIRN_BENCH_S3_FILES ?? 2000);
const PUBLISH_ROUNDS = Number(process.env.CAIRN_BENCH_S3_PUBLISH_ROUNDS ?? 3);
const MB = 1024 * 1024;
const script = fileURLToPath(new URL('../scripts/s3-radosgw.sh', import.meta.url));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const { dir, cleanup } = tempDir('s3');
let server = process.env.CAIRN_TEST_S3 ? JSON.parse(process.env.CAIRN_TEST_S3) : undefined;
const ours = !server;
if (ours) {
  const started = spawnSync(script, ['start', join(dir, 'rgw')], { encoding: 'utf8' });
  if (started.status !== 0) throw new Error(`could not start Ceph RGW: ${started.stderr}`);
  server = JSON.parse(started.stdout);
}
const {
  S3Client,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  UploadPartCommand,
  CompleteMultipartUploadCommand,
} = await import('@aws-sdk/client-s3');
const raw = new S3Client({
  endpoint: server.endpoint,
  region: server.region ?? 'us-east-1',
  credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
  forcePathStyle: true,
  requestChecksumCalculation: 'WHEN_REQUIRED',
  responseChecksumValidation: 'WHEN_REQUIRED',
});
const bucket = `cairn-bench-${randomBytes(4).toString('hex')}`;
await raw.send(new CreateBucketCommand({ Bucket: bucket }));

const { Store } = await fromDist('store.js');
const { S3BlobStore } = await fromDist('blob/s3/s3-blob-store.js');
const onFolder = await Store.openDir(join(dir, 'fs-store'));
const base = await Store.openDir(join(dir, 's3-store'));
const onS3 = new Store(
  base.engine,
  new S3BlobStore({ ...server, bucket, prefix: 'store/' }),
  join(dir, 's3-desk'),
);

try {
  // The desk: the same tree twice, one per store; the same 10 edits to both each round.
  const trees = { fs: join(dir, 'tree-fs'), s3: join(dir, 'tree-s3') };
  const tree = generateTree(trees.fs, scaled(FILES / 10_000));
  cpSync(trees.fs, trees.s3, { recursive: true });
  const desks = {};
  const attach = {};
  for (const [name, store] of [
    ['fs', onFolder],
    ['s3', onS3],
  ]) {
    const desk = store.desk(await store.localIdentity(), {
      host: 'bench',
      watch: false,
      stateDir: join(dir, `${name}-state`),
    });
    const t = now();
    const { workspace } = await desk.attach({ dir: trees[name] });
    attach[name] = ms(t);
    desks[name] = { desk, workspace };
  }
  const rand = prng(7);
  const times = { fs: [], s3: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const chosen = new Set();
    while (chosen.size < 10) chosen.add(tree.textFiles[Math.floor(rand() * tree.textFiles.length)]);
    for (const rel of chosen)
      for (const root of Object.values(trees))
        writeFileSync(join(root, rel), `${readFileSync(join(root, rel), 'utf8')}// ${round}\n`);
    for (const name of round % 2 === 0 ? ['fs', 's3'] : ['s3', 'fs']) {
      const { desk, workspace } = desks[name];
      const t = now();
      await desk.checkpoint(workspace.id);
      times[name].push(ms(t));
    }
  }
  console.log(
    `s3 — ${tree.files} files; desk checkpoints after 10 edits, ${ROUNDS} rounds alternated (medians)`,
  );
  console.log(`  attach (first snapshot): folder ${fmt(attach.fs)} ms, S3 ${fmt(attach.s3)} ms`);
  report({
    metric: 'desk checkpoint after 10 edits, blobs on S3',
    unit: 'ms',
    ours: median(times.s3),
    baseline: median(times.fs),
    baselineLabel: 'the same, blobs in a folder',
    target: '≤ 1.5× baseline',
    pass: median(times.s3) <= 1.5 * median(times.fs),
  });
  for (const { desk } of Object.values(desks)) await desk.close();

  // Publishing 100 MB on the S3 store beside a multipart PutObject of the same bytes.
  const fabric = onS3.fabric(await onS3.localIdentity());
  const session = (await fabric.createSession({ title: 'bench' })).id;
  const bytes = randomBytes(100 * MB);
  const timings = { ours: [], put: [] };
  for (let round = 0; round < PUBLISH_ROUNDS; round++) {
    bytes[0] = round; // new bytes each round: a publication of bytes the tenant holds stores nothing
    for (const which of round % 2 === 0 ? ['ours', 'put'] : ['put', 'ours']) {
      const t = now();
      if (which === 'ours') await fabric.publishArtifact({ session, name: `r${round}.bin`, bytes });
      else {
        const Key = `plain/r${round}`;
        const { UploadId } = await raw.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key }));
        const Parts = [];
        for (let off = 0, n = 1; off < bytes.length; off += 8 * MB, n++) {
          const { ETag } = await raw.send(
            new UploadPartCommand({
              Bucket: bucket,
              Key,
              UploadId,
              PartNumber: n,
              Body: bytes.subarray(off, off + 8 * MB),
            }),
          );
          Parts.push({ ETag, PartNumber: n });
        }
        await raw.send(
          new CompleteMultipartUploadCommand({ Bucket: bucket, Key, UploadId, MultipartUpload: { Parts } }),
        );
      }
      timings[which].push(ms(t));
    }
  }
  const mbps = (t) => 100 / (t / 1000);
  report({
    metric: 'publishArtifact of 100 MB, blobs on S3, throughput',
    unit: 'MB/s',
    ours: mbps(median(timings.ours)),
    baseline: mbps(median(timings.put)),
    baselineLabel: 'multipart PutObject of the same bytes, 8 MiB parts',
    target: '≥ 0.7× baseline',
    pass: mbps(median(timings.ours)) >= 0.7 * mbps(median(timings.put)),
  });
} finally {
  await onS3.blobs.close();
  await onFolder.close();
  await base.close();
  raw.destroy();
  if (ours) spawnSync(script, ['stop', join(dir, 'rgw')]);
  cleanup();
}
