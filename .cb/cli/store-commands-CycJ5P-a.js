import { A as invalidArgument, D as forbidden, F as unavailable, L as __exportAll, j as isCairnError, m as EXIT } from "./front-BpLyP2oj.js";
import { n as openFabric } from "./store-folder-D53airw-.js";
import { d as stringFlag, o as listFlag, p as wholeNumberFlag } from "./args-Br0IqddQ.js";
import { $ as object, J as _enum, Y as array, tt as string } from "./schema-akKHYQxY.js";
import { n as masterKeyOf, t as MASTER_KEY_FLAG } from "./master-key-2kLtwb5Y.js";
import { b as TRUST_TIERS } from "./schema-BiaIilDX.js";
import { t as parseInput } from "./validate-Dzwxqk5b.js";
import { t as cliVersion } from "./version-BhXxgZo_.js";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
// dist/server/cors.js
/** What a page may send (the remote client's requests) and read besides the safelisted headers. */
const ALLOW_METHODS = "GET, POST, PUT";
const ALLOW_HEADERS = "authorization, content-type";
const EXPOSE_HEADERS = "retry-after";
/** How long a browser may reuse a preflight's answer (s). */
const PREFLIGHT_MAX_AGE = 600;
/**
* An origin as a browser sends it (`http://host:port`, no path): the text
* given, checked and in canonical form (lowercase host, default port left
* out). `*`, `null`, a path, a query or user info are refused.
*/
function corsOrigin(text) {
	const refuse = (why) => invalidArgument(`CORS origin "${text.slice(0, 200)}" ${why}: name one origin as a page has it, e.g. http://localhost:5173`, { field: "corsOrigin" });
	let url;
	try {
		url = new URL(text);
	} catch {
		throw refuse("is not a URL");
	}
	if (url.protocol !== "http:" && url.protocol !== "https:") throw refuse("is not http or https");
	if (url.username !== "" || url.password !== "") throw refuse("carries user info");
	if (!/^[a-z][a-z0-9+.-]*:\/\/[^/?#]+\/?$/i.test(text)) throw refuse("has a path, a query or a fragment");
	return url.origin;
}
/**
* The middleware: a request whose Origin is on the list gets it back in
* Access-Control-Allow-Origin (its answer and its errors alike); a preflight
* (OPTIONS with Access-Control-Request-Method) is answered here, 204 for a
* listed origin and FORBIDDEN for any other. Requests without an Origin, or
* from an origin not on the list, go on unchanged and carry no CORS header.
*/
function corsAllowList(origins) {
	const allowed = new Set(origins.map(corsOrigin));
	return async (c, next) => {
		const origin = c.req.header("origin");
		const listed = origin !== void 0 && allowed.has(origin);
		const preflight = c.req.method === "OPTIONS" && c.req.header("access-control-request-method") !== void 0;
		c.header("vary", "Origin", { append: true });
		if (preflight) {
			if (!listed) throw forbidden(`origin ${origin ?? "(none)"} may not call this server from a browser: start it with --cors-origin ${origin ?? "URL"} to allow it`);
			return c.body(null, 204, {
				"access-control-allow-origin": origin,
				"access-control-allow-methods": ALLOW_METHODS,
				"access-control-allow-headers": ALLOW_HEADERS,
				"access-control-max-age": String(PREFLIGHT_MAX_AGE)
			});
		}
		if (listed) {
			c.header("access-control-allow-origin", origin);
			c.header("access-control-expose-headers", EXPOSE_HEADERS);
		}
		await next();
	};
}
// dist/cli/store-config.js
/**
* The store's own settings, kept by its admin in `<store>/config.json` (the
* agent's files never change them): the secret policy and the guard's
* allow-list. Absent file: the defaults. A malformed file is refused, never
* half-read.
*/
const StoreConfig = object({
	/** `fail` refuses a checkpoint with a high-confidence credential; `exclude` (default) leaves it out. */
	secrets: _enum(["exclude", "fail"]).default("exclude"),
	guard: object({ 
	/** Findings an admin accepts: a rule id (or `*`) and gitignore-style path globs. */
allow: array(object({
		rule: string().min(1),
		paths: array(string().min(1)).min(1)
	}).strict()).default([]) }).strict().default({ allow: [] }),
	snapshots: object({ 
	/** `.git` directories: left out (default; a unit checkpoint records HEAD, branch and dirty state) or snapshotted. */
git: _enum(["exclude", "include"]).default("exclude") }).strict().default({ git: "exclude" }),
	memory: object({ 
	/** The trust tier each source's records arrive with, e.g. {"tool": "quarantined"}. */
policy: object({
		person: _enum(TRUST_TIERS).optional(),
		agent: _enum(TRUST_TIERS).optional(),
		tool: _enum(TRUST_TIERS).optional(),
		import: _enum(TRUST_TIERS).optional()
	}).strict().default({}) }).strict().default({ policy: {} })
}).strict();
const STORE_CONFIG_FILE = "config.json";
/** The desk's options the store config decides, for every desk the CLI opens on a local store. */
function deskSettings(config) {
	return {
		secretPolicy: config.secrets,
		guard: { allow: config.guard.allow },
		includeGit: config.snapshots.git === "include"
	};
}
function readStoreConfig(storeDir) {
	const file = join(storeDir, STORE_CONFIG_FILE);
	let text;
	try {
		text = readFileSync(file, "utf8");
	} catch (error) {
		const code = error.code;
		if (code === "ENOENT") return StoreConfig.parse({});
		throw unavailable(`cannot read ${file} (${code ?? String(error)}): check it is a readable file`, { file });
	}
	let raw;
	try {
		raw = JSON.parse(text);
	} catch (error) {
		throw invalidArgument(`${file} is not valid JSON (${error.message}): fix it or remove it`, { file });
	}
	return parseInput(StoreConfig, raw, file);
}
// dist/cli/store-commands.js
var store_commands_exports = /* @__PURE__ */ __exportAll({
	STORE_COMMANDS: () => STORE_COMMANDS,
	listenError: () => listenError,
	openConfiguredFabric: () => openConfiguredFabric,
	openConfiguredStore: () => openConfiguredStore,
	openStoreDir: () => openStoreDir,
	requireStore: () => requireStore,
	storeExists: () => storeExists,
	untilStopSignal: () => untilStopSignal,
	withStore: () => withStore
});
/** Commands that need the store itself, not a fabric: they work on a local directory only. */
/** True when `dir` holds a store (`Store.openDir` keeps its database in `<dir>/cairn.db`). */
function storeExists(dir) {
	return existsSync(join(dir, "cairn.db"));
}
/** Refuses to open a store that is not there, so a mistyped --store does not create a new one. */
function requireStore(dir) {
	if (!storeExists(dir)) throw unavailable(`no Cairn store at ${dir}: run \`cairn init --store ${dir}\` first, or pass --store DIR or --url`, { store: dir });
}
/** Opens a store; file-system failures become UNAVAILABLE naming the directory. */
async function openStoreDir(dir, open) {
	try {
		return await open(dir);
	} catch (error) {
		if (isCairnError(error)) throw error;
		const reason = error instanceof Error ? error.message : String(error);
		const code = error.code;
		if (code === "ENOSPC" || code === "SQLITE_FULL" || code === "EDQUOT") throw unavailable(`the disk holding the store at ${dir} is full (${code}): free some space, then run the command again`, {
			store: dir,
			reason: "disk full"
		}, { cause: error });
		throw unavailable(`could not open the store at ${dir} (${reason}): check the path and its permissions`, { store: dir }, { cause: error });
	}
}
/**
* A store folder opened under its admin's config (`config.json`: the memory
* policy); a long-running process (`serve`, `watch`) asks for `background`
* checkpoints, so none runs on its event loop.
*/
function openConfiguredStore(dir, checkpoints) {
	return openStoreDir(dir, async (d) => (await import("./store-CEqVpbTF.js")).Store.openDir(d, {
		memoryPolicy: readStoreConfig(d).memory.policy,
		checkpoints
	}));
}
/**
* The embedded fabric of a store folder under its admin's config, with the
* operator's master key if one is given. Everyday commands skip the
* whole-store quick_check (it grows with the store); corruption met while
* reading is still reported.
*/
function openConfiguredFabric(dir, masterKey) {
	return openStoreDir(dir, (d) => openFabric({
		dir: d,
		integrityCheck: false,
		masterKey,
		memoryPolicy: readStoreConfig(d).memory.policy
	}));
}
async function withStore(dir, fn) {
	const store = await openConfiguredStore(dir);
	try {
		return await fn(store);
	} finally {
		await store.close();
	}
}
const init = {
	target: "store",
	createsStore: true,
	names: ["init"],
	example: "cairn init",
	args: [],
	flags: [],
	summary: "create the store (if missing) and its local tenant and principal",
	async run(dir, { out }) {
		const existed = storeExists(dir);
		const who = await withStore(dir, (store) => store.localIdentity());
		out.result({
			id: who.tenant,
			created: !existed,
			store: dir,
			...who
		}, [
			`${existed ? "store already initialised" : "initialised store"}: ${dir}`,
			`tenant: ${who.tenant}`,
			`principal: ${who.principal} (${who.kind}, ${who.role})`
		]);
		return EXIT.ok;
	}
};
const tenantCreate = {
	target: "store",
	createsStore: false,
	names: ["tenant", "create"],
	example: "cairn tenant create acme",
	args: ["NAME"],
	flags: [],
	summary: "create a tenant in the local store and print its first admin token (shown once)",
	async run(dir, { positionals, out }) {
		const name = positionals[0];
		const created = await withStore(dir, (store) => store.createTenant(name));
		out.result({
			id: created.tenant,
			name,
			principal: created.principal,
			token: created.token.token,
			tokenId: created.token.id,
			store: dir
		}, [
			`created tenant ${created.tenant} (${name}) with admin principal ${created.principal}`,
			`token: ${created.token.token}`,
			"(shown once: store it now)"
		]);
		return EXIT.ok;
	}
};
function listenError(error, host, port) {
	const code = error.code;
	const data = {
		host,
		port
	};
	if (code === "EADDRINUSE") return unavailable(`port ${port} on ${host} is already in use: stop the other server or pick another --port`, data);
	if (code === "EACCES") return unavailable(`not allowed to listen on ${host}:${port}: pick a port above 1023 with --port`, data);
	if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND") return unavailable(`cannot listen on host ${host}: pass an address of this machine with --host`, data);
	return error;
}
function untilStopSignal() {
	return new Promise((resolve) => {
		const stop = (signal) => {
			process.off("SIGINT", stop);
			process.off("SIGTERM", stop);
			resolve(signal);
		};
		process.on("SIGINT", stop);
		process.on("SIGTERM", stop);
	});
}
/** Listens first, so a busy port does not leave an unused token behind; closes everything on failure. */
async function startServing(store, host, port, out, timeouts, masterKey, corsOrigins) {
	let server;
	try {
		const { startServer } = await import("./server-gMvxAlZe.js");
		const who = await store.localIdentity();
		server = await startServer(store, {
			host,
			port,
			...timeouts,
			mcp: { version: cliVersion() },
			masterKey,
			corsOrigins,
			onInternalError: (error) => out.serverError(error)
		}).catch((error) => {
			throw listenError(error, host, port);
		});
		const created = await store.fabric(who).createToken({
			principal: who.principal,
			label: "cairn serve"
		});
		return {
			server,
			created
		};
	} catch (error) {
		await server?.close();
		await store.close();
		throw error;
	}
}
const STORE_COMMANDS = [
	init,
	{
		target: "store",
		createsStore: true,
		names: ["serve"],
		example: "cairn serve --port 7411",
		args: [],
		flags: [
			{
				name: "host",
				type: "string",
				value: "HOST",
				help: "address to listen on (default 127.0.0.1)"
			},
			{
				name: "port",
				type: "string",
				value: "PORT",
				help: "port to listen on; 0 picks a free one (default 7070)"
			},
			{
				name: "headers-timeout-ms",
				type: "string",
				value: "MS",
				help: "close a connection whose request headers take longer (default 10000)"
			},
			{
				name: "request-timeout-ms",
				type: "string",
				value: "MS",
				help: "close a connection whose whole request takes longer (default 60000)"
			},
			{
				name: "cors-origin",
				type: "string",
				value: "URL",
				multiple: true,
				help: "let browser pages of this origin call the API, e.g. http://localhost:5173 (repeatable; default none)"
			},
			MASTER_KEY_FLAG
		],
		summary: "serve the store over HTTP until SIGINT/SIGTERM; prints the URL and a fresh token",
		async run(dir, call) {
			const { values, out } = call;
			const host = stringFlag(values, "host") ?? "127.0.0.1";
			const port = wholeNumberFlag(values, "port") ?? 7070;
			if (port > 65535) throw invalidArgument(`--port must be at most 65535, got ${port}`, { field: "port" });
			const timeouts = {
				headersTimeoutMs: wholeNumberFlag(values, "headers-timeout-ms"),
				requestTimeoutMs: wholeNumberFlag(values, "request-timeout-ms")
			};
			const corsOrigins = listFlag(values, "cors-origin").map(corsOrigin);
			const store = await openConfiguredStore(dir, "background");
			const { server, created } = await startServing(store, host, port, out, timeouts, masterKeyOf(call), corsOrigins);
			const stopped = untilStopSignal();
			out.result({
				url: server.url,
				token: created.token,
				tenant: created.tenant,
				store: dir
			}, [`Cairn serving on ${server.url}`, `token: ${created.token}`]);
			await stopped;
			await server.close();
			await store.close();
			return EXIT.ok;
		}
	},
	tenantCreate
];
export { untilStopSignal as a, readStoreConfig as c, store_commands_exports as i, corsAllowList as l, openConfiguredFabric as n, withStore as o, openConfiguredStore as r, deskSettings as s, listenError as t, corsOrigin as u };
