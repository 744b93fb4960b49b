import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Copies the WAL back into the database on a worker thread, with a
 * connection of its own, so a long-running process (`cairn serve`,
 * `cairn watch`) never checkpoints on its event loop. SQLite's automatic
 * checkpoint runs inside the commit that crosses its threshold: it copies
 * every page written since the last one and fsyncs the database file, on
 * the thread that answers requests (≈ 30 ms after a 1 MiB memory batch
 * here, more on a busy disk). A PASSIVE checkpoint never blocks the writer
 * or the readers, and one after another with nothing new to copy costs
 * next to nothing, so the worker is asked after every commit and runs one
 * at a time.
 *
 * If the worker fails, the writer gets its automatic checkpoints back
 * (`onFailure`): the WAL never grows without bound because a thread died.
 */
export class Checkpointer {
  private readonly worker: Worker;
  private running = false;
  private again = false;
  private closing: Promise<void> | undefined;
  private failed = false;
  private exited = false;

  constructor(path: string, onFailure: (reason: string) => void) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path, driver } });
    this.worker.unref();
    const fail = (reason: string) => {
      if (this.failed) return;
      this.failed = true;
      onFailure(reason);
    };
    this.worker.on('message', (error: string | null) => {
      this.running = false;
      if (error !== null) fail(error);
      else if (this.again) this.poke();
    });
    this.worker.on('error', (error) => fail(error.message));
    this.worker.on('exit', () => {
      this.exited = true;
      if (this.closing === undefined) fail('the checkpoint thread exited');
    });
  }

  /** A commit happened: checkpoint now, or once the one running ends. */
  poke(): void {
    if (this.failed || this.closing !== undefined) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    this.again = false;
    this.worker.postMessage('checkpoint');
  }

  /** Stops the thread (after the checkpoint in flight) and closes its connection. */
  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      if (this.exited) return resolve();
      // Held by the process until it has exited: a close awaited on an otherwise idle loop must not end it.
      this.worker.ref();
      this.worker.once('exit', () => resolve());
      this.worker.postMessage('close');
    });
    return this.closing;
  }
}

/** The worker: one connection, one PASSIVE checkpoint per message; answers null or the error's message. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 10000');
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage(null);
  } catch (error) {
    parentPort.postMessage(String((error && error.message) || error));
  }
});
`;
