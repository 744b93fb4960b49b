/**
 * Large files are scanned on a worker thread, so on a machine with a second
 * core the guard's byte pass runs while the checkpoint reads, hashes and
 * stores the next chunk (the caller keeps one chunk's verdict outstanding).
 * Small files go there too, in batches (one message for many files, the
 * bytes copied once into the batch and moved, not cloned): a scan that
 * defers their verdicts reads and hashes the next files meanwhile.
 * The worker is started on first use, does not keep the process alive, and
 * is stopped by `close`. Where the built worker module is not there (the
 * library run from its TypeScript sources), scanning stays on the caller's
 * thread: the same StreamScan either way.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { SecretFinding, WholeScan } from './scan.js';

export type ScanRequest =
  | { type: 'feed'; id: number; file: number; path: string; abs: string; window: Uint8Array; offset: number }
  | { type: 'end'; file: number }
  | { type: 'batch'; id: number; paths: string[]; ends: number[]; bytes: Uint8Array };

export type ScanReply =
  | { id: number; findings: SecretFinding[]; window: Uint8Array }
  | { id: number; results: WholeScan[] }
  | { id: number; error: string };

/** Buffers at least this large are not slices of Node's shared pool for small buffers (8 KiB). */
const OWN_BUFFER_MIN = 64 * 1024;

/** A batch of small files is sent once it holds this many bytes or files (or when its caller yields). */
const BATCH_BYTES = 1024 * 1024;
const BATCH_FILES = 256;

interface Batch {
  paths: string[];
  files: Buffer[];
  bytes: number;
  waiting: { resolve: (scan: WholeScan) => void; reject: (e: Error) => void }[];
}

const WORKER_URL = new URL('./scan-worker.js', import.meta.url);

export class ScanWorker {
  private worker: Worker | null = null;
  private nextId = 1;
  private nextFile = 1;
  private readonly waiting = new Map<
    number,
    { resolve: (reply: ScanReply) => void; reject: (e: Error) => void }
  >();
  private batch: Batch | null = null;
  /** Windows of large files, and small files, scanned on the worker (for tests and benchmarks). */
  windows = 0;
  wholeFiles = 0;

  /** Whether the built worker module exists beside this one. */
  static available(): boolean {
    return WORKER_URL.protocol === 'file:' && existsSync(fileURLToPath(WORKER_URL));
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_URL);
    worker.on('message', (reply: ScanReply) => {
      const waiter = this.waiting.get(reply.id);
      if (!waiter) return;
      this.waiting.delete(reply.id);
      // Idle, the worker does not keep the process alive; a scan in flight does.
      if (this.waiting.size === 0) worker.unref();
      if ('error' in reply) waiter.reject(new Error(`the secret scan failed: ${reply.error}`));
      else waiter.resolve(reply);
    });
    const fail = (error: Error) => {
      this.failBatch(error);
      for (const waiter of this.waiting.values()) waiter.reject(error);
      this.waiting.clear();
      this.worker = null;
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      if (this.worker === worker) fail(new Error(`the secret scan worker stopped (exit ${code})`));
    });
    worker.unref();
    this.worker = worker;
    return worker;
  }

  /** Starts the worker thread (if it is not running), so that its start overlaps other work. */
  warm(): void {
    this.start();
  }

  /** A number naming one file's stream on the worker. */
  open(): number {
    return this.nextFile++;
  }

  /**
   * Sends a copy of `window` (so the caller may reuse its buffer at once) and
   * resolves with every finding of that file so far.
   */
  /**
   * Moves `window` to the worker and resolves with every finding of that
   * file so far, and the window, moved back. The whole buffer under the
   * window moves: the caller hands it over (the desk's window copies are
   * buffers of their own); a view into Node's shared small-buffer pool, or
   * one not at the start of its buffer, is copied instead.
   */
  feed(
    file: number,
    path: string,
    abs: string,
    window: Buffer,
    offset: number,
  ): Promise<{ findings: SecretFinding[]; window: Buffer }> {
    const own =
      window.byteOffset === 0 &&
      window.buffer instanceof ArrayBuffer &&
      window.buffer.byteLength >= OWN_BUFFER_MIN;
    const moved = own ? window : Buffer.from(window);
    this.windows++;
    return this.send((id) => ({ type: 'feed', id, file, path, abs, window: moved, offset }), moved).then(
      (reply) => {
        // Fail closed: an answer of the wrong shape is never read as clean.
        if (!('findings' in reply))
          throw new Error('the secret scan worker answered a window with no findings list');
        const back = reply.window;
        return {
          findings: reply.findings,
          window: Buffer.from(back.buffer, back.byteOffset, back.byteLength),
        };
      },
    );
  }

  /**
   * Queues one small file's bytes for a batch scan (they are copied when the
   * batch goes out: the caller must not change them before it resolves) and
   * resolves with what the scan found. A batch goes out
   * when full or once the caller's thread yields.
   */
  whole(path: string, bytes: Buffer): Promise<WholeScan> {
    let batch = this.batch;
    if (!batch) {
      batch = { paths: [], files: [], bytes: 0, waiting: [] };
      this.batch = batch;
      setImmediate(() => this.flush(batch as Batch));
    }
    batch.paths.push(path);
    batch.files.push(bytes);
    batch.bytes += bytes.length;
    this.wholeFiles++;
    const answer = new Promise<WholeScan>((resolve, reject) => batch.waiting.push({ resolve, reject }));
    if (batch.bytes >= BATCH_BYTES || batch.files.length >= BATCH_FILES) this.flush(batch);
    return answer;
  }

  private flush(batch: Batch): void {
    if (this.batch !== batch) return;
    this.batch = null;
    const bytes = new Uint8Array(batch.bytes);
    const ends: number[] = [];
    let at = 0;
    for (const file of batch.files) {
      bytes.set(file, at);
      at += file.length;
      ends.push(at);
    }
    this.send((id) => ({ type: 'batch', id, paths: batch.paths, ends, bytes }), bytes).then(
      (reply) => {
        const results = 'results' in reply ? reply.results : [];
        batch.waiting.forEach((w, i) => {
          const result = results[i];
          if (result) w.resolve(result);
          else w.reject(new Error('the secret scan worker answered a batch short'));
        });
      },
      (error: Error) => {
        for (const w of batch.waiting) w.reject(error);
      },
    );
  }

  private failBatch(error: Error): void {
    const batch = this.batch;
    this.batch = null;
    for (const w of batch?.waiting ?? []) w.reject(error);
  }

  private send(request: (id: number) => ScanRequest, moved: Uint8Array): Promise<ScanReply> {
    const worker = this.start();
    const id = this.nextId++;
    const answer = new Promise<ScanReply>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    worker.ref();
    worker.postMessage(request(id), [moved.buffer as ArrayBuffer]);
    return answer;
  }

  end(file: number): void {
    this.worker?.postMessage({ type: 'end', file } satisfies ScanRequest);
  }

  /** Stops the worker; scans still waiting fail (their caller is going away too). */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    this.failBatch(new Error('the secret scan worker was closed'));
    for (const waiter of this.waiting.values()) waiter.reject(new Error('the secret scan worker was closed'));
    this.waiting.clear();
    if (worker) await worker.terminate();
  }
}
