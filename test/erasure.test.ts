/**
 * The erasure cascade (issue 22): a subject's data written into every store
 * — the log, steps, workspace files, memory, artifacts, approvals — then
 * erased; the store folder is scanned byte for byte for the subject's
 * unique strings, the other subject's data is still there, `audit verify`
 * passes with the erased entries told apart from tampered ones, and the
 * receipt's signature verifies with node:crypto alone.
 */
import { createHash, createPublicKey, verify } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditKey } from '../src/audit/note.js';
import { tombstoneBody } from '../src/audit/tombstones.js';
import type { Desk } from '../src/desk/desk.js';
import type { EmbeddedFabric } from '../src/embedded-fabric.js';
import { MasterKey } from '../src/entry/keys.js';
import { FEATURE_TABLES } from '../src/features.js';
import type { Identity } from '../src/index.js';
import { Store } from '../src/store.js';
import { expectCode } from '../src/testing/expect-code.js';
import { addBilling, seedSubject } from './support/erasure-seed.js';
import { describePostgres } from './support/postgres.js';
import { filesContaining } from './support/scan.js';
import { backendStore, tempDir } from './support/stores.js';

describe('erasure on SQLite: every store, byte for byte', () => erasureSuite('sqlite'));
describePostgres('erasure on PostgreSQL: every table, by SQL', () => erasureSuite('postgres'));

function erasureSuite(backend: 'sqlite' | 'postgres') {
  let temp: { dir: string; remove(): void };
  let storeDir: string;
  let store: Store;
  let closeStore: () => Promise<void>;
  let admin: Identity;
  let adminFabric: EmbeddedFabric;
  const master = MasterKey.generate();
  const desks: Desk[] = [];

  beforeEach(async () => {
    temp = tempDir('cairn-erase-');
    storeDir = join(temp.dir, 'store');
    if (backend === 'sqlite') {
      store = await Store.openDir(storeDir);
      admin = await store.localIdentity();
      closeStore = () => store.close();
    } else {
      let who: Identity;
      ({ store, cleanup: closeStore, who } = await backendStore('postgres', 'erasure'));
      admin = who;
    }
    adminFabric = store.fabric(admin);
    await addBilling(store, admin, master);
  });

  afterEach(async () => {
    for (const d of desks.splice(0)) await d.close();
    await closeStore();
    temp.remove();
  });

  const seed = (tag: string) =>
    seedSubject(
      {
        store,
        admin,
        master,
        root: temp.dir,
        desks,
        stateDir: backend === 'postgres' ? join(temp.dir, 'state') : undefined,
      },
      tag,
    );

  it('erases a user: no byte of theirs in the store folder, the other user intact, audit verifies, the receipt verifies', async () => {
    const alice = await seed('alice');
    const bob = await seed('bob');
    expect(alice.marks.length).toBeGreaterThanOrEqual(20);
    for (const s of alice.marks) expect(await everywhere(s), s).not.toEqual([]);

    // The desks close (as a CLI process ends): their stat caches, which name files, are then in the store folder.
    for (const d of desks.splice(0)) await d.close();
    const subject = `user:${alice.who.principal}`;
    const preview = await adminFabric.erase({ subject, preview: true });
    const erased = await adminFabric.erase({ subject });
    expect(erased.counts).toEqual(preview.counts);
    expect(erased.counts.log).toMatchObject({ sessions: 1, events: expect.any(Number) });
    expect(erased.counts.audit?.payloads).toBeGreaterThan(0);

    for (const s of alice.marks)
      expect(
        filesContaining(storeDir, s).map((f) => f.slice(storeDir.length)),
        s,
      ).toEqual([]);
    // Bob's data is all there, and readable.
    for (const s of bob.marks) expect(await everywhere(s), s).not.toEqual([]);
    const bobFabric = store.fabric(bob.who);
    expect((await bobFabric.getMemory({ record: bob.memory })).text).toContain('likes tea');
    expect((await bobFabric.readBranch({ session: bob.session })).events.length).toBeGreaterThan(10);

    const [report] = await store.verifyTenants([admin.tenant]);
    expect(report).toMatchObject({ ok: true, firstBreak: null });
    expect(report?.erased).toBe(erased.counts.audit?.payloads);

    // The receipt: a signed note whose signature verifies with the published key and node:crypto alone.
    const key = await adminFabric.auditKey();
    expect(verifiesNote(erased.receipt ?? '', key.name, Buffer.from(key.publicKey, 'hex'))).toBe(true);
    expect(erased.receipt).toContain(`subject ${subject}\n`);
    expect(erased.receipt).toContain(`checkpoint ${erased.checkpoint?.size} `);

    // Asked again: the same receipt, nothing changed.
    expect(await adminFabric.erase({ subject })).toEqual(erased);
    // Alice's token no longer works.
    await expectCode(store.authenticate(alice.token), 'UNAUTHENTICATED');
  });

  it('refuses bad subjects and callers, changing nothing', async () => {
    const alice = await seed('alice');
    const before = await adminFabric.auditCheckpoint();
    await expectCode(adminFabric.erase({ subject: 'person:x' }), 'INVALID_ARGUMENT');
    await expectCode(adminFabric.erase({ subject: 'session:ss_nope' }), 'INVALID_ARGUMENT');
    await expectCode(adminFabric.erase({ subject: `session:ss_${'0'.repeat(26)}` }), 'NOT_FOUND');
    await expectCode(adminFabric.erase({ subject: `agent:${alice.who.principal}` }), 'INVALID_ARGUMENT');
    await expectCode(adminFabric.erase({ subject: `user:${admin.principal}` }), 'INVALID_ARGUMENT');
    await expectCode(store.fabric(alice.who).erase({ subject: `session:${alice.session}` }), 'FORBIDDEN');
    const other = await store.createTenant('elsewhere');
    const stranger = store.fabric(await store.authenticate(other.token.token));
    await expectCode(stranger.erase({ subject: `user:${alice.who.principal}` }), 'NOT_FOUND');
    await expectCode(stranger.erase({ subject: `session:${alice.session}` }), 'NOT_FOUND');
    for (const s of alice.marks) expect(await everywhere(s), s).not.toEqual([]);
    const after = await adminFabric.auditCheckpoint();
    // Only the refusals were audited: no tombstone, nothing erased.
    const [report] = await store.verifyTenants([admin.tenant]);
    expect(report).toMatchObject({ ok: true, erased: 0 });
    expect(after.size).toBeGreaterThanOrEqual(before.size);
  });

  it('erases one session, and leaves the rest of its owner', async () => {
    const alice = await seed('alice');
    const fabric = store.fabric(alice.who);
    const other = (await fabric.createSession({ title: 'kept' })).id;
    await fabric.append({ session: other, kind: 'message', payload: { text: 'still here' } });
    const erased = await adminFabric.erase({ subject: `session:${alice.session}` });
    expect(erased.counts.log).toMatchObject({ sessions: 1 });
    expect(erased.counts.identity).toEqual({ tokens: 0, principals: 0 });
    expect((await fabric.readBranch({ session: other })).events).toHaveLength(1);
    await expectCode(fabric.getSession({ session: alice.session }), 'NOT_FOUND');
    // The user-scoped memory is the user's, not the session's: it stays.
    expect((await fabric.getMemory({ record: alice.memory })).text).toContain('likes tea');
    const [report] = await store.verifyTenants([admin.tenant]);
    expect(report).toMatchObject({ ok: true });
  });

  it('tells an erased entry from a tampered one: tombstones are signed and name the leaf', async () => {
    const alice = await seed('alice');
    await seed('bob');
    await adminFabric.erase({ subject: `session:${alice.session}` });
    const tenant = admin.tenant;
    const verdict = async () => (await store.verifyTenants([tenant]))[0];
    expect(await verdict()).toMatchObject({ ok: true });
    const tombstone = await store.engine.read(tenant, (tx) =>
      tx.get<{ seq: number; salt: string; payload: string }>(
        `SELECT a.seq, p.salt, p.payload FROM audit_entries a JOIN audit_payloads p ON p.tenant = a.tenant AND p.seq = a.seq
         WHERE a.tenant = ? AND a.action = 'audit.erase' ORDER BY a.seq LIMIT 1`,
        [tenant],
      ),
    );
    const kept = await store.engine.read(tenant, (tx) =>
      tx.get<{ seq: number; salt: string; payload: string }>(
        "SELECT p.seq, p.salt, p.payload FROM audit_payloads p JOIN audit_entries a ON a.tenant = p.tenant AND a.seq = p.seq WHERE p.tenant = ? AND a.action = 'event.append' ORDER BY p.seq LIMIT 1",
        [tenant],
      ),
    );
    if (!tombstone || !kept) throw new Error('expected a tombstone and a kept payload');
    const t = JSON.parse(tombstone.payload) as { target: number; leafHash: string; note: string };
    /** Runs `sql`, checks verify fails naming `reason`, then puts the row back and checks it passes again. */
    const tampered = async (
      edit: string,
      params: (string | number)[],
      undo: string,
      back: (string | number)[],
      reason: RegExp,
    ) => {
      await store.engine.write(tenant, (tx) => tx.run(edit, params));
      const report = await verdict();
      expect(report?.ok).toBe(false);
      expect(report?.firstBreak?.reason).toMatch(reason);
      await store.engine.write(tenant, (tx) => tx.run(undo, back));
      expect(await verdict()).toMatchObject({ ok: true });
    };
    const setPayload = 'UPDATE audit_payloads SET payload = ? WHERE tenant = ? AND seq = ?';
    // A payload deleted outside an erasure: no tombstone names it.
    await tampered(
      'DELETE FROM audit_payloads WHERE tenant = ? AND seq = ?',
      [tenant, kept.seq],
      'INSERT INTO audit_payloads (tenant, seq, salt, payload) VALUES (?, ?, ?, ?)',
      [tenant, kept.seq, kept.salt, kept.payload],
      /payload of entry \d+ is missing/,
    );
    // A tombstone whose signature does not hold (a byte of it changed).
    const flipped = t.note.replace(
      / (.)([A-Za-z0-9+/]{10})/,
      (_m, c: string, rest: string) => ` ${c === 'A' ? 'B' : 'A'}${rest}`,
    );
    await tampered(
      setPayload,
      [JSON.stringify({ ...t, note: flipped }), tenant, tombstone.seq],
      setPayload,
      [tombstone.payload, tenant, tombstone.seq],
      /not signed/,
    );
    // A tombstone that names another leaf (its signature then fails too: the leaf hash is signed).
    await tampered(
      setPayload,
      [JSON.stringify({ ...t, leafHash: '0'.repeat(64) }), tenant, tombstone.seq],
      setPayload,
      [tombstone.payload, tenant, tombstone.seq],
      /not signed/,
    );
    // A tombstone for an entry that does not exist (entry 0, before the first), signed with the tenant's own
    // key (the store keeps it here): a break, not an erasure of nothing.
    const stored = await store.engine.read(tenant, (tx) =>
      tx.get<{ name: string; seed: Uint8Array | null }>(
        'SELECT name, seed FROM audit_keys WHERE tenant = ?',
        [tenant],
      ),
    );
    if (stored?.seed) {
      const signer = new AuditKey(stored.name, Buffer.from(stored.seed));
      const actor = await store.engine.read(tenant, (tx) =>
        tx.get<{ actor: string; at: number }>(
          'SELECT actor, at FROM audit_entries WHERE tenant = ? AND seq = ?',
          [tenant, tombstone.seq],
        ),
      );
      const forged = { ...t, target: 0 };
      const note = signer.signNote(
        tombstoneBody(tenant, { ...forged, by: actor!.actor, at: Number(actor!.at) }),
      );
      await tampered(
        setPayload,
        [JSON.stringify({ ...forged, note }), tenant, tombstone.seq],
        setPayload,
        [tombstone.payload, tenant, tombstone.seq],
        /names entry 0, which does not exist/,
      );
    } else throw new Error("expected the store to keep the tenant's key");
    // A tombstone's own payload deleted.
    await tampered(
      'DELETE FROM audit_payloads WHERE tenant = ? AND seq = ?',
      [tenant, tombstone.seq],
      'INSERT INTO audit_payloads (tenant, seq, salt, payload) VALUES (?, ?, ?, ?)',
      [tenant, tombstone.seq, tombstone.salt, tombstone.payload],
      /tombstone entry \d+ is missing|payload of tombstone entry/,
    );
  });

  /**
   * Where a string is: on SQLite, the files of the store folder holding its
   * bytes (the database, its log, blob files); on PostgreSQL, the tables
   * whose rows hold it, as text or as bytes (what SQL can see: see
   * docs/design/erasure.md for dead tuples).
   */
  async function everywhere(s: string): Promise<string[]> {
    if (backend === 'sqlite') return filesContaining(storeDir, s).map((f) => f.slice(storeDir.length));
    const hex = Buffer.from(s).toString('hex');
    const hits: string[] = [];
    await store.engine.read(admin.tenant, async (tx) => {
      for (const table of FEATURE_TABLES.flatMap((f) => f.rowSecured)) {
        const row = await tx.get<{ n: number }>(
          `SELECT COUNT(*) AS n FROM ${table} t WHERE strpos(t::text, ?) > 0 OR strpos(t::text, ?) > 0`,
          [s, hex],
        );
        if (Number(row?.n) > 0) hits.push(table);
      }
    });
    return hits;
  }
}

/** Checks a C2SP signed note written from the format alone: body, then `— name base64(keyid ‖ signature)`. */
function verifiesNote(note: string, name: string, publicKey: Buffer): boolean {
  const at = note.lastIndexOf('\n\n— ');
  if (at < 0) return false;
  const body = note.slice(0, at + 1);
  const line = note.slice(at + 2, -1);
  const [dash, keyName, sig] = line.split(' ');
  if (dash !== '—' || keyName !== name || !sig) return false;
  const raw = Buffer.from(sig, 'base64');
  const keyId = createHash('sha256')
    .update(Buffer.concat([Buffer.from(`${name}\n`), Buffer.of(0x01), publicKey]))
    .digest()
    .subarray(0, 4);
  if (!raw.subarray(0, 4).equals(keyId)) return false;
  const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), publicKey]);
  return verify(
    null,
    Buffer.from(body),
    createPublicKey({ key: spki, format: 'der', type: 'spki' }),
    raw.subarray(4),
  );
}
