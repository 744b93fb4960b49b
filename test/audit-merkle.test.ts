import { createHash, createPublicKey, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rootOfEntries } from '../src/audit/merkle.js';
import { AuditKey, checkpointBody } from '../src/audit/note.js';
import { leafEntry } from '../src/audit/tree.js';
import type { Fabric } from '../src/fabric.js';
import { Store } from '../src/store.js';
import { tempDir } from './support/stores.js';

/*
 * The audit tree judged by a verifier that shares no code with it: RFC 9162's
 * algorithms (§2.1.1 the tree hash, §2.1.3.2 and §2.1.4.2 the proofs'
 * verification) and C2SP signed-note's key id and signature, written again
 * here from those documents.
 */
const sha = (...parts: Uint8Array[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};
const LEAF = Uint8Array.of(0);
const NODE = Uint8Array.of(1);
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const unhex = (s: string) => Buffer.from(s, 'hex');

/** RFC 9162 §2.1.1 MTH over leaf hashes. */
function mth(leaves: Buffer[]): Buffer {
  if (leaves.length === 0) return sha();
  if (leaves.length === 1) return leaves[0] as Buffer;
  let k = 1;
  while (k << 1 < leaves.length) k <<= 1;
  return sha(NODE, mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}

/** RFC 9162 §2.1.3.2. */
function verifyInclusion(leaf: Buffer, index: number, size: number, path: Buffer[], root: Buffer): boolean {
  if (index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of path) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = sha(NODE, p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = sha(NODE, r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && r.equals(root);
}

/** RFC 9162 §2.1.4.2. */
function verifyConsistency(
  first: number,
  second: number,
  firstRoot: Buffer,
  secondRoot: Buffer,
  proof: Buffer[],
) {
  if (first === second) return proof.length === 0 && firstRoot.equals(secondRoot);
  if (first < 1 || first > second || proof.length === 0) return false;
  const path = (first & (first - 1)) === 0 ? [firstRoot, ...proof] : [...proof];
  let fn = first - 1;
  let sn = second - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = path[0] as Buffer;
  let sr = path[0] as Buffer;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = sha(NODE, c, fr);
      sr = sha(NODE, c, sr);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      sr = sha(NODE, sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return fr.equals(firstRoot) && sr.equals(secondRoot) && sn === 0;
}

/** C2SP signed-note with an Ed25519 verifier key `name+hash+base64(0x01 ‖ key)`: the checkpoint's size and root, or null. */
function openNote(note: string, vkey: string): { origin: string; size: number; root: Buffer } | null {
  // The name has no `+`, the base64 key may: the first two `+` split it.
  const [name, idHex] = vkey.split('+', 2) as [string, string];
  const keyText = vkey.slice(name.length + idHex.length + 2);
  const keyBytes = Buffer.from(keyText, 'base64');
  if (keyBytes[0] !== 1 || keyBytes.length !== 33) return null;
  const id = sha(Buffer.from(`${name}\n`), keyBytes).subarray(0, 4);
  if (id.toString('hex') !== idHex) return null;
  const cut = note.lastIndexOf('\n\n');
  const text = note.slice(0, cut + 1);
  for (const line of note
    .slice(cut + 2)
    .split('\n')
    .filter(Boolean)) {
    const m = /^— (\S+) (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const sig = Buffer.from(m[2] as string, 'base64');
    if (!sig.subarray(0, 4).equals(id)) continue;
    const key = createPublicKey({
      key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), keyBytes.subarray(1)]),
      format: 'der',
      type: 'spki',
    });
    if (!verify(null, Buffer.from(text), key, sig.subarray(4))) return null;
    const [origin, size, root] = text.split('\n') as [string, string, string];
    return { origin, size: Number(size), root: Buffer.from(root, 'base64') };
  }
  return null;
}

const temp = tempDir('cairn-merkle-');
let store: Store;
let fabric: Fabric;
let tenant = '';
/** The leaf hashes of every entry, as the verifier computes them from the entries' text. */
const leaves: Buffer[] = [];
/** The entries' bytes, as the proofs give them. */
const entries: Buffer[] = [];
let size = 0;

beforeAll(async () => {
  store = await Store.openDir(join(temp.dir, 'store'));
  const created = await store.createTenant('merkle');
  tenant = created.tenant;
  fabric = store.fabric(await store.authenticate(created.token.token));
  const s = await fabric.createSession({ title: 'tree' });
  for (let i = 0; i < 300; i++) await fabric.append({ session: s.id, kind: 'message', payload: { i } });
  size = (await fabric.auditCheckpoint({})).size;
  for (let i = 0; i < size; i++) {
    const proof = await fabric.auditProof({ entry: i, size: i + 1 });
    leaves.push(sha(LEAF, Buffer.from(proof.entry, 'utf8')));
    entries.push(Buffer.from(proof.entry, 'utf8'));
  }
}, 120_000);
afterAll(async () => {
  await store.close();
  temp.remove();
});

describe('the audit log as a Merkle tree (RFC 9162), checked by a verifier of its own', () => {
  it('a signed checkpoint verifies under the published key, and its root is the tree of every entry', async () => {
    expect(size).toBeGreaterThanOrEqual(300);
    const checkpoint = await fabric.auditCheckpoint({});
    const key = await fabric.auditKey({});
    const opened = openNote(checkpoint.note, key.verifierKey);
    expect(opened).not.toBeNull();
    expect(opened?.size).toBe(size);
    expect(opened?.origin).toBe(`${key.name}/${tenant}`);
    expect(hex(opened?.root as Buffer)).toBe(checkpoint.root);
    expect(checkpoint.root).toBe(hex(mth(leaves)));
    const keyText = Buffer.concat([Buffer.of(1), unhex(key.publicKey)]).toString('base64');
    expect(key.verifierKey.endsWith(`+${keyText}`)).toBe(true);
    // A changed size, root or signature does not verify.
    const lines = checkpoint.note.split('\n');
    const altered = (i: number, to: string) => lines.map((l, j) => (j === i ? to : l)).join('\n');
    expect(openNote(altered(1, String(size + 1)), key.verifierKey)).toBeNull();
    expect(openNote(altered(2, sha(Buffer.from('x')).toString('base64')), key.verifierKey)).toBeNull();
    const sigLine = lines.findIndex((l) => l.startsWith('— '));
    const sig = Buffer.from((lines[sigLine] as string).split(' ')[2] as string, 'base64');
    sig[10] = (sig[10] as number) ^ 1;
    expect(openNote(altered(sigLine, `— ${key.name} ${sig.toString('base64')}`), key.verifierKey)).toBeNull();
  });

  it('every entry of every tree size from 1 to 300 proves its inclusion (first, last and two others of each)', async () => {
    let checked = 0;
    for (let n = 1; n <= 300; n++) {
      const root = mth(leaves.slice(0, n));
      const picks = new Set([0, n - 1, (n * 7919) % n, Math.floor(n / 2)]);
      for (const index of picks) {
        const proof = await fabric.auditProof({ entry: index, size: n });
        expect(proof.root).toBe(hex(root));
        expect(proof.leafHash).toBe(hex(leaves[index] as Buffer));
        expect(verifyInclusion(leaves[index] as Buffer, index, n, proof.path.map(unhex), root)).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(850);
  }, 120_000);

  it("the library's one-pass root of a log's entries (rootOfEntries, for offline verifiers) is the RFC's, at every size from 0 to 300", async () => {
    for (let n = 0; n <= 300; n++)
      expect(hex(rootOfEntries(entries.slice(0, n))), `size ${n}`).toBe(hex(mth(leaves.slice(0, n))));
    expect(hex(rootOfEntries(entries.slice(0, size)))).toBe((await fabric.auditCheckpoint({})).root);
    // An entry longer than the in-place leaf buffer (64 KiB) hashes the same way.
    const long = Buffer.alloc(70_000, 7);
    expect(hex(rootOfEntries([long]))).toBe(hex(sha(LEAF, long)));
  });

  it('a changed leaf, path hash or root fails inclusion', async () => {
    const proof = await fabric.auditProof({ entry: 77, size: 201 });
    const path = proof.path.map(unhex);
    const root = unhex(proof.root);
    const leaf = unhex(proof.leafHash);
    expect(verifyInclusion(leaf, 77, 201, path, root)).toBe(true);
    expect(verifyInclusion(leaves[78] as Buffer, 77, 201, path, root)).toBe(false);
    expect(verifyInclusion(leaf, 78, 201, path, root)).toBe(false);
    for (let i = 0; i < path.length; i++) {
      const bent = path.map((p, j) => (j === i ? sha(p) : p));
      expect(verifyInclusion(leaf, 77, 201, bent, root)).toBe(false);
    }
    expect(verifyInclusion(leaf, 77, 201, path, sha(root))).toBe(false);
  });

  it('a proof at a signed size is also a C2SP tlog-proof that verifies alone: entry, path and signed checkpoint', async () => {
    const key = await fabric.auditKey({});
    /** A tlog-proof, read as https://c2sp.org/tlog-proof says: true when the entry it carries is in the signed tree. */
    const verifyTlogProof = (text: string): boolean => {
      const lines = text.split('\n');
      if (lines[0] !== 'c2sp.org/tlog-proof@v1') return false;
      let at = 1;
      const extra = /^extra (\S+)$/.exec(lines[at] as string);
      if (!extra) return false; // ours always carries the entry
      at++;
      const index = /^index (0|[1-9]\d*)$/.exec(lines[at] as string);
      if (!index) return false;
      at++;
      const path: Buffer[] = [];
      while (lines[at] !== '') path.push(Buffer.from(lines[at++] as string, 'base64'));
      const opened = openNote(lines.slice(at + 1).join('\n'), key.verifierKey);
      if (!opened) return false;
      const leaf = sha(LEAF, Buffer.from(extra[1] as string, 'base64'));
      return verifyInclusion(leaf, Number(index[1]), opened.size, path, opened.root);
    };
    const proof = await fabric.auditProof({ entry: 123 });
    expect(proof.size).toBe(size);
    const text = proof.tlogProof as string;
    expect(verifyTlogProof(text)).toBe(true);
    expect(text).toContain(`\nindex 123\n`);
    expect(text.endsWith((await fabric.auditCheckpoint({})).note)).toBe(true);
    // A changed entry, index, path hash, tree size or signature fails.
    const lines = text.split('\n');
    const altered = (i: number, to: string) => lines.map((l, j) => (j === i ? to : l)).join('\n');
    const entry = Buffer.from((lines[1] as string).slice('extra '.length), 'base64').toString();
    expect(
      verifyTlogProof(
        altered(1, `extra ${Buffer.from(entry.replace('"index":123', '"index":124')).toString('base64')}`),
      ),
    ).toBe(false);
    expect(verifyTlogProof(altered(2, 'index 124'))).toBe(false);
    expect(verifyTlogProof(altered(3, sha(Buffer.from(lines[3] as string)).toString('base64')))).toBe(false);
    const sizeLine = lines.indexOf(String(size));
    expect(verifyTlogProof(altered(sizeLine, String(size - 1)))).toBe(false);
    const sigLine = lines.findIndex((l) => l.startsWith('— '));
    const sig = Buffer.from((lines[sigLine] as string).split(' ')[2] as string, 'base64');
    sig[7] = (sig[7] as number) ^ 1;
    expect(verifyTlogProof(altered(sigLine, `— ${key.name} ${sig.toString('base64')}`))).toBe(false);
    // At a size no checkpoint was signed at there is no signed tree to carry: the JSON proof only.
    expect((await fabric.auditProof({ entry: 3, size: 10 })).tlogProof).toBeNull();
  });

  it('every pair of tree sizes up to 64, and pairs across 300, prove consistency', async () => {
    const pairs: [number, number][] = [];
    for (let to = 1; to <= 64; to++) for (let from = 1; from <= to; from++) pairs.push([from, to]);
    for (let i = 0; i < 200; i++) {
      const to = 1 + ((i * 104729) % 300);
      pairs.push([1 + ((i * 7907) % to), to]);
    }
    for (const [from, to] of pairs) {
      const proof = await fabric.auditConsistency({ from, to });
      const a = mth(leaves.slice(0, from));
      const b = mth(leaves.slice(0, to));
      expect([proof.fromRoot, proof.toRoot]).toEqual([hex(a), hex(b)]);
      expect(verifyConsistency(from, to, a, b, proof.path.map(unhex)), `${from}→${to}`).toBe(true);
      if (proof.path.length > 0) {
        const bent = proof.path.map((p, j) => (j === 0 ? hex(sha(unhex(p))) : p)).map(unhex);
        expect(verifyConsistency(from, to, a, b, bent)).toBe(false);
      }
    }
  }, 120_000);

  it('refuses a proof past the tree, a backwards range and a size never integrated, and changes nothing', async () => {
    const before = await fabric.auditCheckpoint({});
    const refusal = (p: Promise<unknown>) =>
      p.then(
        () => 'answered',
        (e: { code?: string }) => e.code,
      );
    expect(await refusal(fabric.auditProof({ entry: size, size }))).toBe('INVALID_ARGUMENT');
    expect(await refusal(fabric.auditProof({ entry: 5, size: 5 }))).toBe('INVALID_ARGUMENT');
    expect(await refusal(fabric.auditConsistency({ from: 10, to: 9 }))).toBe('INVALID_ARGUMENT');
    expect(await refusal(fabric.auditConsistency({ from: 0, to: 9 }))).toBe('INVALID_ARGUMENT');
    expect(await refusal(fabric.auditProof({ entry: 0, size: size + 1000 }))).toBe('INVALID_ARGUMENT');
    expect(await refusal(fabric.auditProof({ entry: -1 } as never))).toBe('INVALID_ARGUMENT');
    expect((await fabric.auditCheckpoint({})).size).toBe(before.size);
  });

  it('a checkpoint takes in every entry committed before it was asked for; appends alone do not touch the tree', async () => {
    const s = await fabric.createSession({ title: 'later' });
    const before = await fabric.auditCheckpoint({});
    await fabric.append({ session: s.id, kind: 'message', payload: { late: true } });
    const after = await fabric.auditCheckpoint({});
    expect(after.size).toBe(before.size + 1);
    const proof = await fabric.auditConsistency({ from: before.size, to: after.size });
    expect(
      verifyConsistency(
        before.size,
        after.size,
        unhex(before.root),
        unhex(after.root),
        proof.path.map(unhex),
      ),
    ).toBe(true);
    const report = await fabric.verifyAudit({});
    expect(report.ok).toBe(true);
  });
});

describe('a large log (143,417 entries), checked by the same verifier', () => {
  /** 2^17 + 12,345: a tree whose right edge is ragged at every level. */
  const LARGE = 2 ** 17 + 12_345;

  it('random entries prove their inclusion, random sizes their consistency, against the signed checkpoint; a changed proof fails', async () => {
    const large = tempDir('cairn-merkle-large-');
    const big = await Store.openDir(join(large.dir, 'store'));
    try {
      const who = await big.localIdentity();
      const bigFabric = big.fabric(who);
      // Entries written straight into the table, as the benchmark does: the tree is built from them alone.
      const db = new Database(join(large.dir, 'store', 'cairn.db'));
      const head = (
        db.prepare('SELECT seq FROM audit_heads WHERE tenant = ?').get(who.tenant) as { seq: number }
      ).seq;
      const insert = db.prepare(
        `INSERT INTO audit_entries (tenant, seq, at, actor, action, resource_type, resource_id, commitment, prev_hash, hash)
         VALUES (?, ?, ?, ?, 'event.append', 'event', ?, ?, '', '')`,
      );
      db.transaction(() => {
        for (let i = head + 1; i <= LARGE; i++)
          insert.run(
            who.tenant,
            i,
            1_796_000_000_000 + i,
            who.principal,
            `ev_${i}`,
            sha(Buffer.from(String(i))).toString('hex'),
          );
      })();
      db.prepare('UPDATE audit_heads SET seq = ? WHERE tenant = ?').run(LARGE, who.tenant);
      db.close();
      const checkpoint = await bigFabric.auditCheckpoint({});
      expect(checkpoint.size).toBe(LARGE);
      const key = await bigFabric.auditKey({});
      const signed = openNote(checkpoint.note, key.verifierKey);
      expect(signed?.size).toBe(LARGE);
      const root = signed?.root as Buffer;
      // A seeded sequence, so a failure names the same entries again.
      let seed = 22;
      const next = (below: number) => {
        seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
        return seed % below;
      };
      const picks = [
        0,
        1,
        LARGE - 2,
        LARGE - 1,
        2 ** 17 - 1,
        2 ** 17,
        ...Array.from({ length: 200 }, () => next(LARGE)),
      ];
      for (const index of picks) {
        const proof = await bigFabric.auditProof({ entry: index });
        const entry = JSON.parse(proof.entry) as { index: number; resource: { id: string } };
        expect(entry.index).toBe(index);
        if (index >= head) expect(entry.resource.id).toBe(`ev_${index + 1}`);
        const leaf = sha(LEAF, Buffer.from(proof.entry, 'utf8'));
        expect(verifyInclusion(leaf, index, LARGE, proof.path.map(unhex), root), `entry ${index}`).toBe(true);
      }
      const sample = await bigFabric.auditProof({ entry: 77_777 });
      const path = sample.path.map(unhex);
      const leaf = unhex(sample.leafHash);
      expect(verifyInclusion(leaf, 77_777, LARGE, path, root)).toBe(true);
      expect(verifyInclusion(sha(leaf), 77_777, LARGE, path, root)).toBe(false);
      expect(verifyInclusion(leaf, 77_777, LARGE, path, sha(root))).toBe(false);
      for (let i = 0; i < path.length; i++)
        expect(
          verifyInclusion(
            leaf,
            77_777,
            LARGE,
            path.map((h, j) => (j === i ? sha(h) : h)),
            root,
          ),
        ).toBe(false);
      // Consistency from random earlier sizes to the signed one: the earlier root is the one this verifier
      // gets from an inclusion proof at that size (the root a client would have kept).
      for (let k = 0; k < 40; k++) {
        const from = 1 + next(LARGE);
        const proof = await bigFabric.auditConsistency({ from });
        expect(proof.to).toBe(LARGE);
        const earlier = await bigFabric.auditProof({ entry: from - 1, size: from });
        const earlierRoot = unhex(earlier.root);
        expect(
          verifyInclusion(
            sha(LEAF, Buffer.from(earlier.entry)),
            from - 1,
            from,
            earlier.path.map(unhex),
            earlierRoot,
          ),
        ).toBe(true);
        expect(verifyConsistency(from, LARGE, earlierRoot, root, proof.path.map(unhex)), `from ${from}`).toBe(
          true,
        );
        expect(verifyConsistency(from, LARGE, sha(earlierRoot), root, proof.path.map(unhex))).toBe(false);
      }
    } finally {
      await big.close();
      large.remove();
    }
  }, 300_000);
});

describe('audit verify finds an altered tree or checkpoint', () => {
  const alterAndVerify = async (alter: (db: Database.Database) => void) => {
    const dir = join(temp.dir, `tamper-${Math.random().toString(36).slice(2)}`);
    const s = await Store.openDir(dir);
    const created = await s.createTenant('t');
    const f = s.fabric(await s.authenticate(created.token.token));
    const session = await f.createSession({ title: 'x' });
    for (let i = 0; i < 600; i++) await f.append({ session: session.id, kind: 'm', payload: { i } });
    await f.auditCheckpoint({});
    await f.append({ session: session.id, kind: 'm', payload: { last: true } });
    await f.auditCheckpoint({});
    expect((await s.verifyTenants([created.tenant]))[0]?.ok).toBe(true);
    await s.close();
    const db = new Database(join(dir, 'cairn.db'));
    alter(db);
    db.close();
    const again = await Store.openDir(dir);
    try {
      return (await again.verifyTenants([created.tenant]))[0];
    } finally {
      await again.close();
    }
  };
  /** Flips a bit of tile `idx` of `level` (-1: the level's last tile, which is partial here). */
  const flipTile = (level: number, at: number, idxOrLast: number) => (db: Database.Database) => {
    const last = db
      .prepare('SELECT MAX(idx) AS idx, length(hashes) AS n FROM audit_tiles WHERE level = ?')
      .get(level) as {
      idx: number;
      n: number;
    };
    if (idxOrLast < 0) expect(last.n).toBeLessThan(16 * 32);
    const idx = idxOrLast < 0 ? last.idx : idxOrLast;
    const row = db.prepare('SELECT hashes FROM audit_tiles WHERE level = ? AND idx = ?').get(level, idx) as {
      hashes: Buffer;
    };
    row.hashes[at] = (row.hashes[at] as number) ^ 0x40;
    db.prepare('UPDATE audit_tiles SET hashes = ? WHERE level = ? AND idx = ?').run(row.hashes, level, idx);
  };

  it.each([
    ['a leaf in a full tile', flipTile(0, 5 * 32 + 3, 0)],
    ['a leaf in the partial tile', flipTile(0, 1, -1)],
    ['a node of the level above', flipTile(1, 33, 0)],
    ['a node two levels above', flipTile(2, 7, 0)],
    [
      'a tile cut short',
      (db: Database.Database) =>
        db.prepare('UPDATE audit_tiles SET hashes = substr(hashes, 1, 64) WHERE level = 0 AND idx = 2').run(),
    ],
    [
      'a checkpoint root',
      (db: Database.Database) =>
        db
          .prepare(
            "UPDATE audit_checkpoints SET root = (CASE WHEN substr(root, 1, 1) = '0' THEN '1' ELSE '0' END) || substr(root, 2) WHERE size = (SELECT MIN(size) FROM audit_checkpoints WHERE size > 0)",
          )
          .run(),
    ],
    [
      'a checkpoint note',
      (db: Database.Database) =>
        db
          .prepare(
            "UPDATE audit_checkpoints SET note = replace(note, 'time ', 'time 1') WHERE size = (SELECT MAX(size) FROM audit_checkpoints)",
          )
          .run(),
    ],
    [
      'a checkpoint time',
      (db: Database.Database) => db.prepare('UPDATE audit_checkpoints SET at = at + 1').run(),
    ],
    ['the tree size', (db: Database.Database) => db.prepare('UPDATE audit_trees SET size = size - 1').run()],
    [
      'an entry field',
      (db: Database.Database) => db.prepare("UPDATE audit_entries SET actor = 'pr_x' WHERE seq = 3").run(),
    ],
  ])(
    '%s',
    async (_what, alter) => {
      const report = await alterAndVerify(alter);
      expect(report?.ok).toBe(false);
      expect(report?.firstBreak?.reason).toBeTruthy();
    },
    60_000,
  );
});

/** docs/design/audit.md's worked example, made again from the code; the document must hold it byte for byte. */
function workedExample(): string {
  const key = new AuditKey('example.org/audit', Buffer.from(Array.from({ length: 32 }, (_, i) => i)));
  const entries = [
    ['principal.create', 'principal', 'pr_01example0000000000000000'],
    ['session.create', 'session', 'ss_01example0000000000000000'],
    ['event.append', 'event', 'ev_01example0000000000000000'],
  ].map(([action, type, id], i) =>
    leafEntry({
      tenant: 'tn_01example0000000000000000',
      seq: i + 1,
      at: 1_796_000_000_000 + i,
      actor: 'pr_01example0000000000000000',
      action: action as string,
      resource_type: type as string,
      resource_id: id as string,
      commitment: sha(Buffer.from(`commitment ${i}`)).toString('hex'),
      chain: '',
    }),
  );
  const leafHashes = entries.map((e) => sha(LEAF, Buffer.from(e, 'utf8')));
  const [l0, l1, l2] = leafHashes as [Buffer, Buffer, Buffer];
  const n01 = sha(NODE, l0, l1);
  const root = sha(NODE, n01, l2);
  const note = key.signNote(
    checkpointBody(`example.org/audit/tn_01example0000000000000000`, 3, root, 1_796_000_000_500),
  );
  return [
    `seed        ${Buffer.from(Array.from({ length: 32 }, (_, i) => i)).toString('hex')}`,
    `public key  ${key.publicKey.toString('hex')}`,
    `key id      ${key.keyId.toString('hex')}`,
    `verifier    ${key.verifierKey}`,
    ...entries.map((e, i) => `entry ${i}     ${e}`),
    ...leafHashes.map((h, i) => `leaf ${i}      ${h.toString('hex')}`),
    `node 0-1    ${n01.toString('hex')}`,
    `root 3      ${root.toString('hex')}`,
    `root 2      ${n01.toString('hex')}`,
    `proof 2@3   ${n01.toString('hex')}`,
    `proof 0@3   ${l1.toString('hex')} ${l2.toString('hex')}`,
    `consist 2>3 ${l2.toString('hex')}`,
    'note:',
    note,
  ].join('\n');
}

describe('docs/design/audit.md', () => {
  it('holds the worked example this code makes, and the example verifies', () => {
    const example = workedExample();
    const doc = readFileSync(new URL('../docs/design/audit.md', import.meta.url), 'utf8');
    expect(doc, `the worked example is:\n${example}`).toContain(`\`\`\`text\n${example}\`\`\``);
    const note = example.slice(example.indexOf('note:\n') + 6);
    const vkey = /verifier {4}(\S+)/.exec(example)?.[1] as string;
    expect(openNote(note, vkey)?.size).toBe(3);
    // The format the page states, each `<…>` any text of a line: the example's note is of it.
    const format = /<!-- docs-test: audit note format -->\s*```\n([\s\S]*?)\n```/.exec(doc)?.[1] as string;
    const pattern = format
      .split('\n')
      .map((line) =>
        line
          .replace(/\\n$/, '')
          .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
          .replace(/<[^>]*>/g, '[^\\n]+'),
      )
      .join('\n');
    expect(note).toMatch(new RegExp(`^${pattern}\n$`));
  });
});
