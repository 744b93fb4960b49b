/**
 * The crash test's index check (test/support/memory-indexes.ts) must fail
 * when an index disagrees with the records: each way of disagreeing is made
 * on a real store, through a raw connection, and the check is run on it.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { SqlParam } from '../src/storage/engine.js';
import { Store } from '../src/store.js';
import { checkMemoryIndexes, type RecordRow } from './support/memory-indexes.js';
import { withTempDir } from './support/stores.js';

const BREAKS: [string, (tenant: string) => string][] = [
  [
    'a recall filter row with another trust',
    () => "UPDATE memory_recall SET trust = 'trusted' WHERE rowid = (SELECT MIN(rowid) FROM memory_recall)",
  ],
  [
    'a missing recall filter row',
    () => 'DELETE FROM memory_recall WHERE rowid = (SELECT MAX(rowid) FROM memory_recall)',
  ],
  ['a missing full-text entry', (tenant) => `DELETE FROM memfts_${tenant} WHERE rowid = 1`],
  [
    'an edge to no record',
    (tenant) =>
      `INSERT INTO memory_derived (tenant, id, source) VALUES ('${tenant}', 'mr_00000000000000000000000000', 'mr_00000000000000000000000001')`,
  ],
];

describe('the memory index check', () => {
  for (const [what, sql] of BREAKS)
    it(`fails on ${what}`, async () => {
      await withTempDir(async (dir) => {
        let store = await Store.openDir(dir);
        const created = await store.createTenant('checked');
        const memory = store.memory(await store.authenticate(created.token.token));
        await memory.rememberMany({
          records: ['the tide tables', 'the harbour lights'].map((text) => ({
            scope: { user: 'ada' },
            text,
          })),
        });
        const check = async () => {
          const q = <T>(statement: string, params: SqlParam[] = [created.tenant]) =>
            store.engine.read(created.tenant, (tx) => tx.all<T>(statement, params));
          const rows = await q<RecordRow>('SELECT * FROM memory_records WHERE tenant = ? ORDER BY n');
          await checkMemoryIndexes(q, created.tenant, rows, what);
        };
        await check();
        await store.close();
        const db = new Database(join(dir, 'cairn.db'));
        db.exec(sql(created.tenant));
        db.close();
        store = await Store.openDir(dir);
        try {
          await expect(check()).rejects.toThrow();
        } finally {
          await store.close();
        }
      });
    });
});
