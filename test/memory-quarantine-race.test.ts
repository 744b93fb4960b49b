import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Memory } from '../src/memory/contract.js';
import type { Store } from '../src/store.js';
import { describePostgres } from './support/postgres.js';
import { postgresStore, sqliteStore } from './support/stores.js';

/**
 * Quarantine and derivation serialized (issue 19): a record made from Q, or
 * from what was made from Q, or a new version of Q, written while Q is being
 * quarantined, ends quarantined — never left untrusted beside a quarantined
 * source (PostgreSQL left 127 of 150 such records untrusted when the writer
 * read Q's tier without the tenant's write lock).
 */
function raceSuite(backend: 'sqlite' | 'postgres') {
  let store: Store;
  let cleanup: () => Promise<void>;
  let mem: Memory;

  beforeAll(async () => {
    ({ store, cleanup } = backend === 'sqlite' ? await sqliteStore() : await postgresStore());
    mem = store.memory(await store.authenticate((await store.createTenant('race')).token.token));
  });
  afterAll(async () => cleanup?.());

  it('150 rounds of quarantine(Q) against remember(made from Q, from Q’s child, superseding Q)', async () => {
    const ROUNDS = 150;
    const left: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const scope = { project: `race-${round}` };
      const q = await mem.remember({ scope, text: `tool output ${round}` });
      const child = await mem.remember({ scope, text: `summary ${round}`, derivedFrom: [q.id] });
      const [, fromQ, fromChild, next] = await Promise.all([
        mem.quarantineMemory({ record: q.id }),
        mem.remember({ scope, text: `made from q ${round}`, derivedFrom: [q.id] }),
        mem.remember({ scope, text: `made from the summary ${round}`, derivedFrom: [child.id] }),
        mem.remember({ scope, text: `q again ${round}`, supersedes: q.id }),
      ]);
      for (const record of [fromQ, fromChild, next]) {
        const now = await mem.getMemory({ record: record.id });
        if (now.provenance.trust !== 'quarantined') left.push(`${round}: ${now.text}`);
      }
    }
    expect(left).toEqual([]);
  });
}

describe('quarantine against derivation (SQLite: one writer)', () => raceSuite('sqlite'));
describePostgres('quarantine against derivation (PostgreSQL)', () => raceSuite('postgres'));
