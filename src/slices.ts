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
