import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MasterKey } from '../src/keys/crypto.js';
import { type RunningServer, startServer } from '../src/server/index.js';
import { openApiDocument } from '../src/server/openapi.js';
import { heldWrites } from './support/held-writes.js';
import { remoteTarget, sqliteStore, tempDir } from './support/stores.js';
import { put } from './support/trees.js';

/**
 * The HTTP surface: raw requests, so status codes and error bodies are what
 * a client other than ours would see.
 */
let server: RunningServer;
let tokens: { a: string; b: string };
let close: () => Promise<void>;
// Ids owned by tenant B.
const ofB = {
  session: '',
  event: '',
  branch: 'main',
  principal: '',
  approval: '',
  grant: '',
  workspace: '',
  snapshot: '',
  memory: '',
  artifact: '',
};
const deskDir = tempDir('cairn-http-desk-');

async function call(method: string, path: string, token: string | null, body?: string) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const response = await fetch(`${server.url}${path}`, { method, headers, body });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined };
}

beforeAll(async () => {
  const { store, cleanup } = await sqliteStore();
  const target = await remoteTarget(store, cleanup);
  server = target.server;
  tokens = target.tokens;
  close = target.close;
  const session = await target.tenantB.createSession({ title: 'b only' });
  const event = await target.tenantB.append({ session: session.id, kind: 'message', payload: 'b secret' });
  ofB.session = session.id;
  ofB.principal = (await target.tenantB.whoami()).principal;
  ofB.event = event.id;
  ofB.memory = (
    await target.tenantB.remember({ scope: { user: 'shared-name' }, text: 'b secret memo', source: 'person' })
  ).id;
  ofB.artifact = (
    await target.tenantB.publishArtifact({
      session: session.id,
      name: 'b.txt',
      bytes: Buffer.from('b secret artifact'),
    })
  ).id;
  // A write of B's held for approval: through the library, as the proxy would record it.
  const keysB = store.keys(await store.authenticate(target.tokens.b), { masterKey: MasterKey.generate() });
  const held = await heldWrites(keysB, session.id, 'sk_b_secret_1', ['{"amount":5,"password":"pw-1"}']);
  ofB.approval = held.approvals[0] as string;
  ofB.grant = held.grant;
  // A workspace of B's and its snapshot.
  put(join(deskDir.dir, 'work'), 'plan.txt', 'b secret plan\n');
  const desk = store.desk(await store.authenticate(target.tokens.b), {
    stateDir: join(deskDir.dir, 'state'),
  });
  const attached = await desk.attach({ dir: join(deskDir.dir, 'work') });
  await desk.close();
  ofB.workspace = attached.workspace.id;
  ofB.snapshot = attached.checkpoint.snapshot.id;
});

afterAll(async () => {
  await close();
  deskDir.remove();
});

describe('HTTP API', () => {
  it("answers tenant A's token on tenant B's ids with NOT_FOUND on every endpoint, and changes nothing", async () => {
    const { session, event, branch } = ofB;
    const attempts: Array<[string, string, string?]> = [
      ['GET', `/v1/sessions/${session}`],
      ['POST', `/v1/sessions/${session}/events`, JSON.stringify({ kind: 'message', payload: 'intrusion' })],
      ['GET', `/v1/sessions/${session}/branches/${branch}/events`],
      ['GET', `/v1/events/${event}`],
      ['GET', `/v1/sessions/${session}/branches`],
      ['POST', `/v1/sessions/${session}/branches`, JSON.stringify({ at: event, name: 'stolen' })],
      ['POST', `/v1/sessions/${session}/branches/${branch}/rewind`, JSON.stringify({ to: event })],
      ['POST', `/v1/sessions/${session}/branches/${branch}/move`, JSON.stringify({ to: event })],
      ['GET', `/v1/events/${event}/path`],
      ['GET', `/v1/sessions/${session}/branches/${branch}/history`],
      ['POST', '/v1/tokens', JSON.stringify({ principal: ofB.principal, label: 'stolen' })],
      ['POST', `/v1/tokens/${tokens.b.split('.')[2]}/revoke`],
      ['GET', `/v1/approvals/${ofB.approval}`],
      ['POST', `/v1/approvals/${ofB.approval}/approve`, '{}'],
      ['POST', `/v1/approvals/${ofB.approval}/deny`, '{}'],
      ['POST', `/v1/grants/${ofB.grant}/revoke`, '{}'],
      ['GET', `/v1/grants/${ofB.grant}`],
      ['GET', `/v1/workspaces/${ofB.workspace}`],
      ['GET', `/v1/workspaces/${ofB.workspace}/head`],
      ['GET', `/v1/workspaces/${ofB.workspace}/snapshots`],
      ['POST', `/v1/workspaces/${ofB.workspace}/detach`, '{}'],
      ['GET', `/v1/snapshots/${ofB.snapshot}`],
      ['GET', `/v1/sessions/${session}/branches/${branch}/steps`],
      [
        'POST',
        `/v1/sessions/${session}/branches/${branch}/memory/carry`,
        JSON.stringify({ to: 'elsewhere' }),
      ],
      ['POST', `/v1/sessions/${session}/branches/${branch}/memory/drop`, JSON.stringify({ keepFor: [] })],
      ['GET', `/v1/artifacts/${ofB.artifact}`],
      ['GET', `/v1/artifacts/${ofB.artifact}/content`],
      ['GET', `/v1/artifacts/${ofB.artifact}/lineage`],
      ['POST', `/v1/artifacts/${ofB.artifact}/remove`, '{}'],
      ['GET', `/v1/memory/${ofB.memory}`],
      ['GET', `/v1/memory/${ofB.memory}/history`],
      ['POST', `/v1/memory/${ofB.memory}/quarantine`, '{}'],
      ['POST', `/v1/memory/${ofB.memory}/promote`, '{}'],
      ['POST', `/v1/memory/${ofB.memory}/forget`, '{}'],
      ['POST', '/v1/memory/recall', JSON.stringify({ query: 'memo', scope: { session } })],
      ['POST', '/v1/memory', JSON.stringify({ text: 'intrusion', scope: { session } })],
      [
        'POST',
        `/v1/sessions/${session}/branches/${branch}/steps/resolve`,
        JSON.stringify({ position: 1, rerun: true }),
      ],
      // The journal's and the unit's own records (Cairn's kinds), on B's branch and workspace.
      [
        'POST',
        `/v1/sessions/${session}/branches/${branch}/steps`,
        JSON.stringify({ payload: { probe: { position: 1, happened: false } } }),
      ],
      [
        'POST',
        `/v1/sessions/${session}/branches/${branch}/unit/keep`,
        JSON.stringify({ workspace: ofB.workspace }),
      ],
      [
        'POST',
        `/v1/sessions/${session}/branches/${branch}/unit/abandon`,
        JSON.stringify({ workspace: ofB.workspace, expiresAt: 0 }),
      ],
      [
        'POST',
        `/v1/sessions/${session}/branches/${branch}/unit/checkpoints`,
        JSON.stringify({
          payload: {
            label: '',
            head: '',
            workspace: ofB.workspace,
            snapshot: ofB.snapshot,
            root: '',
            inDoubt: [],
            evidence: {},
            accepted: true,
          },
        }),
      ],
    ];
    for (const [method, path, body] of attempts) {
      const response = await call(method, path, tokens.a, body);
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.json.code).toBe('NOT_FOUND');
      expect(JSON.stringify(response.json)).not.toContain('b secret');
    }
    // B's scope names are A's own namespace: A recalls none of B's records under them.
    const sameName = await call(
      'POST',
      '/v1/memory/recall',
      tokens.a,
      JSON.stringify({ query: 'secret memo', scope: { user: 'shared-name' } }),
    );
    expect(sameName.json.items).toEqual([]);
    const listed = await call('GET', '/v1/sessions?limit=1000', tokens.a);
    expect(listed.json.sessions.map((s: { id: string }) => s.id)).not.toContain(session);
    const mine = await call('GET', `/v1/sessions/${session}/branches/main/events`, tokens.b);
    // B's own events: its message and its artifact's publication, nothing of A's intrusions.
    expect(mine.json.events.map((e: { kind: string }) => e.kind)).toEqual(['message', 'cairn.artifact']);
    expect(mine.json.events[0].payload).toBe('b secret');
    const branches = await call('GET', `/v1/sessions/${session}/branches`, tokens.b);
    expect(branches.json.map((b: { name: string }) => b.name)).toEqual(['main']);
    // Every route of the API was tried, except those that take no tenant-B id (a desk pack is named by
    // its own content's hash: the tenant-crossing test of the table tries it).
    const paths = Object.keys((openApiDocument() as { paths: Record<string, unknown> }).paths).filter(
      (p) => p.includes('{') && !p.startsWith('/v1/desk/packs/'),
    );
    expect(attempts.length).toBeGreaterThanOrEqual(paths.length);
  });

  it('lists and decides approvals: branch, credential, method, URL, redacted preview; once only', async () => {
    expect((await call('GET', '/v1/approvals', tokens.a)).json.approvals).toEqual([]);
    expect((await call('GET', '/v1/grants', tokens.a)).json.grants).toEqual([]);
    const listed = await call('GET', '/v1/approvals', tokens.b);
    expect(listed.json.approvals).toHaveLength(1);
    expect(listed.json.approvals[0]).toMatchObject({
      id: ofB.approval,
      branch: 'main',
      credential: 'billing',
      method: 'POST',
      url: 'http://127.0.0.1:9/api/pay',
      preview: '{"amount":5,"password":"[redacted]"}',
    });
    expect((await call('GET', '/v1/approvals?state=bogus', tokens.b)).status).toBe(400);
    const approved = await call('POST', `/v1/approvals/${ofB.approval}/approve`, tokens.b, '{"note":"ok"}');
    expect(approved.status).toBe(200);
    expect(approved.json.state).toBe('approved');
    const again = await call('POST', `/v1/approvals/${ofB.approval}/deny`, tokens.b, '{}');
    expect(again.status).toBe(409);
    expect(again.json.code).toBe('CONFLICT');
    expect((await call('GET', '/v1/approvals', tokens.b)).json.approvals).toEqual([]);
    const grants = await call('GET', '/v1/grants', tokens.b);
    expect(grants.json.grants.map((g: { id: string; state: string }) => [g.id, g.state])).toEqual([
      [ofB.grant, 'active'],
    ]);
  });

  it('refuses a missing, malformed or forged token with 401 UNAUTHENTICATED', async () => {
    for (const token of [null, 'nonsense', `${tokens.a.slice(0, -1)}${tokens.a.endsWith('a') ? 'b' : 'a'}`]) {
      const response = await call('GET', '/v1/whoami', token);
      expect(response.status).toBe(401);
      expect(response.json.code).toBe('UNAUTHENTICATED');
    }
    expect((await call('GET', '/v1/whoami', tokens.a)).status).toBe(200);
    const lowercase = await fetch(`${server.url}/v1/whoami`, {
      headers: { authorization: `bearer ${tokens.a}` },
    });
    expect(lowercase.status).toBe(200);
  });

  it('answers malformed JSON and bad fields with 400 and a code, oversize bodies with 413', async () => {
    const created = await call('POST', '/v1/sessions', tokens.a, '{}');
    expect(created.status).toBe(201);
    const id = created.json.id as string;
    const malformed = await call(
      'POST',
      `/v1/sessions/${id}/events`,
      tokens.a,
      '{"kind": "message", payload',
    );
    expect(malformed.status).toBe(400);
    expect(malformed.json).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(typeof malformed.json.message).toBe('string');
    expect(malformed.json.data).toBeTypeOf('object');
    const badField = await call(
      'POST',
      `/v1/sessions/${id}/events`,
      tokens.a,
      JSON.stringify({ kind: 'Not A Kind' }),
    );
    expect(badField.status).toBe(400);
    expect(badField.json.data.field).toBe('kind');
    const unknownField = await call(
      'POST',
      `/v1/sessions/${id}/events`,
      tokens.a,
      JSON.stringify({ kind: 'x', tenant: 'tn_x' }),
    );
    expect(unknownField.status).toBe(400);
    for (const limit of ['abc', '0x10', '1e2', '', '-5', '1.5', '9007199254740993']) {
      const badQuery = await call('GET', `/v1/sessions/${id}/branches/main/events?limit=${limit}`, tokens.a);
      expect(badQuery.status, `limit=${limit}`).toBe(400);
      expect(badQuery.json.message).toContain('whole number');
      expect(badQuery.json.data.field).toBe('limit');
    }
    // An integer JSON numbers cannot carry exactly is refused, not rounded; in a string it is text.
    const rounded = await call(
      'POST',
      `/v1/sessions/${id}/events`,
      tokens.a,
      '{"kind":"x","payload":{"n":9007199254740993}}',
    );
    expect(rounded.status).toBe(400);
    expect(rounded.json.code).toBe('INVALID_ARGUMENT');
    expect(rounded.json.message).toContain('9007199254740993');
    const negative = await call(
      'POST',
      `/v1/sessions/${id}/events`,
      tokens.a,
      '{"kind":"x","payload":[-123456789012345678]}',
    );
    expect(negative.status).toBe(400);
    const safe = await call(
      'POST',
      `/v1/sessions/${id}/events`,
      tokens.a,
      '{"kind":"x","payload":{"max":9007199254740991,"text":"12345678901234567890 \\" 99999999999999999999","f":1.5e300}}',
    );
    expect(safe.status).toBe(201);
    expect(safe.json.payload).toEqual({
      max: 9007199254740991,
      text: '12345678901234567890 " 99999999999999999999',
      f: 1.5e300,
    });
    const huge = JSON.stringify({ kind: 'message', payload: 'x'.repeat(3 * 1024 * 1024) });
    const oversize = await call('POST', `/v1/sessions/${id}/events`, tokens.a, huge);
    expect(oversize.status).toBe(413);
    expect(oversize.json.code).toBe('PAYLOAD_TOO_LARGE');
    const events = await call('GET', `/v1/sessions/${id}/branches/main/events`, tokens.a);
    expect(events.json.events.map((e: { id: string }) => e.id)).toEqual([safe.json.id]);
  });

  it('revokes a token at once on this server; a member may revoke only its own', async () => {
    const minted = await call(
      'POST',
      '/v1/tokens',
      tokens.a,
      JSON.stringify({ kind: 'agent', name: 'worker' }),
    );
    expect(minted.status).toBe(201);
    const member = minted.json.token as string;
    expect((await call('GET', '/v1/whoami', member)).status).toBe(200);
    const adminTokenId = tokens.a.split('.')[2];
    const forbidden = await call('POST', `/v1/tokens/${adminTokenId}/revoke`, member);
    expect(forbidden.status).toBe(403);
    expect(forbidden.json.code).toBe('FORBIDDEN');
    const revoked = await call('POST', `/v1/tokens/${minted.json.id}/revoke`, member);
    expect(revoked.status).toBe(200);
    expect(revoked.json).toMatchObject({ id: minted.json.id, principal: minted.json.principal });
    const after = await call('GET', '/v1/whoami', member);
    expect(after.status).toBe(401);
    expect(after.json.code).toBe('UNAUTHENTICATED');
    expect((await call('GET', '/v1/whoami', tokens.a)).status).toBe(200);
  });

  it('does not log a client that hangs up mid-body as an internal error, and keeps serving', async () => {
    const { store, cleanup } = await sqliteStore();
    const internal: unknown[] = [];
    const own = await startServer(store, { onInternalError: (e) => internal.push(e) });
    try {
      const created = await store.createTenant('hangup');
      const session = await store.fabric(await store.authenticate(created.token.token)).createSession();
      const { port } = new URL(own.url);
      for (let i = 0; i < 5; i++) {
        await new Promise<void>((done) => {
          const socket = connect(Number(port), '127.0.0.1', () => {
            socket.write(
              `POST /v1/sessions/${session.id}/events HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${created.token.token}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"kind":"message","pay`,
            );
            setTimeout(() => {
              socket.destroy();
              done();
            }, 50);
          });
        });
      }
      await new Promise((r) => setTimeout(r, 100));
      expect(internal).toEqual([]);
      const after = await fetch(`${own.url}/v1/sessions/${session.id}/branches/main/events`, {
        headers: { authorization: `Bearer ${created.token.token}` },
      });
      expect(after.status).toBe(200);
      expect((await after.json()).events).toEqual([]);
    } finally {
      await own.close();
      await cleanup();
    }
  });

  it('answers an unknown route with a typed 404', async () => {
    const response = await call('GET', '/v1/nope', tokens.a);
    expect(response.status).toBe(404);
    expect(response.json.code).toBe('NOT_FOUND');
  });

  it('serves an OpenAPI 3.1 document describing every route', async () => {
    const response = await fetch(`${server.url}/openapi.json`);
    const doc = await response.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/v1/sessions',
        '/v1/sessions/{session}/events',
        '/v1/sessions/{session}/branches/{branch}/events',
        '/v1/events/{event}',
        '/v1/sessions/{session}/branches/{branch}/rewind',
        '/v1/tokens',
        '/v1/audit/verify',
      ]),
    );
    const append = doc.paths['/v1/sessions/{session}/events'].post;
    expect(append.requestBody.content['application/json'].schema.required).toEqual(['kind']);
    expect(doc.components.schemas.Error.required).toEqual(['code', 'message', 'data']);
  });
});
