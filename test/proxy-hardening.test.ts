import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EmbeddedFabric } from '../src/embedded-fabric.js';
import { MasterKey } from '../src/keys/crypto.js';
import type { Keys } from '../src/keys/keys.js';
import { base64Core, EchoGuard, SecretForms } from '../src/keys/proxy/echo-scanner.js';
import { credentialHeaders } from '../src/keys/proxy/headers.js';
import { judgePath } from '../src/keys/proxy/paths.js';
import { SpooledBody } from '../src/keys/proxy/spool.js';
import { type RunningProxy, startProxy } from '../src/keys/proxy.js';
import { Store } from '../src/store.js';
import { expectCode } from '../src/testing/expect-code.js';
import type { Identity } from '../src/types.js';
import { describePostgres } from './support/postgres.js';
import { folderBytes } from './support/scan.js';
import { postgresStore, tempDir } from './support/stores.js';
import {
  AMBIGUOUS_PATHS,
  ECHO_FORMS,
  echoingUpstream,
  rawRequest,
  rawSocket,
  recordingUpstream,
} from './support/upstream.js';

/**
 * The egress proxy enforces the mode on what is actually sent (issue 10,
 * item 2): a body makes a write, headers pass by allow-list, paths are
 * judged as an upstream normalises them, nothing secret comes back, and a
 * request without a handle costs almost nothing. Real upstreams on
 * loopback; the store on SQLite and on PostgreSQL.
 */
const SECRET = 'sk_live_Q7rT9vXw2yZa4bCd6eFg8hJk';

describe('path judgement (pure)', () => {
  it('refuses every path an upstream could normalise to another one, with the reason', () => {
    for (const path of AMBIGUOUS_PATHS) {
      const verdict = judgePath(path);
      expect(verdict.ok, path).toBe(false);
      if (!verdict.ok) expect(verdict.reason, path).toMatch(/holds .*: give a plain path/);
    }
  });
  it('passes plain paths, their ordinary escapes and non-ASCII names', () => {
    for (const path of [
      '/invoices',
      '/invoices/7',
      '/invoices/a%20b'.replace('%20', '-'),
      '/files/caf%C3%A9',
      '/q/100%25',
      '/projects/group%2Fproject',
    ]) {
      expect(judgePath(path).ok, path).toBe(true);
    }
  });
});

describe('secret echo scanner (pure)', () => {
  const forms = new SecretForms([SECRET]);
  it('finds the secret in every common form, at every base64 alignment', () => {
    for (const [name, encode] of Object.entries(ECHO_FORMS)) {
      const echoed = `{"data":"${encode(SECRET)}"}`;
      expect(forms.find(echoed), name).toBeDefined();
    }
    for (let offset = 0; offset < 3; offset++) {
      for (let pad = 0; pad < 6; pad++) {
        const b64 = Buffer.from(`${'p'.repeat(pad + offset)}${SECRET}${'q'.repeat(pad)}`).toString('base64');
        expect(forms.find(b64), `offset ${offset} pad ${pad}`).toEqual({ form: 'base64' });
      }
    }
    expect(base64Core(Buffer.from('abc'), 0)).toBe('YWJj');
  });
  it('finds nothing in text that does not hold it', () => {
    expect(
      forms.find(JSON.stringify({ id: 'inv_7', total: 1250, token: 'sk_live_other_value_00000' })),
    ).toBeUndefined();
    expect(forms.find(Buffer.from(SECRET.slice(0, 20)).toString('base64'))).toBeUndefined();
  });
  it('streams with bounded memory and never passes on part of a secret split across chunks', () => {
    for (const encode of [
      ECHO_FORMS.plain!,
      ECHO_FORMS.base64_1!,
      ECHO_FORMS.percent_all!,
      ECHO_FORMS.hex_upper!,
    ]) {
      const echo = encode(SECRET);
      const stream = Buffer.from(`${'.'.repeat(1000)}${echo}${'.'.repeat(1000)}`);
      for (let cut = 1000; cut < 1000 + echo.length; cut += 3) {
        const guard = new EchoGuard(forms);
        const first = guard.write(stream.subarray(0, cut));
        // A long enough run of the secret ends the stream already; else nothing of the echo was passed on.
        if (!Buffer.isBuffer(first)) continue;
        expect(first.length).toBeLessThanOrEqual(1000);
        expect(Buffer.isBuffer(guard.write(stream.subarray(cut)))).toBe(false);
      }
    }
  });
});

describe('secret echo scanner: line-broken base64, JSON escapes, long runs (pure)', () => {
  const AWS = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
  const forms = new SecretForms([SECRET, AWS]);
  const added = Object.keys(ECHO_FORMS).filter((f) => /^(mime|json|partial)/.test(f));

  it('finds every added form of either secret, also inside a JSON string that escapes the line breaks', () => {
    expect(added.length).toBeGreaterThanOrEqual(12);
    for (const secret of [SECRET, AWS])
      for (const form of added) {
        const echo = ECHO_FORMS[form]!(secret);
        expect(forms.find(`{"data":"${echo}"}`), `${form} of ${secret}`).toBeDefined();
        // JSON.stringify writes CRLF as `\r\n`; a form that is itself escapes is not escaped again.
        if (!echo.includes('\\'))
          expect(forms.find(JSON.stringify({ data: echo })), `JSON of ${form}`).toBeDefined();
      }
    // An AWS-style secret with `/`, as PHP's json_encode writes it.
    expect(forms.find(`{"secret":"${AWS.replace(/\//g, '\\/')}"}`)).toEqual({ form: 'plain' });
    // MIME with the secret at each alignment and across a break of each kind, lower- or upper-case \u escapes.
    for (let offset = 0; offset < 3; offset++)
      for (const [width, eol] of [
        [76, '\r\n'],
        [64, '\n'],
        [76, '\n'],
        [64, '\r\n'],
      ] as const) {
        const b64 = Buffer.from(`${'z'.repeat(50 + offset)}${SECRET}zz`).toString('base64');
        const lines = b64.match(new RegExp(`.{1,${width}}`, 'g'))!.join(eol);
        expect(forms.find(lines), `offset ${offset} width ${width}`).toEqual({ form: 'base64' });
      }
    expect(
      forms.find(
        `"${[...SECRET].map((c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`).join('')}"`,
      ),
    ).toEqual({ form: 'plain' });
  });

  it('a long run counts from max(16, ¾ of the secret) characters, in any case; shorter runs and common prefixes do not', () => {
    const need = Math.max(16, Math.ceil((3 * SECRET.length) / 4));
    expect(forms.find(`masked: ${SECRET.slice(0, need)}…`)).toEqual({ form: 'partial' });
    expect(forms.find(`masked: ${SECRET.slice(3, 3 + need).toUpperCase()}…`)).toEqual({ form: 'partial' });
    expect(forms.find(`masked: ${SECRET.slice(0, need - 1)}…`)).toBeUndefined();
    expect(forms.find(`masked: ${SECRET.slice(SECRET.length - need + 1)}`)).toBeUndefined();
    expect(forms.find(`${SECRET.slice(0, 12)} ${SECRET.slice(12, 20)}`)).toBeUndefined();
    expect(forms.find(`key sk_live_ sk_live_${'Q'.repeat(24)} ${SECRET.slice(0, 8)}`)).toBeUndefined();
    // A short secret is found whole only.
    const short = new SecretForms(['pw_Zr8Lk2Qm9Xv4']);
    expect(short.find('the pw_Zr8Lk2Qm9Xv4 here')).toEqual({ form: 'plain' });
    expect(short.find('the pw_Zr8Lk2Qm9Xv here')).toBeUndefined();
    expect(new SecretForms(['sk_live_']).find('sk_live_ is a prefix')).toEqual({ form: 'plain' });
    expect(forms.find('sk_live_ is a prefix')).toBeUndefined();
  });

  it('streams the new forms with bounded memory, never passing on part of one split at any point', () => {
    for (const form of ['mime76_crlf_1', 'mime64_lf_2', 'json_u_all', 'json_u_some', 'partial_masked']) {
      const echo = ECHO_FORMS[form]!(SECRET);
      const stream = Buffer.from(`${'.'.repeat(2000)}${echo}${'.'.repeat(2000)}`);
      expect(forms.window).toBeLessThan(1024);
      for (let cut = 2000; cut < 2000 + echo.length; cut++) {
        const guard = new EchoGuard(forms);
        const first = guard.write(stream.subarray(0, cut));
        if (!Buffer.isBuffer(first)) continue;
        expect(first.length, `${form} cut ${cut}`).toBeLessThanOrEqual(2000);
        expect(Buffer.isBuffer(guard.write(stream.subarray(cut))), `${form} cut ${cut}`).toBe(false);
      }
    }
  });
});

describe('credential header option (pure)', () => {
  it('takes extra end-to-end headers and refuses routing overrides and credentials', () => {
    expect(credentialHeaders(['X-Tenant', 'x-api-version'], 'authorization')).toEqual([
      'x-api-version',
      'x-tenant',
    ]);
    for (const name of [
      'X-Original-URL',
      'x-rewrite-url',
      'x-original-method',
      'X-HTTP-Method-Override',
      'x-forwarded-for',
      'x-forwarded-host',
      'forwarded',
      'authorization',
      'cookie',
      'host',
      'x-cairn-handle',
      'bad header',
    ]) {
      expect(() => credentialHeaders([name], 'authorization'), name).toThrow(/cannot be allowed|not a token/);
    }
  });
});

describe('body spool (real HTTP server)', () => {
  it('keeps 64 KiB in memory, spools the rest to an unlinked file, and streams back exactly the bytes it hashed', async () => {
    const spoolDir = tempDir('cairn-spool-');
    const seen: { spooled: boolean; digest: string; bytes: number; back: Buffer; leftover: string[] }[] = [];
    const server = createServer(async (req, res) => {
      const read = await SpooledBody.read(req, { limit: 2 * 1024 * 1024, dir: spoolDir.dir });
      if (!read.ok) {
        res.writeHead(413, { connection: 'close' });
        res.end();
        return;
      }
      const parts: Buffer[] = [];
      for await (const chunk of read.body.stream()) parts.push(chunk as Buffer);
      seen.push({
        spooled: read.body.spooled,
        digest: read.body.digest,
        bytes: read.body.bytes,
        back: Buffer.concat(parts),
        leftover: readdirSync(spoolDir.dir),
      });
      await read.body.discard();
      res.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const big = randomBytes(1024 * 1024 + 3);
      const small = randomBytes(1000);
      expect((await rawRequest(url, { method: 'POST', path: '/', body: big })).status).toBe(200);
      expect((await rawRequest(url, { method: 'POST', path: '/', body: small, chunked: true })).status).toBe(
        200,
      );
      const over = await rawRequest(url, {
        method: 'POST',
        path: '/',
        body: randomBytes(3 * 1024 * 1024),
      }).catch(() => ({ status: -1 }));
      expect([413, -1]).toContain(over.status);
      expect(seen.map((x) => [x.spooled, x.bytes, x.leftover.length])).toEqual([
        [true, big.length, 0],
        [false, small.length, 0],
      ]);
      expect(seen[0]!.back.equals(big)).toBe(true);
      expect(seen[0]!.digest).toBe(createHash('sha256').update(big).digest('hex'));
      expect(seen[1]!.back.equals(small)).toBe(true);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      spoolDir.remove();
    }
  });
});

type Backend = 'sqlite' | 'postgres';

function hardeningSuite(backend: Backend) {
  let store: Store;
  let cleanup: () => Promise<void>;
  let storeDir = '';
  let who: Identity;
  let keys: Keys;
  let fabric: EmbeddedFabric;
  let live: Awaited<ReturnType<typeof recordingUpstream>>;
  let echo: Awaited<ReturnType<typeof echoingUpstream>>;
  let proxy: RunningProxy;
  let session: string;
  const master = MasterKey.generate();

  beforeEach(async () => {
    if (backend === 'sqlite') {
      const temp = tempDir();
      storeDir = temp.dir;
      store = await Store.openDir(temp.dir);
      cleanup = async () => {
        await store.close();
        temp.remove();
      };
      who = await store.localIdentity();
    } else {
      ({ store, cleanup } = await postgresStore());
      who = await store.authenticate((await store.createTenant('proxy-a')).token.token);
    }
    keys = store.keys(who, { masterKey: master });
    fabric = store.fabric(who);
    live = await recordingUpstream('live');
    echo = await echoingUpstream();
    proxy = await startProxy({
      keysFor: (t) => (t === who.tenant ? keys : undefined),
      auditRefusalsIn: keys,
      approvalTimeoutMs: 3_000,
      pollMs: 10,
    });
    session = (await fabric.createSession({ title: 'hardening' })).id;
    await fabric.append({ session, kind: 'note', payload: 1 });
    await keys.addCredential({
      name: 'billing',
      kind: 'bearer',
      upstream: live.url,
      value: Buffer.from(SECRET),
      allowHeaders: ['x-api-version'],
      maxBodyBytes: 2 * 1024 * 1024,
    });
    await keys.addCredential({
      name: 'echo',
      kind: 'bearer',
      upstream: echo.url,
      value: Buffer.from(SECRET),
    });
  });

  afterEach(async () => {
    await proxy.close();
    await live.close();
    await echo.close();
    await cleanup();
  });

  async function branch(name: string): Promise<string> {
    await fabric.fork({ session, from: 'main', name });
    return (await keys.issueHandle({ session, branch: name })).handle;
  }

  async function audit(action: string): Promise<Record<string, unknown>[]> {
    const rows = await store.engine.read(who.tenant, (tx) =>
      tx.all<{ payload: string }>(
        'SELECT p.payload FROM audit_entries e JOIN audit_payloads p ON p.tenant = e.tenant AND p.seq = e.seq WHERE e.tenant = ? AND e.action = ? ORDER BY e.seq',
        [who.tenant, action],
      ),
    );
    return rows.map((r) => JSON.parse(r.payload) as Record<string, unknown>);
  }

  const rule = (body: Buffer) => (JSON.parse(body.toString()) as { data: { rule: string } }).data.rule;

  it('a body makes a write whatever the method: refused under read, held under each-write', async () => {
    const reader = await branch('r');
    await keys.grant({ session, branch: 'r', credential: 'billing', mode: 'read' });
    const forms: { method: string; chunked?: boolean }[] = [
      { method: 'GET' },
      { method: 'GET', chunked: true },
      { method: 'OPTIONS' },
      { method: 'HEAD' },
    ];
    for (const form of forms) {
      const got = await rawRequest(proxy.url, {
        method: form.method,
        path: '/billing/invoices',
        headers: { 'x-cairn-handle': reader, 'content-type': 'application/json' },
        body: '{"delete":"all"}',
        chunked: form.chunked,
      });
      expect(got.status, JSON.stringify(form)).toBe(403);
      if (form.method !== 'HEAD') expect(rule(got.body)).toBe('body_is_write');
    }
    expect(live.seen).toHaveLength(0);
    expect((await audit('keys.deny')).filter((d) => d.rule === 'body_is_write')).toHaveLength(forms.length);
    // The same GET without a body is a read.
    const plain = await rawRequest(proxy.url, {
      method: 'GET',
      path: '/billing/invoices',
      headers: { 'x-cairn-handle': reader },
    });
    expect(plain.status).toBe(200);

    const writer = await branch('w');
    await keys.grant({ session, branch: 'w', credential: 'billing', mode: 'live', approval: 'each-write' });
    const held = rawRequest(proxy.url, {
      method: 'GET',
      path: '/billing/invoices',
      headers: { 'x-cairn-handle': writer },
      body: '{"delete":"all"}',
    });
    let waiting = await keys.listApprovals();
    for (let i = 0; waiting.length === 0 && i < 300; i++) {
      await new Promise((r) => setTimeout(r, 10));
      waiting = await keys.listApprovals();
    }
    expect(waiting).toMatchObject([{ method: 'GET', bodyBytes: 16, state: 'pending' }]);
    expect(live.seen).toHaveLength(1);
    await keys.decide(waiting[0]!.id, 'deny');
    expect((await held).status).toBe(403);
    expect(live.seen).toHaveLength(1);
  });

  it('judges paths as an upstream normalises them: every ambiguous form refused, audited, nothing sent', async () => {
    const handle = await branch('p');
    await keys.grant({
      session,
      branch: 'p',
      credential: 'billing',
      mode: 'live',
      allow: { pathPrefixes: ['/invoices'] },
    });
    for (const path of AMBIGUOUS_PATHS) {
      const got = await rawRequest(proxy.url, {
        method: 'GET',
        path: `/billing${path}`,
        headers: { 'x-cairn-handle': handle },
      });
      expect(got.status, path).toBe(403);
      expect(rule(got.body), path).toBe('path_not_plain');
    }
    expect(live.seen).toHaveLength(0);
    const denials = (await audit('keys.deny')).filter((d) => d.rule === 'path_not_plain');
    expect(denials).toHaveLength(AMBIGUOUS_PATHS.length);
    expect(denials.every((d) => d.branch === 'p')).toBe(true);
    // Outside the prefix as sent, or once decoded: refused.
    for (const path of ['/billing/customers', '/billing/inv%6Fices/7'])
      expect(
        (await rawRequest(proxy.url, { method: 'GET', path, headers: { 'x-cairn-handle': handle } })).status,
        path,
      ).toBe(403);
    expect(
      (
        await rawRequest(proxy.url, {
          method: 'GET',
          path: '/billing/invoices/7',
          headers: { 'x-cairn-handle': handle },
        })
      ).status,
    ).toBe(200);
    expect(live.seen.map((s) => s.path)).toEqual(['/api/invoices/7']);
  });

  it('passes request and response headers by allow-list; routing overrides never reach the upstream', async () => {
    const handle = await branch('h');
    await keys.grant({ session, branch: 'h', credential: 'billing', mode: 'live' });
    const overrides = {
      'x-original-url': '/admin',
      'x-rewrite-url': '/admin',
      'x-original-method': 'DELETE',
      'x-http-method-override': 'DELETE',
      'x-http-method': 'DELETE',
      'x-method-override': 'DELETE',
      'x-forwarded-for': '10.0.0.1',
      'x-forwarded-host': 'admin.internal',
      'x-forwarded-proto': 'https',
      'x-forwarded-prefix': '/admin',
      forwarded: 'for=10.0.0.1;host=admin.internal',
      'x-real-ip': '10.0.0.1',
      'x-host': 'admin.internal',
      cookie: 'session=stolen',
      authorization: 'Bearer agent-made-this-up',
    };
    const got = await rawRequest(proxy.url, {
      method: 'GET',
      path: '/billing/invoices',
      headers: {
        'x-cairn-handle': handle,
        accept: 'application/json',
        'user-agent': 'agent/1',
        'idempotency-key': 'k1',
        'x-request-id': 'r1',
        'x-api-version': '2024-01',
        'x-unlisted': 'nope',
        ...overrides,
      },
    });
    expect(got.status).toBe(200);
    const sent = live.seen[0]!.headers;
    for (const name of Object.keys(overrides))
      if (name !== 'authorization') expect(sent[name], name).toBeUndefined();
    expect(sent.authorization).toBe(`Bearer ${SECRET}`);
    expect(sent['x-unlisted']).toBeUndefined();
    expect(sent['x-cairn-handle']).toBeUndefined();
    expect(sent).toMatchObject({
      accept: 'application/json',
      'user-agent': 'agent/1',
      'idempotency-key': 'k1',
      'x-request-id': 'r1',
      'x-api-version': '2024-01',
    });
    // The use is audited with the overrides the agent tried.
    const [use] = await audit('keys.use');
    expect(use!.droppedHeaders).toEqual(
      expect.arrayContaining(['x-original-url', 'x-forwarded-for', 'forwarded']),
    );
    // A credential can never list a routing override.
    await expectCode(
      keys.addCredential({
        name: 'bad',
        kind: 'bearer',
        upstream: live.url,
        value: Buffer.from('abcdefgh'),
        allowHeaders: ['X-Original-URL'],
      }),
      'INVALID_ARGUMENT',
    );
    // Response headers by allow-list: the echo upstream's Set-Cookie stays at the proxy, x-request-id comes back.
    const h2 = await branch('h2');
    await keys.grant({ session, branch: 'h2', credential: 'echo', mode: 'read' });
    const clean = await rawRequest(proxy.url, {
      method: 'GET',
      path: '/echo/clean',
      headers: { 'x-cairn-handle': h2 },
    });
    expect(clean.status).toBe(200);
    expect(clean.headers['set-cookie']).toBeUndefined();
    expect(clean.headers['x-request-id']).toBe('req_1');
  });

  it('nothing secret comes back: every encoded echo in headers and bodies is withheld, cut or refused, and audited', async () => {
    const handle = await branch('e');
    await keys.grant({ session, branch: 'e', credential: 'echo', mode: 'read' });
    const results: { where: string; form: string; status: number; error?: string; text: string }[] = [];
    for (const where of ['header', 'body', 'late', 'split', 'gzip', 'deflate', 'br'])
      for (const form of Object.keys(ECHO_FORMS)) {
        const got = await rawRequest(proxy.url, {
          method: 'GET',
          path: `/echo/${where}/${form}`,
          headers: { 'x-cairn-handle': handle },
        });
        results.push({
          where,
          form,
          status: got.status,
          error: got.error,
          text: `${JSON.stringify(got.headers)}\n${got.body.toString('latin1')}`,
        });
      }
    expect(echo.sent.length).toBe(results.length);
    // No answer holds any string the upstream wrote, nor the secret in any case.
    for (const r of results) {
      for (const s of echo.sent) expect(r.text.includes(s), `${r.where}/${r.form}`).toBe(false);
      expect(r.text.toLowerCase().includes(SECRET.toLowerCase()), `${r.where}/${r.form}`).toBe(false);
    }
    // Headers: the echoing header is dropped, the answer itself goes through.
    expect(results.filter((r) => r.where === 'header').every((r) => r.status === 200)).toBe(true);
    // Small bodies: a typed JSON error the agent can read.
    for (const r of results.filter((x) => ['body', 'gzip', 'deflate', 'br'].includes(x.where))) {
      expect(r.status, `${r.where}/${r.form}`).toBe(502);
      expect(r.text).toMatch(/"rule":"secret_echo"/);
    }
    // Past the hold window: the answer is cut (the agent's client sees it incomplete).
    for (const r of results.filter((x) => x.where === 'late' || x.where === 'split'))
      expect(r.error, `${r.where}/${r.form}`).toBeDefined();
    // A basic credential: its password is found alone, and inside the base64 of user:password.
    const password = 'pw_Zr8Lk2Qm9Xv4Tn6Bc1Hd';
    await keys.addCredential({
      name: 'basic',
      kind: 'basic',
      upstream: echo.url,
      value: Buffer.from(`svc:${password}`),
    });
    await keys.grant({ session, branch: 'e', credential: 'basic', mode: 'read' });
    for (const form of ['plain', 'base64_1', 'hex_upper', 'percent_all', 'mime76_crlf_2', 'json_u_some']) {
      const got = await rawRequest(proxy.url, {
        method: 'GET',
        path: `/basic/body/${form}`,
        headers: { 'x-cairn-handle': handle },
      });
      expect(got.status, form).toBe(502);
      expect(got.body.toString('latin1')).not.toContain(ECHO_FORMS[form]!(password));
    }
    // A secret with `/` (an AWS secret key): `\/`-escaped, in base64 with `\/`, cut short, line-broken.
    const aws = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
    await keys.addCredential({ name: 'aws', kind: 'bearer', upstream: echo.url, value: Buffer.from(aws) });
    await keys.grant({ session, branch: 'e', credential: 'aws', mode: 'read' });
    for (const where of ['body', 'late', 'br'])
      for (const form of ['json_slash', 'json_base64_slash', 'partial_masked', 'mime64_lf_1']) {
        const got = await rawRequest(proxy.url, {
          method: 'GET',
          path: `/aws/${where}/${form}`,
          headers: { 'x-cairn-handle': handle },
        });
        if (where === 'late') expect(got.error, `${where}/${form}`).toBeDefined();
        else expect(rule(got.body), `${where}/${form}`).toBe('secret_echo');
        expect(got.body.toString('latin1')).not.toContain(ECHO_FORMS[form]!(aws));
        expect(got.body.toString('latin1')).not.toContain(aws.slice(0, 30));
      }
    const leaks = (await audit('keys.leak')).filter((l) => l.credential === 'echo');
    expect(leaks.length).toBe(results.length);
    expect(leaks.filter((l) => l.where === 'header')).toHaveLength(Object.keys(ECHO_FORMS).length);
    expect(leaks.every((l) => l.branch === 'e' && l.credential === 'echo')).toBe(true);
  });

  it('spools a held write to a file, binds its digest, and sends exactly those bytes after approval; a per-credential limit refuses more', async () => {
    const handle = await branch('s');
    await keys.grant({ session, branch: 's', credential: 'billing', mode: 'live', approval: 'each-write' });
    const big = Buffer.alloc(1024 * 1024 + 17, 'a');
    big.write('{"token":"hide-me","n":', 0);
    const held = rawRequest(proxy.url, {
      method: 'POST',
      path: '/billing/upload',
      headers: { 'x-cairn-handle': handle },
      body: big,
    });
    let waiting = await keys.listApprovals();
    for (let i = 0; waiting.length === 0 && i < 300; i++) {
      await new Promise((r) => setTimeout(r, 10));
      waiting = await keys.listApprovals();
    }
    expect(waiting[0]).toMatchObject({
      bodyBytes: big.length,
      bodyDigest: createHash('sha256').update(big).digest('hex'),
    });
    expect(waiting[0]!.preview.length).toBeLessThanOrEqual(2049);
    await keys.decide(waiting[0]!.id, 'approve');
    expect((await held).status).toBe(200);
    expect(live.seen).toHaveLength(1);
    expect(live.seen[0]!.body).toBe(big.toString('utf8'));
    // Over the credential's 2 MiB limit: 413, audited, nothing held or sent.
    const over = await rawRequest(proxy.url, {
      method: 'POST',
      path: '/billing/upload',
      headers: { 'x-cairn-handle': handle },
      body: Buffer.alloc(3 * 1024 * 1024, 'b'),
    }).catch((e: Error) => ({ status: -1, body: Buffer.from(e.message) }));
    expect(over.status).toBe(413);
    expect(live.seen).toHaveLength(1);
    expect((await keys.listApprovals()).length).toBe(0);
    expect((await audit('keys.deny')).filter((d) => d.rule === 'body_too_large')).toHaveLength(1);
  });

  it('a flood of requests without a valid handle is refused cheaply and audited in bounded form', async () => {
    const N = 2000;
    const forged = `cbh.${who.tenant}.hd_00000000000000000000000000.${'a'.repeat(52)}`;
    const sizeBefore = backend === 'sqlite' ? folderBytes(storeDir) : 0;
    const denialsBefore = (await audit('keys.deny')).length;
    let refused = 0;
    for (let i = 0; i < N; i += 50) {
      const batch = await Promise.all(
        Array.from({ length: 50 }, (_, k) =>
          rawRequest(proxy.url, {
            method: k % 2 ? 'POST' : 'GET',
            path: `/billing/${'x'.repeat(2000)}/${i + k}`,
            headers: (i + k) % 3 === 0 ? {} : { 'x-cairn-handle': forged },
            ...(k % 2 ? { body: 'y'.repeat(1000) } : {}),
          }),
        ),
      );
      refused += batch.filter((b) => b.status === 403 && rule(b.body) === 'handle').length;
    }
    await proxy.close();
    proxy = await startProxy({ keysFor: () => keys });
    if (backend === 'sqlite') {
      const grown = folderBytes(storeDir) - sizeBefore;
      console.log(`proxy flood: ${N} handle-less requests grew the SQLite store by ${grown} bytes`);
      expect(grown).toBeLessThan(256 * 1024);
    }
    const denials = (await audit('keys.deny')).slice(denialsBefore);
    console.log(`proxy flood: ${N} handle-less requests made ${denials.length} audit entries (${backend})`);
    // One entry each for the first 10 of the window, one summary for the rest.
    expect(denials.length).toBe(11);
    expect(denials.at(-1)).toMatchObject({ rule: 'handle', count: N - 10, address: '127.0.0.1' });
    expect(denials.every((d) => String(d.path).length < 200)).toBe(true);
    expect(refused).toBe(N);
  });
  /** Opens `n` requests that declare `bytes` of body and send only `sent` of it, and waits for their answers. */
  async function stalledBodies(
    url: string,
    handle: string,
    n: number,
    bytes: number,
    sent: number,
    method = 'POST',
    path = '/billing/upload',
  ): Promise<{ status: number; text: string; closed: Promise<number> }[]> {
    return Promise.all(
      Array.from({ length: n }, async () => {
        const socket = await rawSocket(url);
        socket.write(
          `${method} ${path} HTTP/1.1\r\nhost: x\r\nx-cairn-handle: ${handle}\r\ncontent-length: ${bytes}\r\n\r\n`,
        );
        socket.write(Buffer.alloc(sent, 'z'));
        const text = await socket
          .waitFor('\r\n\r\n{', 5000)
          .then(async () => (await socket.waitFor('}}', 2000)) ?? '');
        const status = Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? 0);
        return {
          status,
          text,
          closed: socket.closed.then(
            (ms) => ms,
            () => -1,
          ),
        };
      }),
    );
  }
  const ruleOf = (text: string) => /"rule":"([a-z_]+)"/.exec(text)?.[1];
  /** Spool files this process holds open (unlinked, so only /proc shows them). */
  const spoolDescriptors = () =>
    readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`).includes('cairn-proxy-body-');
      } catch {
        return false;
      }
    }).length;

  it('a body under a grant that can never write is refused before it is read: nothing spooled, no descriptor held', async () => {
    const reader = await branch('flood-r');
    await keys.grant({ session, branch: 'flood-r', credential: 'billing', mode: 'read' });
    const spool = tempDir('cairn-spool-');
    await proxy.close();
    proxy = await startProxy({ keysFor: () => keys, auditRefusalsIn: keys, spoolDir: spool.dir });
    try {
      // 64 requests each declaring (almost) 8 MiB and sending 64 KiB + 1 of it: answered at once.
      const gets = await stalledBodies(proxy.url, reader, 32, 8 * 1024 * 1024 - 1, 64 * 1024 + 1, 'GET');
      const posts = await stalledBodies(proxy.url, reader, 32, 8 * 1024 * 1024 - 1, 64 * 1024 + 1, 'POST');
      const answers = [...gets, ...posts];
      expect(answers.map((a) => a.status)).toEqual(Array(64).fill(403));
      expect(gets.map((a) => ruleOf(a.text))).toEqual(Array(32).fill('body_is_write'));
      expect(posts.map((a) => ruleOf(a.text))).toEqual(Array(32).fill('read_only'));
      // Each connection is closed with its answer, its body never read.
      for (const a of answers) expect(await a.closed).toBeGreaterThanOrEqual(0);
      expect(spoolDescriptors()).toBe(0);
      expect(readdirSync(spool.dir)).toEqual([]);
      expect(live.seen).toHaveLength(0);
      const denials = (await audit('keys.deny')).filter((d) => d.rule === 'body_is_write');
      expect(denials.length).toBeGreaterThan(0);
      expect(denials[0]).toMatchObject({
        branch: 'flood-r',
        bodyUnread: true,
        bodyBytes: 8 * 1024 * 1024 - 1,
      });
    } finally {
      spool.remove();
    }
  });

  it('caps the request bodies held at once, per proxy and per handle: refused with 503 and a rule, audited', async () => {
    const writer = await branch('spool-w');
    await keys.grant({
      session,
      branch: 'spool-w',
      credential: 'billing',
      mode: 'live',
      approval: 'each-write',
    });
    await proxy.close();
    proxy = await startProxy({
      keysFor: () => keys,
      auditRefusalsIn: keys,
      approvalTimeoutMs: 3_000,
      pollMs: 10,
      maxSpoolBytes: 1024 * 1024,
    });
    const held = (bytes: number) =>
      rawRequest(proxy.url, {
        method: 'POST',
        path: '/billing/upload',
        headers: { 'x-cairn-handle': writer },
        body: Buffer.alloc(bytes, 'h'),
      });
    const waitPending = async (n: number) => {
      for (let i = 0; i < 300 && (await keys.listApprovals()).length < n; i++)
        await new Promise((r) => setTimeout(r, 10));
    };
    // Per handle: 4 held writes; a fifth is refused at once.
    const four = [held(10), held(10), held(10), held(10)];
    await waitPending(4);
    const fifth = await held(10);
    expect(fifth.status).toBe(503);
    expect(fifth.headers['x-cairn-error']).toBe('UNAVAILABLE');
    expect(JSON.parse(fifth.body.toString())).toMatchObject({
      code: 'UNAVAILABLE',
      data: { rule: 'spool_per_handle', limit: 4 },
    });
    expect(fifth.headers['retry-after']).toBe('1');
    for (const a of await keys.listApprovals()) await keys.decide(a.id, 'deny');
    expect((await Promise.all(four)).map((r) => r.status)).toEqual([403, 403, 403, 403]);
    // Per proxy: 1 MiB held at once, whoever holds it.
    const other = await branch('spool-o');
    await keys.grant({
      session,
      branch: 'spool-o',
      credential: 'billing',
      mode: 'live',
      approval: 'each-write',
    });
    const big = held(700 * 1024);
    await waitPending(1);
    const over = await rawRequest(proxy.url, {
      method: 'POST',
      path: '/billing/upload',
      headers: { 'x-cairn-handle': other },
      body: Buffer.alloc(400 * 1024, 'o'),
    }).catch(() => ({ status: -1, body: Buffer.from('{}'), headers: {} }));
    expect(over.status).toBe(503);
    expect(ruleOf(over.body.toString())).toBe('spool_full');
    for (const a of await keys.listApprovals()) await keys.decide(a.id, 'deny');
    expect((await big).status).toBe(403);
    // Released: the same body goes through to its approval now. The client may see the 403 before the
    // proxy has let go of the held body, so a refusal as full is retried for a short while.
    const send = () =>
      rawRequest(proxy.url, {
        method: 'POST',
        path: '/billing/upload',
        headers: { 'x-cairn-handle': other },
        body: Buffer.alloc(400 * 1024, 'o'),
      });
    let again = send();
    for (let tries = 0; tries < 100; tries++) {
      const settled = await Promise.race([again, new Promise<null>((r) => setTimeout(() => r(null), 50))]);
      if (settled === null || ruleOf(settled.body.toString()) !== 'spool_full') break;
      again = send();
    }
    await waitPending(1);
    for (const a of await keys.listApprovals()) await keys.decide(a.id, 'deny');
    expect((await again).status).toBe(403);
    const denials = await audit('keys.deny');
    expect(denials.filter((d) => d.rule === 'spool_per_handle')).toMatchObject([{ branch: 'spool-w' }]);
    // One for the body refused above, and one per retry of the released case, if any: all of spool-o.
    const full = denials.filter((d) => d.rule === 'spool_full');
    expect(full.length).toBeGreaterThanOrEqual(1);
    expect(full.map((d) => d.branch)).toEqual(full.map(() => 'spool-o'));
    expect(live.seen).toHaveLength(0);
  });

  it('refusals of one valid handle are audited in bounded form: the first of a window each, the rest one summary', async () => {
    const reader = await branch('deny-r');
    await keys.grant({ session, branch: 'deny-r', credential: 'billing', mode: 'read' });
    const N = 2000;
    const before = (await audit('keys.deny')).length;
    const sizeBefore = backend === 'sqlite' ? folderBytes(storeDir) : 0;
    let refused = 0;
    for (let i = 0; i < N; i += 50) {
      const batch = await Promise.all(
        Array.from({ length: 50 }, (_, k) =>
          rawRequest(proxy.url, {
            method: 'DELETE',
            path: `/billing/invoices/${i + k}`,
            headers: { 'x-cairn-handle': reader },
          }),
        ),
      );
      refused += batch.filter((b) => b.status === 403).length;
    }
    expect(refused).toBe(N);
    await proxy.close();
    proxy = await startProxy({ keysFor: () => keys });
    const denials = (await audit('keys.deny')).slice(before);
    console.log(`proxy: ${N} denied DELETEs of one handle made ${denials.length} audit entries (${backend})`);
    if (backend === 'sqlite') expect(folderBytes(storeDir) - sizeBefore).toBeLessThan(256 * 1024);
    // The first 20 are ordinary keys.deny entries; one summary stands for the rest.
    expect(denials).toHaveLength(21);
    expect(
      denials.slice(0, 20).every((d) => d.branch === 'deny-r' && d.method === 'DELETE' && !('count' in d)),
    ).toBe(true);
    const rule = denials[0]!.rule as string;
    expect(denials.at(-1)).toMatchObject({
      branch: 'deny-r',
      count: N - 20,
      rule,
      rules: { [rule]: N - 20 },
    });
    expect(live.seen).toHaveLength(0);
  });

  it('Expect: 100-continue: the handle and every refusal that needs no body come first; 100 Continue only then', async () => {
    const reader = await branch('c-r');
    await keys.grant({ session, branch: 'c-r', credential: 'billing', mode: 'read' });
    const writer = await branch('c-w');
    await keys.grant({ session, branch: 'c-w', credential: 'billing', mode: 'live' });
    const ask = async (handle: string) => {
      const socket = await rawSocket(proxy.url);
      socket.write(
        `POST /billing/upload HTTP/1.1\r\nhost: x\r\nexpect: 100-continue\r\ncontent-length: 11\r\n${handle ? `x-cairn-handle: ${handle}\r\n` : ''}\r\n`,
      );
      return socket;
    };
    for (const [handle, wanted] of [
      ['', 'handle'],
      [`cbh.${who.tenant}.hd_00000000000000000000000000.${'a'.repeat(52)}`, 'handle'],
      [reader, 'read_only'],
    ] as const) {
      const socket = await ask(handle);
      const text = await socket.waitFor('"rule"');
      expect(text, wanted).not.toContain('100 Continue');
      expect(text).toMatch(/^HTTP\/1\.1 403/);
      expect(ruleOf(text)).toBe(wanted);
      socket.destroy();
    }
    const socket = await ask(writer);
    expect(await socket.waitFor('100 Continue')).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\n$/);
    socket.write('hello world');
    expect(await socket.waitFor('"upstream"')).toContain('HTTP/1.1 200');
    socket.destroy();
    expect(live.seen.map((x) => x.body)).toEqual(['hello world']);
  });

  it('closes a connection that stalls in its headers or its body', async () => {
    const writer = await branch('t-w');
    await keys.grant({ session, branch: 't-w', credential: 'billing', mode: 'live' });
    await proxy.close();
    proxy = await startProxy({ keysFor: () => keys, headersTimeoutMs: 300, requestTimeoutMs: 800 });
    const headers = await rawSocket(proxy.url);
    headers.write('GET /billing/invoices HTTP/1.1\r\nhost: x\r\n');
    const body = await rawSocket(proxy.url);
    body.write(
      `POST /billing/upload HTTP/1.1\r\nhost: x\r\nx-cairn-handle: ${writer}\r\ncontent-length: 100\r\n\r\n0123456789`,
    );
    const [headersClosed, bodyClosed] = await Promise.all([
      Promise.race([headers.closed, new Promise<number>((r) => setTimeout(() => r(-1), 5000))]),
      Promise.race([body.closed, new Promise<number>((r) => setTimeout(() => r(-1), 5000))]),
    ]);
    headers.destroy();
    body.destroy();
    expect(headersClosed).toBeGreaterThan(0);
    expect(headersClosed).toBeLessThan(3000);
    expect(bodyClosed).toBeGreaterThan(0);
    expect(bodyClosed).toBeLessThan(4000);
    expect(headers.received()).toMatch(/^(HTTP\/1\.1 408|$)/);
    expect(live.seen).toHaveLength(0);
  });
}

describe('proxy hardening on SQLite', () => hardeningSuite('sqlite'));
describePostgres('proxy hardening on PostgreSQL', () => hardeningSuite('postgres'));
