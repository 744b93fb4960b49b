/**
 * The MCP tools are made for a model deciding what to call: every tool and
 * every parameter says what it is, names say what they touch, and nothing
 * speaks of CLI flags. Checked on what `tools/list` and `initialize` really
 * send (the MCP SDK's client over an in-memory transport).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpServer } from '../src/mcp/server.js';
import type { Store } from '../src/store.js';
import { sqliteStore } from './support/stores.js';

interface JsonSchema {
  type?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
}

/** Every parameter's path with no description, nested objects included. */
function undescribed(schema: JsonSchema, path = ''): string[] {
  const missing: string[] = [];
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const at = path === '' ? name : `${path}.${name}`;
    if (!property.description) missing.push(at);
    if (property.properties) missing.push(...undescribed(property, at));
  }
  return missing;
}

/** Every description in a schema, nested ones included. */
function descriptions(schema: JsonSchema): string[] {
  const out = schema.description ? [schema.description] : [];
  for (const property of Object.values(schema.properties ?? {})) out.push(...descriptions(property));
  if (schema.items) out.push(...descriptions(schema.items));
  return out;
}

const CLI_FLAG = /(^|\s)--[a-z]/;

describe('MCP tools described for a model', () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  let client: Client;

  beforeAll(async () => {
    ({ store, cleanup } = await sqliteStore());
    const fabric = store.fabric(await store.localIdentity());
    // local: the unit's tools are listed too, as `cairn mcp` in a workspace lists them.
    const server = createMcpServer(fabric, { version: 'test', local: true });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    client = new Client({ name: 'test', version: '1' });
    await client.connect(clientSide);
  });

  afterAll(async () => {
    await client?.close();
    await cleanup?.();
  });

  it('explains the unit in the server’s instructions', () => {
    const instructions = client.getInstructions() ?? '';
    for (const word of [
      'mind',
      'desk',
      'keys',
      'workspace_checkpoint',
      'workspace_restore',
      'outside the workspace',
      'undo',
    ])
      expect(instructions).toContain(word);
    expect(instructions).not.toMatch(CLI_FLAG);
  });

  it('gives every tool a description for a model and every parameter one, none naming a CLI flag', async () => {
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThanOrEqual(18);
    const problems: string[] = [];
    for (const tool of tools) {
      if ((tool.description ?? '').length < 60)
        problems.push(`${tool.name}: a description of a line at least`);
      if (CLI_FLAG.test(tool.description ?? ''))
        problems.push(`${tool.name}: its description names a CLI flag`);
      for (const path of undescribed(tool.inputSchema as JsonSchema))
        problems.push(`${tool.name}: ${path} has no description`);
      for (const text of descriptions(tool.inputSchema as JsonSchema))
        if (CLI_FLAG.test(text)) problems.push(`${tool.name}: "${text}" names a CLI flag`);
    }
    expect(problems).toEqual([]);
  });

  it('names each tool <what it touches>_<what it does>, every name and title its own', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const name of names.filter((n) => n !== 'whoami')) expect(name).toMatch(/^[a-z]+_[a-z]+$/);
    expect(new Set(names).size).toBe(names.length);
    const titles = tools.map((t) => t.title);
    expect(new Set(titles).size).toBe(titles.length);
    expect(names).toEqual(
      expect.arrayContaining(['session_fork', 'workspace_fork', 'workspace_checkpoint', 'memory_recall']),
    );
  });
});
