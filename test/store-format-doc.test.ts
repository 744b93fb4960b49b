/**
 * docs/design/store-format.md is true of the bytes: its column reference
 * names every table a new store has, each with its columns in order, and its
 * id table names every id prefix Cairn makes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ID_PREFIXES } from '../src/ids.js';
import { Store } from '../src/store.js';
import { withTempDir } from './support/stores.js';

const DOC = readFileSync(join(import.meta.dirname, '..', 'docs', 'design', 'store-format.md'), 'utf8');

function section(title: string): string {
  const start = DOC.indexOf(`## ${title}`);
  expect(start, title).toBeGreaterThan(-1);
  const end = DOC.indexOf('\n## ', start + 1);
  return DOC.slice(start, end < 0 ? undefined : end);
}

describe('store-format.md', () => {
  it('lists every table of a new store with its columns, in order', async () => {
    const documented = new Map(
      [...section('Column reference').matchAll(/^- `(\w+)`: ([\w, ]+?)(?: — .*)?$/gm)].map((m) => [
        m[1] as string,
        (m[2] as string).split(', '),
      ]),
    );
    const actual = await withTempDir(async (dir) => {
      const store = await Store.openDir(dir);
      await store.close();
      const db = new Database(join(dir, 'cairn.db'), { readonly: true });
      try {
        const tables = db
          .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
          )
          .all() as { name: string }[];
        return new Map(
          tables.map(({ name }) => [
            name,
            (db.prepare(`PRAGMA table_info(${name})`).all() as { name: string }[]).map((c) => c.name),
          ]),
        );
      } finally {
        db.close();
      }
    });
    expect(actual.size).toBeGreaterThan(20);
    expect([...documented.keys()].sort()).toEqual([...actual.keys()].sort());
    for (const [table, columns] of actual) expect(documented.get(table), table).toEqual(columns);
  });

  it('names every id prefix', () => {
    const listed = [...DOC.matchAll(/^\s*\| `([a-z]{2})` \| /gm)].map((m) => m[1]);
    expect(listed.sort()).toEqual(Object.values(ID_PREFIXES).sort());
  });

  it('is of this build’s format version', async () => {
    const { CURRENT_FORMAT_VERSION } = await import('../src/storage/migrations.js');
    expect(DOC).toContain(`# Store format (format version ${CURRENT_FORMAT_VERSION})`);
    expect(section('Changes')).toContain(`- **${CURRENT_FORMAT_VERSION}** —`);
  });
});
