import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { chunkBytes, chunkStream, cutPoint, SMALL_FILE } from '../src/desk/chunker.js';

/** `data` as a stream of pieces cut at the given sizes (cycled). */
async function* pieces(data: Buffer, sizes: number[]) {
  for (let at = 0, i = 0; at < data.length; i++) {
    const size = sizes[i % sizes.length] as number;
    yield data.subarray(at, at + size);
    at += size;
  }
}

const MiB = 1024 * 1024;

describe('chunkStream: a stream cut as the same bytes whole', () => {
  // A seeded choice of sizes: around the small-file line, the chunker's bounds and well past them.
  const lengths = [0, 1, SMALL_FILE, SMALL_FILE + 1, 4 * MiB, 8 * MiB + 7, 23 * MiB + 12345];
  const splits = [[1 * MiB], [65536], [7 * MiB + 3], [1, 100_000, 3 * MiB], [64 * MiB]];
  const data = randomBytes(23 * MiB + 12345);
  for (const length of lengths)
    it(`${length} bytes, in pieces of every split`, async () => {
      const whole = data.subarray(0, length);
      const expected = [...chunkBytes(whole)].map((c) => [c.digest, c.offset, c.bytes.length]);
      if (length > SMALL_FILE) expect(expected.length).toBeGreaterThan(length > 8 * MiB ? 3 : 0);
      for (const split of splits) {
        const got: [string, number, number][] = [];
        const owned: Uint8Array[] = [];
        for await (const c of chunkStream(pieces(whole, split))) {
          got.push([c.digest, c.offset, c.bytes.length]);
          owned.push(c.bytes);
        }
        expect(got).toEqual(expected);
        // Each chunk's bytes are still its own once the stream has moved on.
        expect(Buffer.concat(owned).equals(whole)).toBe(true);
      }
    });

  it('refuses a stream of strings with INVALID_ARGUMENT', async () => {
    async function* text() {
      yield 'not bytes' as unknown as Uint8Array;
    }
    await expect(
      (async () => {
        for await (const _ of chunkStream(text())) void _;
      })(),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

describe('cut points', () => {
  it('are the store format’s: the same bytes cut where they always were (docs/design/desk.md)', () => {
    // 24 MiB of sha256 output; the lengths were recorded from the chunker as first written (uint32 arithmetic).
    const data = Buffer.alloc(24 * MiB);
    for (let i = 0, at = 0; at < data.length; i++, at += 32)
      createHash('sha256').update(`cairn-golden-${i}`).digest().copy(data, at);
    const cuts: number[] = [];
    for (let start = 0; start < data.length; ) {
      const length = cutPoint(data, start, data.length);
      cuts.push(length);
      start += length;
    }
    expect(cuts).toEqual([
      1066119, 873014, 562763, 1175830, 1100242, 1101678, 1095005, 2071804, 1059483, 1403849, 1500122,
      1160334, 1588203, 1332409, 1091686, 1146511, 1253460, 654997, 1158846, 718485, 313945, 1174261, 562778,
    ]);
  });
});

describe('chunkStream with chunks released as they are stored', () => {
  it('reuses a window only once every chunk cut from it is released', async () => {
    const data = randomBytes(40 * MiB + 3);
    const expected = [...chunkBytes(data)].map((c) => c.digest);
    const got: string[] = [];
    const kept: { digest: string; bytes: Uint8Array }[] = [];
    for await (const c of chunkStream(pieces(data, [MiB]))) {
      got.push(c.digest);
      // Every third chunk is kept (a put still running); the others are released at once.
      if (got.length % 3 === 0) kept.push(c);
      else c.release();
    }
    expect(got).toEqual(expected);
    for (const c of kept) expect(createHash('sha256').update(c.bytes).digest('hex')).toBe(c.digest);
  });
});
