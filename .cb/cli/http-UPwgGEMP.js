import { D as forbidden, F as unavailable, M as notFound } from "./front-BpLyP2oj.js";
import { randomUUID } from "node:crypto";
// dist/mcp/http.js
/**
* MCP over streamable HTTP (`/mcp` on `cairn serve`, or `cairn mcp --port`):
* one MCP session per `initialize`, bound to the caller that opened it — a
* session id presented by anyone else is unknown (404). Host and Origin are
* checked first, against DNS rebinding: a page on another site that resolves
* its name to this loopback address sends its own Host and Origin, and is
* refused (403) before anything is parsed.
*
* Sessions are shared fairly: each token and each tenant holds at most a few
* (a new one past the cap closes that same owner's least recently used
* session, never another's), all of them expire when idle, and past the
* global cap a new session is refused (UNAVAILABLE, 503) rather than taken
* from someone else.
*/
/** Seconds a client refused for want of room is told to wait (Retry-After). */
const RETRY_AFTER_SECONDS = 30;
/** The Host and Origin values a server bound to `host:port` answers to: its address and localhost. */
function loopbackNames(host, port) {
	const hosts = [...new Set([
		host,
		"localhost",
		"127.0.0.1",
		"[::1]"
	].map((h) => h.includes(":") && !h.startsWith("[") ? `[${h}]` : h))].map((h) => `${h.toLowerCase()}:${port}`);
	return {
		hosts,
		origins: hosts.flatMap((h) => [`http://${h}`, `https://${h}`])
	};
}
function refusal(status, error) {
	return new Response(JSON.stringify(error.toJSON()), {
		status,
		headers: { "content-type": "application/json" }
	});
}
var McpHttp = class {
	options;
	/** In order of last use: the first is the least recently used (a Map keeps insertion order). */
	sessions = /* @__PURE__ */ new Map();
	/** Initializations under way, counted against the global cap before their session exists. */
	opening = 0;
	now;
	sweeper;
	constructor(options) {
		this.options = options;
		this.now = options.now ?? Date.now;
		this.sweeper = setInterval(() => this.expire(), Math.min(6e4, this.idleMs())).unref();
	}
	/** Sessions open now: all, or one tenant's. */
	openSessions(tenant) {
		if (tenant === void 0) return this.sessions.size;
		return [...this.sessions.values()].filter((s) => s.tenant === tenant).length;
	}
	idleMs() {
		return this.options.idleMs ?? 18e5;
	}
	/** Refused for DNS rebinding, or null when Host and Origin are this server's own. */
	guard(request) {
		const names = this.options.names();
		const host = (request.headers.get("host") ?? "").toLowerCase();
		if (!names.hosts.includes(host)) return refusal(403, forbidden(`MCP requests must name this server in Host, not "${host.slice(0, 80)}"`, { host: host.slice(0, 80) }));
		const origin = request.headers.get("origin");
		if (origin !== null && !names.origins.includes(origin.toLowerCase())) return refusal(403, forbidden(`MCP requests from pages of ${origin.slice(0, 80)} are refused`, { origin: origin.slice(0, 80) }));
		return null;
	}
	/**
	* One HTTP request of an MCP client that passed {@link guard} (the caller
	* checks Host and Origin first, before its own authentication); `owner`
	* names the caller (its token) and `tenant` its tenant — both derived from
	* the token, never from the request — and `fabric` makes the fabric a new
	* session's tools act through.
	*/
	async handle(request, owner, fabric, tenant = owner) {
		this.expire();
		const id = request.headers.get("mcp-session-id");
		if (id !== null) {
			const session = this.sessions.get(id);
			if (!session || session.owner !== owner) return refusal(404, notFound("no such MCP session: initialize a new one"));
			this.touch(id, session);
			return session.transport.handleRequest(request);
		}
		if (this.sessions.size + this.opening >= (this.options.maxSessions ?? 1e3)) {
			const response = refusal(503, unavailable(`the server holds as many MCP sessions as it takes: close sessions you no longer use, or retry in ${RETRY_AFTER_SECONDS} s`, { retryAfterSeconds: RETRY_AFTER_SECONDS }));
			response.headers.set("retry-after", String(RETRY_AFTER_SECONDS));
			return response;
		}
		this.opening++;
		try {
			const [{ WebStandardStreamableHTTPServerTransport: Transport }, { createMcpServer }] = await Promise.all([import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"), import("./server-BeoYyxSE.js")]);
			const transport = new Transport({
				sessionIdGenerator: () => randomUUID(),
				onsessioninitialized: (sessionId) => {
					this.sessions.set(sessionId, {
						transport,
						owner,
						tenant,
						lastUsed: this.now()
					});
					this.makeRoom(owner, tenant);
				},
				onsessionclosed: (sessionId) => {
					this.sessions.delete(sessionId);
				}
			});
			await createMcpServer(fabric(), {
				version: this.options.version,
				local: this.options.local
			}).connect(transport);
			return await transport.handleRequest(request);
		} finally {
			this.opening--;
		}
	}
	/** Marks a session used now: it moves to the end of the order. */
	touch(id, session) {
		session.lastUsed = this.now();
		this.sessions.delete(id);
		this.sessions.set(id, session);
	}
	/** Past a cap of this token or this tenant, closes that same owner's least recently used sessions. */
	makeRoom(owner, tenant) {
		const caps = [[(s) => s.owner === owner, this.options.maxSessionsPerToken ?? 16], [(s) => s.tenant === tenant, this.options.maxSessionsPerTenant ?? 100]];
		for (const [mine, cap] of caps) {
			const held = [...this.sessions].filter(([, s]) => mine(s));
			for (const [id] of held.slice(0, Math.max(0, held.length - cap))) this.closeSession(id);
		}
	}
	/** Closes every session unused for longer than the idle time. */
	expire() {
		const before = this.now() - this.idleMs();
		for (const [id, session] of this.sessions) {
			if (session.lastUsed > before) break;
			this.closeSession(id);
		}
	}
	closeSession(id) {
		const session = this.sessions.get(id);
		if (!session) return;
		this.sessions.delete(id);
		session.transport.close();
	}
	async close() {
		clearInterval(this.sweeper);
		const open = [...this.sessions.values()];
		this.sessions.clear();
		await Promise.all(open.map((s) => s.transport.close()));
	}
};
export { McpHttp, loopbackNames };
