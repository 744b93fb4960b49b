import { setImmediate as nextTurn } from 'node:timers/promises';

/** How long a slice of work may hold the event loop before it yields (ms). */
export const SLICE_MS = 10;

/**
 * Runs `work` on each item in order, yielding to the event loop (one
 * setImmediate turn) whenever a slice has run `sliceMs` or longer, so CPU work
 * over a large batch (a secret scan of 1,000 records) never holds the loop for
 * more than a slice plus one item: health checks and other tenants' requests
 * are answered in between. `sliceMs` 0 yields after every item.
 */
export async function inSlices<T>(
  items: Iterable<T>,
  work: (item: T, index: number) => unknown,
  sliceMs = SLICE_MS,
): Promise<void> {
  let sliceStart = performance.now();
  let index = 0;
  for (const item of items) {
    await work(item, index++);
    if (performance.now() - sliceStart >= sliceMs) {
      await nextTurn();
      sliceStart = performance.now();
    }
  }
}

/** When work first asked in this turn of the event loop; undefined once the loop has turned. */
let turnStarted: number | undefined;

/**
 * Whether the work that calls it has held the event loop for `sliceMs` since
 * the loop last turned (measured from the first call in this turn, whoever
 * made it): then it should yield (`await nextTurn()`). For work that is a
 * sequence of synchronous steps with no batch to hand to inSlices: the SQLite
 * engine asks before each statement, so one large transaction is served in
 * turns. A plain boolean, so a statement that need not yield pays no `await`.
 */
export function sliceDue(sliceMs = SLICE_MS): boolean {
  const now = performance.now();
  if (turnStarted === undefined) {
    turnStarted = now;
    // Runs once the loop turns, whoever made it turn: then the count starts again.
    setImmediate(() => {
      turnStarted = undefined;
    });
  }
  return now - turnStarted >= sliceMs;
}

export { nextTurn };
