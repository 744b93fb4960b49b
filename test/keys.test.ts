import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EmbeddedFabric } from '../src/embedded-fabric.js';
import { MasterKey } from '../src/keys/crypto.js';
import { decide, type Grant } from '../src/keys/grants.js';
import type { Keys } from '../src/keys/keys.js';
import { type RunningProxy, startProxy } from '../src/keys/proxy.js';
import type { Store } from '../src/store.js';
import { expectCode } from '../src/testing/expect-code.js';
import type { Identity } from '../src/types.js';
import { describePostgres } from './support/postgres.js';
import { postgresStore, sqliteStore } from './support/stores.js';
import { recordingUpstream, viaProxy } from './support/upstream.js';

type Backend = 'sqlite' | 'postgres';
const LIVE_SECRET = 'sk_live_Q7rT9vXw2yZa4bCd6eFg8hJk';
const SANDBOX_SECRET = 'sk_test_M3nP5qR7sT9uV1wX3yZ5aB7c';

/**
 * The keys layer on each engine: vault, grants, handles, the proxy and
 * approvals, against real upstream HTTP servers on loopback that record
 * every request they get.
 */
function keysSuite(backend: Backend) {
  let store: Store;
  let cleanup: () => Promise<void>;
  let who: Identity;
  let keys: Keys;
  let fabric: EmbeddedFabric;
  let live: Awaited<ReturnType<typeof recordingUpstream>>;
  let sandbox: Awaited<ReturnType<typeof recordingUpstream>>;
  let proxy: RunningProxy;
  let session: string;
  let now = Date.now();
  const master = MasterKey.generate();

  beforeEach(async () => {
    const opened = backend === 'sqlite' ? await sqliteStore() : await postgresStore();
    store = opened.store;
    cleanup = opened.cleanup;
    who =
      backend === 'sqlite'
        ? await store.localIdentity()
        : await store.authenticate((await store.createTenant('keys-a')).token.token);
    now = Date.now();
    keys = store.keys(who, { masterKey: master, now: () => now });
    fabric = store.fabric(who);
    live = await recordingUpstream('live');
    sandbox = await recordingUpstream('sandbox');
    proxy = await startProxy({
      keysFor: (t) => (t === who.tenant ? keys : undefined),
      auditRefusalsIn: keys,
      approvalTimeoutMs: 2_000,
      pollMs: 10,
    });
    session = (await fabric.createSession({ title: 'invoices' })).id;
    await fabric.append({ session, kind: 'note', payload: 'state 42' });
    await keys.addCredential({
      name: 'billing',
      kind: 'bearer',
      upstream: live.url,
      value: Buffer.from(LIVE_SECRET),
      sandbox: { upstream: sandbox.url, value: Buffer.from(SANDBOX_SECRET) },
    });
  });

  afterEach(async () => {
    await proxy.close();
    await live.close();
    await sandbox.close();
    await cleanup();
  });

  async function branch(name: string): Promise<string> {
    await fabric.fork({ session, from: 'main', name });
    return (await keys.issueHandle({ session, branch: name })).handle;
  }

  async function auditEntries(
    action?: string,
  ): Promise<{ action: string; actor: string; payload: Record<string, unknown> }[]> {
    const rows = await store.engine.read(who.tenant, (tx) =>
      tx.all<{ action: string; actor: string; payload: string }>(
        'SELECT e.action, e.actor, p.payload FROM audit_entries e JOIN audit_payloads p ON p.tenant = e.tenant AND p.seq = e.seq WHERE e.tenant = ? ORDER BY e.seq',
        [who.tenant],
      ),
    );
    return rows
      .map((r) => ({
        action: r.action,
        actor: r.actor,
        payload: JSON.parse(r.payload) as Record<string, unknown>,
      }))
      .filter((r) => action === undefined || r.action === action);
  }

  it('read grant: GET goes to the live upstream with the secret injected; a POST is refused and never reaches it', async () => {
    const handle = await branch('a');
    const g = await keys.grant({ session, branch: 'a', credential: 'billing', mode: 'read' });
    const got = await viaProxy(proxy.url, handle, 'GET', '/billing/invoices?page=1', undefined, {
      authorization: 'Bearer agent-made-this-up',
    });
    expect(got.status).toBe(200);
    expect(got.json).toEqual({ upstream: 'live', path: '/api/invoices?page=1' });
    expect(live.seen).toHaveLength(1);
    expect(live.seen[0]?.authorization).toBe(`Bearer ${LIVE_SECRET}`);
    expect(live.seen[0]?.headers['x-cairn-handle']).toBeUndefined();
    const post = await viaProxy(proxy.url, handle, 'POST', '/billing/invoices/7/reconcile', '{"match":"x"}');
    expect(post.status).toBe(403);
    expect(String((post.json as { message: string }).message)).toMatch(/read-only/);
    expect(live.seen).toHaveLength(1);
    expect(sandbox.seen).toHaveLength(0);
    const uses = await auditEntries('keys.use');
    expect(uses).toHaveLength(1);
    expect(uses[0]?.payload).toMatchObject({
      user: who.principal,
      agent: who.principal,
      branch: 'a',
      grant: g.id,
      method: 'GET',
    });
    expect(await auditEntries('keys.deny')).toHaveLength(1);
    expect((await keys.getGrant(g.id)).uses).toBe(1);
  });

  it('sandbox grant: only the sandbox upstream sees requests, with the test-account secret', async () => {
    const handle = await branch('b');
    await keys.grant({ session, branch: 'b', credential: 'billing', mode: 'sandbox' });
    expect((await viaProxy(proxy.url, handle, 'GET', '/billing/invoices')).status).toBe(200);
    const post = await viaProxy(proxy.url, handle, 'POST', '/billing/invoices/7/reconcile', '{"match":"x"}');
    expect(post.status).toBe(200);
    expect(post.json).toMatchObject({ upstream: 'sandbox' });
    expect(live.seen).toHaveLength(0);
    expect(sandbox.seen.map((s) => [s.method, s.authorization, s.body])).toEqual([
      ['GET', `Bearer ${SANDBOX_SECRET}`, ''],
      ['POST', `Bearer ${SANDBOX_SECRET}`, '{"match":"x"}'],
    ]);
  });

  it('live + each-write: no write reaches the upstream before approval; an approval is used once', async () => {
    const handle = await branch('c');
    await keys.grant({ session, branch: 'c', credential: 'billing', mode: 'live', approval: 'each-write' });
    // Reads need no approval.
    expect((await viaProxy(proxy.url, handle, 'GET', '/billing/invoices')).status).toBe(200);
    const pending = viaProxy(
      proxy.url,
      handle,
      'POST',
      '/billing/invoices/7/reconcile',
      '{"match":"x","token":"hide-me"}',
    );
    let waiting = await keys.listApprovals();
    for (let i = 0; waiting.length === 0 && i < 200; i++) {
      await new Promise((r) => setTimeout(r, 5));
      waiting = await keys.listApprovals();
    }
    expect(waiting).toHaveLength(1);
    const approval = waiting[0]!;
    expect(approval).toMatchObject({ branch: 'c', credential: 'billing', method: 'POST', state: 'pending' });
    expect(approval.url).toBe(`${live.url}/invoices/7/reconcile`);
    expect(approval.preview).toBe('{"match":"x","token":"[redacted]"}');
    // Held while pending (looked at now, not after a sleep): only the approval below lets it through.
    expect(live.seen.filter((s) => s.method === 'POST')).toHaveLength(0);
    await keys.decide(approval.id, 'approve');
    const done = await pending;
    expect(done.status).toBe(200);
    expect(live.seen.filter((s) => s.method === 'POST')).toHaveLength(1);
    // Deciding again is refused. Replaying the request, even naming the used approval, is a new
    // request: held for its own approval (the agent cannot present one), and denied here.
    await expectCode(keys.decide(approval.id, 'approve'), 'CONFLICT');
    const replay = viaProxy(
      proxy.url,
      handle,
      'POST',
      '/billing/invoices/7/reconcile',
      '{"match":"x","token":"hide-me"}',
      {
        'x-cairn-approval': approval.id,
      },
    );
    let second = await keys.listApprovals();
    for (let i = 0; second.length === 0 && i < 200; i++) {
      await new Promise((r) => setTimeout(r, 5));
      second = await keys.listApprovals();
    }
    expect(second).toHaveLength(1);
    expect(second[0]!.id).not.toBe(approval.id);
    await keys.decide(second[0]!.id, 'deny');
    expect((await replay).status).toBe(403);
    expect(live.seen.filter((s) => s.method === 'POST')).toHaveLength(1);
    expect((await keys.getApproval(approval.id)).state).toBe('used');
    const actions = (await auditEntries()).map((e) => e.action);
    expect(actions).toEqual(
      expect.arrayContaining([
        'keys.approval.request',
        'keys.approval.approve',
        'keys.use',
        'keys.approval.deny',
      ]),
    );
  });

  it('live + each-write: a denied or timed-out write never reaches the upstream', async () => {
    const handle = await branch('c');
    await keys.grant({ session, branch: 'c', credential: 'billing', mode: 'live', approval: 'each-write' });
    const denied = viaProxy(proxy.url, handle, 'DELETE', '/billing/invoices/9');
    let waiting = await keys.listApprovals();
    for (let i = 0; waiting.length === 0 && i < 200; i++) {
      await new Promise((r) => setTimeout(r, 5));
      waiting = await keys.listApprovals();
    }
    await keys.decide(waiting[0]!.id, 'deny');
    const answer = await denied;
    expect(answer.status).toBe(403);
    expect(String((answer.json as { message: string }).message)).toMatch(/not approved \(denied/);
    // Nobody decides this one: after the timeout it is refused and marked expired.
    const slow = await startProxy({ keysFor: () => keys, approvalTimeoutMs: 100, pollMs: 10 });
    try {
      const timedOut = await viaProxy(slow.url, handle, 'POST', '/billing/invoices/9/reconcile', '{}');
      expect(timedOut.status).toBe(403);
      expect((timedOut.json as { data: { state: string } }).data.state).toBe('expired');
      const expired = (await keys.listApprovals({ state: 'expired' }))[0]!;
      await expectCode(keys.decide(expired.id, 'approve'), 'CONFLICT');
    } finally {
      await slow.close();
    }
    expect(live.seen).toHaveLength(0);
  });

  it('refuses, audits and forwards nothing: unknown credential, outside host or path, other branch, expiry, revocation, bad handle', async () => {
    const handleA = await branch('a');
    const handleC = await branch('c');
    const c = await keys.grant({
      session,
      branch: 'c',
      credential: 'billing',
      mode: 'live',
      allow: { pathPrefixes: ['/invoices'] },
      expiresAt: now + 60_000,
    });
    const narrow = await keys.grant({
      session,
      branch: 'a',
      credential: 'billing',
      mode: 'read',
      allow: { hosts: ['api.example.com'] },
    });
    expect(narrow.allow.hosts).toEqual(['api.example.com']);
    const cases: [string, string, string, number, RegExp][] = [
      [handleC, 'GET', '/nope/invoices', 404, /credential nope is unknown/],
      [handleA, 'GET', '/billing/invoices', 403, /outside grant .*allow-list/], // A's grant allows another host only
      [handleC, 'GET', '/billing/customers', 403, /path \/customers is outside/],
      [handleC, 'GET', '/billing/invoices/../customers', 403, /\.\. segment|outside/],
      [
        `cbh.tn_00000000000000000000000000.hd_00000000000000000000000000.${'a'.repeat(52)}`,
        'GET',
        '/billing/invoices',
        403,
        /handle/,
      ],
      ['', 'GET', '/billing/invoices', 403, /handle/],
    ];
    for (const [handle, method, path, status, message] of cases) {
      const got = await viaProxy(proxy.url, handle, method, path);
      expect(got.status, path).toBe(status);
      expect(String((got.json as { message: string }).message), path).toMatch(message);
    }
    // A handle from another branch: branch a has no grant on c's credential path; another branch with no grant at all.
    const handleD = await branch('d');
    expect((await viaProxy(proxy.url, handleD, 'GET', '/billing/invoices')).status).toBe(403);
    expect((await viaProxy(proxy.url, handleC, 'GET', '/billing/invoices')).status).toBe(200);
    now += 61_000; // the grant expires
    const late = await viaProxy(proxy.url, handleC, 'GET', '/billing/invoices');
    expect(late.status).toBe(403);
    expect(String((late.json as { message: string }).message)).toMatch(/expired/);
    now -= 61_000;
    await keys.revoke(c.id, 'done');
    expect((await viaProxy(proxy.url, handleC, 'GET', '/billing/invoices')).status).toBe(403);
    expect(live.seen).toHaveLength(1);
    // Every refusal with a valid handle of this tenant is an audit entry with its branch.
    const denials = await auditEntries('keys.deny');
    // Every refusal is audited, the forged and the missing handle too (in the proxy's own tenant).
    expect(denials.length).toBe(cases.length + 3);
    expect(denials.filter((d) => d.payload.agent === '').length).toBe(2);
    expect(denials.filter((d) => d.payload.branch === 'c').length).toBeGreaterThanOrEqual(5);
  });

  it('counts uses and approvals exactly under concurrency: 20 parallel requests on a 3-use grant send 3', async () => {
    const handle = await branch('a');
    await keys.grant({ session, branch: 'a', credential: 'billing', mode: 'live', maxUses: 3 });
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => viaProxy(proxy.url, handle, 'GET', '/billing/invoices')),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(3);
    expect(live.seen).toHaveLength(3);
    expect((await keys.listGrants({ branch: 'a' }))[0]).toMatchObject({ uses: 3, state: 'exhausted' });
  });

  it('drops method overrides, cookies and echoed secrets; refuses `..;` and double-encoded paths', async () => {
    const handle = await branch('a');
    await keys.grant({ session, branch: 'a', credential: 'billing', mode: 'read' });
    const got = await viaProxy(proxy.url, handle, 'GET', '/billing/invoices', undefined, {
      'x-http-method-override': 'DELETE',
      'x-method-override': 'DELETE',
    });
    expect(got.status).toBe(200);
    expect(live.seen[0]?.headers['x-http-method-override']).toBeUndefined();
    expect(live.seen[0]?.headers['x-method-override']).toBeUndefined();
    for (const path of [
      '/billing/invoices/..;/admin',
      '/billing/invoices/%252e%252e/admin',
      '/billing/%E0',
    ]) {
      const refused = await viaProxy(proxy.url, handle, 'GET', path);
      expect([403, 404], path).toContain(refused.status);
    }
    expect(live.seen).toHaveLength(1);
    // An upstream that sets a cookie and echoes the token in a header: neither reaches the agent.
    const echo = await startEchoUpstream();
    try {
      await keys.addCredential({
        name: 'echo',
        kind: 'bearer',
        upstream: echo.url,
        value: Buffer.from('sk_live_echo_0123456789'),
        // Response headers come back by allow-list: x-plain only because the credential lists it.
        allowHeaders: ['x-plain'],
      });
      await keys.grant({ session, branch: 'a', credential: 'echo', mode: 'read' });
      const res = await fetch(`${proxy.url}/echo/x`, { headers: { 'x-cairn-handle': handle } });
      expect(res.status).toBe(200);
      expect(res.headers.get('set-cookie')).toBeNull();
      expect(res.headers.get('x-echo')).toBeNull();
      expect(res.headers.get('x-plain')).toBe('kept');
      expect(res.headers.get('x-unlisted')).toBeNull();
      await res.text();
    } finally {
      await echo.close();
    }
  });

  it('a member acts only on branches it owns; env credentials keep to their mode', async () => {
    await fabric.fork({ session, from: 'main', name: 'b' });
    const root = await keys.grant({ session, branch: 'main', credential: 'billing', mode: 'live' });
    const member = await fabric.createToken({ kind: 'agent', name: 'bot', role: 'member' });
    const memberWho = await store.authenticate(member.token);
    const memberKeys = store.keys(memberWho, { masterKey: master });
    const memberFabric = store.fabric(memberWho);
    await expectCode(
      memberKeys.grant({ session, branch: 'b', credential: 'billing', mode: 'live', parent: root.id }),
      'FORBIDDEN',
    );
    await expectCode(memberKeys.issueHandle({ session, branch: 'main' }), 'FORBIDDEN');
    await expectCode(memberKeys.revoke(root.id), 'FORBIDDEN');
    // Its own session and branches: it may narrow a grant the admin gave it.
    const own = (await memberFabric.createSession({ title: 'mine' })).id;
    await memberFabric.append({ session: own, kind: 'note', payload: 1 });
    await memberFabric.fork({ session: own, from: 'main', name: 'try' });
    const given = await keys.grant({ session: own, branch: 'main', credential: 'billing', mode: 'live' });
    const narrowed = await memberKeys.grant({
      session: own,
      branch: 'try',
      credential: 'billing',
      mode: 'read',
      parent: given.id,
    });
    expect(narrowed.mode).toBe('read');
    expect((await memberKeys.issueHandle({ session: own, branch: 'try' })).handle).toMatch(/^cbh\./);
    // An env credential without a sandbox value: no sandbox grant; each-write cannot be enforced on it.
    await keys.addCredential({
      name: 'deploy',
      kind: 'env',
      upstream: '',
      value: Buffer.from('env-secret-1234'),
    });
    await expectCode(
      keys.grant({ session, branch: 'main', credential: 'deploy', mode: 'sandbox' }),
      'INVALID_ARGUMENT',
    );
    await expectCode(
      keys.grant({ session, branch: 'main', credential: 'deploy', mode: 'live', approval: 'each-write' }),
      'INVALID_ARGUMENT',
    );
    await expectCode(keys.envForChild({ session, branch: 'main', credential: 'deploy' }), 'FORBIDDEN');
    await keys.grant({ session, branch: 'main', credential: 'deploy', mode: 'live' });
    expect((await keys.envForChild({ session, branch: 'main', credential: 'deploy' })).value).toBe(
      'env-secret-1234',
    );
  });

  it('grants narrow only; revoking a parent revokes every descendant; ended grants cannot be narrowed', async () => {
    await fabric.fork({ session, from: 'main', name: 'b' });
    await fabric.fork({ session, from: 'main', name: 'b2' });
    const root = await keys.grant({
      session,
      branch: 'main',
      credential: 'billing',
      mode: 'live',
      approval: 'each-write',
      maxUses: 10,
    });
    const sandboxRoot = await keys.grant({ session, branch: 'main', credential: 'billing', mode: 'sandbox' });
    const child = await keys.grant({
      session,
      branch: 'b',
      credential: 'billing',
      mode: 'read',
      parent: root.id,
    });
    expect(child).toMatchObject({
      mode: 'read',
      maxUses: 10,
      allow: { methods: ['GET', 'HEAD', 'OPTIONS'] },
    });
    const grandchild = await keys.grant({
      session,
      branch: 'b2',
      credential: 'billing',
      mode: 'read',
      parent: child.id,
      maxUses: 3,
    });
    const wider: [Parameters<Keys['grant']>[0], RegExp][] = [
      [
        { session, branch: 'b', credential: 'billing', mode: 'live', parent: sandboxRoot.id },
        /mode live under sandbox/,
      ],
      [
        { session, branch: 'b', credential: 'billing', mode: 'live', approval: 'none', parent: root.id },
        /without approval/,
      ],
      [
        {
          session,
          branch: 'b',
          credential: 'billing',
          mode: 'read',
          parent: child.id,
          allow: { methods: ['GET', 'POST'] },
        },
        /read grant allows only/,
      ],
      [
        { session, branch: 'b', credential: 'billing', mode: 'read', parent: child.id, maxUses: 11 },
        /11 uses where 10/,
      ],
      [
        {
          session,
          branch: 'b',
          credential: 'billing',
          mode: 'read',
          parent: child.id,
          allow: { hosts: ['evil.example'] },
        },
        /hosts evil.example/,
      ],
    ];
    const before = (await keys.listGrants()).length;
    for (const [request, message] of wider) {
      const error = await expectCode(keys.grant(request), 'INVALID_ARGUMENT');
      expect(error.message).toMatch(message);
    }
    expect((await keys.listGrants()).length).toBe(before);
    await expectCode(keys.grant({ session, branch: 'b', credential: 'nope', mode: 'read' }), 'NOT_FOUND');
    const { revoked } = await keys.revoke(root.id, 'incident');
    expect(revoked.sort()).toEqual([root.id, child.id, grandchild.id].sort());
    expect((await keys.getGrant(grandchild.id)).revokeReason).toBe(`parent ${root.id} revoked`);
    expect((await keys.getGrant(sandboxRoot.id)).revokedAt).toBeNull();
    await expectCode(
      keys.grant({ session, branch: 'b', credential: 'billing', mode: 'read', parent: child.id }),
      'FORBIDDEN',
    );
    // A member (not admin) may narrow but not issue a root grant or add credentials.
    const member = await fabric.createToken({ kind: 'agent', name: 'bot', role: 'member' });
    const memberKeys = store.keys(await store.authenticate(member.token), { masterKey: master });
    await expectCode(
      memberKeys.grant({ session, branch: 'b', credential: 'billing', mode: 'read' }),
      'FORBIDDEN',
    );
    await expectCode(
      memberKeys.addCredential({
        name: 'other',
        kind: 'bearer',
        upstream: live.url,
        value: Buffer.from('abcd'),
      }),
      'FORBIDDEN',
    );
    await expectCode(memberKeys.decide('ap_x', 'approve'), 'FORBIDDEN');
  });

  it('vault: values are sealed; listing shows none; a wrong or missing master key is a clear error; rotate and delete', async () => {
    const creds = await keys.listCredentials();
    expect(JSON.stringify(creds)).not.toContain(LIVE_SECRET);
    expect(creds[0]).toMatchObject({ name: 'billing', kind: 'bearer', version: 1, masterKeyId: master.id });
    await expectCode(
      keys.addCredential({
        name: 'billing',
        kind: 'bearer',
        upstream: live.url,
        value: Buffer.from('x-y-z-w'),
      }),
      'CONFLICT',
    );
    await expectCode(
      keys.addCredential({
        name: 'Bad Name',
        kind: 'bearer',
        upstream: live.url,
        value: Buffer.from('abcd'),
      }),
      'INVALID_ARGUMENT',
    );
    await expectCode(
      keys.addCredential({ name: 'x', kind: 'bearer', upstream: 'ftp://x', value: Buffer.from('abcd') }),
      'INVALID_ARGUMENT',
    );
    await expectCode(
      keys.addCredential({ name: 'x', kind: 'bearer', upstream: live.url, value: Buffer.from('') }),
      'INVALID_ARGUMENT',
    );
    const locked = store.keys(who);
    const error = await expectCode(
      locked.addCredential({ name: 'y', kind: 'bearer', upstream: live.url, value: Buffer.from('abcd') }),
      'UNAVAILABLE',
    );
    expect(error.message).toMatch(/master key/);
    const handle = await branch('a');
    await keys.grant({ session, branch: 'a', credential: 'billing', mode: 'live' });
    const wrong = await startProxy({ keysFor: () => store.keys(who, { masterKey: MasterKey.generate() }) });
    try {
      const refused = await viaProxy(wrong.url, handle, 'GET', '/billing/x');
      expect(refused.status).toBe(503);
      expect(String((refused.json as { message: string }).message)).toMatch(/sealed under master key/);
    } finally {
      await wrong.close();
    }
    expect(live.seen).toHaveLength(0);
    await keys.rotateCredential('billing', { value: Buffer.from('sk_live_rotated_value_1234') });
    expect((await viaProxy(proxy.url, handle, 'GET', '/billing/x')).status).toBe(200);
    expect(live.seen[0]?.authorization).toBe('Bearer sk_live_rotated_value_1234');
    const deleted = await keys.deleteCredential('billing');
    expect(deleted.revokedGrants).toHaveLength(1);
    expect((await viaProxy(proxy.url, handle, 'GET', '/billing/x')).status).toBe(404);
    expect(live.seen).toHaveLength(1);
    // No table holds a value in the clear: every row of every table, as text.
    const dump = await allRowsText();
    for (const secret of [LIVE_SECRET, SANDBOX_SECRET, 'sk_live_rotated_value_1234'])
      expect(dump).not.toContain(secret);
  });

  /** Every row of every Cairn table of the tenant, as one text (bytes as latin1 and hex). */
  async function allRowsText(): Promise<string> {
    const tables =
      backend === 'sqlite'
        ? await store.engine.read(who.tenant, (tx) =>
            tx.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'"),
          )
        : await store.engine.read(who.tenant, (tx) =>
            tx.all<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'"),
          );
    const parts: string[] = [];
    for (const { name } of tables) {
      const rows = await store.engine.read(who.tenant, (tx) =>
        tx.all<Record<string, unknown>>(`SELECT * FROM ${name}`),
      );
      for (const row of rows)
        for (const v of Object.values(row))
          parts.push(Buffer.isBuffer(v) ? `${v.toString('latin1')} ${v.toString('hex')}` : String(v));
    }
    return parts.join('\n');
  }
}

/** An upstream that sets a cookie and echoes the Authorization header back in a response header. */
async function startEchoUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    res.writeHead(200, {
      'set-cookie': 'session=abc; HttpOnly',
      'x-echo': String(req.headers.authorization ?? ''),
      'x-plain': 'kept',
      'x-unlisted': 'dropped',
      'content-type': 'text/plain',
    });
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('keys on SQLite', () => keysSuite('sqlite'));
describePostgres('keys on PostgreSQL', () => keysSuite('postgres'));

describe('the grant check', () => {
  const grant: Grant = {
    id: 'gr_1',
    parent: '',
    session: 's',
    branch: 'b',
    credential: 'billing',
    mode: 'live',
    approval: 'each-write',
    allow: { hosts: ['api.example.com'], methods: ['GET', 'POST'], pathPrefixes: ['/invoices'] },
    expiresAt: 2_000,
    maxUses: 2,
    uses: 1,
    onBehalfOf: 'u',
    createdBy: 'u',
    createdAt: 0,
    revokedAt: null,
    revokedBy: '',
    revokeReason: '',
  };
  const request = { method: 'POST', host: 'api.example.com', path: '/invoices/3' };
  it('is a pure decision on the chain, the request and the clock', () => {
    expect(decide([grant], request, 1_000)).toEqual({ allowed: true, needsApproval: true });
    expect(decide([grant], { ...request, method: 'GET' }, 1_000)).toEqual({
      allowed: true,
      needsApproval: false,
    });
    expect(decide([grant], { ...request, path: '/invoicesX' }, 1_000).allowed).toBe(false);
    expect(decide([grant], { ...request, method: 'DELETE' }, 1_000).allowed).toBe(false);
    expect(decide([grant], request, 2_000)).toMatchObject({
      allowed: false,
      reason: expect.stringMatching(/expired/),
    });
    expect(decide([{ ...grant, uses: 2 }], request, 1_000)).toMatchObject({
      reason: expect.stringMatching(/exhausted/),
    });
    expect(decide([grant, { ...grant, id: 'gr_0', revokedAt: 5 }], request, 1_000)).toMatchObject({
      reason: expect.stringMatching(/gr_0 \(an ancestor\) is revoked/),
    });
  });
});
