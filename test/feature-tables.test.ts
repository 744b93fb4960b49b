/**
 * A feature is a folder that owns its tables: no module outside it names
 * them in SQL (other features reach its data through its facade), and every
 * table its migrations make is declared as its own (src/features.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FEATURE_TABLES } from '../src/features.js';
import { assembleMigrations, MIGRATIONS } from '../src/storage/migrations.js';

const SRC = join(import.meta.dirname, '..', 'src');

const owner = new Map<string, string>();
for (const feature of FEATURE_TABLES) for (const table of feature.tables) owner.set(table, feature.folder);

/** Tables a text names where SQL names a table: after FROM, JOIN, INTO, UPDATE, TABLE or ON. */
function tablesNamed(text: string): Set<string> {
  const named = new Set<string>();
  for (const m of text.matchAll(/\b(?:FROM|JOIN|INTO|UPDATE|TABLE|ON)\s+([a-z_][a-z0-9_]*)\b/g)) {
    const table = m[1] as string;
    if (owner.has(table)) named.add(table);
  }
  return named;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Each file's SQL naming another feature's table: "file: table (owner)". */
function crossings(files: Array<{ path: string; text: string }>): string[] {
  const found: string[] = [];
  for (const { path, text } of files) {
    const folder = path.split('/')[0];
    for (const table of tablesNamed(text)) {
      if (owner.get(table) !== folder) found.push(`${path}: ${table} (${owner.get(table)}'s)`);
    }
  }
  return found;
}

describe('feature tables', () => {
  it('lets no module name another feature’s tables in SQL', () => {
    const files = sourceFiles(SRC).map((path) => ({
      path: relative(SRC, path).split(sep).join('/'),
      text: readFileSync(path, 'utf8'),
    }));
    expect(files.length).toBeGreaterThan(100);
    expect(crossings(files)).toEqual([]);
  });

  it('catches a crossing (the check can fail)', () => {
    const files = [
      { path: 'keys/context.ts', text: "tx.get('SELECT owner FROM branches WHERE tenant = ?')" },
      { path: 'store.ts', text: 'tx.all(`SELECT id FROM tenants`)' },
      { path: 'log/session-log.ts', text: "tx.run('UPDATE branches SET head = ?')" },
    ];
    expect(crossings(files)).toEqual(["keys/context.ts: branches (log's)", "store.ts: tenants (identity's)"]);
  });

  it('declares every table a feature’s migrations make as that feature’s own', () => {
    for (const feature of FEATURE_TABLES) {
      for (const part of feature.migrations) {
        for (const sql of [part.sqlite, part.postgres]) {
          for (const m of sql.matchAll(/CREATE (?:VIRTUAL )?TABLE (?:IF NOT EXISTS )?([a-z_0-9]+)/g)) {
            // A table made under a temporary name to replace an owned one (memory_records_7).
            const table = (m[1] as string).replace(/_\d+$/, '');
            expect(feature.tables, `${feature.folder} makes ${m[1]}`).toContain(table);
          }
        }
      }
      expect(feature.rowSecured.every((t) => feature.tables.includes(t))).toBe(true);
    }
  });

  it('assembles the migrations 1, 2, 3, … and refuses a gap', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    // Format 1 is made of four features' shares, in the registry's order.
    expect(MIGRATIONS[0]?.name.split('; ').map((n) => n.split(':')[0])).toEqual([
      'identity',
      'session log',
      'audit chain',
      'blobs',
    ]);
    const gap = [
      {
        folder: 'x',
        tables: [],
        rowSecured: [],
        migrations: [{ version: 2, name: 'x', sqlite: '', postgres: '' }],
      },
    ];
    expect(() => assembleMigrations(gap)).toThrow(/migration 1 is missing/);
  });
});
