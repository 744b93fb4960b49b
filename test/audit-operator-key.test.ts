import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { AuditKey, checkpointBody, noteSignedBy } from '../src/audit/note.js';
import { Store } from '../src/store.js';
import { expectCode } from '../src/testing/expect-code.js';
import { tempDir } from './support/stores.js';

// The audit signing key the operator holds (docs/design/audit.md "The key"): signs, is never stored, and settles the tenant.
const temp = tempDir('cairn-audit-key-');
afterAll(() => temp.remove());
const BIN = fileURLToPath(new URL('../bin/cairn.js', import.meta.url));

const seedOf = () => randomBytes(32);
const signedBy = (note: string, key: AuditKey) =>
  noteSignedBy(note, note.slice(0, note.indexOf('\n\n') + 1), key.name, key.publicKey);

/** Every file under `dir` that holds `needle`. */
function filesHolding(dir: string, needle: Buffer): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath ?? entry.path, entry.name);
    if (readFileSync(path).includes(needle)) found.push(path);
  }
  return found;
}

async function withStore<T>(dir: string, auditKey: AuditKey | undefined, fn: (store: Store) => Promise<T>) {
  const store = await Store.openDir(dir, auditKey ? { auditKey } : {});
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

describe("the operator's audit key", () => {
  it('signs the checkpoints, is never stored, and without it (or with another) nothing is signed or changed', async () => {
    const dir = join(temp.dir, 'operator');
    const seed = seedOf();
    const key = AuditKey.parse(seed.toString('hex'), 'a test');
    const other = AuditKey.parse(seedOf().toString('hex'), 'another test');
    const first = await withStore(dir, key, async (store) => {
      const fabric = store.fabric(await store.localIdentity());
      await fabric.createSession({ title: 'signed by the operator' });
      const checkpoint = await fabric.auditCheckpoint({});
      expect(signedBy(checkpoint.note, key)).toBe(true);
      expect(await fabric.auditKey({})).toMatchObject({
        name: key.name,
        publicKey: key.publicKey.toString('hex'),
      });
      return checkpoint;
    });
    // The seed is in no file of the store, raw or as hex.
    expect(filesHolding(dir, seed)).toEqual([]);
    expect(filesHolding(dir, Buffer.from(seed.toString('hex')))).toEqual([]);

    // Without the key: what was signed still reads; a new entry cannot be signed, and nothing moves.
    await withStore(dir, undefined, async (store) => {
      const fabric = store.fabric(await store.localIdentity());
      await fabric.createSession({ title: 'waits for the key' });
      await expectCode(fabric.auditCheckpoint({}), 'UNAVAILABLE');
      expect((await fabric.auditProof({ entry: 0 })).size).toBe(first.size);
      expect((await fabric.verifyAudit({})).ok).toBe(true);
    });
    // With another key: refused, nothing moves.
    await withStore(dir, other, async (store) => {
      const fabric = store.fabric(await store.localIdentity());
      await expectCode(fabric.auditCheckpoint({}), 'CONFLICT');
      expect((await fabric.auditProof({ entry: 0 })).size).toBe(first.size);
    });
    // With it again: the waiting entry is signed, and the log only grew.
    await withStore(dir, key, async (store) => {
      const fabric = store.fabric(await store.localIdentity());
      const later = await fabric.auditCheckpoint({});
      expect(later.size).toBeGreaterThan(first.size);
      expect(signedBy(later.note, key)).toBe(true);
      expect((await fabric.auditConsistency({ from: first.size })).fromRoot).toBe(first.root);
      expect((await fabric.verifyAudit({})).ok).toBe(true);
    });
  });

  it("a tenant whose key the store keeps is not signed for by an operator's key (no rotation yet)", async () => {
    const dir = join(temp.dir, 'kept');
    await withStore(dir, undefined, async (store) => {
      const checkpoint = await store.fabric(await store.localIdentity()).auditCheckpoint({});
      expect(checkpoint.note).toContain('— cairn-audit-');
    });
    await withStore(dir, AuditKey.parse(seedOf().toString('hex'), 'a test'), async (store) => {
      const who = await store.localIdentity();
      const fabric = store.fabric(who);
      await fabric.createSession({ title: 'x' });
      await expectCode(fabric.auditCheckpoint({}), 'CONFLICT');
      // And audit verify, given the operator's key, says the tenant is not signed with it.
      expect((await store.verifyTenants([who.tenant]))[0]?.ok).toBe(false);
    });
  });

  it("a history re-signed with another key passes audit verify alone, and fails it given the operator's key", async () => {
    const dir = join(temp.dir, 'resigned');
    const key = AuditKey.parse(seedOf().toString('hex'), 'a test');
    const tenant = await withStore(dir, key, async (store) => {
      const who = await store.localIdentity();
      await store.fabric(who).auditCheckpoint({});
      return who.tenant;
    });
    // Whoever writes the store puts their own key in its place and signs every checkpoint again with it.
    const forger = AuditKey.parse(seedOf().toString('hex'), 'the forger');
    const db = new Database(join(dir, 'cairn.db'));
    db.prepare('UPDATE audit_keys SET name = ?, public_key = ? WHERE tenant = ?').run(
      forger.name,
      forger.publicKey.toString('hex'),
      tenant,
    );
    const rows = db.prepare('SELECT size, at, root FROM audit_checkpoints WHERE tenant = ?').all(tenant) as {
      size: number;
      at: number;
      root: string;
    }[];
    for (const row of rows) {
      const body = checkpointBody(`${forger.name}/${tenant}`, row.size, Buffer.from(row.root, 'hex'), row.at);
      db.prepare('UPDATE audit_checkpoints SET note = ? WHERE tenant = ? AND size = ?').run(
        forger.signNote(body),
        tenant,
        row.size,
      );
    }
    db.close();
    expect((await withStore(dir, undefined, (store) => store.verifyTenants([tenant])))[0]?.ok).toBe(true);
    const checked = (await withStore(dir, key, (store) => store.verifyTenants([tenant])))[0];
    expect(checked?.ok).toBe(false);
    expect(checked?.firstBreak?.reason).toContain(key.name);
  });

  it('a kept seed that no longer matches its public key is reported CORRUPT, not signed with', async () => {
    const dir = join(temp.dir, 'seed');
    const tenant = await withStore(dir, undefined, async (store) => {
      const who = await store.localIdentity();
      await store.fabric(who).auditCheckpoint({});
      return who.tenant;
    });
    const db = new Database(join(dir, 'cairn.db'));
    db.prepare('UPDATE audit_keys SET seed = ? WHERE tenant = ?').run(seedOf(), tenant);
    db.close();
    await withStore(dir, undefined, async (store) => {
      const fabric = store.fabric(await store.localIdentity());
      await fabric.createSession({ title: 'one more entry' });
      await expectCode(fabric.auditCheckpoint({}), 'CORRUPT');
    });
  });

  it('is 64 hex digits, named for its public key', () => {
    const seed = '42'.repeat(32);
    expect(AuditKey.parse(`${seed}\n`, 'f').name).toBe(AuditKey.parse(seed, 'g').name);
    expect(AuditKey.parse(seed, 'f').name).toMatch(/^cairn-audit-[0-9a-f]{8}$/);
    for (const bad of [
      '',
      '42'.repeat(31),
      'zz'.repeat(32),
      `${seed}00`,
      Buffer.alloc(32).toString('base64'),
    ])
      expect(() => AuditKey.parse(bad, 'f')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });

  it('reaches the CLI from CAIRN_AUDIT_KEY_FILE; a bad key file is refused (INVALID_ARGUMENT, exit 5) saying how to make one', () => {
    const dir = join(temp.dir, 'cli');
    const seed = seedOf();
    const keyFile = join(temp.dir, 'audit.key');
    writeFileSync(keyFile, `${seed.toString('hex')}\n`, { mode: 0o600 });
    const key = AuditKey.parse(seed.toString('hex'), keyFile);
    const cairn = (args: string[], env: Record<string, string> = {}) =>
      spawnSync(process.execPath, [BIN, ...args, '--store', dir], {
        encoding: 'utf8',
        env: { ...process.env, CAIRN_AUDIT_KEY_FILE: '', CAIRN_AUDIT_KEY: '', ...env },
      });
    expect(cairn(['init']).status).toBe(0);
    const signed = cairn(['audit', 'checkpoint', '--json'], { CAIRN_AUDIT_KEY_FILE: keyFile });
    expect(signed.status, signed.stderr).toBe(0);
    expect(signedBy(JSON.parse(signed.stdout).note, key)).toBe(true);
    const shown = cairn(['audit', 'key', '--json']);
    expect(JSON.parse(shown.stdout).publicKey).toBe(key.publicKey.toString('hex'));
    writeFileSync(keyFile, 'not a key\n');
    const refused = cairn(['audit', 'checkpoint', '--json'], { CAIRN_AUDIT_KEY_FILE: keyFile });
    expect(refused.status).toBe(5);
    expect(refused.stderr).toContain('openssl rand -hex 32');
  });
});
