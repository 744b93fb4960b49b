import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { inBatches, type SqlExecutor } from '../src/storage/engine.js';
import { Checkpointer } from '../src/storage/sqlite/checkpointer.js';
import { SqliteEngine } from '../src/storage/sqlite/sqlite-engine.js';
import { tempDir } from './support/stores.js';
import { turnCounter } from './support/turns.js';

/** Holds the CPU for `ms` (the size of a job's work, not a time the test waits for). */
function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
}

const TEXT = 'words of a memory record, repeated to a few KiB. '.repeat(80);

describe('the SQLite engine shares the event loop with everything else in the process', () => {
  const temps: Array<{ remove(): void }> = [];
  const engines: SqliteEngine[] = [];
  afterEach(async () => {
    for (const engine of engines.splice(0)) await engine.close();
    for (const temp of temps.splice(0)) temp.remove();
  });
  async function open(checkpoints?: 'inline' | 'background'): Promise<{ engine: SqliteEngine; dir: string }> {
    const temp = tempDir();
    temps.push(temp);
    const engine = await SqliteEngine.open({ dir: temp.dir, checkpoints });
    engines.push(engine);
    await engine.write('t', (tx) => tx.run('CREATE TABLE notes (n INTEGER PRIMARY KEY, body TEXT)'));
    return { engine, dir: temp.dir };
  }

  it('a long write transaction gives the loop turns between its statements', async () => {
    const { engine } = await open();
    let during = -1;
    await engine.write('t', async (tx: SqlExecutor) => {
      const counter = turnCounter();
      const at = counter.turns();
      // Statements enough to hold the loop for 60 ms here: without turns, the counter stays still.
      const until = performance.now() + 60;
      for (let n = 0; performance.now() < until; n++)
        await tx.run('INSERT INTO notes VALUES (?, ?)', [n, TEXT]);
      during = counter.turns() - at;
      counter.stop();
    });
    expect(during).toBeGreaterThanOrEqual(2);
  });

  it('a flood of writes is committed in several transactions, not in one that holds the loop', async () => {
    const { engine } = await open();
    const seenByLast: number[] = [];
    const writes = Array.from({ length: 10 }, (_, n) =>
      engine.write('t', async (tx) => {
        spin(15);
        await tx.run('INSERT INTO notes VALUES (?, ?)', [n, TEXT]);
        if (n === 9) {
          const row = await engine.read('t', (r) => r.get<{ c: number }>('SELECT COUNT(*) AS c FROM notes'));
          seenByLast.push(Number(row?.c));
        }
      }),
    );
    await Promise.all(writes);
    // All ten in one transaction would leave the reader (committed data only) seeing none of them.
    expect(seenByLast[0]).toBeGreaterThan(0);
    expect(seenByLast[0]).toBeLessThan(10);
  });

  it('with background checkpoints the WAL reaches the database file while the writer never checkpoints', async () => {
    const { engine, dir } = await open('background');
    expect(engine.checkpoints).toBe('background');
    const before = statSync(join(dir, 'cairn.db')).size;
    for (let round = 0; round < 8; round++)
      await engine.write('t', async (tx) => {
        for (let i = 0; i < 100; i++)
          await tx.run('INSERT INTO notes VALUES (?, ?)', [round * 100 + i, TEXT]);
      });
    // ~3 MB written: the worker copies it into cairn.db. Bounded by a count of looks, not a time.
    let size = before;
    for (let look = 0; look < 400 && size < before + 2_000_000; look++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      size = statSync(join(dir, 'cairn.db')).size;
    }
    expect(size).toBeGreaterThan(before + 2_000_000);
    expect(engine.checkpoints).toBe('background');
  });

  it('without them (the default) the writer checkpoints inline, as SQLite does', async () => {
    const { engine } = await open();
    expect(engine.checkpoints).toBe('inline');
  });

  it('a checkpoint thread that fails says so (the engine then checkpoints inline), and closing it still ends', async () => {
    const temp = tempDir();
    temps.push(temp);
    const reason = await new Promise<string>((resolve) => {
      const broken = new Checkpointer(join(temp.dir, 'no-such-folder', 'cairn.db'), resolve);
      broken.poke();
    });
    expect(reason).toMatch(/unable to open|directory does not exist|SQLITE_CANTOPEN/i);
    const again = new Checkpointer(join(temp.dir, 'no-such-folder', 'cairn.db'), () => {});
    await new Promise((resolve) => setImmediate(resolve));
    await again.close();
  });

  it('binds a slice of at most 256 KiB of text per statement, or one item larger than that alone', async () => {
    const sizes = [100_000, 100_000, 100_000, 300_000, 10, 10];
    const slices: number[][] = [];
    await inBatches(
      sizes,
      async (slice) => {
        slices.push([...slice]);
      },
      2,
      (n) => n,
    );
    expect(slices).toEqual([[100_000, 100_000], [100_000], [300_000], [10, 10]]);
  });
});
