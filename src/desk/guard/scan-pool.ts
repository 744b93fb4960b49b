/**
 * Large files are scanned on a worker thread, so on a machine with a second
 * core the guard's byte pass runs while the checkpoint reads, hashes and
 * stores the next chunk (the caller keeps one chunk's verdict outstanding).
 * The worker is started on first use, does not keep the process alive, and
 * is stopped by `close`. Where the built worker module is not there (the
 * library run from its TypeScript sources), scanning stays on the caller's
 * thread: the same StreamScan either way.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { SecretFinding } from './scan.js';

export type ScanRequest =
  | { type: 'feed'; id: number; file: number; path: string; abs: string; window: Uint8Array; offset: number }
  | { type: 'end'; file: number };

export type ScanReply = { id: number; findings: SecretFinding[] } | { id: number; error: string };

const WORKER_URL = new URL('./scan-worker.js', import.meta.url);

export class ScanWorker {
  private worker: Worker | null = null;
  private nextId = 1;
  private nextFile = 1;
  private readonly waiting = new Map<
    number,
    { resolve: (f: SecretFinding[]) => void; reject: (e: Error) => void }
  >();
  /** Windows scanned on the worker (for tests and benchmarks). */
  windows = 0;

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
      else waiter.resolve(reply.findings);
    });
    const fail = (error: Error) => {
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

  /** A number naming one file's stream on the worker. */
  open(): number {
    return this.nextFile++;
  }

  /**
   * Sends a copy of `window` (so the caller may reuse its buffer at once) and
   * resolves with every finding of that file so far.
   */
  feed(
    file: number,
    path: string,
    abs: string,
    window: Uint8Array,
    offset: number,
  ): Promise<SecretFinding[]> {
    const worker = this.start();
    const id = this.nextId++;
    const copy = new Uint8Array(window);
    this.windows++;
    const answer = new Promise<SecretFinding[]>((resolve, reject) =>
      this.waiting.set(id, { resolve, reject }),
    );
    worker.ref();
    const request: ScanRequest = { type: 'feed', id, file, path, abs, window: copy, offset };
    worker.postMessage(request, [copy.buffer]);
    return answer;
  }

  end(file: number): void {
    this.worker?.postMessage({ type: 'end', file } satisfies ScanRequest);
  }

  /** Stops the worker; scans still waiting fail (their caller is going away too). */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    for (const waiter of this.waiting.values()) waiter.reject(new Error('the secret scan worker was closed'));
    this.waiting.clear();
    if (worker) await worker.terminate();
  }
}
