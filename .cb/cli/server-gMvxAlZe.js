import { McpHttp, loopbackNames } from "./http-UPwgGEMP.js";
import { a as toJSONSchema, i as wholeNumberText, n as numericFields, r as pathFieldsOf, t as inputJsonSchema } from "./json-schema-BNEYK87j.js";
import { N as sha256Hex, g as opContext, m as runOp } from "./store-folder-D53airw-.js";
import { A as invalidArgument, C as HTTP_STATUS, F as unavailable, M as notFound, N as payloadTooLarge, k as internal, x as CairnError } from "./front-BpLyP2oj.js";
import { v as refuseUnsafeIntegers } from "./args-Br0IqddQ.js";
import { t as frameBytes } from "./frames-v_w0YSjb.js";
import { n as servedOps } from "./table-Bzy5N_pG.js";
import { l as corsAllowList } from "./store-commands-CycJ5P-a.js";
import { n as ErrorBody } from "./shapes-CMxeFoql.js";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { EventEmitter } from "node:events";
/**
* The bytes of request bodies a server holds at once: a body takes its share
* before it is read (its declared length, or chunk by chunk when it has none)
* and gives it back when its request ends, answered or cut. Past the budget
* — all requests together, or one owner's (a tenant's) share of it — a request
* is refused (UNAVAILABLE, 503 with Retry-After), so stalled or concurrent
* uploads never hold more than the budget, and one tenant never all of it.
*/
var BodyBudget = class extends EventEmitter {
	limit;
	heldBytes = 0;
	byOwner = /* @__PURE__ */ new Map();
	/** The most one owner holds at once; default half the budget. */
	perOwner;
	/** `limit`: the bytes all bodies in flight may hold together. */
	constructor(limit, options = {}) {
		super();
		this.limit = limit;
		this.perOwner = options.perOwner ?? Math.ceil(limit / 2);
	}
	/** Bytes taken now by bodies in flight: all, or one owner's. */
	held(owner) {
		return owner === void 0 ? this.heldBytes : this.byOwner.get(owner) ?? 0;
	}
	/** Takes `bytes` for `owner`, or refuses when the budget or the owner's share cannot spare them. */
	take(bytes, owner) {
		const mine = this.byOwner.get(owner) ?? 0;
		if (this.heldBytes + bytes > this.limit) throw busy(this.limit, "the server");
		if (mine + bytes > this.perOwner) throw busy(this.perOwner, "your tenant");
		this.heldBytes += bytes;
		this.byOwner.set(owner, mine + bytes);
		this.emit("taken", this.heldBytes);
	}
	give(bytes, owner) {
		this.heldBytes -= bytes;
		const mine = (this.byOwner.get(owner) ?? 0) - bytes;
		if (mine > 0) this.byOwner.set(owner, mine);
		else this.byOwner.delete(owner);
		this.emit("released", this.heldBytes);
	}
};
function busy(limit, whose) {
	return unavailable(`${whose} has as many request bodies in flight as the server takes (${limit} bytes): retry in 2 s`, {
		reason: "busy",
		limit,
		retryAfterSeconds: 2
	});
}
// dist/server/openapi.js
function outputSchema(operation) {
	const json = toJSONSchema(operation.output, {
		io: "output",
		unrepresentable: "any"
	});
	delete json.$schema;
	return json;
}
/** The input schema without the named fields (they travel in the path). */
function without(json, fields) {
	const { $schema: _, required: all = [], properties: every = {}, ...rest } = json;
	const properties = Object.fromEntries(Object.entries(every).filter(([name]) => !fields.includes(name)));
	const required = all.filter((r) => !fields.includes(r));
	return {
		...rest,
		properties,
		...required.length > 0 ? { required } : {}
	};
}
function operationObject(operation) {
	const json = inputJsonSchema(operation);
	const inPath = pathFieldsOf(operation);
	const properties = json.properties ?? {};
	const required = new Set(json.required ?? []);
	const parameters = inPath.map((name) => ({
		name,
		in: "path",
		required: true,
		schema: properties[name] ?? { type: "string" }
	}));
	let requestBody;
	if (operation.http.method === "GET") for (const name of Object.keys(properties).filter((n) => !inPath.includes(n))) parameters.push({
		name,
		in: "query",
		required: required.has(name),
		schema: properties[name]
	});
	else if (operation.http.body === "bytes") requestBody = {
		required: true,
		content: { "application/octet-stream": { schema: {
			type: "string",
			contentMediaType: "application/octet-stream"
		} } }
	};
	else {
		const body = without(json, inPath);
		requestBody = {
			required: (body.required?.length ?? 0) > 0,
			content: { "application/json": { schema: body } }
		};
	}
	const success = {
		description: "Success",
		content: operation.http.answer === "bytes" ? { "application/octet-stream": { schema: {
			type: "string",
			contentMediaType: "application/octet-stream",
			description: "byte strings, each a u32 BE length and its bytes"
		} } } : { "application/json": { schema: outputSchema(operation) } }
	};
	const statuses = operation.statusOf ? [200, operation.http.status ?? 200] : [operation.http.status ?? 200];
	return {
		operationId: operation.name,
		summary: operation.summary,
		parameters,
		...requestBody ? { requestBody } : {},
		responses: {
			...Object.fromEntries([...new Set(statuses)].map((s) => [String(s), success])),
			...operation.http.method === "GET" ? {} : { "503": {
				description: "UNAVAILABLE: the server holds as many request bodies as it takes; retry after Retry-After seconds",
				headers: { "Retry-After": { schema: { type: "integer" } } },
				content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } }
			} },
			default: {
				description: "Typed error",
				content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } }
			}
		}
	};
}
let cached;
function openApiDocument() {
	if (cached) return cached;
	const paths = {};
	for (const operation of servedOps()) {
		paths[operation.http.path] ??= {};
		paths[operation.http.path][operation.http.method.toLowerCase()] = operationObject(operation);
	}
	cached = {
		openapi: "3.1.0",
		info: {
			title: "Cairn",
			version: "0.1.0",
			description: "Persistence fabric for AI agents: every operation of the table that runs on a server."
		},
		security: [{ bearer: [] }],
		paths,
		components: {
			securitySchemes: { bearer: {
				type: "http",
				scheme: "bearer"
			} },
			schemas: { Error: without(toJSONSchema(ErrorBody), []) }
		}
	};
	return cached;
}
// dist/server/app.js
function errorResponse(c, error) {
	const retryAfter = error.data.retryAfterSeconds;
	if (typeof retryAfter === "number") c.header("retry-after", String(retryAfter));
	if (error.code === "PAYLOAD_TOO_LARGE" || error.data.reason === "busy") c.header("connection", "close");
	return c.json(error.toJSON(), HTTP_STATUS[error.code]);
}
function tooLarge(limit) {
	return payloadTooLarge(`the request body is over ${limit} bytes: send less, or store large content as a blob`, { limit });
}
/**
* The body, at most `limit` bytes, its bytes taken from `budget` before they
* are held (the declared length up front, else chunk by chunk) and recorded in
* `lease`. Read straight from Node's request stream into one buffer of the
* declared length: building a web Request for it costs more than the append itself.
*/
async function readBody(c, limit, budget) {
	const incoming = c.env?.incoming;
	const lease = c.var.lease;
	const declared = c.req.header("content-length");
	const length = declared === void 0 ? void 0 : Number(declared);
	if (length !== void 0 && length > limit) {
		incoming?.resume();
		throw tooLarge(limit);
	}
	lease.owner = c.var.who?.tenant ?? "";
	const take = (bytes) => {
		budget.take(bytes, lease.owner);
		lease.bytes += bytes;
	};
	if (length !== void 0) try {
		take(length);
	} catch (error) {
		incoming?.resume();
		throw error;
	}
	if (!incoming) {
		const bytes = Buffer.from(await c.req.arrayBuffer());
		if (bytes.length > limit) throw tooLarge(limit);
		if (length === void 0) take(bytes.length);
		return bytes;
	}
	return new Promise((resolve, reject) => {
		const whole = length !== void 0 ? Buffer.allocUnsafe(length) : void 0;
		const chunks = [];
		let size = 0;
		const stop = (error) => {
			incoming.off("data", onData);
			incoming.resume();
			reject(error);
		};
		const onData = (chunk) => {
			if (size + chunk.length > (length ?? limit)) {
				stop(length === void 0 ? tooLarge(limit) : invalidArgument("the request body is longer than its Content-Length"));
				return;
			}
			if (whole) chunk.copy(whole, size);
			else {
				try {
					take(chunk.length);
				} catch (error) {
					stop(error);
					return;
				}
				chunks.push(chunk);
			}
			size += chunk.length;
		};
		incoming.on("data", onData);
		incoming.on("end", () => resolve(whole ? whole.subarray(0, size) : Buffer.concat(chunks)));
		const hungUp = () => reject(invalidArgument("the client closed the connection before its request body arrived: send the whole body", { received: size }));
		incoming.on("aborted", hungUp);
		incoming.on("error", hungUp);
		incoming.on("close", () => {
			if (!incoming.complete) hungUp();
		});
	});
}
function parseJsonObject(text) {
	if (text.trim() === "") return {};
	let body;
	try {
		body = JSON.parse(text);
	} catch {
		throw invalidArgument("the request body is not valid JSON: send a JSON object");
	}
	if (body === null || typeof body !== "object" || Array.isArray(body)) throw invalidArgument("the request body must be a JSON object");
	refuseUnsafeIntegers(text, "the request body");
	return body;
}
/** Query parameters as the schemas expect them: numbers where the name says so. */
function queryArgs(c, numeric) {
	const out = {};
	for (const [key, value] of Object.entries(c.req.query())) out[key] = numeric.includes(key) ? wholeNumberText(value, `query parameter ${key}`, key) : value;
	return out;
}
const AUTH_CACHE_ENTRIES = 1e4;
function authCache(store, ttlMs) {
	const known = /* @__PURE__ */ new Map();
	const check = async (token) => {
		const now = Date.now();
		const hit = known.get(token);
		if (hit && hit.until > now) return hit.identity;
		const identity = await store.authenticate(token);
		if (ttlMs > 0) {
			if (known.size >= AUTH_CACHE_ENTRIES) known.clear();
			known.set(token, {
				identity,
				until: now + ttlMs
			});
		}
		return identity;
	};
	return Object.assign(check, { forget: () => known.clear() });
}
/**
* The HTTP API: a thin shell over the table of operations. It authenticates
* the bearer token, parses JSON, runs the operation as that identity and
* serialises the answer or the typed error; it holds no logic of its own.
*/
function createApp(store, options = {}) {
	const app = new Hono();
	const maxBody = options.maxBodyBytes ?? 2097152;
	const ops = servedOps();
	const largestBody = Math.max(maxBody, ...ops.map((o) => o.http.maxBodyBytes ?? maxBody));
	const budget = options.bodyBudget ?? new BodyBudget(Math.max(100663296, 2 * largestBody));
	const jsonBody = async (c, limit = maxBody) => parseJsonObject((await readBody(c, limit, budget)).toString("utf8"));
	const authenticate = authCache(store, options.authCacheMs ?? 2e3);
	const { masterKey, memoryEmbedding } = options;
	app.onError((error, c) => {
		if (error instanceof CairnError) return errorResponse(c, error);
		options.onInternalError?.(error);
		return errorResponse(c, internal("the server failed to handle the request: see its log, then retry"));
	});
	app.notFound((c) => errorResponse(c, notFound(`no route ${c.req.method} ${c.req.path}: see /openapi.json for the API`)));
	app.use("*", async (c, next) => {
		const lease = {
			bytes: 0,
			owner: ""
		};
		c.set("lease", lease);
		try {
			await next();
		} finally {
			if (lease.bytes > 0) budget.give(lease.bytes, lease.owner);
		}
	});
	if (options.corsOrigins && options.corsOrigins.length > 0) {
		const cors = corsAllowList(options.corsOrigins);
		for (const path of [
			"/v1/*",
			"/healthz",
			"/openapi.json"
		]) app.use(path, cors);
	}
	app.get("/healthz", (c) => c.json({ ok: true }));
	app.get("/openapi.json", (c) => c.json(openApiDocument()));
	const bearer = (c) => {
		const header = c.req.header("authorization") ?? "";
		return /^bearer\s+/i.test(header) ? header.replace(/^bearer\s+/i, "").trim() : "";
	};
	app.use("/v1/*", async (c, next) => {
		c.set("who", await authenticate(bearer(c)));
		await next();
	});
	const mcp = options.mcp;
	const mcpBody = Math.max(maxBody, ...ops.filter((o) => o.mcp).map((o) => o.http.maxBodyBytes ?? maxBody));
	if (mcp) app.all("/mcp", async (c) => {
		const refused = mcp.guard(c.req.raw);
		if (refused) return refused;
		const token = bearer(c);
		const who = await authenticate(token);
		c.set("who", who);
		const request = c.req.method === "POST" ? new Request(c.req.raw.url, {
			method: "POST",
			headers: c.req.raw.headers,
			body: new Uint8Array(await readBody(c, mcpBody, budget))
		}) : c.req.raw;
		return mcp.handle(request, sha256Hex(token), () => store.fabric(who, {
			masterKey,
			memoryEmbedding
		}), who.tenant);
	});
	for (const operation of ops) {
		const { method, path, body, answer } = operation.http;
		const numeric = numericFields(operation);
		const limit = operation.http.maxBodyBytes ?? maxBody;
		app.on(method, path.replace(/\{(\w+)\}/g, ":$1"), async (c) => {
			const input = {
				...method === "GET" ? queryArgs(c, numeric) : body === "bytes" ? { bytes: await readBody(c, limit, budget) } : await jsonBody(c, limit),
				...c.req.param()
			};
			const context = opContext(store.engine, c.var.who, {
				masterKey,
				blobs: store.blobs,
				memoryPolicy: store.memoryPolicy,
				memoryEmbedding
			});
			const output = await runOp(operation, context, input);
			if (operation.invalidatesAuth) authenticate.forget();
			const status = operation.statusOf?.(output) ?? operation.http.status ?? 200;
			if (answer === "bytes") return c.body(frameBytes(output), status, { "content-type": "application/octet-stream" });
			return c.json(output, status);
		});
	}
	return app;
}
/** Serves a store's HTTP API until `close()`. */
function startServer(store, options = {}) {
	const host = options.host ?? "127.0.0.1";
	let names = {
		hosts: [],
		origins: []
	};
	const extra = (options.mcp?.allowedHosts ?? []).map((h) => h.toLowerCase());
	const { allowedHosts: _, ...mcpOptions } = options.mcp ?? { version: "" };
	const mcp = options.mcp ? new McpHttp({
		...mcpOptions,
		names: () => names
	}) : void 0;
	const app = createApp(store, {
		...options,
		mcp
	});
	return new Promise((resolve, reject) => {
		const headersTimeout = options.headersTimeoutMs ?? 1e4;
		const requestTimeout = Math.max(options.requestTimeoutMs ?? 6e4, headersTimeout);
		const server = serve({
			fetch: app.fetch,
			hostname: host,
			port: options.port ?? 0,
			serverOptions: {
				headersTimeout,
				requestTimeout,
				connectionsCheckingInterval: Math.min(1e3, headersTimeout)
			}
		}, (info) => {
			const shownHost = info.family === "IPv6" ? `[${info.address}]` : info.address;
			const own = loopbackNames(host, info.port);
			names = {
				hosts: [...own.hosts, ...extra],
				origins: [...own.origins, ...extra.flatMap((h) => [`http://${h}`, `https://${h}`])]
			};
			resolve({
				url: `http://${shownHost}:${info.port}`,
				close: () => new Promise((done) => {
					mcp?.close();
					server.close(() => done());
					server.closeAllConnections?.();
				})
			});
		});
		server.keepAliveTimeout = options.keepAliveTimeoutMs ?? 65e3;
		server.once("error", reject);
	});
}
export { startServer };
