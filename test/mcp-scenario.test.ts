/**
 * A new user's scenario over MCP, driven by the MCP SDK's client with only
 * what `tools/list` says: each tool is looked up by name in the list, and
 * each call's arguments are built from the tool's listed input schema (its
 * required fields, plus the optional ones the step names, each checked to be
 * listed). Attach a directory, write a file, checkpoint, edit, checkpoint,
 * restore back to the first (the file's content comes back), find the second
 * in the listing and restore forward to it, fork, remember a fact on the
 * fork's branch and recall it. Over stdio (`cairn mcp` on a local store) and
 * over streamable HTTP (`cairn mcp --port` whose store is a live `cairn
 * serve`); and `/mcp` on that server refuses the attach of a directory of its
 * own host, and lists the same checkpoints.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { bin, cliIn, firstDocument } from './support/cli.js';
import { connectMcpHttp, mcpUrl, stop } from './support/mcp-http.js';
import { tempDir } from './support/stores.js';

type Tool = Awaited<ReturnType<Client['listTools']>>['tools'][number];
// biome-ignore lint/suspicious/noExplicitAny: structured content read back from the tools; the assertions check its shape.
type Answer = Record<string, any>;

/** The tools a server lists, by name. */
async function listed(client: Client): Promise<Map<string, Tool>> {
  return new Map((await client.listTools()).tools.map((t) => [t.name, t]));
}

/** A listed tool, or a failure that says it is not in the list (and what is). */
function tool(tools: Map<string, Tool>, name: string): Tool {
  const found = tools.get(name);
  if (!found) throw new Error(`tools/list has no ${name}; it lists ${[...tools.keys()].join(', ')}`);
  return found;
}

/**
 * A call's arguments from the tool's listed schema: every required field,
 * and the optional ones named, each taken from `known`; a required field the
 * scenario cannot supply, or a named one the schema does not list, fails.
 */
function argumentsFor(
  listedTool: Tool,
  known: Record<string, unknown>,
  optional: string[] = [],
): Record<string, unknown> {
  const properties = Object.keys(listedTool.inputSchema.properties ?? {});
  const required = (listedTool.inputSchema.required as string[] | undefined) ?? [];
  for (const field of [...required, ...optional]) {
    if (!properties.includes(field))
      throw new Error(`${listedTool.name} lists no parameter ${field}; it takes ${properties.join(', ')}`);
    if (!(field in known))
      throw new Error(`${listedTool.name} requires ${field}, which this scenario has no value for`);
  }
  return Object.fromEntries([...required, ...optional].map((field) => [field, known[field]]));
}

/** Calls a listed tool and expects success: its structured content. */
async function succeed(
  client: Client,
  tools: Map<string, Tool>,
  name: string,
  known: Record<string, unknown>,
  optional: string[] = [],
): Promise<Answer> {
  const result = (await client.callTool({
    name,
    arguments: argumentsFor(tool(tools, name), known, optional),
  })) as { isError?: boolean; structuredContent?: Answer };
  expect(result.isError, `${name}: ${JSON.stringify(result.structuredContent)}`).toBeFalsy();
  return result.structuredContent as Answer;
}

/** The scenario, through one client; answers the workspace it attached and its checkpoints. */
async function newUser(client: Client, dir: string): Promise<{ workspace: string; checkpoints: string[] }> {
  const tools = await listed(client);
  const file = join(dir, 'plan.md');

  const attached = await succeed(client, tools, 'workspace_attach', { dir });
  expect(attached.workspace.dir).toBe(realpathSync(dir));
  expect(attached.workspace.state).toBe('attached');
  const workspace = attached.workspace.id as string;
  const session = attached.workspace.session as string;
  // Every later call names the workspace the attach answered, as a model told so would.
  const mine = { workspace };

  writeFileSync(file, 'first draft\n');
  const first = await succeed(client, tools, 'workspace_checkpoint', { ...mine, label: 'first draft' }, [
    'workspace',
    'label',
  ]);
  expect(first.accepted).toBe(true);
  writeFileSync(file, 'second draft\n');
  const second = await succeed(client, tools, 'workspace_checkpoint', { ...mine, label: 'second draft' }, [
    'workspace',
    'label',
  ]);

  const listing = await succeed(client, tools, 'workspace_checkpoints', mine, ['workspace']);
  expect(listing.items.map((c: Answer) => [c.id, c.label, c.files, c.onBranchPath])).toEqual([
    [second.id, 'second draft', 1, true],
    [first.id, 'first draft', 1, true],
  ]);
  expect(listing.next).toBeNull();

  const back = await succeed(client, tools, 'workspace_restore', { ...mine, checkpoint: first.id }, [
    'workspace',
  ]);
  expect(readFileSync(file, 'utf8')).toBe('first draft\n');
  expect(back.undo).toEqual(expect.any(String));

  // Forward again, to the checkpoint the listing shows the restore went back before.
  const after = await succeed(client, tools, 'workspace_checkpoints', mine, ['workspace']);
  const ahead = after.items.find((c: Answer) => c.label === 'second draft');
  expect(ahead).toMatchObject({ id: second.id, onBranchPath: false });
  expect(after.items[0].label).toBe(`before restore of ${first.id}`);
  await succeed(client, tools, 'workspace_restore', { ...mine, checkpoint: ahead.id }, ['workspace']);
  expect(readFileSync(file, 'utf8')).toBe('second draft\n');

  // A copy, so the test's folder can be removed (an overlay fork stays mounted).
  const forked = await succeed(
    client,
    tools,
    'workspace_fork',
    { checkpoint: first.id, names: ['alt'], driver: 'copy' },
    ['names', 'driver'],
  );
  const alt = forked.branches[0];
  expect(alt.branch).toBe('alt');
  expect(readFileSync(join(alt.workspace.dir, 'plan.md'), 'utf8')).toBe('first draft\n');
  expect(readFileSync(file, 'utf8')).toBe('second draft\n');

  const scope = { session };
  const fact = 'The user wants the plan in one page.';
  const remembered = await succeed(client, tools, 'memory_remember', { scope, text: fact, branch: 'alt' }, [
    'branch',
  ]);
  const recalled = await succeed(
    client,
    tools,
    'memory_recall',
    { scope, query: 'plan page', branch: 'alt' },
    ['branch'],
  );
  expect(recalled.items.map((r: Answer) => [r.id, r.text])).toEqual([[remembered.id, fact]]);
  // Remembered on the fork's branch: the branch it was forked from does not see it.
  const elsewhere = await succeed(client, tools, 'memory_recall', { scope, query: 'plan page' });
  expect(elsewhere.items).toEqual([]);

  // The plan as a deliverable: a checkpoint of the workspace first, then the file's bytes, its lineage that checkpoint.
  const published = await succeed(
    client,
    tools,
    'artifact_publish',
    { ...mine, path: 'plan.md', mediaType: 'text/markdown', description: 'the one-page plan' },
    ['workspace', 'mediaType', 'description'],
  );
  expect(published).toMatchObject({
    name: 'plan.md',
    mediaType: 'text/markdown',
    size: 'second draft\n'.length,
    lineage: { session, path: 'plan.md' },
  });
  expect(published.lineage.checkpoint).toMatch(/^ev_/);
  // A path that leads out of the workspace is a tool error the model sees as one.
  const outside = (await client.callTool({
    name: 'artifact_publish',
    arguments: { ...mine, path: '../elsewhere.txt' },
  })) as { isError?: boolean; structuredContent?: Answer };
  expect(outside.isError).toBe(true);
  expect(outside.structuredContent?.error).toMatchObject({ code: 'INVALID_ARGUMENT' });

  return { workspace, checkpoints: [second.id, first.id, published.lineage.checkpoint] };
}

describe("a new user's scenario over MCP, with only what tools/list says", () => {
  const temp = tempDir('cairn-mcp-scenario-');
  afterAll(() => temp.remove());

  it('over stdio: cairn mcp on a local store', async () => {
    const work = join(temp.dir, 'stdio');
    const dir = join(work, 'project');
    mkdirSync(dir, { recursive: true });
    const store = join(work, 'store');
    const { cleanEnv, ok } = cliIn(work, store);
    await ok(['init']);
    const client = new Client({ name: 'cairn-scenario', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [bin, 'mcp', '--store', store],
        cwd: work,
        env: cleanEnv() as Record<string, string>,
        stderr: 'pipe',
      }),
    );
    try {
      await newUser(client, dir);
    } finally {
      await client.close();
    }
  });

  it('over streamable HTTP: cairn mcp --port, its store a live cairn serve; the server’s /mcp attaches nothing', async () => {
    const work = join(temp.dir, 'http');
    const dir = join(work, 'project');
    mkdirSync(dir, { recursive: true });
    const { start } = cliIn(work, join(work, 'store'));
    const serve = start(['serve', '--port', '0', '--json', '--store', join(work, 'store')]);
    const opened: Client[] = [];
    try {
      const served = await firstDocument<{ url: string; token: string }>(serve, 'cairn serve');
      const mcp = start(['mcp', '--port', '0', '--url', served.url, '--token', served.token]);
      try {
        const client = new Client({ name: 'cairn-scenario', version: '1' });
        await client.connect(new StreamableHTTPClientTransport(new URL(await mcpUrl(mcp))));
        opened.push(client);
        const { workspace, checkpoints } = await newUser(client, dir);

        // The server's own /mcp: it lists the checkpoints (the log is its), and attaches no directory.
        const remote = await connectMcpHttp(served.url, served.token, opened);
        const tools = await listed(remote);
        expect(tools.has('workspace_attach')).toBe(false);
        expect(tools.has('artifact_publish')).toBe(false);
        const refused = (await remote.callTool({ name: 'workspace_attach', arguments: { dir } })) as {
          isError?: boolean;
          structuredContent?: Answer;
        };
        expect(refused.isError).toBe(true);
        expect(refused.structuredContent?.error).toMatchObject({
          code: 'UNAVAILABLE',
          data: { runs: 'caller' },
        });
        const listing = await succeed(remote, tools, 'workspace_checkpoints', { workspace }, ['workspace']);
        const labels = listing.items.map((c: Answer) => c.id);
        expect(labels).toEqual(expect.arrayContaining(checkpoints));
        // A directory names a workspace only on the machine that holds it: here it must be an id.
        const byDir = (await remote.callTool({
          name: 'workspace_checkpoints',
          arguments: { workspace: dir },
        })) as { isError?: boolean; structuredContent?: Answer };
        expect(byDir.structuredContent?.error).toMatchObject({
          code: 'INVALID_ARGUMENT',
          data: { field: 'workspace' },
        });
      } finally {
        for (const c of opened) await c.close().catch(() => {});
        await stop(mcp);
      }
    } finally {
      await stop(serve);
    }
  });
});
