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
  // A second session (with meta) gives branch and line rows somewhere else to be moved to.
  await fabric.createSession({ title: 'other', meta: { k: 'v' } });
  await store.close();
  // Fold the WAL into the database file so a plain file copy holds everything.
  const db = new Database(join(original, 'cairn.db'));
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
});

afterAll(() => temp.remove());

async function verifyAfter(
  alter: (db: Database.Database) => unknown,
): Promise<{ ok: boolean; reason: string }> {
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

/** Alters one column of one row by primary key (tenant, id). */
function setColumn(table: string, id: unknown, column: string, value: unknown) {
  return (db: Database.Database) =>
    db.prepare(`UPDATE ${table} SET ${column} = ? WHERE tenant = ? AND id = ?`).run(value, tenant, id);
}

/** Verify must fail after alter, with a reason that contains `reason`. */
async function expectBreak(alter: (db: Database.Database) => unknown, reason: string): Promise<void> {
  const result = await verifyAfter(alter);
  expect(result.ok, `${reason}: went unnoticed`).toBe(false);
  expect(result.reason).toContain(reason);
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

  it('fails after any single field of any session, branch or line row is altered', async () => {
    const columns: Record<string, string[]> = {
      sessions: ['owner', 'title', 'meta', 'created_at'],
      branches: [
        'session',
        'name',
        'owner',
        'head',
        'head_seq',
        'head_line',
        'own_line',
        'forked_from',
        'created_at',
        'updated_at',
      ],
      lines: ['session', 'base_line', 'base_seq'],
    };
    for (const [table, names] of Object.entries(columns)) {
      const all = rows(table, 'id');
      expect(all.length, table).toBeGreaterThanOrEqual(2);
      for (const row of all) {
        for (const column of names) {
          const result = await verifyAfter(setColumn(table, row.id, column, altered(row[column])));
          expect(result.ok, `altering ${column} of ${table} ${row.id} went unnoticed`).toBe(false);
        }
      }
    }
  });

  it('fails after a branch row is moved to other real values', async () => {
    const branches = rows('branches', 'id');
    const [first, second] = rows('sessions', 'id');
    const alt = branches.find((b) => b.name === 'alt')!;
    const main = branches.find((b) => b.name === 'main' && b.session === first!.id)!;
    // head_seq: the reviewer's tamper, and alt's head_seq pointing into its base line.
    await expectBreak(
      (db) => db.prepare('UPDATE branches SET head_seq = 1 WHERE tenant = ?').run(tenant),
      'head_seq',
    );
    await expectBreak(setColumn('branches', alt.id, 'head_seq', 1), `head_seq of branch ${alt.id}`);
    // head_line: alt's head read from the root line instead of its own.
    await expectBreak(
      setColumn('branches', alt.id, 'head_line', main.head_line),
      `head_line of branch ${alt.id}`,
    );
    await expectBreak(setColumn('branches', main.id, 'head_line', ''), `head_line of branch ${main.id}`);
    // own_line: the next append would extend the root line after a rewind.
    await expectBreak(
      setColumn('branches', main.id, 'own_line', main.head_line),
      `own_line of branch ${main.id}`,
    );
    // name: swap main and alt, so reading "main" returns alt's events.
    await expectBreak((db) => {
      db.prepare('UPDATE branches SET name = ? WHERE tenant = ? AND id = ?').run('swap', tenant, main.id);
      db.prepare('UPDATE branches SET name = ? WHERE tenant = ? AND id = ?').run('main', tenant, alt.id);
      db.prepare('UPDATE branches SET name = ? WHERE tenant = ? AND id = ?').run('alt', tenant, main.id);
    }, 'name of branch');
    // session: alt moved to the other session.
    await expectBreak(setColumn('branches', alt.id, 'session', second!.id), `session of branch ${alt.id}`);
    // A branch row removed, or one slipped in without an entry.
    await expectBreak(
      (db) => db.prepare('DELETE FROM branches WHERE tenant = ? AND id = ?').run(tenant, alt.id),
      `branch ${alt.id} created by entry`,
    );
    await expectBreak(
      (db) =>
        db
          .prepare(
            `INSERT INTO branches SELECT tenant, 'br_zzzzzzzzzzzzzzzzzzzzzzzzzz', session, 'slipped', owner, head, head_seq,
             head_line, '', head, created_at, updated_at FROM branches WHERE tenant = ? AND id = ?`,
          )
          .run(tenant, alt.id),
      'branch br_zzzzzzzzzzzzzzzzzzzzzzzzzz has no audit entry',
    );
  });

  it('fails after a line row is rebased, removed or slipped in', async () => {
    const lines = rows('lines', 'id');
    expect(lines.length).toBe(2);
    const root = lines.find((l) => l.base_line === '')!;
    const forked = lines.find((l) => l.base_line !== '')!;
    expect(forked.base_line).toBe(root.id);
    // base_seq: the reviewer's tamper, and the fork point moved one event on.
    await expectBreak(
      (db) => db.prepare('UPDATE lines SET base_seq = 0 WHERE tenant = ?').run(tenant),
      'base_seq',
    );
    await expectBreak(setColumn('lines', forked.id, 'base_seq', 2), `line ${forked.id}`);
    // base_line: the forked line made a root, and the root line based on the forked one.
    await expectBreak(
      (db) =>
        db
          .prepare(`UPDATE lines SET base_line = '', base_seq = 0 WHERE tenant = ? AND id = ?`)
          .run(tenant, forked.id),
      `line ${forked.id}`,
    );
    await expectBreak(
      (db) =>
        db
          .prepare('UPDATE lines SET base_line = ?, base_seq = 1 WHERE tenant = ? AND id = ?')
          .run(forked.id, tenant, root.id),
      `line ${root.id}`,
    );
    await expectBreak(setColumn('lines', forked.id, 'base_line', ''), `line ${forked.id} has no base line`);
    await expectBreak(
      (db) => db.prepare('DELETE FROM lines WHERE tenant = ? AND id = ?').run(tenant, forked.id),
      `line ${forked.id} of event`,
    );
    await expectBreak(
      (db) =>
        db
          .prepare(
            `INSERT INTO lines SELECT tenant, 'ln_zzzzzzzzzzzzzzzzzzzzzzzzzz', session, base_line, base_seq
             FROM lines WHERE tenant = ? AND id = ?`,
          )
          .run(tenant, forked.id),
      'line ln_zzzzzzzzzzzzzzzzzzzzzzzzzz has no events',
    );
  });

  it('fails after a session row is altered, removed or slipped in', async () => {
    const [first, second] = rows('sessions', 'id');
    const other = rows('principals', 'id').find((p) => p.id !== first!.owner)!;
    await expectBreak(
      (db) => db.prepare(`UPDATE sessions SET title = 'forged' WHERE tenant = ?`).run(tenant),
      'title of session',
    );
    await expectBreak(
      setColumn('sessions', second!.id, 'meta', '{"k":"w"}'),
      `meta of session ${second!.id}`,
    );
    await expectBreak(setColumn('sessions', first!.id, 'meta', second!.meta), `meta of session ${first!.id}`);
    await expectBreak(setColumn('sessions', first!.id, 'owner', other.id), `owner of session ${first!.id}`);
    await expectBreak(
      (db) => db.prepare('DELETE FROM sessions WHERE tenant = ? AND id = ?').run(tenant, second!.id),
      `session ${second!.id} created by entry`,
    );
    await expectBreak(
      (db) =>
        db
          .prepare(
            `INSERT INTO sessions SELECT tenant, 'ss_zzzzzzzzzzzzzzzzzzzzzzzzzz', owner, title, meta, created_at
             FROM sessions WHERE tenant = ? AND id = ?`,
          )
          .run(tenant, first!.id),
      'session ss_zzzzzzzzzzzzzzzzzzzzzzzzzz has no audit entry',
    );
  });
});
