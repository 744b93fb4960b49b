import { l as EmbeddedFabric } from "./store-folder-D53airw-.js";
import { A as invalidArgument, m as EXIT } from "./front-BpLyP2oj.js";
import { r as withCallerOps } from "./table-Bzy5N_pG.js";
import { d as stringFlag, p as wholeNumberFlag } from "./args-Br0IqddQ.js";
import { withDesk, workspaceAt } from "./desk-commands-DbZvD6FU.js";
import { a as untilStopSignal, t as listenError } from "./store-commands-CycJ5P-a.js";
import { unitsOf } from "./unit-commands-BSSfuxOX.js";
import { t as cliVersion } from "./version-BhXxgZo_.js";
import { resolve } from "node:path";
import { randomBytes } from "node:crypto";
// dist/cli/mcp-commands.js
/**
* `cairn mcp`: the table's agent tools over MCP for a coding agent, on a
* local store or through a server (`--url`). Over stdio by default: stdout
* is the protocol's, so nothing else is printed there. With `--port`, over
* streamable HTTP on loopback instead, at a path holding a random secret
* (printed once on stderr), since a port is open to every user of the
* machine; Host and Origin are checked against DNS rebinding.
*/
const mcp = {
	target: "desk",
	createsStore: false,
	names: ["mcp"],
	example: "cairn mcp",
	args: [],
	flags: [{
		name: "port",
		type: "string",
		value: "P",
		help: "serve streamable HTTP on 127.0.0.1:P (0 picks one) instead of stdio; prints the URL on stderr"
	}],
	summary: "serve the agent tools over MCP: stdio (default) or streamable HTTP on loopback",
	run: (place, call) => withDesk(place, call, async (ctx) => {
		const { desk, fabric, local } = ctx;
		const caller = {
			units: await unitsOf(ctx, call),
			workspace: (ref) => workspaceAt(desk, call.cwd, ref),
			attach: (input) => desk.attach({
				...input,
				dir: resolve(call.cwd, input.dir)
			})
		};
		return serveMcp(local ? new EmbeddedFabric(local.store.engine, local.who, async () => {}, {
			caller,
			blobs: local.store.blobs
		}) : withCallerOps(fabric, caller), call);
	})
};
/** Serves the tools, the unit's included (they run here, where the workspace is). */
async function serveMcp(fabric, call) {
	const local = true;
	const version = cliVersion();
	const { createMcpServer } = await import("./server-BeoYyxSE.js");
	if (stringFlag(call.values, "port") === void 0) {
		const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
		const server = createMcpServer(fabric, {
			version,
			local
		});
		const transport = new StdioServerTransport(call.stdin, process.stdout);
		const closed = new Promise((resolve) => {
			transport.onclose = () => resolve();
			call.stdin.once("end", () => resolve());
		});
		await server.connect(transport);
		await Promise.race([closed, untilStopSignal()]);
		await server.close();
		return EXIT.ok;
	}
	const port = wholeNumberFlag(call.values, "port") ?? 0;
	if (port > 65535) throw invalidArgument(`--port must be at most 65535, got ${port}`, { field: "port" });
	const host = "127.0.0.1";
	const secret = randomBytes(16).toString("hex");
	const { serve } = await import("@hono/node-server");
	const { loopbackNames, McpHttp } = await import("./http-UPwgGEMP.js");
	let names = {
		hosts: [],
		origins: []
	};
	const http = new McpHttp({
		version,
		local,
		names: () => names
	});
	const path = `/mcp/${secret}`;
	const server = await new Promise((resolve, reject) => {
		const listening = serve({
			hostname: host,
			port,
			fetch: (request) => {
				const refused = http.guard(request);
				if (refused) return refused;
				if (new URL(request.url).pathname !== path) return new Response(JSON.stringify({
					code: "NOT_FOUND",
					message: "no such path",
					data: {}
				}), {
					status: 404,
					headers: { "content-type": "application/json" }
				});
				return http.handle(request, "local", () => fabric);
			}
		}, (info) => {
			names = loopbackNames(host, info.port);
			call.out.problem(`cairn mcp on http://${host}:${info.port}${path}`);
			resolve(listening);
		});
		listening.once("error", (error) => reject(listenError(error, host, port)));
	});
	await untilStopSignal();
	await http.close();
	await new Promise((done) => {
		server.close(() => done());
		server.closeAllConnections?.();
	});
	return EXIT.ok;
}
const MCP_COMMANDS = [mcp];
export { MCP_COMMANDS };
