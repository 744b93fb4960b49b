import { describe, expect, it } from 'vitest';
import { inSlices } from '../src/slices.js';

describe('inSlices: CPU work over a batch yields to the event loop between slices', () => {
  it('lets a callback queued before it run between items, and keeps their order', async () => {
    const seen: string[] = [];
    setImmediate(() => seen.push('loop'));
    await inSlices(['a', 'b', 'c'], (item) => seen.push(item), 0);
    // With 0 ms slices it yields after every item: the loop's turn comes after the first.
    expect(seen).toEqual(['a', 'loop', 'b', 'c']);
  });

  it('a plain loop over the same items gives the loop no turn (what the slices change)', async () => {
    const seen: string[] = [];
    setImmediate(() => seen.push('loop'));
    for (const item of ['a', 'b', 'c']) await Promise.resolve(seen.push(item));
    expect(seen).toEqual(['a', 'b', 'c']);
  });

  it('passes each index, and a failing item stops the run with its error', async () => {
    const indexes: number[] = [];
    await expect(
      inSlices(['a', 'b', 'c'], (_, i) => {
        indexes.push(i);
        if (i === 1) throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(indexes).toEqual([0, 1]);
  });
});
