import { readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ARTIFACTS_TABLES } from '../src/artifacts/tables.js';
import { AUDIT_TREE_TABLES } from '../src/audit/tables.js';
import { FsBlobStore } from '../src/blob/fs/fs-blob-store.js';
import { sha256Hex } from '../src/digest.js';
import { ERASURE_TABLES } from '../src/erasure/tables.js';
import { CairnError } from '../src/errors.js';
import type { Memory } from '../src/memory/contract.js';
import { REDACTION_TABLES } from '../src/redaction/tables.js';
import { CURRENT_FORMAT_VERSION } from '../src/storage/migrations.js';
import { syncsOnLoop } from '../src/storage/sqlite/wal-sync.js';
import { openFabric, Store } from '../src/store.js';
import { describeBlobConformance } from '../src/testing/blob-conformance.js';
import { postgresSkip } from './support/postgres.js';
import { postgresStore, sqliteStore, tempDir, withTempDir } from './support/stores.js';

describeBlobConformance('filesystem', async () => {
  const temp = tempDir('cairn-blobs-');
  const root = join(temp.dir, 'blobs');
  return {
    blobs: new FsBlobStore(root),
    tenants: ['tn_aaaaaaaaaaaaaaaaaaaaaaaaaa', 'tn_bbbbbbbbbbbbbbbbbbbbbbbbbb'],
    corrupt: async (tenant, digest) =>
      writeFileSync(join(root, tenant, digest.slice(0, 2), digest), 'tampered'),
    close: async () => temp.remove(),
  };
});

describe('the folder engine’s temporary files', () => {
  it('are swept when older than the cutoff, never listed, and a blob beside them stays', async () => {
    await withTempDir(async (dir) => {
      const tenant = 'tn_aaaaaaaaaaaaaaaaaaaaaaaaaa';
      const blobs = new FsBlobStore(join(dir, 'blobs'));
      const digest = await blobs.put(tenant, Buffer.from('a whole blob'));
      const shard = join(dir, 'blobs', tenant, digest.slice(0, 2));
      // What two puts killed before their rename left: one long ago, one just now (a writer still running).
      const old = join(shard, '.tmp-0123456789abcdef');
      const fresh = join(shard, '.tmp-fedcba9876543210');
      writeFileSync(old, 'half of a blob');
      writeFileSync(fresh, 'half of another');
      const hourAgo = (Date.now() - 60 * 60 * 1000) / 1000;
      utimesSync(old, hourAgo, hourAgo);
      const listed: string[] = [];
      for await (const d of blobs.list(tenant)) listed.push(d);
      expect(listed).toEqual([digest]);
      expect(await blobs.sweepTemporary(tenant, Date.now() - 60_000)).toBe(1);
      expect(readdirSync(shard).sort()).toEqual([fresh.slice(shard.length + 1), digest].sort());
      expect(await blobs.sweepTemporary(tenant, Date.now() + 1000)).toBe(1);
      expect(readdirSync(shard)).toEqual([digest]);
      expect((await blobs.get(tenant, digest)).toString()).toBe('a whole blob');
      expect(await blobs.sweepTemporary('tn_bbbbbbbbbbbbbbbbbbbbbbbbbb', Date.now())).toBe(0);
      await blobs.close();
    });
  });
});

describeBlobConformance(
  'PostgreSQL',
  async () => {
    const { store, cleanup } = await postgresStore();
    const a = await store.createTenant('a');
    const b = await store.createTenant('b');
    return {
      blobs: store.blobs,
      tenants: [a.tenant, b.tenant],
      corrupt: (tenant, digest) =>
        store.engine.write(tenant, async (tx) => {
          await tx.run('UPDATE blobs SET bytes = ? WHERE tenant = ? AND digest = ?', [
            Buffer.from('tampered'),
            tenant,
            digest,
          ]);
        }),
      close: cleanup,
    };
  },
  { skip: postgresSkip },
);

describe('SQLite store format', () => {
  it('records its format version and reopens idempotently', async () => {
    await withTempDir(async (dir) => {
      await (await Store.openDir(dir)).close();
      await (await Store.openDir(dir)).close();
      const db = new Database(join(dir, 'cairn.db'), { readonly: true });
      const row = db.prepare("SELECT value FROM cairn_meta WHERE key = 'format_version'").get() as {
        value: string;
      };
      db.close();
      expect(Number(row.value)).toBe(CURRENT_FORMAT_VERSION);
    });
  });

  it('refuses a store written by a newer format, and leaves it untouched', async () => {
    await withTempDir(async (dir) => {
      await (await Store.openDir(dir)).close();
      const db = new Database(join(dir, 'cairn.db'));
      db.prepare("UPDATE cairn_meta SET value = '999' WHERE key = 'format_version'").run();
      db.close();
      const error = await Store.openDir(dir).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CairnError);
      expect((error as CairnError).code).toBe('UNSUPPORTED_FORMAT');
      expect((error as CairnError).message).toMatch(/upgrade Cairn/);
      const check = new Database(join(dir, 'cairn.db'), { readonly: true });
      expect(
        (
          check.prepare("SELECT value FROM cairn_meta WHERE key = 'format_version'").get() as {
            value: string;
          }
        ).value,
      ).toBe('999');
      check.close();
    });
  });

  it('a format-6 store with memory opens at the current format and its records are recalled as before', async () => {
    await withTempDir(async (dir) => {
      const store = await Store.openDir(dir);
      const tenants = await Promise.all(['m6-a', 'm6-b'].map((name) => store.createTenant(name)));
      const memories = await Promise.all(
        tenants.map(async (t) => store.memory(await store.authenticate(t.token.token))),
      );
      const [a, b] = memories as [Memory, Memory];
      const old = await a.remember({
        scope: { user: 'ada' },
        text: 'the harbour gate code changed',
        source: 'person',
      });
      await a.remember({
        scope: { user: 'ada' },
        text: 'the harbour opens at six',
        supersedes: old.id,
        source: 'person',
      });
      await b.remember({ scope: { user: 'bo' }, text: 'harbour fees rose', source: 'person' });
      // Enough better matches of another user that ada's are found only through the recall filter.
      for (let i = 0; i < 70; i++)
        await a.remember({ scope: { user: 'cy' }, text: `harbour ${i}`, source: 'person' });
      await store.close();
      // Back to format 6's layout: no recall filter, the covering index, no anchors by line, no artifacts, no audit tree, no erasures, no redaction policies, no lines by session, no token issuers or actor chains.
      const db = new Database(join(dir, 'cairn.db'));
      db.exec(
        [
          ...ARTIFACTS_TABLES.tables,
          ...AUDIT_TREE_TABLES,
          ...ERASURE_TABLES.tables,
          ...REDACTION_TABLES.tables,
        ]
          .map((t) => `DROP TABLE ${t};`)
          .join('\n'),
      );
      db.exec(`DROP INDEX lines_by_session; ALTER TABLE tokens DROP COLUMN issued_by; ALTER TABLE audit_entries DROP COLUMN chain;
        DROP TRIGGER memory_recall_insert; DROP TRIGGER memory_recall_update; DROP TRIGGER memory_recall_delete;
        DROP TABLE memory_recall; DROP TABLE memory_tenants; DROP INDEX memory_anchors_by_line;
        CREATE INDEX memory_records_recall ON memory_records (tenant, n, latest, trust, kind, scope_user, scope_agent, scope_project, scope_session, recorded_at, id, version);
        UPDATE cairn_meta SET value = '6' WHERE key = 'format_version';`);
      // Format 1's layout of the entries and branches: WITHOUT ROWID (format 13 made them rowid tables).
      for (const table of ['audit_entries', 'branches']) {
        const { sql } = db.prepare('SELECT sql FROM sqlite_master WHERE name = ?').get(table) as {
          sql: string;
        };
        db.exec(`${sql.replace(/^CREATE TABLE "?\w+"?/, `CREATE TABLE ${table}_old`)} WITHOUT ROWID;
          INSERT INTO ${table}_old SELECT * FROM ${table}; DROP TABLE ${table};
          ALTER TABLE ${table}_old RENAME TO ${table};`);
      }
      const rowsBefore = (table: string, order: string) =>
        JSON.stringify(db.prepare(`SELECT * FROM ${table} ORDER BY ${order}`).all());
      const before = [rowsBefore('audit_entries', 'tenant, seq'), rowsBefore('branches', 'tenant, id')];
      expect(before[0]!.length).toBeGreaterThan(1000);
      db.close();
      const reopened = await Store.openDir(dir);
      try {
        const check = new Database(join(dir, 'cairn.db'), { readonly: true });
        try {
          for (const table of ['audit_entries', 'branches']) {
            const { sql } = check.prepare('SELECT sql FROM sqlite_master WHERE name = ?').get(table) as {
              sql: string;
            };
            expect(sql, table).not.toContain('WITHOUT ROWID');
          }
          const after = ['audit_entries ORDER BY tenant, seq', 'branches ORDER BY tenant, id'].map((q) =>
            JSON.stringify(check.prepare(`SELECT * FROM ${q}`).all()),
          );
          // The chain column came back empty (format 12), as the entries were before it: the same rows.
          expect(after).toEqual(
            before.map((rows, i) => (i === 0 ? rows.replace(/}/g, ',"chain":""}') : rows)),
          );
        } finally {
          check.close();
        }
        expect((await reopened.verifyTenants(await reopened.listTenants())).map((r) => r.ok)).toEqual([
          true,
          true,
        ]);
        const recall = async (t: (typeof tenants)[number], user: string) =>
          (
            await reopened
              .memory(await reopened.authenticate(t.token.token))
              .recall({ query: 'harbour', scope: { user } })
          ).items.map((i) => i.text);
        expect(await recall(tenants[0]!, 'ada')).toEqual(['the harbour opens at six']);
        expect(await recall(tenants[1]!, 'bo')).toEqual(['harbour fees rose']);
        expect(await recall(tenants[1]!, 'ada')).toEqual([]);
      } finally {
        await reopened.close();
      }
    });
  });

  it('a format-12 store (entries and branches WITHOUT ROWID) opens at format 13 with the same rows and keys, and verifies', async () => {
    await withTempDir(async (dir) => {
      const store = await Store.openDir(dir);
      const created = await store.createTenant('f12');
      const log = store.fabric(await store.authenticate(created.token.token));
      const session = await log.createSession({ title: 'carried across' });
      for (let i = 0; i < 40; i++)
        await log.append({ session: session.id, kind: 'message', payload: `before the upgrade ${i}` });
      await log.fork({ session: session.id, name: 'left' });
      await log.fork({ session: session.id, name: 'right' });
      await log.auditCheckpoint({});
      await store.close();
      const db = new Database(join(dir, 'cairn.db'));
      const rows = (query: string) => JSON.stringify(db.prepare(`SELECT * FROM ${query}`).all());
      // Format 12's layout: both tables as format 1 made them, WITHOUT ROWID.
      for (const table of ['audit_entries', 'branches']) {
        const { sql } = db.prepare('SELECT sql FROM sqlite_master WHERE name = ?').get(table) as {
          sql: string;
        };
        db.exec(`${sql.replace(/^CREATE TABLE "?\w+"?/, `CREATE TABLE ${table}_old`)} WITHOUT ROWID;
          INSERT INTO ${table}_old SELECT * FROM ${table}; DROP TABLE ${table};
          ALTER TABLE ${table}_old RENAME TO ${table};
          UPDATE cairn_meta SET value = '12' WHERE key = 'format_version';`);
      }
      const before = [rows('audit_entries ORDER BY tenant, seq'), rows('branches ORDER BY tenant, id')];
      db.close();
      expect(
        JSON.parse(before[1]!).filter((b: { session: string }) => b.session === session.id),
      ).toHaveLength(3);
      expect(before[0]).toContain('"chain":"[');
      const reopened = await Store.openDir(dir);
      try {
        const check = new Database(join(dir, 'cairn.db'), { readonly: true });
        try {
          const after = ['audit_entries ORDER BY tenant, seq', 'branches ORDER BY tenant, id'].map((q) =>
            JSON.stringify(check.prepare(`SELECT * FROM ${q}`).all()),
          );
          expect(after).toEqual(before);
          const uniqueKeys = (table: string) =>
            (check.prepare(`PRAGMA index_list(${table})`).all() as { name: string; unique: number }[])
              .filter((i) => i.unique === 1)
              .map((i) =>
                (check.prepare(`PRAGMA index_info(${i.name})`).all() as { name: string }[])
                  .map((c) => c.name)
                  .join(','),
              )
              .sort();
          expect(uniqueKeys('audit_entries')).toEqual(['tenant,seq']);
          expect(uniqueKeys('branches')).toEqual(['tenant,id', 'tenant,session,name']);
          for (const table of ['audit_entries', 'branches']) {
            const { sql } = check.prepare('SELECT sql FROM sqlite_master WHERE name = ?').get(table) as {
              sql: string;
            };
            expect(sql, table).not.toContain('WITHOUT ROWID');
          }
        } finally {
          check.close();
        }
        const reports = await reopened.verifyTenants(await reopened.listTenants());
        expect(reports.map((r) => r.ok)).toEqual(reports.map(() => true));
        // The log reads and writes on: the forks are there, and an append moves a head.
        const again = reopened.fabric(await reopened.authenticate(created.token.token));
        expect((await again.listBranches({ session: session.id })).map((b) => b.name).sort()).toEqual([
          'left',
          'main',
          'right',
        ]);
        await again.append({ session: session.id, branch: 'left', kind: 'message', payload: 'after' });
      } finally {
        await reopened.close();
      }
    });
  });

  it('reports a damaged database file as CORRUPT instead of opening it', async () => {
    await withTempDir(async (dir) => {
      writeFileSync(join(dir, 'cairn.db'), Buffer.alloc(8192, 7));
      const error = await Store.openDir(dir).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CairnError);
      expect((error as CairnError).code).toBe('CORRUPT');
    });
  });
});

describe('store operator views', () => {
  it('lists every tenant of an embedded store', async () => {
    const { store, cleanup } = await sqliteStore();
    try {
      const a = await store.createTenant('a');
      const b = await store.createTenant('b');
      expect(await store.listTenants()).toEqual([a.tenant, b.tenant].sort());
      const reports = await store.verifyTenants(await store.listTenants());
      expect(reports.map((r) => r.ok)).toEqual([true, true]);
    } finally {
      await cleanup();
    }
  });

  it.skipIf(postgresSkip !== undefined)(
    'refuses to list tenants across row-level security (PostgreSQL)',
    async () => {
      const { store, cleanup } = await postgresStore();
      try {
        await store.createTenant('a');
        const error = await store.listTenants().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(CairnError);
        expect((error as CairnError).code).toBe('FORBIDDEN');
      } finally {
        await cleanup();
      }
    },
  );
});

describe('tokens at rest', () => {
  it('keeps only the hash of a token secret: the secret is nowhere in the store files', async () => {
    await withTempDir(async (dir) => {
      const store = await Store.openDir(dir);
      const created = await store.createTenant('t');
      await store.close();
      const secret = created.token.token.split('.').pop()!;
      const db = new Database(join(dir, 'cairn.db'));
      const row = db.prepare('SELECT secret_hash FROM tokens WHERE id = ?').get(created.token.id) as {
        secret_hash: string;
      };
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
      expect(row.secret_hash).toBe(sha256Hex(secret));
      for (const file of readdirSync(dir)) {
        if (statSync(join(dir, file)).isFile())
          expect(readFileSync(join(dir, file)).includes(secret)).toBe(false);
      }
    });
  });
});

describe('a damaged page met later', () => {
  it('is reported as CORRUPT by the read that meets it, and by the check on open', async () => {
    await withTempDir(async (dir) => {
      const fabric = await openFabric({ dir: dir });
      const s = await fabric.createSession();
      for (let i = 0; i < 50; i++) await fabric.append({ session: s.id, kind: 'message', payload: { i } });
      await fabric.close();
      const file = join(dir, 'cairn.db');
      const db = new Database(file);
      db.pragma('wal_checkpoint(TRUNCATE)');
      const { rootpage } = db.prepare("SELECT rootpage FROM sqlite_master WHERE name = 'events'").get() as {
        rootpage: number;
      };
      const pageSize = db.pragma('page_size', { simple: true }) as number;
      db.close();
      const bytes = readFileSync(file);
      bytes.fill(0xff, (rootpage - 1) * pageSize, rootpage * pageSize);
      writeFileSync(file, bytes);

      const unchecked = await openFabric({ dir: dir, integrityCheck: false });
      try {
        const error = await unchecked.readBranch({ session: s.id }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(CairnError);
        expect((error as CairnError).code).toBe('CORRUPT');
      } finally {
        await unchecked.close();
      }
      const checked = await Store.openDir(dir).catch((e: unknown) => e);
      expect(checked).toBeInstanceOf(CairnError);
      expect((checked as CairnError).code).toBe('CORRUPT');
    });
  });
});

describe('a damaged session tree', () => {
  it('reports a cycle of lines as CORRUPT instead of walking it forever', async () => {
    await withTempDir(async (dir) => {
      const fabric = await openFabric({ dir: dir });
      const s = await fabric.createSession();
      const e1 = await fabric.append({ session: s.id, kind: 'message', payload: 1 });
      await fabric.fork({ session: s.id, at: e1.id, name: 'alt' });
      await fabric.append({ session: s.id, branch: 'alt', kind: 'message', payload: 2 });
      await fabric.close();
      const db = new Database(join(dir, 'cairn.db'));
      db.prepare('UPDATE lines SET base_line = id, base_seq = 1').run();
      db.close();
      const reopened = await openFabric({ dir: dir });
      try {
        const error = await reopened.readBranch({ session: s.id, branch: 'alt' }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(CairnError);
        expect((error as CairnError).code).toBe('CORRUPT');
      } finally {
        await reopened.close();
      }
    });
  }, 60_000);
});

describe('WalSync: where the fdatasync runs', () => {
  it('on the event loop only for a lone write after a lone write; on the thread pool under load', () => {
    // A single writer in a loop: each commit alone, the sync on the loop (no thread-pool round trip).
    expect(syncsOnLoop(1, 1)).toBe(true);
    expect(syncsOnLoop(1, 0)).toBe(true);
    // A batch of many, or a batch of one right after a busy one (more requests are on their way):
    // the loop must stay free to read them.
    expect(syncsOnLoop(20, 1)).toBe(false);
    expect(syncsOnLoop(1, 20)).toBe(false);
    expect(syncsOnLoop(2, 0)).toBe(false);
    // A reader waiting for durability is no write.
    expect(syncsOnLoop(0, 0)).toBe(false);
  });
});
