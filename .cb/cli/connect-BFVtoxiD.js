import { n as runsAtCaller, t as opTitle } from "./spec-2aais7-z.js";
import { t as WIRE } from "./wire-Djji5uAq.js";
import { A as invalidArgument, F as unavailable, O as inDoubt, x as CairnError } from "./front-BpLyP2oj.js";
import { y as toJsonText } from "./args-Br0IqddQ.js";
import { n as unframeBytes } from "./frames-v_w0YSjb.js";
import { Agent, request } from "node:http";
// dist/client/transport.js
/**
* How the remote client's requests travel: one request out, its answer
* back. The client (remote-fabric.ts) maps operations to requests and
* answers to results or typed errors once; a transport only carries them —
* node:http with keep-alive (node-transport.ts) or `fetch` (fetch-transport.ts).
*/
/**
* A request that got no answer. `neverSent`: the transport knows it never
* reached the server (the connection was refused, the name did not resolve);
* otherwise it may have been applied.
*/
var TransportFailure = class extends Error {
	neverSent;
	constructor(message, neverSent, options) {
		super(message, options);
		this.neverSent = neverSent;
		this.name = "TransportFailure";
	}
};
/** System error codes that say a connection was never made, so nothing was sent. */
const NEVER_CONNECTED = /* @__PURE__ */ new Set([
	"ECONNREFUSED",
	"ENOTFOUND",
	"EAI_AGAIN"
]);
/** Whether an error (or the error it wraps, as fetch's does) says the connection was never made. */
function neverConnected(error) {
	for (let e = error, depth = 0; e && depth < 3; depth++) {
		if (typeof e.code === "string" && NEVER_CONNECTED.has(e.code)) return true;
		e = e.cause;
	}
	return false;
}
// dist/client/node-transport.js
/**
* The remote client's transport in Node: node:http over a keep-alive agent,
* sending a safe request once more on a fresh connection when the server had
* closed the pooled one it went out on (test/remote-retry.test.ts).
*/
/**
* How long an idle keep-alive socket is kept (ms): well inside the server's
* keep-alive timeout (65 s, server/index.ts), so the client lets go of a socket
* before the server closes it (the server's `Keep-Alive: timeout` hint, less a second, wins when shorter).
*/
const KEEP_ALIVE_FREE_MS = 15e3;
/** A failure on a reused keep-alive socket before any answer byte: the server had closed it. */
var StaleSocket = class extends Error {
	constructor(cause) {
		super("the server closed the reused connection before answering", { cause });
	}
};
var NodeTransport = class {
	timeoutMs;
	agent = new Agent({
		keepAlive: true,
		maxSockets: 64,
		timeout: KEEP_ALIVE_FREE_MS
	});
	/** `timeoutMs`: how long one request may go without an answer. */
	constructor(timeoutMs) {
		this.timeoutMs = timeoutMs;
	}
	async send(request) {
		try {
			return await this.exchange(request).catch((error) => {
				if (error instanceof StaleSocket && request.safe) return this.exchange(request, true);
				throw error;
			});
		} catch (error) {
			const cause = error instanceof StaleSocket ? error.cause : error;
			throw new TransportFailure(cause instanceof Error ? cause.message : String(cause), neverConnected(cause), { cause });
		}
	}
	/** One HTTP exchange; `fresh`: on a connection of its own (agent false), never one from the pool. */
	exchange(request$1, fresh = false) {
		const { body } = request$1;
		const headers = body === void 0 ? request$1.headers : {
			...request$1.headers,
			"content-length": String(typeof body === "string" ? Buffer.byteLength(body) : body.byteLength)
		};
		return new Promise((resolve, reject) => {
			const outgoing = request(request$1.url, {
				method: request$1.method,
				agent: fresh ? false : this.agent,
				timeout: this.timeoutMs,
				headers
			}, (response) => {
				const chunks = [];
				response.on("data", (chunk) => chunks.push(chunk));
				response.on("end", () => resolve({
					status: response.statusCode ?? 0,
					type: String(response.headers["content-type"] ?? ""),
					body: Buffer.concat(chunks)
				}));
				response.on("error", reject);
				response.on("aborted", () => reject(/* @__PURE__ */ new Error("the response was cut off")));
			});
			outgoing.on("timeout", () => outgoing.destroy(/* @__PURE__ */ new Error(`no answer within ${this.timeoutMs} ms`)));
			let answered = false;
			outgoing.on("response", () => {
				answered = true;
			});
			outgoing.on("error", (error) => {
				reject((error.code === "ECONNRESET" || error.code === "EPIPE") && outgoing.reusedSocket && !answered ? new StaleSocket(error) : error);
			});
			outgoing.end(body);
		});
	}
	async close() {
		this.agent.destroy();
	}
};
const seg = encodeURIComponent;
const UTF8 = new TextDecoder();
function query(params) {
	const entries = Object.entries(params).filter(([, v]) => v !== void 0);
	return entries.length === 0 ? "" : `?${new URLSearchParams(entries.map(([k, v]) => [k, String(v)])).toString()}`;
}
var RemoteFabric = class {
	transport;
	base;
	headers;
	/**
	* The operations over `transport`: node:http in Node (`connect` of
	* `cairn/client`), fetch in a browser (`connect` of `cairn/browser`).
	*/
	constructor(options, transport) {
		this.transport = transport;
		this.base = options.url.replace(/\/+$/, "");
		this.headers = {
			authorization: `Bearer ${options.token}`,
			"content-type": "application/json"
		};
		const methods = {};
		for (const [name, operation] of Object.entries(WIRE)) methods[name] = (input) => this.invoke(operation, input);
		Object.assign(this, methods);
	}
	/**
	* One call. `safe`: sending it twice does what sending it once does (a read,
	* a PUT of content named by its digest, a write carrying an idempotency key):
	* only such a call may be sent again by the transport (after the server
	* closed the reused connection it went out on); any other stays IN_DOUBT.
	*/
	async call(method, path, body, safe = method === "GET") {
		const payload = body === void 0 ? void 0 : body instanceof Uint8Array ? body : toJsonText(body, "request");
		const headers = payload instanceof Uint8Array ? {
			...this.headers,
			"content-type": "application/octet-stream"
		} : this.headers;
		let response;
		try {
			response = await this.transport.send({
				method,
				url: `${this.base}${path}`,
				headers,
				...payload === void 0 ? {} : { body: payload },
				safe
			});
		} catch (error) {
			if (error instanceof CairnError) throw error;
			throw this.transportError(method, error);
		}
		const ok = response.status >= 200 && response.status <= 299;
		if (ok && response.type.startsWith("application/octet-stream")) return unframeBytes(response.body);
		const text = UTF8.decode(response.body);
		let parsed;
		try {
			parsed = text === "" ? void 0 : JSON.parse(text);
		} catch {
			throw unavailable(`the server at ${this.base} answered ${response.status} with a body that is not JSON: is it a Cairn server?`, { status: response.status });
		}
		if (!ok) {
			const error = parsed;
			if (error && typeof error.code === "string" && typeof error.message === "string") throw CairnError.fromJSON({
				code: error.code,
				message: error.message,
				data: error.data ?? {}
			});
			throw unavailable(`the server at ${this.base} answered ${response.status}`, { status: response.status });
		}
		return parsed;
	}
	/**
	* A request that never left is UNAVAILABLE. A write whose connection broke
	* after it was sent may or may not have been applied: IN_DOUBT, so the
	* caller retries with the same idempotency key instead of guessing.
	*/
	transportError(method, error) {
		const failure = error instanceof TransportFailure ? error : void 0;
		const cause = failure ? failure.cause : error;
		const detail = failure ? failure.message : error instanceof Error ? error.message : String(error);
		if (method !== "GET" && !failure?.neverSent) return inDoubt(`the connection to ${this.base} broke after the request was sent (${detail}): it may have been applied; retry with the same idempotency key`, { url: this.base }, { cause });
		return unavailable(`could not reach the Cairn server at ${this.base} (${detail}): check the URL and that \`cairn serve\` is running`, { url: this.base }, { cause });
	}
	/**
	* One operation over HTTP, as the table binds it: path fields into the
	* path (a field left out takes its default), the rest into the query (GET)
	* or the JSON body (POST). The server validates; what comes back is the
	* answer or the typed error.
	*/
	async invoke(operation, input = {}) {
		if (!operation.http) throw runsAtCaller(operation.mcp ?? opTitle(operation.name));
		const { method, path } = operation.http;
		const rest = { ...input };
		const defaults = operation.pathDefaults ?? {};
		const url = path.replace(/\{(\w+)\}/g, (_, field) => {
			const value = rest[field] ?? defaults[field];
			delete rest[field];
			if (typeof value !== "string" || value === "") throw invalidArgument(`${opTitle(operation.name)}: ${field}: required`, { field });
			return seg(value);
		});
		if (method === "GET") return this.call("GET", `${url}${query(rest)}`);
		const safe = operation.effect === "read" || method === "PUT" || typeof rest.idempotencyKey === "string";
		return this.call(method, url, operation.http.body === "bytes" ? rest.bytes : rest, safe);
	}
	/** Lets go of the transport's connections; a call after it may open new ones. */
	close() {
		return this.transport.close();
	}
};
// dist/client/connect.js
/** `connect` in Node: the remote client over node:http, with keep-alive (client/node-transport.ts). */
function connect(options) {
	return new RemoteFabric(options, new NodeTransport(options.timeoutMs ?? 3e4));
}
export { connect };
