/**
 * One guard for every place text enters the store (issue 19, item 5): event
 * payloads keep a typed placeholder where a credential was (and the audit
 * entry counts them), memory refuses credentials hidden by the desk's
 * decoders, and a remote client whose guard is off cannot commit a credential
 * (the server scans what it is sent). The API is tested directly too:
 * redactJson's pointers and placeholders, and a large scan that gives the
 * event loop turns.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect } from '../src/client/connect.js';
import { remoteDesk } from '../src/client/remote-desk-store.js';
import type { RemoteFabric } from '../src/client/remote-fabric.js';
import type { Desk } from '../src/desk/desk.js';
import { redactJson, scanText, withChecksum } from '../src/desk/guard.js';
import { type RunningServer, startServer } from '../src/server/index.js';
import { Store } from '../src/store.js';
import { expectCode } from '../src/testing/expect-code.js';
import type { Identity } from '../src/types.js';
import { rand } from './support/guard-corpus.js';
import { tempDir } from './support/stores.js';
import { countTurns } from './support/turns.js';

const github = () => withChecksum('ghp', rand(30));
const utf16 = (s: string) => [...s].map((c) => `${c}\u0000`).join('');
const fullWidth = (s: string) => [...s].map((c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)).join('');

function files(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const abs = join(dir, e.name);
    if (e.isDirectory()) files(abs, out);
    else if (e.isFile()) out.push(abs);
  }
  return out;
}

describe('guard API: scanText and redactJson', () => {
  it('redacts each credential to a typed placeholder, names where (JSON Pointer), and keeps the rest', async () => {
    const token = github();
    const jwtSig = randomBytes(64).toString('base64url');
    const jwt = `eyJhbGciOiJSUzI1NiJ9.${Buffer.from('{"sub":"ci"}').toString('base64url')}.${jwtSig}`;
    const value = {
      note: `deploy with ${token} today`,
      list: ['plain', { auth: `Bearer ${jwt}` }],
      [`key-${token}`]: 1,
      count: 3,
    };
    const { value: clean, redactions } = await redactJson(value);
    const text = JSON.stringify(clean);
    expect(text).not.toContain(token.slice(4, 30));
    expect(text).not.toContain(jwtSig.slice(0, 30));
    expect(clean).toMatchObject({ note: 'deploy with [redacted:github] today', count: 3 });
    expect((clean as { list: unknown[] }).list).toEqual(['plain', { auth: 'Bearer [redacted:jwt]' }]);
    expect(Object.keys(clean as object)).toContain('key-[redacted:github]');
    expect(redactions.map((r) => r.pointer).sort()).toEqual(
      ['/key-[redacted:github]', '/list/1/auth', '/note'].sort(),
    );
    // Pointers name the redacted key: nothing in the list repeats a credential.
    expect(JSON.stringify(redactions)).not.toContain(token.slice(4, 30));
  });

  it('returns a clean value as it is, and keeps a `__proto__` key a key', async () => {
    const value = { a: 'nothing to see here, just words', n: [1, 2, 3] };
    const { value: same, redactions } = await redactJson(value);
    expect(same).toBe(value);
    expect(redactions).toEqual([]);
    const hostile = JSON.parse(`{"__proto__": {"polluted": "${github()}"}}`) as object;
    const { value: clean } = await redactJson(hostile);
    expect(Object.hasOwn(clean as object, '__proto__')).toBe(true);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it("finds credentials behind the desk's decoders in plain text: base64, hex, UTF-16, zero-width, full-width", async () => {
    const t = github();
    const hidden = {
      base64: `note ${Buffer.from(`token=${t}`).toString('base64')}`,
      hex: Buffer.from(`token=${t}`).toString('hex'),
      utf16: utf16(`token=${t}`),
      zeroWidth: `${t.slice(0, 12)}\u200b${t.slice(12)}`,
      fullWidth: fullWidth(t),
    };
    for (const [how, text] of Object.entries(hidden)) {
      const findings = await scanText(text, 'memory');
      expect({ how, found: findings.length > 0 }).toEqual({ how, found: true });
    }
  });

  it('scans a large text in slices, giving the event loop turns (counted, not timed)', async () => {
    const t = github();
    const text = `${'lorem ipsum dolor sit amet '.repeat(200_000)}${t}\n`; // ~5.4 MB
    const { value: findings, turns } = await countTurns(() => scanText(text));
    expect(findings.map((f) => f.rule)).toContain('secretlint:github');
    // One turn at least per 256 KiB slice: about 20 for this text.
    expect(turns).toBeGreaterThanOrEqual(10);
  });

  it('gives the event loop turns across many small texts too (a batch of records)', async () => {
    // 200 records of 10 KB: 2 MB in all, one turn at least per 256 KiB scanned.
    const { turns } = await countTurns(async () => {
      for (let i = 0; i < 200; i++)
        await scanText(`record ${i}: ${'plain words and nothing else '.repeat(350)}`);
    });
    expect(turns).toBeGreaterThanOrEqual(5);
  });
});

describe('guard everywhere, through the store and over HTTP', () => {
  let temp: { dir: string; remove(): void };
  let store: Store;
  let who: Identity;
  let token: string;
  let server: RunningServer;
  let remote: RemoteFabric;
  const desks: Desk[] = [];

  beforeEach(async () => {
    temp = tempDir('cairn-guard-everywhere-');
    store = await Store.openDir(join(temp.dir, 'store'));
    token = (await store.createTenant('g')).token.token;
    who = await store.authenticate(token);
    server = await startServer(store, { host: '127.0.0.1', port: 0 });
    remote = connect({ url: server.url, token });
  });

  afterEach(async () => {
    for (const d of desks.splice(0)) await d.close();
    await remote.close();
    await server.close();
    await store.close();
    temp.remove();
  });

  const auditOf = (event: string) =>
    store.engine.read(who.tenant, (tx) =>
      tx.get<{ payload: string }>(
        `SELECT p.payload FROM audit_entries a JOIN audit_payloads p ON p.tenant = a.tenant AND p.seq = a.seq
         WHERE a.tenant = ? AND a.action = 'event.append' AND a.resource_id = ?`,
        [who.tenant, event],
      ),
    );

  it('stores an event payload with its credentials as typed placeholders, counted in the audit entry (embedded and HTTP)', async () => {
    for (const [surface, fabric] of [
      ['embedded', store.fabric(who)],
      ['http', remote],
    ] as const) {
      const session = await fabric.createSession({ title: surface });
      const secret = github();
      const split = github();
      const appended = await fabric.append({
        session: session.id,
        kind: 'tool.result',
        payload: {
          stdout: `export GITHUB_TOKEN=${secret}\nok`,
          wrapped: `${split.slice(0, 20)}\n${split.slice(20)}`,
          code: 0,
        },
      });
      const event = await fabric.getEvent({ event: appended.id });
      expect(event.payload).toEqual({
        stdout: 'export GITHUB_TOKEN=[redacted:github]\nok',
        wrapped: '[redacted:github]',
        code: 0,
      });
      const audit = await auditOf(appended.id);
      expect(JSON.parse(audit?.payload ?? '{}')).toMatchObject({ redacted: 2 });
      // A clean payload is stored as sent, and its audit entry carries no count.
      const clean = await fabric.append({ session: session.id, kind: 'note', payload: { text: 'all well' } });
      expect((await fabric.getEvent({ event: clean.id })).payload).toEqual({ text: 'all well' });
      expect(JSON.parse((await auditOf(clean.id))?.payload ?? '{}')).not.toHaveProperty('redacted');
    }
    const bytes = files(join(temp.dir, 'store')).map((f) => readFileSync(f));
    expect(bytes.some((b) => b.includes('[redacted:github]'))).toBe(true);
  });

  // (UTF-16 text is NUL-laden: memory refuses it as input before the guard looks; scanText finds it above.)
  it("refuses memory holding a credential behind the desk's decoders", async () => {
    const memory = store.memory(who);
    const t = github();
    for (const text of [
      `the key, base64: ${Buffer.from(`GITHUB_TOKEN=${t}`).toString('base64')}`,
      `hex ${Buffer.from(`GITHUB_TOKEN=${t}`).toString('hex')}`,
      `token ${t.slice(0, 9)}\u200d${t.slice(9)}`,
      `token ${fullWidth(t)}`,
    ]) {
      await expectCode(memory.remember({ scope: { user: 'u' }, text }), 'FORBIDDEN');
    }
    expect((await memory.listMemory({ scope: { user: 'u' } })).items).toEqual([]);
  });

  it("refuses a remote client's commit of a credential its guard let through, and stores none of it", async () => {
    const work = join(temp.dir, 'work');
    mkdirSync(join(work, 'src'), { recursive: true });
    const secret = github();
    writeFileSync(join(work, 'src', 'ci.ts'), `export const token = '${secret}';\n`);
    writeFileSync(join(work, 'README.txt'), 'a project\n');
    // The client's own guard is off (a modified or foreign client): the server must not rely on it.
    const careless = await remoteDesk(remote, {
      stateDir: join(temp.dir, 'state-careless'),
      host: 'careless-host',
      guard: { scanContent: false },
    });
    desks.push(careless);
    const error = await expectCode(careless.attach({ dir: work }), 'FORBIDDEN');
    expect(JSON.stringify(error.data.findings)).toContain('secretlint:github');
    expect(JSON.stringify(error.toJSON())).not.toContain(secret.slice(4, 30));
    const stored = files(join(temp.dir, 'store')).filter((f) => statSync(f).size > 0);
    expect(stored.some((f) => readFileSync(f).includes(secret.slice(4, 30)))).toBe(false);
    // An honest client (guard on) withholds the file, and the server takes the rest.
    const honest = await remoteDesk(remote, {
      stateDir: join(temp.dir, 'state-honest'),
      host: 'honest-host',
    });
    desks.push(honest);
    const { checkpoint } = await honest.attach({ dir: work });
    expect(checkpoint.withheld).toEqual(['src/ci.ts']);
    expect(checkpoint.snapshot.files).toBe(1);
  });
});
