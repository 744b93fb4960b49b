import { createHash, randomBytes } from 'node:crypto';
import { type FileHandle, open, unlink } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';

/**
 * A request body read once, never whole in memory: the first
 * `memoryBytes` stay in memory, the rest goes to a temporary file that is
 * unlinked as soon as it is opened (only this process's descriptor reaches
 * it, and a crash leaves nothing behind). Its SHA-256 is taken from the
 * bytes as they arrive, so the digest an approval binds is the digest of
 * exactly the bytes that are later sent.
 */
export interface BodyRef {
  bytes: number;
  /** SHA-256, hex. */
  digest: string;
  /** The first bytes, for a person's preview of a held write. */
  head: Buffer;
}

export const DEFAULT_MEMORY_BYTES = 64 * 1024;
const HEAD_BYTES = 8 * 1024;

export type SpoolResult = { ok: true; body: SpooledBody } | { ok: false; tooLarge: true; read: number };

export class SpooledBody implements BodyRef {
  private constructor(
    readonly bytes: number,
    readonly digest: string,
    readonly head: Buffer,
    private readonly memory: Buffer[],
    private readonly file: FileHandle | undefined,
  ) {}

  static empty(): SpooledBody {
    return new SpooledBody(0, createHash('sha256').digest('hex'), Buffer.alloc(0), [], undefined);
  }

  /**
   * Reads `req` to its end, or stops at `limit` bytes (then the rest is left
   * unread: the caller answers 413 and closes the connection).
   */
  static async read(
    req: IncomingMessage,
    options: { limit: number; memoryBytes?: number; dir?: string },
  ): Promise<SpoolResult> {
    const memoryBytes = options.memoryBytes ?? DEFAULT_MEMORY_BYTES;
    const hash = createHash('sha256');
    const memory: Buffer[] = [];
    let size = 0;
    let file: FileHandle | undefined;
    // Events, not `for await`: leaving an async iterator early destroys the socket, and the
    // caller still has to answer.
    const outcome = await new Promise<'done' | 'too-large'>((resolve, reject) => {
      let writing = Promise.resolve();
      const fail = (error: unknown) => {
        req.off('data', onData);
        reject(error);
      };
      const onData = (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.limit) {
          req.off('data', onData);
          req.off('end', onEnd);
          req.pause();
          writing.then(() => resolve('too-large'), fail);
          return;
        }
        hash.update(chunk);
        if (!file && size <= memoryBytes) {
          memory.push(chunk);
          return;
        }
        req.pause();
        writing = writing
          .then(async () => {
            if (!file) {
              file = await openUnlinked(options.dir ?? tmpdir());
              for (const part of memory) await file.write(part);
              memory.length = 0;
            }
            await file.write(chunk);
            req.resume();
          })
          .catch(fail);
      };
      const onEnd = () => writing.then(() => resolve('done'), fail);
      req.on('data', onData);
      req.once('end', onEnd);
      req.once('error', fail);
      // A client that hangs up mid-body may end the request without 'end' or 'error'.
      req.once('close', () => {
        if (!req.complete)
          fail(new Error('the client closed the connection before its request body arrived'));
      });
    }).catch(async (error: unknown) => {
      await file?.close().catch(() => {});
      throw error;
    });
    if (outcome === 'too-large') {
      await file?.close().catch(() => {});
      return { ok: false, tooLarge: true, read: size };
    }
    const head = file ? await readHead(file) : Buffer.concat(memory).subarray(0, HEAD_BYTES);
    return { ok: true, body: new SpooledBody(size, hash.digest('hex'), head, memory, file) };
  }

  /** Whether the body went to a temporary file. */
  get spooled(): boolean {
    return this.file !== undefined;
  }

  /** The body's bytes from the start; may be called more than once. */
  stream(): Readable {
    if (!this.file) return Readable.from(this.memory.length > 0 ? [Buffer.concat(this.memory)] : []);
    return this.file.createReadStream({ start: 0, autoClose: false });
  }

  async discard(): Promise<void> {
    await this.file?.close().catch(() => {});
  }
}

async function openUnlinked(dir: string): Promise<FileHandle> {
  const path = join(dir, `cairn-proxy-body-${randomBytes(12).toString('hex')}`);
  const file = await open(path, 'wx+', 0o600);
  try {
    await unlink(path);
  } catch (error) {
    await file.close().catch(() => {});
    throw error;
  }
  return file;
}

async function readHead(file: FileHandle): Promise<Buffer> {
  const head = Buffer.alloc(HEAD_BYTES);
  const { bytesRead } = await file.read(head, 0, HEAD_BYTES, 0);
  return head.subarray(0, bytesRead);
}
