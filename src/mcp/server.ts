/**
 * The MCP surface: the table's agent-facing operations as MCP tools (those
 * whose entry names a tool), over any fabric — embedded, or remote through a
 * server. Each tool's input schema is its operation's; its result is the
 * operation's answer as structured content (and as JSON text); a failure is
 * a tool error whose structured content is Cairn's error body, code
 * included.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { inputJsonSchema } from '../contract/json-schema.js';
import { opTitle } from '../contract/spec.js';
import { type CairnError, isCairnError, notFound } from '../errors.js';
import type { Fabric } from '../fabric.js';
import type { Op } from '../ops/op.js';
import { OPERATIONS } from '../ops/table.js';
import { parseInput } from '../validate.js';

export interface McpServerOptions {
  /** The version the server reports (the package's). */
  version: string;
  /**
   * Whether the fabric runs where the workspaces are (a local store with a
   * desk): only then are the tools that act on a directory (attach,
   * checkpoint, restore, fork, status) listed. Asked for elsewhere, they
   * answer where they run.
   */
  local?: boolean;
}

/**
 * What the server tells a model about Cairn when it connects (MCP's
 * `instructions`): the unit and its three layers, and the tools' shape.
 */
export const INSTRUCTIONS = `Cairn keeps your unit of work durable: your mind (the session log of what you were asked, said, tried and learned, as a tree of branches; your durable tool steps; your long-term memory), your desk (the files of your workspace) and your keys (the credentials you may use, granted by a person). Start with workspace_attach on the directory you work in (where the server runs on your machine), unless workspace_status shows one is attached already. A workspace_checkpoint records all of it at once; workspace_checkpoints lists them, newest first; workspace_restore puts the log and the files back to a checkpoint, earlier or later (and can itself be undone); workspace_fork makes side-by-side copies to try alternatives, without credentials of their own. Nothing here can undo an effect outside the workspace — an email sent stays sent — and the tools say so when it matters. Tools are named <what they touch>_<what they do>: session_ and event_ and branch_ for the log, memory_ for memory, step_ for tool steps, workspace_ for the unit. Errors come back as tool errors whose structured content has a stable code (NOT_FOUND, INVALID_ARGUMENT, FORBIDDEN, CONFLICT, IN_DOUBT, …) and a message that says what to do.`;

/** "workspace_checkpoint" → "Workspace checkpoint": a tool's title. */
function toolTitle(name: string): string {
  const words = name.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Operations that are MCP tools, with their tool names. */
export function mcpTools(): { tool: string; operation: Op }[] {
  return (Object.values(OPERATIONS) as Op[])
    .filter((o) => o.mcp !== undefined)
    .map((operation) => ({ tool: (operation.mcp as NonNullable<Op['mcp']>).name, operation }));
}

/** The JSON schema a tool offers: its operation's, or the narrower one the operation declares for MCP. */
function toolSchema(operation: Op): Record<string, unknown> {
  return (
    operation.mcpInput
      ? z.toJSONSchema(operation.mcpInput, { io: 'input', unrepresentable: 'any' })
      : inputJsonSchema(operation)
  ) as Record<string, unknown>;
}

/** Structured content is a JSON object: a list answer goes under `items`. */
function structured(answer: unknown): Record<string, unknown> {
  return Array.isArray(answer) ? { items: answer } : (answer as Record<string, unknown>);
}

/**
 * An MCP server whose tools call `fabric`; connect it to a transport. The
 * tools are listed with their operations' JSON schemas and called without a
 * check of their own: the fabric validates the arguments once, so bad input
 * is a tool error carrying Cairn's `INVALID_ARGUMENT`, as on every surface.
 */
export function createMcpServer(fabric: Fabric, options: McpServerOptions): Server {
  const server = new Server(
    { name: 'cairn', version: options.version },
    { capabilities: { logging: {}, tools: {} }, instructions: INSTRUCTIONS },
  );
  const tools = new Map(mcpTools().map((t) => [t.tool, t.operation]));
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [...tools]
      .filter(([, operation]) => options.local === true || operation.runs === 'anywhere')
      .map(([name, operation]) => {
        const { $schema: _, ...inputSchema } = toolSchema(operation);
        return {
          name,
          title: toolTitle(name),
          description: (operation.mcp as NonNullable<Op['mcp']>).description,
          inputSchema: { type: 'object' as const, ...inputSchema },
          annotations: { readOnlyHint: operation.effect === 'read' },
        };
      }),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const operation = tools.get(request.params.name);
    if (!operation) {
      return failure(notFound(`no tool ${request.params.name}: list the tools`));
    }
    const call = (fabric as unknown as Record<string, (input: unknown) => Promise<unknown>>)[operation.name];
    try {
      const args = request.params.arguments ?? {};
      // The tool's narrower schema first (an agent's tool), then the fabric's own validation.
      if (operation.mcpInput) parseInput(operation.mcpInput, args, opTitle(operation.name));
      const answer = await (call as (input: unknown) => Promise<unknown>)(args);
      // An answer that is a failure to the caller (a checkpoint whose checks failed) is a tool error.
      const failed = operation.failureOf?.(answer);
      if (failed !== undefined)
        return {
          isError: true,
          content: [{ type: 'text' as const, text: failed }],
          structuredContent: structured(answer),
        };
      return {
        content: [{ type: 'text' as const, text: JSON.stringify(answer) }],
        structuredContent: structured(answer),
      };
    } catch (error) {
      if (!isCairnError(error)) throw error;
      return failure(error);
    }
  });
  return server;
}

function failure(error: CairnError) {
  const body = error.toJSON();
  return {
    isError: true,
    content: [{ type: 'text' as const, text: `${body.code}: ${body.message}` }],
    structuredContent: { error: body },
  };
}
