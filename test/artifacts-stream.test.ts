/**
 * Streamed publications (issue 21: "upload streamed, not buffered whole"):
 * over a real socket, through the remote client, the server stores a
 * publication's first chunks while its body is still arriving; a refusal
 * before or during the body answers with its typed error, never IN_DOUBT;
 * and a refused or cut-off publication leaves nothing stored.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RemoteFabric } from '../src/client/remote-fabric.js';
import { chunkBytes } from '../src/desk/chunker.js';
import { newId } from '../src/ids.js';
import type { Store } from '../src/store.js';
import { expectCode } from '../src/testing/expect-code.js';
import { remoteTarget, sqliteStore } from './support/stores.js';

const MiB = 1024 * 1024;

let store: Store;
let tenant: string;
let remote: RemoteFabric;
let session: string;
let close: () => Promise<void>;
let target: Awaited<ReturnType<typeof remoteTarget>>;

beforeAll(async () => {
  const opened = await sqliteStore();
  store = opened.store;
  target = await remoteTarget(store, opened.cleanup);
  remote = target.tenantA as RemoteFabric;
  tenant = (await store.authenticate(target.tokens.a)).tenant;
  session = (await remote.createSession({ title: 'streams' })).id;
  close = target.close;
});
afterAll(() => close());

/** `data` in pieces of 1 MiB, pausing before `pauseAt` bytes until `gate` resolves. */
async function* pieces(data: Buffer, pauseAt = Number.POSITIVE_INFINITY, gate?: Promise<void>) {
  for (let at = 0; at < data.length; at += MiB) {
    if (at >= pauseAt && gate) {
      await gate;
      gate = undefined;
    }
    yield data.subarray(at, at + MiB);
  }
}

/** Nothing of `data` is stored: no artifact, no bytes held, none of its chunks in the blob store. */
async function nothingStored(data: Buffer) {
  expect((await remote.listArtifacts({})).artifacts).toEqual([]);
  expect(await remote.artifactQuota({})).toMatchObject({ used: 0, artifacts: 0 });
  for (const chunk of chunkBytes(data)) expect(await store.blobs.has(tenant, chunk.digest)).toBe(false);
}

describe('a publication streamed over HTTP', () => {
  it('is stored as it arrives: its first chunks are held before the rest of the body is sent', async () => {
    const data = randomBytes(40 * MiB);
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const publishing = remote.publishArtifact({
      session,
      name: 'big.bin',
      bytes: pieces(data, 24 * MiB, gate),
    });
    // A server holding the body whole would count nothing until the last byte: the quota would stay at 0.
    let heldEarly = 0;
    for (let poll = 0; poll < 600 && heldEarly === 0; poll++) {
      heldEarly = (await remote.artifactQuota({})).used;
      if (heldEarly === 0) await new Promise((r) => setTimeout(r, 50));
    }
    release();
    const artifact = await publishing;
    expect(heldEarly).toBeGreaterThanOrEqual(4 * MiB);
    expect(heldEarly).toBeLessThanOrEqual(24 * MiB);
    expect(artifact.size).toBe(data.length);
    const back = await remote.readArtifact({ artifact: artifact.id, offset: 17 * MiB, length: MiB });
    expect(Buffer.from(back.bytes).equals(data.subarray(17 * MiB, 18 * MiB))).toBe(true);
    await remote.removeArtifact({ artifact: artifact.id });
    await nothingStored(data);
  });

  it('refused before its body is read (an unknown session): the typed error, not IN_DOUBT, and nothing stored', async () => {
    const data = randomBytes(48 * MiB);
    await expectCode(
      remote.publishArtifact({ session: newId('session'), name: 'x.bin', bytes: pieces(data) }),
      'NOT_FOUND',
    );
    // The connection that carried it is not left half-read: the next call works.
    await nothingStored(data);
  });

  it('refused while it arrives: past the quota, or longer than its declared size — the typed error, nothing stored', async () => {
    const data = randomBytes(30 * MiB);
    await remote.setArtifactQuota({ bytes: 12 * MiB });
    try {
      await expectCode(
        remote.publishArtifact({ session, name: 'over.bin', bytes: pieces(data) }),
        'QUOTA_EXCEEDED',
      );
      await nothingStored(data);
      // Declared up front: refused before a byte is stored.
      await expectCode(
        remote.publishArtifact({ session, name: 'over.bin', bytes: pieces(data), size: data.length }),
        'QUOTA_EXCEEDED',
      );
    } finally {
      await remote.setArtifactQuota({ bytes: 10 * 1024 * MiB });
    }
    const small = data.subarray(0, 10 * MiB);
    for (const size of [small.length - 1, small.length + 1])
      await expectCode(
        remote.publishArtifact({ session, name: 'lies.bin', bytes: pieces(small), size }),
        'INVALID_ARGUMENT',
      );
    await nothingStored(data);
  });

  it('cut off by its client (its source fails): nothing stored, and the server goes on serving', async () => {
    const data = randomBytes(20 * MiB);
    async function* failing() {
      yield* pieces(data.subarray(0, 16 * MiB));
      // Once the server holds some of it (a record and a batch of chunks), the source fails.
      for (let poll = 0; poll < 600 && (await remote.artifactQuota({})).used === 0; poll++)
        await new Promise((r) => setTimeout(r, 50));
      throw new Error('the disk went away');
    }
    const failed = await remote
      .publishArtifact({ session, name: 'cut.bin', bytes: failing() })
      .catch((e) => e);
    // The source's failure, typed as the caller's input: nothing was applied, so not IN_DOUBT.
    expect(failed).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(String(failed.message)).toMatch(/the disk went away/);
    // The server sees the body end early and discards what it had stored, its rows first and then its
    // chunks: poll until both are gone (or give up after 600 polls, and the checks below fail).
    const chunks = [...chunkBytes(data)].map((c) => c.digest);
    const held = async () =>
      (await remote.artifactQuota({})).artifacts > 0 ||
      (await Promise.all(chunks.map((d) => store.blobs.has(tenant, d)))).some(Boolean);
    for (let poll = 0; poll < 600 && (await held()); poll++) await new Promise((r) => setTimeout(r, 50));
    await nothingStored(data);
  });

  it('downloads whole or by any range, past one read’s 64 MiB: streamed a window at a time, the bytes and their digest', async () => {
    const data = randomBytes(70 * MiB);
    const artifact = await remote.publishArtifact({ session, name: 'huge.bin', bytes: pieces(data) });
    const url = `${target.server.url}/v1/artifacts/${artifact.id}/content`;
    const auth = { authorization: `Bearer ${target.tokens.a}` };
    const whole = await fetch(url, { headers: auth });
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-length')).toBe(String(data.length));
    expect(whole.headers.get('etag')).toBe(`"${artifact.digest}"`);
    expect(
      createHash('sha256')
        .update(Buffer.from(await whole.arrayBuffer()))
        .digest('hex'),
    ).toBe(artifact.digest);
    // A range across the 16 MiB windows, and one from a byte to the end.
    const [first, last] = [15 * MiB + 7, 50 * MiB + 3];
    const part = await fetch(url, { headers: { ...auth, range: `bytes=${first}-${last}` } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes ${first}-${last}/${data.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(data.subarray(first, last + 1))).toBe(true);
    const tail = await fetch(url, { headers: { ...auth, range: `bytes=${69 * MiB}-` } });
    expect(tail.status).toBe(206);
    expect(Buffer.from(await tail.arrayBuffer()).equals(data.subarray(69 * MiB))).toBe(true);
    await remote.removeArtifact({ artifact: artifact.id });
  });
});
