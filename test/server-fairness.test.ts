import type { AddressInfo } from 'node:net';
import { connect as tcp } from 'node:net';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loopbackNames, McpHttp } from '../src/mcp/http.js';
import { createApp } from '../src/server/app.js';
import { BodyBudget } from '../src/server/body-budget.js';
import { type RunningServer, startServer } from '../src/server/index.js';
import type { Store } from '../src/store.js';
import { sqliteStore } from './support/stores.js';

/**
 * Fair sharing between tenants on one server: MCP sessions capped per token
 * and per tenant and expiring when idle, a global budget of request-body
 * bytes in flight, and input that nests too deep or carries integers JSON
 * numbers cannot hold refused as on HTTP — all over real sockets.
 */

const PROTOCOL = '2025-06-18';
const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'fairness', version: '1' } },
};

async function mcpPost(url: string, token: string, body: unknown, session?: string, raw?: string) {
  const response = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': PROTOCOL } : {}),
    },
    body: raw === undefined ? JSON.stringify(body) : JSON.stringify(body).replace(JSON.stringify(RAW), raw),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text };
}

async function openSession(url: string, token: string): Promise<string> {
  const answer = await mcpPost(url, token, initialize);
  expect(answer.status).toBe(200);
  return answer.headers.get('mcp-session-id') as string;
}

/** The status of a tools/list in `session`: 200 while it is open, 404 once closed. */
async function listStatus(url: string, token: string, session: string): Promise<number> {
  return (await mcpPost(url, token, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, session)).status;
}

/** Stands in the arguments for JSON text given as is (too deep for JSON.stringify). */
const RAW = '\u0000raw';

/** A tool call's structured answer through a fresh session. */
async function callTool(url: string, token: string, name: string, args: unknown, raw?: string) {
  const session = await openSession(url, token);
  const answer = await mcpPost(
    url,
    token,
    { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name, arguments: args } },
    session,
    raw,
  );
  const data = answer.text
    .split('\n')
    .find((line) => line.startsWith('data: '))
    ?.slice(6);
  return JSON.parse(data ?? answer.text).result as {
    isError?: boolean;
    structuredContent?: Record<string, unknown>;
  };
}

/** A server made of the app and an McpHttp the test holds, to count its sessions. */
async function mcpServer(
  store: Store,
  mcp: Omit<ConstructorParameters<typeof McpHttp>[0], 'names' | 'version'>,
) {
  let names = { hosts: [] as string[], origins: [] as string[] };
  const http = new McpHttp({ version: '0.0.0-test', names: () => names, ...mcp });
  const app = createApp(store, { mcp: http });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) => {
      names = loopbackNames('127.0.0.1', info.port);
      resolve(s);
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    http,
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await http.close();
      await new Promise<void>((done) => {
        server.close(() => done());
        (server as unknown as { closeAllConnections(): void }).closeAllConnections();
      });
    },
  };
}

describe('MCP sessions are shared fairly between tenants', () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  const tokens = { a: '', b: [] as string[] };
  let tenantB = '';

  beforeAll(async () => {
    ({ store, cleanup } = await sqliteStore());
    tokens.a = (await store.createTenant('a')).token.token;
    const b = await store.createTenant('b');
    tenantB = b.tenant;
    const fabricB = store.fabric(await store.authenticate(b.token.token));
    tokens.b = [b.token.token];
    for (let i = 1; i < 20; i++) tokens.b.push((await fabricB.createToken({ name: `agent-${i}` })).token);
  });

  afterAll(async () => {
    await cleanup?.();
  });

  it("keeps tenant A's sessions open through tenant B's 2,000 initialize calls, B's own capped per token and per tenant", async () => {
    const server = await mcpServer(store, {});
    try {
      const ofA = [await openSession(server.url, tokens.a), await openSession(server.url, tokens.a)];
      const firstOfB = await openSession(server.url, tokens.b[0] as string);
      // 2,000 initialize calls from B's 20 tokens, 100 each: every one is answered, none closes A's.
      for (let i = 1; i < 2000; i++) await openSession(server.url, tokens.b[i % 20] as string);
      for (const session of ofA) expect(await listStatus(server.url, tokens.a, session)).toBe(200);
      expect(server.http.openSessions(tenantB)).toBe(100);
      expect(server.http.openSessions()).toBe(102);
      // B's oldest made room for B's newest.
      expect(await listStatus(server.url, tokens.b[0] as string, firstOfB)).toBe(404);
    } finally {
      await server.close();
    }
    // Bounded by its count of 2,000 calls (~25 ms each alone); the timeout only catches a hang.
  }, 900_000);

  it("a token past its cap loses its own least recently used session, not its other token's", async () => {
    const server = await mcpServer(store, { maxSessionsPerToken: 2 });
    try {
      const [one, two] = tokens.b as [string, string];
      const other = await openSession(server.url, two);
      const first = await openSession(server.url, one);
      const second = await openSession(server.url, one);
      // Using the first makes the second the least recently used.
      expect(await listStatus(server.url, one, first)).toBe(200);
      await openSession(server.url, one);
      expect(await listStatus(server.url, one, second)).toBe(404);
      expect(await listStatus(server.url, one, first)).toBe(200);
      expect(await listStatus(server.url, two, other)).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('past the global cap, a new session is refused with 503 and Retry-After, and no one is closed', async () => {
    const server = await mcpServer(store, { maxSessions: 3 });
    try {
      const ofA = [await openSession(server.url, tokens.a), await openSession(server.url, tokens.a)];
      const ofB = await openSession(server.url, tokens.b[0] as string);
      const refused = await mcpPost(server.url, tokens.b[1] as string, initialize);
      expect(refused.status).toBe(503);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(JSON.parse(refused.text)).toMatchObject({ code: 'UNAVAILABLE' });
      for (const session of ofA) expect(await listStatus(server.url, tokens.a, session)).toBe(200);
      expect(await listStatus(server.url, tokens.b[0] as string, ofB)).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('closes a session left idle past the idle time (a clock the test moves)', async () => {
    let now = 1_000_000;
    const server = await mcpServer(store, { idleMs: 60_000, now: () => now });
    try {
      const idle = await openSession(server.url, tokens.a);
      const used = await openSession(server.url, tokens.a);
      now += 40_000;
      expect(await listStatus(server.url, tokens.a, used)).toBe(200);
      now += 40_000;
      expect(server.http.openSessions()).toBe(2);
      server.http.expire();
      expect(server.http.openSessions()).toBe(1);
      expect(await listStatus(server.url, tokens.a, idle)).toBe(404);
      expect(await listStatus(server.url, tokens.a, used)).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe('request bodies in flight are bounded by a global budget and a share per tenant', () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  let server: RunningServer;
  const tokens = { a: '', b: '' };
  const MiB = 1024 * 1024;
  const budget = new BodyBudget(6 * MiB, { perOwner: 3 * MiB });

  beforeAll(async () => {
    ({ store, cleanup } = await sqliteStore());
    tokens.a = (await store.createTenant('uploads-a')).token.token;
    tokens.b = (await store.createTenant('uploads-b')).token.token;
    server = await startServer(store, { host: '127.0.0.1', port: 0, bodyBudget: budget });
  });

  afterAll(async () => {
    await server?.close();
    await cleanup?.();
  });

  /** A memory batch whose headers declare `length` bytes, of which one byte is sent; resolves once the server holds it. */
  async function stalledUpload(token: string, length: number) {
    const { port } = new URL(server.url);
    const socket = tcp(Number(port), '127.0.0.1');
    socket.on('error', () => {});
    // Held, or answered at once (a body the route refuses): the test then fails instead of waiting.
    const taken = new Promise<void>((resolve, reject) => {
      budget.once('taken', () => resolve());
      socket.once('data', (answer) =>
        reject(new Error(`the server answered: ${answer.toString().split('\r\n')[0]}`)),
      );
    });
    socket.write(
      `POST /v1/memory/batch HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nauthorization: Bearer ${token}\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n\r\n{`,
    );
    await taken;
    return socket;
  }

  /** A whole batch of about `length` bytes: its status and error body. */
  async function upload(token: string, length: number) {
    const response = await fetch(`${server.url}/v1/memory/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ records: [{ scope: { user: 'u' }, text: 'x'.repeat(length) }] }),
    });
    return {
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      body: await response.json(),
    };
  }

  it("stalled uploads hold at most a tenant's share and the budget; past either a 503 with Retry-After; closing them gives every byte back", async () => {
    const length = 1.5 * MiB; // under the memory batch route's 2 MiB
    const stalled = [await stalledUpload(tokens.a, length), await stalledUpload(tokens.a, length)];
    expect(budget.held()).toBe(3 * MiB);
    // A's share is full: A is refused, B is not.
    const refusedA = await upload(tokens.a, length);
    expect(refusedA).toMatchObject({
      status: 503,
      retryAfter: '2',
      body: { code: 'UNAVAILABLE', data: { reason: 'busy' } },
    });
    stalled.push(await stalledUpload(tokens.b, length), await stalledUpload(tokens.b, length));
    expect(budget.held()).toBe(6 * MiB);
    // The whole budget is held: a new upload of anyone's is refused, and what is held stays as it was.
    for (const token of [tokens.a, tokens.b]) {
      expect(await upload(token, 1000)).toMatchObject({ status: 503, body: { data: { reason: 'busy' } } });
    }
    expect(budget.held()).toBe(6 * MiB);
    const released = new Promise<void>((resolve) =>
      budget.on('released', (held) => {
        if (held === 0) resolve();
      }),
    );
    for (const socket of stalled) socket.destroy();
    await released;
    expect(budget.held()).toBe(0);
    // The room is there again, and a body that was read gives its bytes back too.
    expect((await upload(tokens.a, 1000)).status).toBe(201);
    expect(budget.held()).toBe(0);
  });
});

describe('input that nests too deep or holds integers beyond 2^53: a typed 400 on HTTP and on MCP', () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  let server: RunningServer;
  let token = '';
  let session = '';

  beforeAll(async () => {
    ({ store, cleanup } = await sqliteStore());
    token = (await store.createTenant('edges')).token.token;
    server = await startServer(store, { host: '127.0.0.1', port: 0, mcp: { version: '0.0.0-test' } });
    session = (await store.fabric(await store.authenticate(token)).createSession({ title: 'edges' })).id;
  });

  afterAll(async () => {
    await server?.close();
    await cleanup?.();
  });

  /** JSON text `levels` deep, objects and arrays in turn (JSON.stringify itself overflows the stack on it). */
  const deep = (levels: number) => {
    const opens: string[] = [];
    for (let i = 0; i < levels; i++) opens.push(i % 2 === 0 ? '{"a":' : '[');
    const closes = opens.map((o) => (o === '[' ? ']' : '}')).reverse();
    return `${opens.join('')}1${closes.join('')}`;
  };

  async function httpAppend(payload: string) {
    const response = await fetch(`${server.url}/v1/sessions/${session}/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: `{"kind":"message","payload":${payload}}`,
    });
    return { status: response.status, body: (await response.json()) as { code?: string } };
  }

  it('data 10,000 levels deep is INVALID_ARGUMENT (400) over HTTP and a tool error over MCP, on the log and in memory; nothing is written', async () => {
    const fabric = store.fabric(await store.authenticate(token));
    const memo = (data: string) =>
      fetch(`${server.url}/v1/memory`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: `{"scope":{"user":"u"},"text":"a note","data":${data}}`,
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as { code?: string } }));
    for (const http of [await httpAppend(deep(10_000)), await memo(deep(10_000))]) {
      expect(http.status).toBe(400);
      expect(http.body.code).toBe('INVALID_ARGUMENT');
    }
    for (const [tool, args] of [
      ['event_append', { session, kind: 'message', payload: RAW }],
      ['memory_remember', { scope: { user: 'u' }, text: 'a note', data: RAW }],
    ] as const) {
      const mcp = await callTool(server.url, token, tool, args, deep(10_000));
      expect(mcp.isError, tool).toBe(true);
      expect(mcp.structuredContent?.error, tool).toMatchObject({ code: 'INVALID_ARGUMENT' });
    }
    expect((await fabric.readBranch({ session })).events).toHaveLength(0);
    expect((await fabric.listMemory({ scope: { user: 'u' } })).items).toHaveLength(0);
    // 200 levels is data like any other.
    expect((await httpAppend(deep(200))).status).toBe(201);
    expect((await memo(deep(200))).status).toBe(201);
  });

  it('an integer beyond 2^53 in a payload is refused over MCP as over HTTP', async () => {
    const http = await httpAppend('{"n":9007199254740993}');
    expect(http.status).toBe(400);
    expect(http.body.code).toBe('INVALID_ARGUMENT');
    // The literal as the client wrote it: the server's parse rounds it to 2^53, which is refused too.
    const mcp = await callTool(
      server.url,
      token,
      'event_append',
      { session, kind: 'message', payload: RAW },
      '{"n":9007199254740993}',
    );
    expect(mcp.isError).toBe(true);
    expect(mcp.structuredContent?.error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    // The largest exact integer, and a fraction, pass.
    const fine = await callTool(server.url, token, 'event_append', {
      session,
      kind: 'message',
      payload: { n: 9007199254740991, f: 0.5 },
    });
    expect(fine.isError).toBeFalsy();
  });
});
