import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlobStore } from '../blob/blob-store.js';
import { sha256Hex } from '../digest.js';
import { expectCode } from './expect-code.js';

/** The blob-store conformance suite, run against every blob engine. */
export interface BlobConformanceTarget {
  blobs: BlobStore;
  /** Two tenant ids that exist in the store. */
  tenants: [string, string];
  /** Overwrites the stored bytes of a blob behind the store's back. */
  corrupt(tenant: string, digest: string): Promise<void>;
  close(): Promise<void>;
}

export function describeBlobConformance(
  name: string,
  open: () => Promise<BlobConformanceTarget>,
  options: { skip?: string } = {},
): void {
  const title = options.skip ? `${name} (skipped: ${options.skip})` : name;
  describe.skipIf(options.skip !== undefined)(`blob conformance: ${title}`, () => {
    let target: BlobConformanceTarget;
    beforeAll(async () => {
      target = await open();
    });
    afterAll(async () => target?.close());

    it('puts by digest, gets the same bytes back, and reports presence', async () => {
      const [t] = target.tenants;
      const bytes = Buffer.from('hello, cairn');
      const digest = await target.blobs.put(t, bytes);
      expect(digest).toBe(sha256Hex(bytes));
      expect(await target.blobs.has(t, digest)).toBe(true);
      expect(Buffer.compare(await target.blobs.get(t, digest), bytes)).toBe(0);
      expect(await target.blobs.put(t, bytes)).toBe(digest);
      const empty = await target.blobs.put(t, new Uint8Array(0));
      expect((await target.blobs.get(t, empty)).length).toBe(0);
    });

    it('reads a byte range, and refuses a range past the end or of a missing blob', async () => {
      const [t1, t2] = target.tenants;
      const digest = await target.blobs.put(t1, Buffer.from('0123456789'));
      expect((await target.blobs.getRange(t1, digest, 3, 4)).toString()).toBe('3456');
      expect((await target.blobs.getRange(t1, digest, 0, 10)).toString()).toBe('0123456789');
      await expectCode(target.blobs.getRange(t1, digest, 8, 4), 'NOT_FOUND');
      await expectCode(target.blobs.getRange(t2, digest, 0, 1), 'NOT_FOUND');
    });

    it('deletes, and deleting twice is harmless', async () => {
      const [t] = target.tenants;
      const digest = await target.blobs.put(t, Buffer.from('short-lived'));
      await target.blobs.delete(t, digest);
      await target.blobs.delete(t, digest);
      expect(await target.blobs.has(t, digest)).toBe(false);
      await expectCode(target.blobs.get(t, digest), 'NOT_FOUND');
    });

    it('keeps tenants apart: the same bytes are two objects, invisible across tenants', async () => {
      const [t1, t2] = target.tenants;
      const digest = await target.blobs.put(t1, Buffer.from('tenant one only'));
      expect(await target.blobs.has(t2, digest)).toBe(false);
      await expectCode(target.blobs.get(t2, digest), 'NOT_FOUND');
      await target.blobs.put(t2, Buffer.from('tenant one only'));
      await target.blobs.delete(t2, digest);
      expect(await target.blobs.has(t1, digest)).toBe(true);
    });

    it("lists a tenant's blobs, and none of another tenant's", async () => {
      const [t1, t2] = target.tenants;
      const mine = await Promise.all(
        ['listed one', 'listed two', 'listed three'].map((text) => target.blobs.put(t1, Buffer.from(text))),
      );
      const theirs = await target.blobs.put(t2, Buffer.from('listed for tenant two only'));
      const listed: string[] = [];
      for await (const digest of target.blobs.list(t1)) listed.push(digest);
      expect(listed).toEqual(expect.arrayContaining(mine));
      expect(listed).not.toContain(theirs);
      await target.blobs.delete(t1, mine[0] as string);
      const after: string[] = [];
      for await (const digest of target.blobs.list(t1)) after.push(digest);
      expect(after).not.toContain(mine[0]);
      expect(after).toEqual(expect.arrayContaining(mine.slice(1)));
    });

    it('sweeping temporary files deletes no blob, however late the cutoff', async () => {
      const [t] = target.tenants;
      const digest = await target.blobs.put(t, Buffer.from('a blob, not a leftover'));
      expect(await target.blobs.sweepTemporary(t, Date.now() + 24 * 60 * 60 * 1000)).toBeGreaterThanOrEqual(
        0,
      );
      expect(await target.blobs.has(t, digest)).toBe(true);
      expect((await target.blobs.get(t, digest)).toString()).toBe('a blob, not a leftover');
    });

    it('reports corrupt content instead of returning it', async () => {
      const [t] = target.tenants;
      const digest = await target.blobs.put(t, Buffer.from('precious bytes'));
      await target.corrupt(t, digest);
      await expectCode(target.blobs.get(t, digest), 'CORRUPT');
    });

    it('rejects a malformed digest or tenant with INVALID_ARGUMENT', async () => {
      const [t] = target.tenants;
      await expectCode(target.blobs.get(t, '../../etc/passwd'), 'INVALID_ARGUMENT');
      await expectCode(target.blobs.get('../x', 'a'.repeat(64)), 'INVALID_ARGUMENT');
    });
  });
}
