/**
 * MCP, driven by the MCP SDK's own client: over stdio (`cairn mcp` on a
 * local store, the built CLI) and over streamable HTTP (`/mcp` on a server,
 * bearer tokens); the tools are the table's agent-facing operations; tool
 * errors carry Cairn's code; tenant A's token, on every tool with tenant B's
 * ids, sees nothing of B; sessions, Host and Origin cannot be borrowed; and
 * @modelcontextprotocol/conformance 0.1.13's generic server scenarios pass
 * against `cairn mcp --port`.
 */
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTRACT } from '../src/contract/index.js';
import { inputJsonSchema } from '../src/contract/json-schema.js';
import { mcpTools } from '../src/mcp/server.js';
import { type RunningServer, startServer } from '../src/server/index.js';
import type { Store } from '../src/store.js';
import { mcpUrl, stop } from './support/mcp-http.js';
import { sqliteStore, tempDir } from './support/stores.js';

const mkdirp = (dir: string) => {
  mkdirSync(dir, { recursive: true });
  return dir;
};
const bin = fileURLToPath(new URL('../bin/cairn.js', import.meta.url));
type Result = { isError?: boolean; structuredContent?: Record<string, unknown> };

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Result> {
  return (await client.callTool({ name, arguments: args })) as Result;
}

describe('MCP over stdio: cairn mcp on a local store', () => {
  const temp = tempDir('cairn-mcp-stdio-');
  let client: Client;

  beforeAll(async () => {
    const store = join(temp.dir, 'store');
    expect(spawnSync(process.execPath, [bin, 'init', '--store', store]).status).toBe(0);
    client = new Client({ name: 'cairn-test', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [bin, 'mcp', '--store', store],
        stderr: 'pipe',
      }),
    );
  });

  afterAll(async () => {
    await client?.close();
    temp.remove();
  });

  it('lists exactly the table’s agent tools, with their input schemas, and never a person’s decisions', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      mcpTools()
        .map((t) => t.tool)
        .sort(),
    );
    for (const { tool, operation } of mcpTools()) {
      const listed = tools.find((t) => t.name === tool);
      expect(Object.keys(listed?.inputSchema.properties ?? {}).sort(), tool).toEqual(
        Object.keys(inputJsonSchema(operation).properties ?? {}).sort(),
      );
    }
    const names = tools.map((t) => t.name);
    for (const forbidden of ['approve', 'deny', 'createToken', 'revokeToken', 'revokeGrant', 'resolveStep'])
      expect(names).not.toContain(forbidden);
  });

  it('appends and reads the log, and answers failures with Cairn’s error code', async () => {
    const session = await call(client, 'session_create', { title: 'over mcp' });
    const id = session.structuredContent?.id as string;
    const appended = await call(client, 'event_append', {
      session: id,
      kind: 'message',
      payload: { text: 'hi' },
    });
    expect(appended.structuredContent).toMatchObject({ seq: 1, payload: { text: 'hi' } });
    const read = await call(client, 'branch_read', { session: id, branch: 'main' });
    expect((read.structuredContent?.events as { payload: unknown }[]).map((e) => e.payload)).toEqual([
      { text: 'hi' },
    ]);
    const branches = await call(client, 'branch_list', { session: id });
    expect((branches.structuredContent?.items as { name: string }[]).map((b) => b.name)).toEqual(['main']);
    const missing = await call(client, 'branch_read', { session: 'ss_00000000000000000000000000' });
    expect(missing.isError).toBe(true);
    expect((missing.structuredContent?.error as { code: string }).code).toBe('NOT_FOUND');
    const bad = await call(client, 'event_append', { session: id, kind: 'Not A Kind!' });
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent?.error).toMatchObject({ code: 'INVALID_ARGUMENT', data: { field: 'kind' } });
    expect((await call(client, 'branch_read', { session: id })).structuredContent?.events).toHaveLength(1);
  });
});

/** An answer is what the operation's output schema describes, and nothing more (zod drops unknown keys). */
function conforms(operation: keyof typeof CONTRACT, answer: Result): void {
  const parsed = CONTRACT[operation].output.safeParse(answer.structuredContent);
  expect(parsed.success, `${operation}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
  expect(parsed.data, operation).toEqual(answer.structuredContent);
}

/** checkpoint → edit → restore (and forward again) → fork → status, through one MCP client. */
async function driveUnit(client: Client, ws: string): Promise<void> {
  const first = await call(client, 'workspace_checkpoint', { label: 'first' });
  expect(first.isError, JSON.stringify(first)).toBeFalsy();
  conforms('checkpoint', first);
  const cp1 = first.structuredContent?.id as string;
  writeFileSync(join(ws, 'notes.txt'), 'edited\n');
  writeFileSync(join(ws, 'new.txt'), 'new\n');
  const status = await call(client, 'workspace_status', {});
  conforms('status', status);
  expect(status.structuredContent?.unrecordedChanges).toEqual(
    expect.arrayContaining([expect.objectContaining({ path: 'notes.txt' })]),
  );
  const cp2 = (await call(client, 'workspace_checkpoint', { label: 'second', checks: ['test -f new.txt'] }))
    .structuredContent;
  expect(cp2?.accepted).toBe(true);
  // A failed check is a tool error the model sees as such; the checkpoint is kept, not accepted.
  const failing = await call(client, 'workspace_checkpoint', { label: 'failing', checks: ['exit 3'] });
  expect(failing.isError).toBe(true);
  conforms('checkpoint', failing);
  expect(failing.structuredContent?.accepted).toBe(false);
  expect(JSON.stringify(failing.content)).toContain('`exit 3` exited 3');
  const preview = await call(client, 'workspace_restore', { checkpoint: cp1, preview: true });
  conforms('restore', preview);
  expect((preview.structuredContent?.files as { path: string }[]).map((f) => f.path).sort()).toEqual([
    'new.txt',
    'notes.txt',
  ]);
  expect(readFileSync(join(ws, 'notes.txt'), 'utf8')).toBe('edited\n');
  const back = await call(client, 'workspace_restore', { checkpoint: cp1 });
  expect(back.isError, JSON.stringify(back)).toBeFalsy();
  conforms('restore', back);
  expect(back.structuredContent?.undo).toEqual(expect.any(String));
  expect(readFileSync(join(ws, 'notes.txt'), 'utf8')).toBe('original\n');
  expect(existsSync(join(ws, 'new.txt'))).toBe(false);
  // Forward again: the later checkpoint is still reachable.
  await call(client, 'workspace_restore', { checkpoint: cp2?.id as string });
  expect(readFileSync(join(ws, 'new.txt'), 'utf8')).toBe('new\n');
  // Copies, so the test's folder can be removed (an overlay fork stays mounted).
  const forked = await call(client, 'workspace_fork', { checkpoint: cp1, names: ['alt'], driver: 'copy' });
  expect(forked.isError, JSON.stringify(forked)).toBeFalsy();
  conforms('forkUnit', forked);
  const branch = (forked.structuredContent?.branches as { branch: string; workspace: { dir: string } }[])[0];
  expect(branch?.branch).toBe('alt');
  expect(readFileSync(join(branch?.workspace.dir as string, 'notes.txt'), 'utf8')).toBe('original\n');
  const bad = await call(client, 'workspace_fork', { checkpoint: cp1, names: ['x'], branches: 2 });
  expect(bad.structuredContent?.error).toMatchObject({ code: 'INVALID_ARGUMENT' });
}

/** A store with one attached workspace holding notes.txt. */
function attachedWorkspace(dir: string): { store: string; ws: string } {
  const store = join(dir, 'store');
  const ws = join(dir, 'ws');
  mkdirSync(ws);
  writeFileSync(join(ws, 'notes.txt'), 'original\n');
  const attach = spawnSync(process.execPath, [bin, 'ws', 'attach', ws, '--store', store, '--json'], {
    encoding: 'utf8',
  });
  expect(attach.status, attach.stderr).toBe(0);
  return { store, ws };
}

describe('MCP drives the unit of work (cairn mcp in the workspace)', () => {
  const temp = tempDir('cairn-mcp-unit-');
  afterAll(() => temp.remove());

  it('over stdio: checkpoint, edit, restore back and forward, fork', async () => {
    const { store, ws } = attachedWorkspace(mkdirp(join(temp.dir, 'stdio')));
    const client = new Client({ name: 'cairn-test', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [bin, 'mcp', '--store', store],
        cwd: ws,
        stderr: 'pipe',
      }),
    );
    try {
      await driveUnit(client, ws);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('through a server (cairn mcp --url, the store on the server, nothing of it here): the same', async () => {
    const dir = mkdirp(join(temp.dir, 'remote'));
    const { store, cleanup } = await sqliteStore();
    const created = await store.createTenant('mcp-remote');
    const server = await startServer(store, { host: '127.0.0.1', port: 0 });
    const home = mkdirp(join(dir, 'home'));
    const ws = mkdirp(join(home, 'ws'));
    writeFileSync(join(ws, 'notes.txt'), 'original\n');
    const env = { PATH: process.env.PATH ?? '', HOME: home };
    const remote = ['--url', server.url, '--token', created.token.token];
    try {
      // Not spawnSync: the server is in this process, and must answer while the CLI waits.
      const attach = spawn(process.execPath, [bin, 'ws', 'attach', ws, ...remote, '--json'], { env });
      let stderr = '';
      attach.stderr.setEncoding('utf8').on('data', (d: string) => {
        stderr += d;
      });
      const code = await new Promise<number | null>((resolve) => attach.on('exit', resolve));
      expect(code, stderr).toBe(0);
      const client = new Client({ name: 'cairn-test', version: '1' });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [bin, 'mcp', ...remote],
          cwd: ws,
          env,
          stderr: 'pipe',
        }),
      );
      try {
        await driveUnit(client, ws);
      } finally {
        await client.close();
      }
      expect(existsSync(join(home, '.local', 'share', 'cairn'))).toBe(false);
      expect(existsSync(join(ws, '.cairn'))).toBe(false);
    } finally {
      await server.close();
      await cleanup();
    }
  }, 90_000);

  it('over streamable HTTP (cairn mcp --port): the same', async () => {
    const { store, ws } = attachedWorkspace(mkdirp(join(temp.dir, 'http')));
    const child = spawn(process.execPath, [bin, 'mcp', '--port', '0', '--store', store], { cwd: ws });
    try {
      const url = await mcpUrl(child);
      const client = new Client({ name: 'cairn-test', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      try {
        await driveUnit(client, ws);
      } finally {
        await client.close();
      }
      // Any other path of the port is unknown: the secret path is the credential.
      const other = await fetch(new URL('/mcp', url), { method: 'POST', body: '{}' });
      expect(other.status).toBe(404);
    } finally {
      await stop(child);
    }
  }, 60_000);
});

describe('MCP over streamable HTTP: /mcp on a server', () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  let server: RunningServer;
  const tokens = { a: '', b: '' };
  const opened: Client[] = [];

  async function connectAs(
    token: string,
  ): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    const client = new Client({ name: 'cairn-test', version: '1' });
    await client.connect(transport);
    opened.push(client);
    return { client, transport };
  }

  beforeAll(async () => {
    ({ store, cleanup } = await sqliteStore());
    tokens.a = (await store.createTenant('a')).token.token;
    tokens.b = (await store.createTenant('b')).token.token;
    server = await startServer(store, { host: '127.0.0.1', port: 0, mcp: { version: '0.0.0-test' } });
  });

  afterAll(async () => {
    for (const c of opened) await c.close().catch(() => {});
    await server?.close();
    await cleanup?.();
  });

  it("runs the tools as the token's identity; tenant A on every tool with tenant B's ids sees nothing of B", async () => {
    const { client: b } = await connectAs(tokens.b);
    const session = (await call(b, 'session_create', { title: 'bravo-secret plan' })).structuredContent as {
      id: string;
    };
    const event = (
      await call(b, 'event_append', { session: session.id, kind: 'message', payload: 'bravo-secret' })
    ).structuredContent as { id: string };
    const memo = (
      await call(b, 'memory_remember', {
        scope: { session: session.id },
        text: 'bravo-secret memo',
      })
    ).structuredContent as { id: string };
    const { client: a } = await connectAs(tokens.a);
    // B's scope name, as A's own: A's recall under it finds none of B's records.
    await call(b, 'memory_remember', {
      scope: { user: 'shared-name' },
      text: 'bravo-secret under a shared name',
    });
    const same = await call(a, 'memory_recall', {
      query: 'bravo secret shared',
      scope: { user: 'shared-name' },
    });
    expect(same.structuredContent?.items).toEqual([]);
    const values: Record<string, unknown> = {
      record: memo.id,
      scope: { session: session.id },
      query: 'bravo secret memo',
      text: 'intrusion',
      session: session.id,
      branch: 'main',
      event: event.id,
      to: event.id,
      at: event.id,
      kind: 'message',
      payload: 'intrusion',
      name: 'stolen',
      dir: '/',
    };
    for (const { tool, operation } of mcpTools()) {
      const fields = Object.keys(inputJsonSchema(operation).properties ?? {});
      const args = Object.fromEntries(fields.filter((f) => f in values).map((f) => [f, values[f]]));
      if (tool === 'memory_remember') args.kind = 'fact';
      const result = await call(a, tool, args);
      const text = JSON.stringify(result);
      expect(text, tool).not.toContain('bravo-secret');
      if (operation.runs === 'caller') {
        // A tool that acts on a directory reads nothing on a server: valid arguments get where it runs.
        expect(result.isError, tool).toBe(true);
        expect(['UNAVAILABLE', 'INVALID_ARGUMENT'], tool).toContain(
          (result.structuredContent?.error as { code: string }).code,
        );
        if (tool === 'workspace_attach')
          expect(result.structuredContent?.error, tool).toMatchObject({
            code: 'UNAVAILABLE',
            data: { runs: 'caller' },
          });
      } else if (
        fields.some((f) => ['session', 'event', 'to', 'at', 'record', 'scope'].includes(f)) &&
        tool !== 'session_create'
      ) {
        expect(result.isError, tool).toBe(true);
        expect((result.structuredContent?.error as { code: string }).code, tool).toBe('NOT_FOUND');
      }
    }
    const still = await call(b, 'branch_read', { session: session.id });
    // B's own two: the message and its memory write; nothing of A's.
    expect((still.structuredContent?.events as { kind: string }[]).map((e) => e.kind)).toEqual([
      'message',
      'cairn.memory.remember',
    ]);
    expect((await call(b, 'branch_list', { session: session.id })).structuredContent?.items).toHaveLength(1);
  });

  it('ends an open session whose token is revoked: its next call is refused, before any tool runs', async () => {
    const admin = { authorization: `Bearer ${tokens.a}`, 'content-type': 'application/json' };
    const minted = (await (
      await fetch(`${server.url}/v1/tokens`, {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({ kind: 'agent', name: 'mcp-revoked', role: 'member' }),
      })
    ).json()) as { id: string; token: string };
    const { client } = await connectAs(minted.token);
    const made = await call(client, 'session_create', { title: 'before the revocation' });
    expect(made.isError).toBeFalsy();
    const revoked = await fetch(`${server.url}/v1/tokens/${minted.id}/revoke`, {
      method: 'POST',
      headers: admin,
    });
    expect(revoked.status).toBe(200);
    // The same session, the same transport: the server checks the token again on this request.
    await expect(call(client, 'session_create', { title: 'after the revocation' })).rejects.toThrow(
      /UNAUTHENTICATED/,
    );
    const sessions = (await (
      await fetch(`${server.url}/v1/sessions?limit=100`, { headers: admin })
    ).json()) as { sessions: Array<{ title: string }> };
    expect(sessions.sessions.map((s) => s.title)).toContain('before the revocation');
    expect(sessions.sessions.map((s) => s.title)).not.toContain('after the revocation');
  });

  it('lists no unit tool on a server, and answers one asked for with where it runs', async () => {
    const { client } = await connectAs(tokens.a);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('event_append');
    for (const unit of [
      'workspace_attach',
      'workspace_checkpoint',
      'workspace_restore',
      'workspace_fork',
      'workspace_status',
    ])
      expect(names).not.toContain(unit);
    // Listing checkpoints reads the log only: a server lists it.
    expect(names).toContain('workspace_checkpoints');
    const refused = await call(client, 'workspace_status', {});
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent?.error).toMatchObject({ code: 'UNAVAILABLE', data: { runs: 'caller' } });
  });

  it('refuses a missing token, another token’s session, and a foreign Host or Origin', async () => {
    const post = (headers: Record<string, string>, body: unknown) =>
      fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: JSON.stringify(body),
      });
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    expect((await post({}, initialize)).status).toBe(401);
    const { transport } = await connectAs(tokens.a);
    const sessionId = transport.sessionId as string;
    expect(sessionId).toBeTruthy();
    const borrowed = await post(
      {
        authorization: `Bearer ${tokens.b}`,
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-06-18',
      },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    );
    expect(borrowed.status).toBe(404);
    const port = new URL(server.url).port;
    // fetch will not forge Host; a raw request does.
    const raw = (host: string, origin?: string) =>
      new Promise<number>((resolve, reject) => {
        const body = JSON.stringify(initialize);
        const http = createRequire(import.meta.url)('node:http') as typeof import('node:http');
        const request = http.request(
          {
            host: '127.0.0.1',
            port,
            path: '/mcp',
            method: 'POST',
            headers: {
              host,
              ...(origin ? { origin } : {}),
              authorization: `Bearer ${tokens.a}`,
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              'content-length': Buffer.byteLength(body),
            },
          },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        request.on('error', reject);
        request.end(body);
      });
    expect(await raw('evil.example.com')).toBe(403);
    expect(await raw(`127.0.0.1:${port}`, 'http://evil.example.com')).toBe(403);
    expect(await raw(`localhost:${port}`, `http://localhost:${port}`)).toBe(200);
  });
});

describe('MCP conformance (@modelcontextprotocol/conformance 0.1.13)', () => {
  let child: ChildProcessWithoutNullStreams;
  let url = '';
  const temp = tempDir('cairn-mcp-conformance-');

  beforeAll(async () => {
    const store = join(temp.dir, 'store');
    expect(spawnSync(process.execPath, [bin, 'init', '--store', store]).status).toBe(0);
    child = spawn(process.execPath, [bin, 'mcp', '--port', '0', '--store', store]);
    url = await mcpUrl(child);
  });

  afterAll(async () => {
    if (child) await stop(child);
    temp.remove();
  });

  // The generic server scenarios; the others call fixture tools (test_simple_text, prompts, resources…)
  // that only the suite's own reference server has, and do not apply.
  const scenarios = [
    'server-initialize',
    'ping',
    'tools-list',
    'logging-set-level',
    'server-sse-multiple-streams',
    'dns-rebinding-protection',
  ];
  const cli = createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/dist/index.js');
  for (const scenario of scenarios) {
    it(`passes ${scenario}`, () => {
      const run = spawnSync(process.execPath, [cli, 'server', '--url', url, '--scenario', scenario], {
        encoding: 'utf8',
        timeout: 60_000,
      });
      const output = run.stdout + run.stderr;
      const summary = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(output);
      expect(summary, output).not.toBeNull();
      expect(summary?.[1], output).toBe(summary?.[2]);
      expect(summary?.[3], output).toBe('0');
      expect(Number(summary?.[2])).toBeGreaterThan(0);
    }, 70_000);
  }
});
