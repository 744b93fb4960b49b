import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Desk } from '../src/desk/desk.js';
import type { Workspace } from '../src/desk/rows.js';
import { backendStore, tempDir } from './support/stores.js';
import { put } from './support/trees.js';

/**
 * Repeated merges between a fork and its parent: each merge's base is the
 * last merge between them that both still hold, so what a merge resolved
 * stays resolved; a merge undone by a restore no longer counts.
 */
describe('the base of a repeated merge', () => {
  let temp: { dir: string; remove(): void };
  let cleanup: () => Promise<void>;
  let desk: Desk;
  let main: Workspace;
  let fork: Workspace;
  const read = (dir: string, name: string) => readFileSync(join(dir, name), 'utf8');

  beforeEach(async () => {
    temp = tempDir('cairn-merge-base-');
    const opened = await backendStore('sqlite', 'merge-base');
    cleanup = opened.cleanup;
    desk = opened.store.desk(opened.who, { host: 'merge-test', stateDir: join(temp.dir, 'state') });
    const dir = join(temp.dir, 'main');
    put(dir, 'shared.txt', 'base\n');
    put(dir, 'other.txt', 'one\n');
    main = (await desk.attach({ dir })).workspace;
    fork = (await desk.fork(main.id, { dir: join(temp.dir, 'fork'), driver: 'copy' })).workspace;
  });

  afterEach(async () => {
    await desk.close();
    await cleanup();
    temp.remove();
  });

  /** Both sides change shared.txt; the merge conflicts there; the person resolves it. */
  async function conflictedThenResolved() {
    writeFileSync(join(main.dir, 'shared.txt'), 'ours\n');
    writeFileSync(join(fork.dir, 'shared.txt'), 'theirs\n');
    const first = await desk.merge({ from: fork.id, into: main.id });
    expect(first.conflicts.map((c) => c.path)).toEqual(['shared.txt']);
    writeFileSync(join(main.dir, 'shared.txt'), 'resolved\n');
    await desk.checkpoint(main.id);
    return first;
  }

  it('a second merge from the same fork does not re-conflict a file the first resolved', async () => {
    const first = await conflictedThenResolved();
    writeFileSync(join(fork.dir, 'other.txt'), 'one\ntwo from the fork\n');
    const second = await desk.merge({ from: fork.id, into: main.id });
    expect(second.conflicts).toEqual([]);
    expect(second.base).toBe(first.theirs);
    expect(second.changed).toEqual(['other.txt']);
    expect(read(main.dir, 'shared.txt')).toBe('resolved\n');
    expect(read(main.dir, 'other.txt')).toBe('one\ntwo from the fork\n');

    // A third, with nothing new on the fork, changes nothing.
    const third = await desk.merge({ from: fork.id, into: main.id });
    expect(third.conflicts).toEqual([]);
    expect(third.changed).toEqual([]);
  });

  it('merging the parent back into the fork starts from the last merge the other way', async () => {
    const first = await conflictedThenResolved();
    writeFileSync(join(main.dir, 'other.txt'), 'one\nfrom main\n');
    await desk.checkpoint(main.id);
    // main holds fork@first.theirs: that is the base, so the fork takes main's resolution and its new line.
    const back = await desk.merge({ from: main.id, into: fork.id });
    expect(back.base).toBe(first.theirs);
    expect(back.conflicts).toEqual([]);
    expect(read(fork.dir, 'shared.txt')).toBe('resolved\n');
    expect(read(fork.dir, 'other.txt')).toBe('one\nfrom main\n');
  });

  it('a merge undone by a restore is not a base: the next merge starts from the fork point again', async () => {
    const first = await conflictedThenResolved();
    // Undo the merge (and the resolution): main goes back to its state before the merge.
    await desk.restore(main.id, first.ours as never);
    expect(read(main.dir, 'shared.txt')).toBe('ours\n');
    const again = await desk.merge({ from: fork.id, into: main.id });
    expect(again.base).toBe(fork.baseSnapshot);
    expect(again.conflicts.map((c) => c.path)).toEqual(['shared.txt']);
  });
});
