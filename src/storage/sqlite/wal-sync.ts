import { closeSync, constants, fdatasync, fdatasyncSync, fsyncSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { type CairnError, unavailable } from '../../errors.js';

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
 * A lone commit (one caller, nothing in flight, and the sync before it had
 * one caller too) is synced on the event loop instead: handing one
 * fdatasync to the thread pool and back costs about 0.2 ms on our test VM,
 * more than the loop loses by waiting — there is no next batch to run
 * meanwhile. As soon as commits overlap, syncs go back to the thread pool
 * and group commit; a batch of one right after a busy one stays there too
 * (under load, the next requests are already on their way: blocking the
 * loop on the sync kept a server from reading them).
 */
/**
 * Whether the next sync runs on the event loop: one caller waiting, and the
 * sync before it had at most one too (see WalSync).
 */
export function syncsOnLoop(callers: number, callersBefore: number): boolean {
  return callers === 1 && callersBefore <= 1;
}

export class WalSync {
  private fd: number | null = null;
  private inFlight = false;
  private waiting: Array<(error: Error | null) => void> = [];
  /** Callers waiting on the queued syncs, and on the last one started. */
  private waitingCallers = 0;
  private lastCallers = 0;
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

  /** Calls `done` once everything committed so far is on disk; `callers` is how many writes it answers. */
  afterDurable(done: (error: Error | null) => void, callers = 1): void {
    if (this.failure) {
      done(this.failure);
      return;
    }
    this.waiting.push(done);
    this.waitingCallers += callers;
    if (!this.inFlight) this.start();
  }

  /** True while some commit is not yet known to be durable. */
  get pending(): boolean {
    return this.inFlight || this.waiting.length > 0;
  }

  private start(): void {
    const group = this.waiting;
    const lone = syncsOnLoop(this.waitingCallers, this.lastCallers);
    this.lastCallers = this.waitingCallers;
    this.waiting = [];
    this.waitingCallers = 0;
    this.inFlight = true;
    const sync = lone
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
        this.failure = unavailable(
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
