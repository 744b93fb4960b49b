import { closeSync, constants, fdatasync, fdatasyncSync, fsyncSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { CairnError } from '../../errors.js';

/**
 * Makes committed SQLite transactions durable off the event loop.
 *
 * The writer runs with `synchronous=NORMAL` in WAL mode: a COMMIT writes its
 * WAL frames but does not fsync, and SQLite itself syncs around checkpoints.
 * After each COMMIT the engine registers its callers here; one `fdatasync` of
 * the WAL on libuv's thread pool then covers every commit made before it
 * started, and only then are those callers answered. While one sync is in
 * flight, later commits queue for the next one (group commit), and the event
 * loop keeps running the next batch. If a sync ever fails the engine stops
 * accepting writes: whether the data reached the disk is unknown.
 *
 * A lone commit (one caller, nothing in flight) is synced on the event loop
 * instead: handing one fdatasync to the thread pool and back costs about
 * 0.2 ms on our test VM, more than the loop loses by waiting — there is no
 * next batch to run meanwhile. As soon as commits overlap, syncs go back to
 * the thread pool and group commit.
 */
export class WalSync {
  private fd: number | null = null;
  private inFlight = false;
  private waiting: Array<(error: Error | null) => void> = [];
  private failure: CairnError | null = null;

  constructor(private readonly walPath: string) {}

  /** Opens the WAL (it exists once the first write committed) and makes its directory entry durable. */
  open(): void {
    this.fd = openSync(this.walPath, constants.O_RDONLY);
    const dir = openSync(dirname(this.walPath), constants.O_RDONLY | constants.O_DIRECTORY);
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
  }

  get failed(): CairnError | null {
    return this.failure;
  }

  /** Calls `done` once everything committed so far is on disk. */
  afterDurable(done: (error: Error | null) => void): void {
    if (this.failure) {
      done(this.failure);
      return;
    }
    this.waiting.push(done);
    if (!this.inFlight) this.start();
  }

  /** True while some commit is not yet known to be durable. */
  get pending(): boolean {
    return this.inFlight || this.waiting.length > 0;
  }

  private start(): void {
    const group = this.waiting;
    this.waiting = [];
    this.inFlight = true;
    const sync =
      group.length === 1
        ? (done: (error: NodeJS.ErrnoException | null) => void) => {
            let failure: NodeJS.ErrnoException | null = null;
            try {
              fdatasyncSync(this.fd!);
            } catch (error) {
              failure = error as NodeJS.ErrnoException;
            }
            // Answer asynchronously, as the thread-pool path does: callers may enqueue from the callback.
            queueMicrotask(() => done(failure));
          }
        : (done: (error: NodeJS.ErrnoException | null) => void) => fdatasync(this.fd!, done);
    sync((error) => {
      this.inFlight = false;
      if (error) {
        this.failure = new CairnError(
          'UNAVAILABLE',
          `the store could not make its log durable (${error.message}): stop, check the disk, then reopen the store`,
          { errno: error.code ?? null },
          { cause: error },
        );
      }
      for (const done of group) done(this.failure);
      if (this.waiting.length > 0) {
        if (this.failure) for (const done of this.waiting.splice(0)) done(this.failure);
        else this.start();
      }
    });
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}
