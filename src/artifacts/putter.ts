/**
 * A publication's content on its way to the blob store: cut into chunks as
 * it arrives (./artifacts.ts commits each batch's rows first), then stored a
 * few at a time, bounded in count and bytes, each chunk's window released
 * once it is stored.
 */
import type { BlobStore } from '../blob/blob-store.js';
import { chunkBytes, chunkStream, type StreamChunk } from '../desk/chunker.js';

/** Chunks stored at once by a publication. */
const PUTS_AT_ONCE = 8;

/** Chunk rows committed per transaction while a publication streams in, and the bytes such a batch holds. */
export const ROWS_AT_ONCE = 16;
export const BATCH_BYTES = 4 * 1024 * 1024;
/**
 * Bytes of chunks being stored at once. A streamed publication holds at most
 * a batch (under BATCH_BYTES + MAX_CHUNK) and these, in the chunker's
 * windows (2 × MAX_CHUNK each, each cut into at least MAX_CHUNK of chunks),
 * plus the window being filled: (4 + 4 + 8) / 4 + 2 = 6 windows of 8 MiB,
 * the 48 MiB of STREAM_HOLD_BYTES (contract/spec.ts) a server budgets.
 */
const PUT_BYTES = 8 * 1024 * 1024;

/** Chunks stored a few at a time while the content goes on arriving; the first failure stops the rest. */
export class Putter {
  private readonly running = new Set<Promise<void>>();
  private bytes = 0;
  private failure: { error: unknown } | undefined;

  constructor(
    private readonly blobs: BlobStore,
    private readonly tenant: string,
  ) {}

  /** Starts storing a chunk once there is room (never past PUTS_AT_ONCE or PUT_BYTES); throws a put's failure. */
  async put(chunk: StreamChunk): Promise<void> {
    while (
      !this.failure &&
      this.running.size > 0 &&
      (this.running.size >= PUTS_AT_ONCE || this.bytes + chunk.bytes.length > PUT_BYTES)
    )
      await Promise.race(this.running);
    if (this.failure) throw this.failure.error;
    const length = chunk.bytes.length;
    this.bytes += length;
    const stored: Promise<void> = this.blobs
      .put(this.tenant, chunk.bytes, chunk.digest)
      .then(
        () => undefined,
        (error: unknown) => {
          this.failure ??= { error };
        },
      )
      .finally(() => {
        this.bytes -= length;
        this.running.delete(stored);
        chunk.release();
      });
    this.running.add(stored);
  }

  /** Waits for every put started; throws the first failure. */
  async done(): Promise<void> {
    await this.settled();
    if (this.failure) throw this.failure.error;
  }

  /** Waits for every put started, failed or not (before a cleanup deletes what they stored). */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }
}

/** Content's chunks: bytes in hand cut where they are (views, nothing copied); a stream cut as it arrives. */
export async function* chunksOf(
  content: Uint8Array | AsyncIterator<Uint8Array>,
): AsyncGenerator<StreamChunk> {
  if (!(content instanceof Uint8Array)) {
    yield* chunkStream({ [Symbol.asyncIterator]: () => content });
    return;
  }
  for (const chunk of chunkBytes(content)) yield { ...chunk, release: () => undefined };
}
