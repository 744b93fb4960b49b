import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../src/store.js';
import { tempDir } from './support/stores.js';

/**
 * Alters the store one field of one row at a time and checks that audit
 * verification catches every single alteration, and passes on the untouched
 * store.
 */
const temp = tempDir('cairn-tamper-');
const original = join(temp.dir, 'original');
let tenant = '';
let copies = 0;

beforeAll(async () => {
  const store = await Store.openDir(original);
  const created = await store.createTenant('t');
  tenant = created.tenant;
  const fabric = store.fabric(await store.authenticate(created.token.token));
  const s = await fabric.createSession({ title: 'tamper me' });
  const e1 = await fabric.append({ session: s.id, kind: 'message', payload: { text: 'one' } });
  await fabric.append({ session: s.id, kind: 'message', payload: { text: 'two' }, idempotencyKey: 'k' });
  await fabric.fork({ session: s.id, at: e1.id, name: 'alt' });
  await fabric.append({ session: s.id, branch: 'alt', kind: 'note', payload: [1, 2, 3] });
  await fabric.rewind({ session: s.id, branch: 'main', to: e1.id });
  await fabric.createToken({ name: 'helper' });
  await store.close();
  // Fold the WAL into the database file so a plain file copy holds everything.
  const db = new Database(join(original, 'cairn.db'));
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
});

afterAll(() => temp.remove());

async function verifyAfter(alter: (db: Database.Database) => void): Promise<{ ok: boolean; reason: string }> {
  const dir = join(temp.dir, `copy-${copies++}`);
  mkdirSync(dir);
  copyFileSync(join(original, 'cairn.db'), join(dir, 'cairn.db'));
  const db = new Database(join(dir, 'cairn.db'));
  alter(db);
  db.close();
  const store = await Store.openDir(dir);
  try {
    const [report] = await store.verifyTenants([tenant]);
    return { ok: report!.ok, reason: report!.firstBreak?.reason ?? '' };
  } finally {
    await store.close();
  }
}

function rows(table: string, key: string): Array<Record<string, unknown>> {
  const db = new Database(join(original, 'cairn.db'), { readonly: true });
  try {
    return db.prepare(`SELECT * FROM ${table} WHERE tenant = ? ORDER BY ${key}`).all(tenant) as Array<
      Record<string, unknown>
    >;
  } finally {
    db.close();
  }
}

function altered(value: unknown): unknown {
  if (typeof value === 'number') return value + 1000;
  if (value === null) return 'x';
  const text = String(value);
  return text.length === 0 ? 'x' : `${text.slice(0, -1)}${text.endsWith('0') ? '1' : '0'}`;
}

describe('audit verify', () => {
  it('passes on the untouched store', async () => {
    expect(await verifyAfter(() => {})).toEqual({ ok: true, reason: '' });
  });

  it('fails after any single field of any audit entry is altered', async () => {
    const entries = rows('audit_entries', 'seq');
    expect(entries.length).toBeGreaterThan(8);
    let checked = 0;
    for (const entry of entries) {
      for (const column of [
        'at',
        'actor',
        'action',
        'resource_type',
        'resource_id',
        'commitment',
        'prev_hash',
        'hash',
      ]) {
        const result = await verifyAfter((db) =>
          db
            .prepare(`UPDATE audit_entries SET ${column} = ? WHERE tenant = ? AND seq = ?`)
            .run(altered(entry[column]), tenant, entry.seq),
        );
        expect(result.ok, `altering ${column} of entry ${entry.seq} went unnoticed`).toBe(false);
        checked++;
      }
    }
    expect(checked).toBe(entries.length * 8);
  });

  it('fails after any audit payload is altered, or any entry removed', async () => {
    for (const entry of rows('audit_payloads', 'seq')) {
      const result = await verifyAfter((db) =>
        db
          .prepare('UPDATE audit_payloads SET payload = ? WHERE tenant = ? AND seq = ?')
          .run(`${entry.payload} `, tenant, entry.seq),
      );
      expect(result.ok, `altering payload ${entry.seq} went unnoticed`).toBe(false);
    }
    for (const entry of rows('audit_entries', 'seq')) {
      const result = await verifyAfter((db) =>
        db.prepare('DELETE FROM audit_entries WHERE tenant = ? AND seq = ?').run(tenant, entry.seq),
      );
      expect(result.ok, `removing entry ${entry.seq} went unnoticed`).toBe(false);
    }
  });

  it('fails after any single field of any event is altered, or an event is removed or slipped in', async () => {
    const events = rows('events', 'id');
    expect(events.length).toBe(3);
    for (const event of events) {
      for (const column of [
        'session',
        'branch',
        'line',
        'seq',
        'parent',
        'kind',
        'payload',
        'actor',
        'owner',
        'at',
        'idem_key',
      ]) {
        const result = await verifyAfter((db) =>
          db
            .prepare(`UPDATE events SET ${column} = ? WHERE tenant = ? AND id = ?`)
            .run(altered(event[column]), tenant, event.id),
        );
        expect(result.ok, `altering ${column} of event ${event.id} went unnoticed`).toBe(false);
      }
      const removed = await verifyAfter((db) =>
        db.prepare('DELETE FROM events WHERE tenant = ? AND id = ?').run(tenant, event.id),
      );
      expect(removed.ok).toBe(false);
    }
    const slipped = await verifyAfter((db) =>
      db
        .prepare(
          `INSERT INTO events SELECT tenant, 'ev_zzzzzzzzzzzzzzzzzzzzzzzzzz', session, branch, line, seq + 100, parent, kind, payload, actor, owner, at, NULL
           FROM events WHERE tenant = ? LIMIT 1`,
        )
        .run(tenant),
    );
    expect(slipped).toMatchObject({ ok: false });
    expect(slipped.reason).toContain('has no audit entry');
  });

  it('fails after a branch head is moved outside the log', async () => {
    const [branch] = rows('branches', 'id');
    const events = rows('events', 'id');
    const other = events.find((e) => e.id !== branch!.head)!;
    const result = await verifyAfter((db) =>
      db
        .prepare('UPDATE branches SET head = ? WHERE tenant = ? AND id = ?')
        .run(other.id, tenant, branch!.id),
    );
    expect(result.ok).toBe(false);
    expect(result.reason).toContain('moved outside the log');
  });
});
