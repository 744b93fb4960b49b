import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventId, SessionId } from '../src/ids.js';
import * as log from '../src/log/session-log.js';
import type { Memory } from '../src/memory/contract.js';
import * as memory from '../src/memory/memory.js';
import { RememberInput } from '../src/memory/schema.js';
import type { SqlExecutor } from '../src/storage/engine.js';
import type { Store } from '../src/store.js';
import type { Identity } from '../src/types.js';
import { describePostgres } from './support/postgres.js';
import { postgresStore, sqliteStore } from './support/stores.js';

/**
 * Session-scoped memory after thousands of rewinds, a fork 1,000 deep and
 * 10,000 branches kept (issue 19): a branch's path is joined as rows, so
 * recall, list and dropBranchMemory answer where one SQL expression per path
 * segment failed ("Expression tree is too large" past ~450 segments). The
 * structures are built with the library in one transaction each.
 */
function scaleSuite(
  backend: 'sqlite' | 'postgres',
  size: { rounds: number; depth: number; branches: number },
) {
  let store: Store;
  let cleanup: () => Promise<void>;
  let who: Identity;
  let mem: Memory;

  beforeAll(async () => {
    ({ store, cleanup } = backend === 'sqlite' ? await sqliteStore() : await postgresStore());
    who = await store.authenticate((await store.createTenant('scale')).token.token);
    mem = store.memory(who);
  });
  afterAll(async () => cleanup?.());

  const session = async () => (await store.fabric(who).createSession({ title: 'deep' })).id as SessionId;
  const append = (tx: SqlExecutor, s: SessionId, branch: string, now: number) =>
    log.appendEvent(tx, who, { session: s, branch, kind: 'step', payload: null }, 'null', now);
  const remember = (tx: SqlExecutor, s: SessionId, branch: string, text: string, now: number) =>
    memory.remember(
      tx,
      store.engine.dialect,
      who,
      RememberInput.parse({ scope: { session: s }, branch, text }),
      now,
    );
  const texts = (items: { text: string }[]) => items.map((i) => i.text).sort();

  it(`recall, list and dropBranchMemory answer after ${size.rounds} rewinds`, async () => {
    const s = await session();
    const ROUNDS = size.rounds;
    await store.engine.write(who.tenant, async (tx) => {
      const now = Date.now();
      let head: EventId = (await append(tx, s, 'main', now)).id;
      for (let i = 0; i < ROUNDS; i++) {
        // Something appended and then rewound away; the next append starts a new line on the path.
        if (i === ROUNDS / 2) await remember(tx, s, 'main', 'rewound away before it was kept', now);
        else await append(tx, s, 'main', now);
        await log.moveHead(tx, who, { session: s, branch: 'main', to: head }, now);
        head =
          i === 0 || i === ROUNDS / 2 + 1
            ? ((await remember(tx, s, 'main', `kept at round ${i}`, now)).provenance.event as EventId)
            : (await append(tx, s, 'main', now)).id;
      }
    });
    // And a few through the operation itself.
    const fabric = store.fabric(who);
    for (let i = 0; i < 3; i++) {
      const before = (await fabric.append({ session: s, branch: 'main', kind: 'step' })).id;
      await fabric.append({ session: s, branch: 'main', kind: 'step' });
      await fabric.rewind({ session: s, branch: 'main', to: before });
    }
    const seen = ['kept at round 0', `kept at round ${ROUNDS / 2 + 1}`];
    expect(texts((await mem.recall({ query: 'kept rewound', scope: { session: s } })).items)).toEqual(seen);
    expect(texts((await mem.listMemory({ scope: { session: s } })).items)).toEqual(seen);
    await store.fabric(who).fork({ session: s, from: 'main', name: 'side' });
    await store.engine.write(who.tenant, (tx) =>
      remember(tx, s, 'side', 'only on the side branch', Date.now()),
    );
    const dropped = await mem.dropBranchMemory({ session: s, branch: 'side', keepFor: ['main'] });
    expect(dropped.records).toHaveLength(1);
    expect(texts((await mem.listMemory({ scope: { session: s }, branch: 'side' })).items)).toEqual(seen);
  });

  it(`recall, list and dropBranchMemory answer on a fork ${size.depth} deep`, async () => {
    const s = await session();
    const DEPTH = size.depth;
    await store.engine.write(who.tenant, async (tx) => {
      const now = Date.now();
      await append(tx, s, 'main', now);
      for (let d = 1; d <= DEPTH; d++) {
        await log.forkBranch(
          tx,
          who,
          { session: s, from: d === 1 ? 'main' : `f${d - 1}`, name: `f${d}` },
          now,
        );
        if (d % (DEPTH / 4) === 0) await remember(tx, s, `f${d}`, `remembered at depth ${d}`, now);
        else await append(tx, s, `f${d}`, now);
      }
    });
    const at = (...depths: number[]) => depths.map((d) => `remembered at depth ${d}`).sort();
    const q = DEPTH / 4;
    const all = at(q, 2 * q, 3 * q, 4 * q);
    const deepest = { session: s } as const;
    expect(
      texts((await mem.recall({ query: 'remembered depth', scope: deepest, branch: `f${DEPTH}` })).items),
    ).toEqual(all);
    expect(texts((await mem.listMemory({ scope: deepest, branch: `f${2 * q + 1}` })).items)).toEqual(
      at(q, 2 * q),
    );
    const dropped = await mem.dropBranchMemory({
      session: s,
      branch: `f${DEPTH}`,
      keepFor: [`f${DEPTH - 1}`],
    });
    expect(dropped.records).toHaveLength(1);
    expect(texts((await mem.listMemory({ scope: deepest, branch: `f${DEPTH}` })).items)).toEqual(
      at(q, 2 * q, 3 * q),
    );
  });

  it(`dropBranchMemory answers with ${size.branches} branches kept`, async () => {
    const s = await session();
    const BRANCHES = size.branches;
    await store.engine.write(who.tenant, async (tx) => {
      const now = Date.now();
      await remember(tx, s, 'main', 'remembered on main before the forks', now);
      for (let b = 0; b < BRANCHES; b++) {
        await log.forkBranch(tx, who, { session: s, from: 'main', name: `b${b}` }, now);
        if (b % (BRANCHES / 10) === 0) await remember(tx, s, `b${b}`, `remembered on b${b}`, now);
      }
      await log.forkBranch(tx, who, { session: s, from: 'main', name: 'gone' }, now);
      await remember(tx, s, 'gone', 'remembered on the abandoned branch', now);
    });
    const keepFor = ['main', ...Array.from({ length: BRANCHES - 1 }, (_, b) => `b${b}`)];
    const dropped = await mem.dropBranchMemory({ session: s, branch: 'gone', keepFor });
    expect(dropped.records).toHaveLength(1);
    expect(texts((await mem.listMemory({ scope: { session: s }, branch: 'gone' })).items)).toEqual([
      'remembered on main before the forks',
    ]);
    expect(texts((await mem.listMemory({ scope: { session: s }, branch: 'b0' })).items)).toEqual([
      'remembered on b0',
      'remembered on main before the forks',
    ]);
  });
}

describe('memory visibility at scale (SQLite)', () =>
  scaleSuite('sqlite', { rounds: 10_000, depth: 1_000, branches: 10_000 }));
// The same joins on PostgreSQL at sizes its building allows (a statement a round trip: ~20 ms a log
// operation on a busy machine); the depth that broke SQLite's expression tree is SQLite's limit.
describePostgres('memory visibility at scale (PostgreSQL)', () =>
  scaleSuite('postgres', { rounds: 300, depth: 200, branches: 500 }),
);
