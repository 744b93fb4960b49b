import { a as toJSONSchema, t as inputJsonSchema } from "./json-schema-BNEYK87j.js";
import { t as opTitle } from "./spec-2aais7-z.js";
import { M as notFound, j as isCairnError } from "./front-BpLyP2oj.js";
import { t as OPERATIONS } from "./table-Bzy5N_pG.js";
import { t as parseInput } from "./validate-Dzwxqk5b.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
// dist/mcp/server.js
/**
* The MCP surface: the table's agent-facing operations as MCP tools (those
* whose entry names a tool), over any fabric — embedded, or remote through a
* server. Each tool's input schema is its operation's; its result is the
* operation's answer as structured content (and as JSON text); a failure is
* a tool error whose structured content is Cairn's error body, code
* included.
*/
/**
* What the server tells a model about Cairn when it connects (MCP's
* `instructions`): the unit and its three layers, and the tools' shape.
*/
const INSTRUCTIONS = `Cairn keeps your unit of work durable: your mind (the session log of what you were asked, said, tried and learned, as a tree of branches; your durable tool steps; your long-term memory), your desk (the files of your workspace) and your keys (the credentials you may use, granted by a person). Start with workspace_attach on the directory you work in (where the server runs on your machine), unless workspace_status shows one is attached already. A workspace_checkpoint records all of it at once; workspace_checkpoints lists them, newest first; workspace_restore puts the log and the files back to a checkpoint, earlier or later (and can itself be undone); workspace_fork makes side-by-side copies to try alternatives, without credentials of their own. Nothing here can undo an effect outside the workspace — an email sent stays sent — and the tools say so when it matters. Tools are named <what they touch>_<what they do>: session_ and event_ and branch_ for the log, memory_ for memory, step_ for tool steps, workspace_ for the unit. Errors come back as tool errors whose structured content has a stable code (NOT_FOUND, INVALID_ARGUMENT, FORBIDDEN, CONFLICT, IN_DOUBT, …) and a message that says what to do.`;
/** "workspace_checkpoint" → "Workspace checkpoint": a tool's title. */
function toolTitle(name) {
	const words = name.replace(/_/g, " ");
	return words.charAt(0).toUpperCase() + words.slice(1);
}
/** Operations that are MCP tools, with their tool names. */
function mcpTools() {
	return Object.values(OPERATIONS).filter((o) => o.mcp !== void 0).map((operation) => ({
		tool: operation.mcp.name,
		operation
	}));
}
/** The JSON schema a tool offers: its operation's, or the narrower one the operation declares for MCP. */
function toolSchema(operation) {
	return operation.mcpInput ? toJSONSchema(operation.mcpInput, {
		io: "input",
		unrepresentable: "any"
	}) : inputJsonSchema(operation);
}
/** Structured content is a JSON object: a list answer goes under `items`. */
function structured(answer) {
	return Array.isArray(answer) ? { items: answer } : answer;
}
/**
* An MCP server whose tools call `fabric`; connect it to a transport. The
* tools are listed with their operations' JSON schemas and called without a
* check of their own: the fabric validates the arguments once, so bad input
* is a tool error carrying Cairn's `INVALID_ARGUMENT`, as on every surface.
*/
function createMcpServer(fabric, options) {
	const server = new Server({
		name: "cairn",
		version: options.version
	}, {
		capabilities: {
			logging: {},
			tools: {}
		},
		instructions: INSTRUCTIONS
	});
	const tools = new Map(mcpTools().map((t) => [t.tool, t.operation]));
	server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [...tools].filter(([, operation]) => options.local === true || operation.runs === "anywhere").map(([name, operation]) => {
		const { $schema: _, ...inputSchema } = toolSchema(operation);
		return {
			name,
			title: toolTitle(name),
			description: operation.mcp.description,
			inputSchema: {
				type: "object",
				...inputSchema
			},
			annotations: { readOnlyHint: operation.effect === "read" }
		};
	}) }));
	server.setRequestHandler(CallToolRequestSchema, async (request) => {
		const operation = tools.get(request.params.name);
		if (!operation) return failure(notFound(`no tool ${request.params.name}: list the tools`));
		const call = fabric[operation.name];
		try {
			const args = request.params.arguments ?? {};
			if (operation.mcpInput) parseInput(operation.mcpInput, args, opTitle(operation.name));
			const answer = await call(args);
			const failed = operation.failureOf?.(answer);
			if (failed !== void 0) return {
				isError: true,
				content: [{
					type: "text",
					text: failed
				}],
				structuredContent: structured(answer)
			};
			return {
				content: [{
					type: "text",
					text: JSON.stringify(answer)
				}],
				structuredContent: structured(answer)
			};
		} catch (error) {
			if (!isCairnError(error)) throw error;
			return failure(error);
		}
	});
	return server;
}
function failure(error) {
	const body = error.toJSON();
	return {
		isError: true,
		content: [{
			type: "text",
			text: `${body.code}: ${body.message}`
		}],
		structuredContent: { error: body }
	};
}
export { INSTRUCTIONS, createMcpServer, mcpTools };
