import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { invalidArgument } from '../errors.js';

/**
 * Content-defined chunking (FastCDC with normalised chunking, gear hash):
 * a cut point depends only on the bytes just before it, so an edit inside a
 * large file moves the cuts near the edit and no others, and the unchanged
 * chunks deduplicate. No maintained JavaScript FastCDC exists on npm (the one
 * WebAssembly port is a 0.1 release), so the ~40 lines live here; the gear
 * table and the sizes below are part of the store format (docs/design/desk.md).
 */
export const SMALL_FILE = 512 * 1024;
const MIN = 256 * 1024;
const AVG = 1024 * 1024;
const MAX = 4 * 1024 * 1024;
// Normalised chunking: harder to cut before the average size, easier after.
// The masks take the top bits, which depend on the most recent 32 bytes.
const MASK_HARD = 0xfffffc00 >>> 0; // 22 bits: p = 2^-22 per byte before AVG
const MASK_EASY = 0xffffc000 >>> 0; // 18 bits: p = 2^-18 per byte after AVG

const GEAR = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    table[i] = createHash('sha256').update(`cairn-gear-${i}`).digest().readUInt32BE(0);
  }
  // Signed 32-bit views of the same bits: the loop below stays in small integers (≈ 8% faster than uint32).
  return new Int32Array(table.buffer);
})();
const HARD = MASK_HARD | 0;
const EASY = MASK_EASY | 0;

/** Length of the first chunk of `data` (all of it when it is no longer than MIN). */
export function cutPoint(data: Uint8Array, start: number, end: number): number {
  const length = end - start;
  if (length <= MIN) return length;
  const normal = start + Math.min(length, AVG);
  const limit = start + Math.min(length, MAX);
  const gear = GEAR;
  let hash = 0;
  let i = start + MIN;
  for (; i < normal; i++) {
    hash = ((hash << 1) + gear[data[i] as number]!) | 0;
    if ((hash & HARD) === 0) return i + 1 - start;
  }
  for (; i < limit; i++) {
    hash = ((hash << 1) + gear[data[i] as number]!) | 0;
    if ((hash & EASY) === 0) return i + 1 - start;
  }
  return limit - start;
}

export interface Chunk {
  digest: string;
  bytes: Buffer;
  /** false: `bytes` is a view of a read window that the next chunk overwrites. */
  owned: boolean;
  /**
   * Large files: `bytes` followed by up to LOOKAHEAD bytes of what comes
   * next (a view of the same window), so a scanner sees whatever straddles
   * the cut.
   */
  window?: Buffer;
}

/** Bytes past a chunk's end that its `window` also shows (the guard's scan overlap). */
export const LOOKAHEAD = 64 * 1024;

export function digestOf(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Bytes in memory cut as `chunkFile` cuts a file of the same bytes: the
 * same chunks, so equal content has equal chunk lists wherever it came from
 * (an artifact and the snapshot file it was published from). Each chunk is a
 * view of `data`.
 */
export function* chunkBytes(
  data: Uint8Array,
): Generator<{ digest: string; bytes: Uint8Array; offset: number }> {
  if (data.length <= SMALL_FILE) {
    if (data.length > 0) yield { digest: digestOf(data), bytes: data, offset: 0 };
    return;
  }
  for (let start = 0; start < data.length; ) {
    const length = cutPoint(data, start, data.length);
    const bytes = data.subarray(start, start + length);
    yield { digest: digestOf(bytes), bytes, offset: start };
    start += length;
  }
}

/** A chunk of a stream: a view of a window that is reused once every chunk cut from it is released. */
export interface StreamChunk {
  digest: string;
  bytes: Uint8Array;
  offset: number;
  /** Done with `bytes` (stored, or dropped): their window may be reused. Leaving a chunk unreleased only costs memory. */
  release(): void;
}

/** The windows a stream is cut in: 2 × MAX, so each holds at least MAX bytes of chunks. */
const STREAM_WINDOW = 2 * MAX;
/** Windows a stream keeps for reuse. */
const STREAM_WINDOWS_KEPT = 4;

/**
 * Windows of one stream, each reused once the chunker has moved past it and
 * every chunk cut from it is released: a fresh 8 MiB buffer per window cost
 * more in page faults than cutting and hashing its bytes.
 */
class WindowPool {
  private readonly free: Buffer[] = [];

  take(): { buffer: Buffer; refs: number } {
    return { buffer: this.free.pop() ?? Buffer.allocUnsafeSlow(STREAM_WINDOW), refs: 1 };
  }

  release(window: { buffer: Buffer; refs: number }): void {
    window.refs -= 1;
    if (window.refs === 0 && this.free.length < STREAM_WINDOWS_KEPT) this.free.push(window.buffer);
  }
}

/**
 * A stream of bytes cut as {@link chunkBytes} cuts the same bytes whole: a
 * cut point never looks past MAX bytes, so one decided with MAX bytes in
 * hand (or at the end) is final. The pieces are copied into windows; each
 * chunk is a view of one, valid until its `release`.
 */
export async function* chunkStream(source: AsyncIterable<Uint8Array>): AsyncGenerator<StreamChunk> {
  const pool = new WindowPool();
  let window = pool.take();
  let start = 0;
  let end = 0;
  let offset = 0;
  let large = false;
  const chunk = (length: number): StreamChunk => {
    const bytes = window.buffer.subarray(start, start + length);
    const held = window;
    held.refs += 1;
    let released = false;
    const cut = {
      digest: digestOf(bytes),
      bytes,
      offset,
      release: () => {
        if (released) return;
        released = true;
        pool.release(held);
      },
    };
    start += length;
    offset += length;
    return cut;
  };
  try {
    for await (const piece of source) {
      if (!(piece instanceof Uint8Array))
        throw invalidArgument(
          'a stream of content yields bytes (Uint8Array or Buffer): open it without an encoding',
          {
            field: 'bytes',
          },
        );
      for (let at = 0; at < piece.length; ) {
        if (end === STREAM_WINDOW) {
          // Full: cut what is final, then carry the rest (under MAX) to the start of another window.
          large = true;
          while (end - start >= MAX) yield chunk(cutPoint(window.buffer, start, end));
          const next = pool.take();
          window.buffer.copy(next.buffer, 0, start, end);
          end -= start;
          start = 0;
          pool.release(window);
          window = next;
        }
        const n = Math.min(piece.length - at, STREAM_WINDOW - end);
        window.buffer.set(piece.subarray(at, at + n), end);
        end += n;
        at += n;
      }
    }
    if (!large && end <= SMALL_FILE) {
      if (end > 0) yield chunk(end);
      return;
    }
    while (start < end) yield chunk(cutPoint(window.buffer, start, end));
  } finally {
    pool.release(window);
  }
}

/**
 * Reads a file and yields its chunks in order, holding at most two maximum
 * chunk sizes in memory whatever the file size. Small files (by the size the
 * scan saw) are one chunk.
 */
export function* chunkFile(path: string, size: number): Generator<Chunk> {
  const fd = openSync(path, 'r');
  try {
    if (size <= SMALL_FILE) {
      const bytes = Buffer.allocUnsafe(size);
      let got = 0;
      while (got < size) {
        const n = readSync(fd, bytes, got, size - got, got);
        if (n === 0) break;
        got += n;
      }
      const whole = got === size ? bytes : bytes.subarray(0, got);
      if (whole.length > 0) yield { digest: digestOf(whole), bytes: whole, owned: true };
      // A file that changes while being read is caught by the next scan: its mtime is recent (racy).
      return;
    }
    yield* chunkFrom(fd, 0);
  } finally {
    closeSync(fd);
  }
}

/**
 * Read windows of 2 × MAX, reused across files: allocating a fresh 8 MiB
 * window per large file left each for the garbage collector and pushed peak
 * memory up. Each running chunker takes its own window, so concurrent
 * checkpoints never share one.
 */
const windows: Buffer[] = [];

/**
 * Copies of one chunk and its look-ahead (a scan's window), each in a
 * buffer of its own so it can move to the scan worker and back, reused once
 * the chunk is stored: a fresh one per chunk left ~1 MiB for the garbage
 * collector per chunk, paid by whatever ran next.
 */
const copies: Buffer[] = [];
const COPY_BYTES = MAX + LOOKAHEAD;
const COPIES_KEPT = 8;

/** A copy of `window` (at most a chunk and its look-ahead) in a buffer of its own; give it back with {@link returnCopy}. */
export function copyWindow(window: Uint8Array): Buffer {
  const buffer = copies.pop() ?? Buffer.allocUnsafeSlow(COPY_BYTES);
  const copy = buffer.subarray(0, window.length);
  copy.set(window);
  return copy;
}

/** Returns a copy from {@link copyWindow} once nothing refers to its bytes any more. */
export function returnCopy(copy: Buffer): void {
  if (copy.buffer.byteLength === COPY_BYTES && copies.length < COPIES_KEPT) {
    copies.push(Buffer.from(copy.buffer, 0, COPY_BYTES));
  }
}

function* chunkFrom(fd: number, offset: number): Generator<Chunk> {
  const buffer = windows.pop() ?? Buffer.allocUnsafe(2 * MAX);
  try {
    yield* cutWindow(fd, offset, buffer);
  } finally {
    if (windows.length < 2) windows.push(buffer);
  }
}

function* cutWindow(fd: number, offset: number, buffer: Buffer): Generator<Chunk> {
  let start = 0;
  let end = 0;
  let position = offset;
  let eof = false;
  for (;;) {
    // Refilling earlier than MAX leaves the cut points alone (they never look past MAX) and keeps
    // LOOKAHEAD bytes after every chunk in the window.
    if (!eof && end - start < MAX + LOOKAHEAD) {
      if (start > 0) {
        buffer.copy(buffer, 0, start, end);
        end -= start;
        start = 0;
      }
      while (end < buffer.length) {
        const n = readSync(fd, buffer, end, buffer.length - end, position);
        if (n === 0) {
          eof = true;
          break;
        }
        end += n;
        position += n;
      }
    }
    if (start === end) return;
    const length = cutPoint(buffer, start, end);
    // A view: valid until the generator resumes (the window is then moved and refilled).
    const bytes = buffer.subarray(start, start + length);
    const window = buffer.subarray(start, Math.min(end, start + length + LOOKAHEAD));
    start += length;
    yield { digest: digestOf(bytes), bytes, owned: false, window };
  }
}
