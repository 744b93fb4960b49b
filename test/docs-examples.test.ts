/**
 * The examples in docs/design/ that are not command lines (those run in
 * readme.test.ts): each is held to what the code does.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FsBlobStore } from '../src/blob/fs/fs-blob-store.js';
import { PostgresEngine } from '../src/storage/postgres/index.js';
import { rowLevelSecurity } from '../src/storage/table-sql.js';
import { STORE_ENTRIES } from '../src/store-folder.js';
import { CheckResult, UnitCheckpoint } from '../src/unit/shapes.js';
import { describePostgres, PG_ADMIN_URL } from './support/postgres.js';
import { tempDir } from './support/stores.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const doc = (name: string) => readFileSync(join(root, 'docs', 'design', name), 'utf8');

/** The code blocks of a document, in order, with the language each names. */
function blocks(text: string): { lang: string; body: string }[] {
  return [...text.matchAll(/```([a-z]*)\n([\s\S]*?)\n```/g)].map((m) => ({
    lang: m[1] ?? '',
    body: m[2] ?? '',
  }));
}

describe('docs/design/steps-and-units.md', () => {
  it('shows a unit checkpoint event’s payload with every field the event has, and no other', () => {
    const text = doc('steps-and-units.md');
    const sample = /<!-- docs-test: unit checkpoint payload -->\s*```json\n([\s\S]*?)\n```/.exec(text);
    expect(sample).not.toBeNull();
    const payload = JSON.parse(sample?.[1] as string);
    // The event's payload is the checkpoint minus what the event itself carries, and a check minus
    // the output tail it answers with but never records.
    const recorded = UnitCheckpoint.omit({ id: true, session: true, branch: true, createdAt: true }).extend({
      evidence: UnitCheckpoint.shape.evidence.extend({
        checks: CheckResult.omit({ outputTail: true }).strict().array(),
      }),
    });
    expect(recorded.strict().safeParse(payload).error?.issues ?? []).toEqual([]);
    // Every optional field is shown too.
    expect(Object.keys(payload).sort()).toEqual(Object.keys(recorded.shape).sort());
    expect(Object.keys(payload.evidence).sort()).toEqual(['checks', 'git']);
  });
});

describe('docs/design/postgres.md', () => {
  const text = doc('postgres.md');
  const sql = blocks(text).filter((b) => b.lang === 'sql');

  it('states the row-level security policy every tenant table gets, as the migrations write it', () => {
    const policy = sql[0]?.body as string;
    expect(policy).toContain('USING');
    const written = rowLevelSecurity('some_table');
    for (const line of policy.split('\n')) expect(written).toContain(line.trim());
  });

  describePostgres('the role it tells an operator to make', () => {
    const name = `cairn_doc_${process.pid}`;
    let admin: pg.Client;
    beforeAll(async () => {
      admin = new pg.Client({ connectionString: PG_ADMIN_URL });
      await admin.connect();
    });
    afterAll(async () => {
      await admin?.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin?.query(`DROP ROLE IF EXISTS ${name}`);
      await admin?.end();
    });

    it('is one the engine opens as (an ordinary role that owns its database)', async () => {
      const setup = sql[1]?.body as string;
      expect(setup).toMatch(
        /^CREATE ROLE cairn_app LOGIN PASSWORD '…';\nCREATE DATABASE cairn OWNER cairn_app;$/,
      );
      // Run as written, under names of this test's own.
      for (const statement of setup.split('\n'))
        await admin.query(
          statement.replaceAll('cairn_app', name).replace('cairn ', `${name} `).replace('…', 'doc'),
        );
      const url = new URL(PG_ADMIN_URL);
      url.username = name;
      url.password = 'doc';
      url.pathname = `/${name}`;
      const engine = await PostgresEngine.open({ connectionString: url.toString() });
      await engine.close();
    });
  });
});

describe('docs/design/store-format.md', () => {
  it('lists what a store folder holds at its top, and where a blob goes', async () => {
    const sample = /<!-- docs-test: store folder -->\s*```\n([\s\S]*?)\n```/.exec(doc('store-format.md'));
    const listed = (sample?.[1] ?? '').split('\n').map((line) => /^DIR\/([^/\s]+)/.exec(line)?.[1]);
    // The WAL's files are named on the database's line, the rollback journal (never used in WAL mode) is not.
    expect(['cairn.db-wal', 'cairn.db-shm', 'cairn.db-journal', ...listed].sort()).toEqual(
      [...STORE_ENTRIES].sort(),
    );
    const blobLine = (sample?.[1] ?? '').split('\n').find((line) => line.startsWith('DIR/blobs/'));
    expect(blobLine).toBe('DIR/blobs/<tenant>/<first 2 hex of digest>/<sha256 hex>');
    const temp = tempDir('cairn-doc-blobs-');
    try {
      const blobs = new FsBlobStore(join(temp.dir, 'blobs'));
      const digest = await blobs.put('tn_00000000000000000000000000', Buffer.from('a blob'));
      await blobs.close();
      expect(digest).toBe(createHash('sha256').update('a blob').digest('hex'));
      expect(
        existsSync(join(temp.dir, 'blobs', 'tn_00000000000000000000000000', digest.slice(0, 2), digest)),
      ).toBe(true);
    } finally {
      temp.remove();
    }
  });
});

describe('every example in the docs', () => {
  /**
   * Which test holds a block that carries no mark of its own: the README's
   * TypeScript and JSON (readme-sdk.test.ts), its browser module
   * (browser.test.ts), its unmarked shell blocks (readme.test.ts: the
   * Quickstart runs, the rest are checked against the CLI), docs/cli.md's
   * store config (readme.test.ts) and postgres.md's SQL (above).
   */
  const heldElsewhere = (file: string, lang: string, body: string): boolean =>
    (file === 'README.md' && ['ts', 'json', 'js', 'sh'].includes(lang)) ||
    (file === 'docs/cli.md' && lang === 'json' && body.startsWith('{\n  "secrets"')) ||
    (file === 'docs/design/postgres.md' && lang === 'sql');

  it('is marked to run, or held by a named test', () => {
    const files = [
      'README.md',
      'GUARANTEES.md',
      ...readdirSync(join(root, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
      ...readdirSync(join(root, 'docs', 'design'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/design/${f}`),
    ];
    const unheld: string[] = [];
    let marked = 0;
    for (const file of files) {
      const text = readFileSync(join(root, file), 'utf8');
      for (const m of text.matchAll(
        /(<!-- (?:readme|docs)-test: [^>]*-->\s*)?^```([a-z]*)\n([\s\S]*?)\n```/gm,
      )) {
        if (m[1] !== undefined) marked++;
        else if (!heldElsewhere(file, m[2] ?? '', m[3] ?? ''))
          unheld.push(`${file}: ${(m[3] ?? '').split('\n')[0]}`);
      }
    }
    expect(unheld).toEqual([]);
    expect(marked).toBeGreaterThanOrEqual(9);
  });
});
