import { C as HTTP_STATUS, L as __exportAll, x as CairnError } from "./front-BpLyP2oj.js";
import { a as truncatePath, i as upstreamRequestHeaders, n as neverForwarded, r as responseHeaderAllowed, t as Keys } from "./keys-BKLLj72I.js";
import { join } from "node:path";
import { open, unlink } from "node:fs/promises";
import { createHash, randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import http from "node:http";
import https from "node:https";
import { Readable, pipeline } from "node:stream";
import { setTimeout as setTimeout$1 } from "node:timers/promises";
import zlib from "node:zlib";
var SpoolBudget = class {
	options;
	bytes = 0;
	perKey = /* @__PURE__ */ new Map();
	constructor(options) {
		this.options = options;
	}
	/** Takes `bytes` for a body of `key` (a branch handle), or says why not. */
	take(key, bytes) {
		const held = this.perKey.get(key) ?? 0;
		if (held >= this.options.perHandle) return {
			ok: false,
			rule: "spool_per_handle",
			limit: this.options.perHandle,
			message: `this branch already has ${held} request bodies in flight (at most ${this.options.perHandle}): wait for one to finish (a held write, for its approval) and send again`
		};
		if (this.bytes + bytes > this.options.maxBytes) return {
			ok: false,
			rule: "spool_full",
			limit: this.options.maxBytes,
			message: `the proxy holds ${this.bytes} bytes of request bodies (at most ${this.options.maxBytes}): send again shortly, or ask an admin for a larger cairn proxy --max-spool-bytes`
		};
		this.bytes += bytes;
		this.perKey.set(key, held + 1);
		let released = false;
		return {
			ok: true,
			release: () => {
				if (released) return;
				released = true;
				this.bytes -= bytes;
				const left = (this.perKey.get(key) ?? 1) - 1;
				if (left <= 0) this.perKey.delete(key);
				else this.perKey.set(key, left);
			}
		};
	}
	/** Bytes taken now (for tests and logs). */
	get taken() {
		return this.bytes;
	}
};
// dist/keys/proxy/echo-scanner.js
/** Shortest base64 core worth searching for: shorter ones would match innocent text. */
const MIN_CORE = 6;
/** The base64 characters that depend only on `secret`'s bytes, at alignment `offset` (0, 1, 2). */
function base64Core(secret, offset) {
	const text = Buffer.concat([
		Buffer.alloc(offset),
		secret,
		Buffer.alloc(2)
	]).toString("base64");
	const first = Math.ceil(8 * offset / 6);
	const end = Math.floor(8 * (offset + secret.length) / 6);
	return text.slice(first, end);
}
/** How long a run of a secret of `length` characters must be to count: max(16, ⌈¾ length⌉). */
function minRun(length) {
	return Math.max(16, Math.ceil(3 * length / 4));
}
const PERCENT = /%([0-9a-fA-F]{2})/g;
/** The JSON escapes that change what a secret looks like: `\uXXXX` (any case), `\/`, and line breaks. */
const JSON_ESCAPE = /\\(?:u([0-9a-fA-F]{4})|([/rnt]))/g;
const SIMPLE = {
	"/": "/",
	r: "\r",
	n: "\n",
	t: "	"
};
/** Characters of base64, base64url and hex runs (and of most secrets): a line break between two is cut. */
const RUN = /* @__PURE__ */ new Uint8Array(128);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-") RUN[c.charCodeAt(0)] = 1;
function decodePercent(text) {
	return text.replace(PERCENT, (_, hex) => String.fromCharCode(Number.parseInt(hex, 16)));
}
function decodeJson(text) {
	return text.replace(JSON_ESCAPE, (_, hex, c) => hex !== void 0 ? String.fromCharCode(Number.parseInt(hex, 16)) : SIMPLE[c]);
}
/**
* Joins runs broken into lines: a line break (LF or CRLF, then any spaces or
* tabs, as MIME and folded text have them) between two run characters is
* cut out. Other whitespace stays: text is not run together.
*/
function joinLines(text) {
	let at = text.indexOf("\n");
	let out = "";
	let from = 0;
	while (at !== -1) {
		const start = at > 0 && text.charCodeAt(at - 1) === 13 ? at - 1 : at;
		if (start > 0 && RUN[text.charCodeAt(start - 1)] === 1) {
			let end = at + 1;
			while (end < text.length && (text.charCodeAt(end) === 32 || text.charCodeAt(end) === 9)) end++;
			if (RUN[text.charCodeAt(end)] === 1) {
				out += text.slice(from, start);
				from = end;
			}
		}
		at = text.indexOf("\n", at + 1);
	}
	return from === 0 ? text : out + text.slice(from);
}
/** The text as searched: percent-decoded twice, JSON-unescaped, runs broken into lines joined. */
function canonical(text) {
	let out = text;
	if (out.includes("%")) out = decodePercent(decodePercent(out));
	if (out.includes("\\")) out = decodeJson(out);
	return joinLines(out);
}
var SecretForms = class {
	/** Secrets shorter than MIN_RUN, lower-cased: found whole only. */
	whole = [];
	/** Secrets of MIN_RUN characters or more: found whole or as a long run. */
	runs = [];
	/** Hex of each secret (lower case). */
	hex = [];
	/** Case-sensitive patterns: base64 and base64url cores. */
	exact = [];
	/**
	* How many bytes of a stream a match may span, encoded at its widest (hex
	* with each character a `\uXXXX` escape, or each byte percent-encoded
	* twice, plus line breaks): a scanner keeps this many bytes back across
	* chunk edges.
	*/
	window;
	constructor(secrets) {
		let longest = 0;
		for (const secret of new Set(secrets)) {
			if (secret.length < 4) continue;
			const bytes = Buffer.from(secret, "latin1");
			longest = Math.max(longest, bytes.length);
			const lower = secret.toLowerCase();
			if (lower.length < 16) this.whole.push(lower);
			else {
				const min = minRun(lower.length);
				const middleAt = lower.length - min;
				this.runs.push({
					secret: lower,
					middle: lower.slice(middleAt, min),
					middleAt,
					min
				});
			}
			this.hex.push(bytes.toString("hex"));
			for (let offset = 0; offset < 3; offset++) {
				const core = base64Core(bytes, offset);
				if (core.length < MIN_CORE) continue;
				this.exact.push(core);
				const url = core.replace(/\+/g, "-").replace(/\//g, "_");
				if (url !== core) this.exact.push(url);
			}
		}
		this.window = longest === 0 ? 0 : 12 * longest + 64;
	}
	get empty() {
		return this.hex.length === 0;
	}
	/** The first form of a secret found in `data`, or undefined. */
	find(data) {
		if (this.hex.length === 0) return void 0;
		const text = canonical(typeof data === "string" ? data : data.toString("latin1"));
		for (const p of this.exact) if (text.includes(p)) return { form: "base64" };
		const lower = text.toLowerCase();
		for (const run of this.runs) {
			const length = longestRun(lower, run);
			if (length >= run.min) return { form: length === run.secret.length ? "plain" : "partial" };
		}
		for (const p of this.whole) if (lower.includes(p)) return { form: "plain" };
		for (const p of this.hex) if (lower.includes(p)) return { form: "hex" };
	}
};
/** The longest stretch of `run.secret` in `text` that holds its middle (0 when none does). */
function longestRun(text, run) {
	const { secret, middle, middleAt } = run;
	let best = 0;
	for (let at = text.indexOf(middle); at !== -1; at = text.indexOf(middle, at + 1)) {
		let left = 0;
		while (left < middleAt && at - left - 1 >= 0 && text[at - left - 1] === secret[middleAt - left - 1]) left++;
		let right = middleAt + middle.length;
		let t = at + middle.length;
		while (right < secret.length && t < text.length && text[t] === secret[right]) {
			right++;
			t++;
		}
		best = Math.max(best, left + (right - middleAt));
	}
	return best;
}
/**
* A streaming scan with bounded memory: each chunk is searched together
* with the last `window` bytes before it, and those bytes are held back
* until the next chunk (or the end) shows they start no match. So no part of
* a secret split across chunks is ever passed on.
*/
var EchoGuard = class {
	forms;
	carry = Buffer.alloc(0);
	constructor(forms) {
		this.forms = forms;
	}
	/** The bytes now safe to pass on, or the hit that ends the stream. */
	write(chunk) {
		const data = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk;
		const hit = this.forms.find(data);
		if (hit) return hit;
		const keep = this.forms.window;
		if (data.length <= keep) {
			this.carry = data;
			return Buffer.alloc(0);
		}
		this.carry = Buffer.from(data.subarray(data.length - keep));
		return data.subarray(0, data.length - keep);
	}
	/** The bytes still held back, at the end of the stream (they were scanned with the last chunk). */
	end() {
		const rest = this.carry;
		this.carry = Buffer.alloc(0);
		return rest;
	}
};
// dist/keys/proxy/flood.js
var RefusalLimiter = class {
	options;
	buckets = /* @__PURE__ */ new Map();
	sinkIds = /* @__PURE__ */ new WeakMap();
	nextSinkId = 0;
	pending = /* @__PURE__ */ new Set();
	constructor(options) {
		this.options = options;
	}
	/** Records one refusal without a valid handle; resolves once it is audited, or at once when it is only counted. */
	refuse(sink, refusal) {
		const record = this.record(refusal);
		return this.admit(this.sinkKey(sink, refusal.address), (r) => sink.recordHandleRefusal(r), "requests without a valid branch handle", record) ? this.track(sink.recordHandleRefusal(record)) : Promise.resolve();
	}
	/**
	* Whether a refusal is audited on its own: true for the first `burst` of
	* `key`'s window; otherwise it is counted (by rule) into the summary that
	* `write` records when the window closes.
	*/
	admit(key, write, what, refusal) {
		const now = (this.options.now ?? Date.now)();
		let bucketKey = key;
		let address = refusal.address;
		if (!this.buckets.has(bucketKey) && this.buckets.size >= this.options.maxAddresses) {
			bucketKey = `${key.split(" ")[0]} *`;
			address = "*";
		}
		let bucket = this.buckets.get(bucketKey);
		if (!bucket) {
			const timer = setTimeout(() => this.close(bucketKey), this.options.windowMs);
			timer.unref();
			bucket = {
				write,
				what,
				address,
				start: now,
				audited: 0,
				suppressed: 0,
				rules: {},
				timer
			};
			this.buckets.set(bucketKey, bucket);
		}
		if (bucket.audited < this.options.burst) {
			bucket.audited++;
			return true;
		}
		const record = this.record({
			...refusal,
			address
		});
		bucket.suppressed++;
		const rule = refusal.rule ?? "handle";
		bucket.rules[rule] = (bucket.rules[rule] ?? 0) + 1;
		bucket.first ??= record;
		bucket.last = record;
		return false;
	}
	sinkKey(sink, address) {
		let sinkId = this.sinkIds.get(sink);
		if (sinkId === void 0) {
			sinkId = this.nextSinkId++;
			this.sinkIds.set(sink, sinkId);
		}
		return `${sinkId} ${address}`;
	}
	record(refusal) {
		return {
			...refusal,
			path: truncatePath(refusal.path),
			reason: refusal.reason.slice(0, 300),
			count: 1
		};
	}
	track(write) {
		const done = write.catch(this.options.onError).finally(() => this.pending.delete(done));
		this.pending.add(done);
		return done;
	}
	/** Ends a window: the refusals only counted in it become one audit entry. */
	close(key) {
		const bucket = this.buckets.get(key);
		if (!bucket) return;
		this.buckets.delete(key);
		clearTimeout(bucket.timer);
		if (bucket.suppressed === 0 || !bucket.first) return;
		const end = (this.options.now ?? Date.now)();
		this.track(bucket.write({
			...bucket.first,
			address: bucket.address,
			reason: `${bucket.suppressed} more ${bucket.what} (first: ${bucket.first.reason})`,
			count: bucket.suppressed,
			rules: bucket.rules,
			windowStart: bucket.start,
			windowEnd: end,
			lastPath: bucket.last?.path ?? ""
		}));
	}
	/** Closes every window (their summaries are written) and waits for pending audit writes. */
	async flush() {
		for (const key of [...this.buckets.keys()]) this.close(key);
		while (this.pending.size > 0) await Promise.all([...this.pending]);
	}
};
const DECODERS = {
	gzip: () => zlib.createGunzip(),
	"x-gzip": () => zlib.createGunzip(),
	deflate: () => zlib.createInflate(),
	br: () => zlib.createBrotliDecompress()
};
function relayResponse(up, res, ctx) {
	const status = up.statusCode ?? 502;
	const out = {};
	const echoed = [];
	for (const [name, value] of Object.entries(up.headers)) {
		if (value === void 0 || !responseHeaderAllowed(name, ctx.extra)) continue;
		if (ctx.forms.find(Array.isArray(value) ? value.join("\n") : value)) {
			echoed.push(name);
			continue;
		}
		out[name] = value;
	}
	const noBody = ctx.method === "HEAD" || status === 204 || status === 304 || status < 200;
	return (async () => {
		if (echoed.length > 0) await ctx.onLeak({
			where: "header",
			form: "header",
			headers: echoed
		});
		if (noBody) {
			up.resume();
			res.writeHead(status, out);
			res.end();
			return;
		}
		const encoding = String(up.headers["content-encoding"] ?? "identity").trim().toLowerCase();
		let source = up;
		if (encoding !== "identity" && encoding !== "") {
			const decoder = DECODERS[encoding];
			if (!decoder) {
				up.destroy();
				ctx.answer(502, "UNAVAILABLE", `the upstream answered in content-encoding ${encoding.slice(0, 40)}, which the proxy cannot scan: nothing of it was passed on`, { rule: "encoding" });
				return;
			}
			const decoded = decoder();
			pipeline(up, decoded, () => {});
			source = decoded;
		}
		delete out["content-length"];
		await streamScanned(source, up, res, status, out, ctx);
	})();
}
function streamScanned(source, up, res, status, out, ctx) {
	return new Promise((resolve) => {
		const guard = new EchoGuard(ctx.forms);
		let held = [];
		let heldBytes = 0;
		let streaming = false;
		let sent = 0;
		let done = false;
		const finish = () => {
			if (done) return;
			done = true;
			resolve();
		};
		const leak = (hit) => {
			done = true;
			source.destroy();
			up.destroy();
			ctx.onLeak({
				where: "body",
				form: hit.form,
				bytesSent: sent
			}).catch(() => {}).finally(() => {
				if (res.headersSent) res.destroy();
				else ctx.answer(502, "UNAVAILABLE", `the upstream's answer held the injected credential (${hit.form}): it was withheld and the event audited as keys.leak; nothing of the answer reached you`, {
					rule: "secret_echo",
					form: hit.form
				});
				resolve();
			});
		};
		const send = (bytes) => {
			if (bytes.length === 0) return;
			sent += bytes.length;
			if (!res.write(bytes)) source.pause();
		};
		source.on("data", (chunk) => {
			if (done) return;
			const safe = guard.write(chunk);
			if (!Buffer.isBuffer(safe)) {
				leak(safe);
				return;
			}
			if (streaming) {
				send(safe);
				return;
			}
			if (safe.length > 0) held.push(safe);
			heldBytes += safe.length;
			if (heldBytes >= ctx.holdBytes) {
				streaming = true;
				res.writeHead(status, out);
				const parts = held;
				held = [];
				for (const part of parts) send(part);
			}
		});
		res.on("drain", () => source.resume());
		source.on("end", () => {
			if (done) return;
			const rest = guard.end();
			if (streaming) {
				sent += rest.length;
				res.end(rest);
			} else {
				const body = Buffer.concat([...held, rest]);
				res.writeHead(status, {
					...out,
					"content-length": String(body.length)
				});
				res.end(body);
			}
			finish();
		});
		source.on("error", (error) => {
			if (done) return;
			done = true;
			up.destroy();
			if (res.headersSent) res.destroy();
			else ctx.answer(502, "UNAVAILABLE", `the upstream's answer broke off: ${error.message}`, { rule: "upstream" });
			resolve();
		});
		res.on("close", () => {
			if (!res.writableFinished) {
				source.destroy();
				up.destroy();
			}
			finish();
		});
	});
}
const HEAD_BYTES = 8192;
var SpooledBody = class SpooledBody {
	bytes;
	digest;
	head;
	memory;
	file;
	constructor(bytes, digest, head, memory, file) {
		this.bytes = bytes;
		this.digest = digest;
		this.head = head;
		this.memory = memory;
		this.file = file;
	}
	static empty() {
		return new SpooledBody(0, createHash("sha256").digest("hex"), Buffer.alloc(0), [], void 0);
	}
	/**
	* Reads `req` to its end, or stops at `limit` bytes (then the rest is left
	* unread: the caller answers 413 and closes the connection).
	*/
	static async read(req, options) {
		const memoryBytes = options.memoryBytes ?? 65536;
		const hash = createHash("sha256");
		const memory = [];
		let size = 0;
		let file;
		if (await new Promise((resolve, reject) => {
			let writing = Promise.resolve();
			const fail = (error) => {
				req.off("data", onData);
				reject(error);
			};
			const onData = (chunk) => {
				size += chunk.length;
				if (size > options.limit) {
					req.off("data", onData);
					req.off("end", onEnd);
					req.pause();
					writing.then(() => resolve("too-large"), fail);
					return;
				}
				hash.update(chunk);
				if (!file && size <= memoryBytes) {
					memory.push(chunk);
					return;
				}
				req.pause();
				writing = writing.then(async () => {
					if (!file) {
						file = await openUnlinked(options.dir ?? tmpdir());
						for (const part of memory) await file.write(part);
						memory.length = 0;
					}
					await file.write(chunk);
					req.resume();
				}).catch(fail);
			};
			const onEnd = () => writing.then(() => resolve("done"), fail);
			req.on("data", onData);
			req.once("end", onEnd);
			req.once("error", fail);
			req.once("close", () => {
				if (!req.complete) fail(/* @__PURE__ */ new Error("the client closed the connection before its request body arrived"));
			});
		}).catch(async (error) => {
			await file?.close().catch(() => {});
			throw error;
		}) === "too-large") {
			await file?.close().catch(() => {});
			return {
				ok: false,
				tooLarge: true,
				read: size
			};
		}
		const head = file ? await readHead(file) : Buffer.concat(memory).subarray(0, HEAD_BYTES);
		return {
			ok: true,
			body: new SpooledBody(size, hash.digest("hex"), head, memory, file)
		};
	}
	/** Whether the body went to a temporary file. */
	get spooled() {
		return this.file !== void 0;
	}
	/** The body's bytes from the start; may be called more than once. */
	stream() {
		if (!this.file) return Readable.from(this.memory.length > 0 ? [Buffer.concat(this.memory)] : []);
		return this.file.createReadStream({
			start: 0,
			autoClose: false
		});
	}
	async discard() {
		await this.file?.close().catch(() => {});
	}
};
async function openUnlinked(dir) {
	const path = join(dir, `cairn-proxy-body-${randomBytes(12).toString("hex")}`);
	const file = await open(path, "wx+", 384);
	try {
		await unlink(path);
	} catch (error) {
		await file.close().catch(() => {});
		throw error;
	}
	return file;
}
async function readHead(file) {
	const head = Buffer.alloc(HEAD_BYTES);
	const { bytesRead } = await file.read(head, 0, HEAD_BYTES, 0);
	return head.subarray(0, bytesRead);
}
// dist/keys/proxy/unguarded.js
/**
* The proxy's header handling and response relay with the allow-lists and
* the echo scan switched off: a deny-list of hop-by-hop and credential
* headers and an unscanned pipe. For the benchmark's baseline only
* (`ProxyOptions.unguardedForBench`), so it measures what the guards cost;
* never for real traffic.
*/
const DROPPED_REQUEST = /* @__PURE__ */ new Set([
	"host",
	"connection",
	"keep-alive",
	"proxy-authorization",
	"proxy-connection",
	"te",
	"trailer",
	"transfer-encoding",
	"upgrade",
	"authorization",
	"content-length",
	"x-cairn-handle",
	"x-cairn-approval"
]);
const DROPPED_RESPONSE = /* @__PURE__ */ new Set([
	"connection",
	"keep-alive",
	"transfer-encoding",
	"trailer",
	"upgrade",
	"set-cookie"
]);
function unguardedRequestHeaders(incoming, inject) {
	const headers = {};
	for (const [name, value] of Object.entries(incoming)) if (value !== void 0 && !DROPPED_REQUEST.has(name)) headers[name] = value;
	return Object.assign(headers, inject);
}
function relayUnguarded(up, res) {
	const out = {};
	for (const [name, value] of Object.entries(up.headers)) if (value !== void 0 && !DROPPED_RESPONSE.has(name)) out[name] = value;
	res.writeHead(up.statusCode ?? 502, out);
	return new Promise((resolve) => pipeline(up, res, () => resolve()));
}
// dist/keys/proxy.js
var proxy_exports = /* @__PURE__ */ __exportAll({ startProxy: () => startProxy });
/**
* The egress proxy: a reverse proxy, not a man-in-the-middle. A branch calls
* `http://127.0.0.1:PORT/<credential>/<path>` with its branch handle in
* `x-cairn-handle`; the proxy asks the keys layer for a decision (one
* transaction: grant check, use counted, audit entry) and forwards to the
* credential's upstream with the secret injected, holds a write until a
* person approves it, or answers 403 with the reason. Nothing is forwarded
* before the decision is durable.
*
* What is sent is what is judged: a request with a body is a write whatever
* its method; headers pass by allow-list (`proxy/headers.ts`); paths are
* judged as an upstream might normalise them (`proxy/paths.ts`); what comes
* back is scanned for the secret (`proxy/relay.ts`). The handle is checked
* before a body is read, bodies spool (`proxy/spool.ts`), and refusals
* without a handle are audited in bounded form (`proxy/flood.ts`).
*/
const HANDLE_HEADER = "x-cairn-handle";
/** On every answer the proxy itself gives (a refusal, a timeout): its error code. */
const ERROR_HEADER = "x-cairn-error";
function answer(res, status, code, message, data = {}, close = false) {
	if (res.headersSent) {
		res.destroy();
		return;
	}
	const body = JSON.stringify({
		code,
		message,
		data
	});
	res.writeHead(status, {
		"content-type": "application/json",
		[ERROR_HEADER]: code,
		"content-length": Buffer.byteLength(body),
		...close ? { connection: "close" } : {}
	});
	res.end(body);
}
/** The client waits for `100 Continue` before it sends the body. */
function expectsContinue(req) {
	return String(req.headers.expect ?? "").toLowerCase() === "100-continue";
}
/** Content-Length > 0 or any Transfer-Encoding: the request carries a body. */
function carriesBody(req) {
	if (req.headers["transfer-encoding"] !== void 0) return true;
	const length = Number(req.headers["content-length"] ?? 0);
	return !Number.isFinite(length) || length > 0;
}
/** Names of routing overrides and other never-forwarded headers the agent sent (for the audit entry). */
const ROUTINE = /* @__PURE__ */ new Set([
	"host",
	"connection",
	"content-length",
	"transfer-encoding",
	"keep-alive",
	"accept-encoding"
]);
function refusedHeaderNames(req) {
	return Object.keys(req.headers).filter((name) => !ROUTINE.has(name) && !name.startsWith("x-cairn-") && neverForwarded(name) !== void 0).slice(0, 16);
}
async function startProxy(options) {
	const agents = {
		"http:": new http.Agent({
			keepAlive: true,
			maxSockets: 64
		}),
		"https:": new https.Agent({
			keepAlive: true,
			maxSockets: 64
		})
	};
	const defaultLimit = options.maxBodyBytes ?? 8388608;
	const timeoutMs = options.approvalTimeoutMs ?? 3e5;
	const pollMs = options.pollMs ?? 100;
	const upstreamTimeoutMs = options.upstreamTimeoutMs ?? 6e4;
	const holdBytes = options.holdBytes ?? 65536;
	const guarded = options.unguardedForBench !== true;
	const log = options.log ?? (() => {});
	const limiter = new RefusalLimiter({
		windowMs: options.refusalWindowMs ?? 6e4,
		burst: options.refusalBurst ?? 10,
		maxAddresses: 1024,
		onError: (error) => log(`proxy: a refusal could not be audited (${error.message})`)
	});
	const handleLimiter = new RefusalLimiter({
		windowMs: options.refusalWindowMs ?? 6e4,
		burst: options.handleRefusalBurst ?? 20,
		maxAddresses: 1024,
		onError: (error) => log(`proxy: a refusal summary could not be audited (${error.message})`)
	});
	const budget = new SpoolBudget({
		maxBytes: options.maxSpoolBytes ?? 268435456,
		perHandle: options.maxBodiesPerHandle ?? 4
	});
	/** Secret forms per injected value set: built once per credential version, not per request. */
	const formsCache = /* @__PURE__ */ new Map();
	let closing = false;
	function formsFor(inject) {
		const values = Object.values(inject);
		const key = values.join("\n");
		let forms = formsCache.get(key);
		if (!forms) {
			forms = new SecretForms(values.flatMap((v) => {
				const bare = v.replace(/^(Bearer|Basic) /, "");
				if (!v.startsWith("Basic ")) return [bare];
				const pair = Buffer.from(bare, "base64").toString("latin1");
				return [
					bare,
					pair,
					pair.slice(pair.indexOf(":") + 1)
				];
			}));
			if (formsCache.size > 256) formsCache.clear();
			formsCache.set(key, forms);
		}
		return forms;
	}
	async function waitForDecision(keys, approval, gone) {
		for (;;) {
			const now = Date.now();
			if (closing || gone() || now >= approval.expiresAt) return approval;
			await setTimeout$1(Math.min(pollMs, Math.max(1, approval.expiresAt - now)));
			const current = await keys.getApproval(approval.id);
			if (current.state !== "pending") return current;
		}
	}
	async function handle(req, res) {
		const raw = req.url ?? "/";
		const match = /^\/([^/?]+)(\/[^?]*)?(\?.*)?$/s.exec(raw);
		const hasBody = carriesBody(req);
		if (!match) {
			answer(res, 404, "NOT_FOUND", "call the proxy as /<credential>/<path>, with x-cairn-handle set", {}, hasBody);
			return;
		}
		let credential;
		try {
			credential = decodeURIComponent(match[1]);
		} catch {
			answer(res, 404, "NOT_FOUND", "the credential name is not valid percent-encoding", {}, hasBody);
			return;
		}
		const pathAndQuery = `${match[2] ?? "/"}${match[3] ?? ""}`;
		const path = pathAndQuery.split("?")[0] ?? "/";
		const handleHeader = req.headers[HANDLE_HEADER];
		const handle = typeof handleHeader === "string" ? handleHeader : "";
		const tenant = Keys.handleTenant(handle);
		const keys = (tenant ? options.keysFor(tenant) : void 0) ?? options.auditRefusalsIn;
		const method = (req.method ?? "GET").toUpperCase();
		/** A request without a valid handle: refused before its body is read, audited in bounded form. */
		const refuseHandle = async (reason) => {
			log(`proxy: 403 ${method} ${credential.slice(0, 64)} (no valid branch handle)`);
			if (keys) await limiter.refuse(keys, {
				address: req.socket.remoteAddress ?? "",
				method: method.slice(0, 16),
				credential,
				path,
				reason
			});
			answer(res, 403, "FORBIDDEN", `${reason}: a branch handle is required in ${HANDLE_HEADER} (cairn exec --branch sets CAIRN_HANDLE)`, { rule: "handle" }, hasBody);
		};
		if (!keys || !tenant) {
			await refuseHandle("the branch handle is missing or malformed");
			return;
		}
		const base = {
			handle,
			credential,
			method,
			pathAndQuery,
			hasBody,
			droppedHeaders: refusedHeaderNames(req)
		};
		const address = req.socket.remoteAddress ?? "";
		/** Refusals of this valid handle: the first of a window audited one by one, the rest counted. */
		let admitted;
		const auditDenial = (rule, reason) => {
			admitted ??= handleLimiter.admit(`h ${handle}`, (r) => keys.recordProxyEvent("keys.deny", {
				handle,
				credential: r.credential,
				method: r.method,
				pathAndQuery: r.path
			}, {
				reason: r.reason,
				rule: r.rule,
				count: r.count,
				rules: r.rules,
				windowStart: r.windowStart,
				windowEnd: r.windowEnd,
				lastPath: r.lastPath
			}), "refusals of this branch handle", {
				address,
				method: method.slice(0, 16),
				credential: credential.slice(0, 64),
				path,
				reason,
				rule
			});
			return admitted;
		};
		/** A refusal decided here (not by the grants): audited in bounded form, answered, the body unread. */
		const refuse = async (status, code, message, data) => {
			log(`proxy: ${status} ${method} ${credential.slice(0, 64)} ${path.slice(0, 128)} (${data.rule})`);
			if (auditDenial(data.rule, message)) await keys.recordProxyEvent("keys.deny", base, {
				reason: message,
				...data
			});
			answer(res, status, code, message, data, true);
		};
		let body = SpooledBody.empty();
		let release = () => {};
		if (hasBody) {
			const preflight = await keys.proxyPreflight(handle, credential, {
				method,
				pathAndQuery
			});
			if (preflight.handle !== "ok") {
				await refuseHandle(preflight.handle);
				return;
			}
			const declared = Number(req.headers["content-length"] ?? 0);
			if ("bodyMatters" in preflight && !preflight.bodyMatters) {
				const unread = {
					bytes: Number.isFinite(declared) ? declared : 0,
					digest: "",
					head: Buffer.alloc(0)
				};
				const decision = await keys.authorizeRequest({
					...base,
					body: unread
				}, {
					auditHandleRefusals: false,
					bodyUnread: true,
					auditDenial
				});
				if (decision.outcome === "deny") {
					if (decision.rule === "handle") await refuseHandle(decision.message.split(":")[0] ?? decision.message);
					else {
						log(`proxy: ${decision.status} ${method} ${credential} ${path} denied (${decision.rule}, body unread)`);
						answer(res, decision.status, decision.code, decision.message, { rule: decision.rule }, true);
					}
					return;
				}
			}
			const limit = ("options" in preflight ? preflight.options?.maxBodyBytes : null) ?? defaultLimit;
			const tooLarge = () => refuse(413, "PAYLOAD_TOO_LARGE", `the request body is over ${limit} bytes, this credential's limit: send less, or ask an admin for a larger --max-body-bytes`, {
				rule: "body_too_large",
				limit
			});
			if (declared > limit) {
				await tooLarge();
				return;
			}
			const share = budget.take(handle, declared > 0 ? declared : limit);
			if (!share.ok) {
				res.setHeader("retry-after", "1");
				await refuse(503, "UNAVAILABLE", share.message, {
					rule: share.rule,
					limit: share.limit
				});
				return;
			}
			release = share.release;
			if (expectsContinue(req)) res.writeContinue();
			const read = await SpooledBody.read(req, {
				limit,
				dir: options.spoolDir
			}).catch((error) => {
				release();
				throw error;
			});
			if (!read.ok) {
				release();
				await tooLarge();
				return;
			}
			body = read.body;
		}
		try {
			await decideAndForward(req, res, keys, {
				...base,
				body
			}, body, refuseHandle, auditDenial);
		} finally {
			await body.discard();
			release();
		}
	}
	async function decideAndForward(req, res, keys, request, body, refuseHandle, auditDenial) {
		const { method, credential } = request;
		const path = request.pathAndQuery.split("?")[0];
		const gone = () => res.destroyed || req.socket.destroyed;
		const decisionOptions = {
			approvalTimeoutMs: timeoutMs,
			auditHandleRefusals: false,
			auditDenial
		};
		let decision = await keys.authorizeRequest(request, decisionOptions);
		if (decision.outcome === "hold") {
			const held = decision.approval;
			log(`proxy: hold ${method} ${credential} ${path} branch=${held.branch} approval=${held.id}`);
			const settled = await waitForDecision(keys, held, gone);
			if (settled.state === "approved" && !gone()) decision = await keys.authorizeRequest({
				...request,
				approval: held.id
			}, decisionOptions);
			else {
				if (settled.state === "pending") await keys.expireApproval(held.id);
				const why = settled.state === "denied" ? `denied by ${settled.decidedBy}` : settled.state === "pending" ? `not decided within ${timeoutMs} ms` : settled.state;
				log(`proxy: 403 ${method} ${credential} ${path} approval=${held.id} ${settled.state === "pending" ? "expired" : settled.state}`);
				answer(res, 403, "FORBIDDEN", `the write was not approved (${why}): nothing was sent upstream`, {
					approval: held.id,
					state: settled.state === "pending" ? "expired" : settled.state,
					rule: "approval"
				});
				return;
			}
		}
		if (decision.outcome === "deny") {
			if (decision.rule === "handle") {
				await refuseHandle(decision.message.split(":")[0] ?? decision.message);
				return;
			}
			log(`proxy: ${decision.status} ${method} ${credential} ${path} denied (${decision.rule})`);
			answer(res, decision.status, decision.code, decision.message, { rule: decision.rule });
			return;
		}
		if (decision.outcome === "hold" || decision.outcome === "read_body") {
			answer(res, 403, "FORBIDDEN", "the approval could not be used", { rule: "approval" });
			return;
		}
		await forward(req, res, keys, request, body, decision);
	}
	async function forward(req, res, keys, request, body, decision) {
		const { method, credential } = request;
		const extra = new Set(decision.options.allowHeaders);
		const headers = guarded ? upstreamRequestHeaders(req.headers, extra, decision.inject).headers : unguardedRequestHeaders(req.headers, decision.inject);
		headers["content-length"] = String(body.bytes);
		const target = new URL(decision.url);
		const agent = agents[target.protocol];
		const lib = target.protocol === "https:" ? https : http;
		const grant = decision.grant;
		const forms = formsFor(decision.inject);
		await new Promise((resolve) => {
			const upstream = lib.request(target, {
				method,
				headers,
				agent,
				timeout: upstreamTimeoutMs
			}, (up) => {
				log(`proxy: ${up.statusCode} ${method} ${credential} ${target.pathname} grant=${grant}`);
				(guarded ? relayResponse(up, res, {
					method,
					extra,
					forms,
					holdBytes,
					onLeak: async (detail) => {
						log(`proxy: leak ${method} ${credential} ${target.pathname} grant=${grant} (${detail.where})`);
						await keys.recordProxyEvent("keys.leak", request, {
							...decision.attribution,
							url: decision.url,
							status: up.statusCode,
							...detail
						});
					},
					answer: (status, code, message, data) => answer(res, status, code, message, data)
				}) : relayUnguarded(up, res)).then(resolve, (error) => {
					log(`proxy: relay failed (${error.message})`);
					res.destroy();
					resolve();
				});
			});
			upstream.on("timeout", () => upstream.destroy(/* @__PURE__ */ new Error("the upstream timed out")));
			upstream.on("error", (error) => {
				log(`proxy: 502 ${method} ${credential} ${target.pathname} grant=${grant} (${error.message})`);
				answer(res, 502, "UNAVAILABLE", `the upstream did not answer: ${error.code ?? error.message}`, { rule: "upstream" });
				resolve();
			});
			res.on("close", () => {
				if (!res.writableFinished) upstream.destroy();
			});
			if (body.bytes === 0) upstream.end();
			else pipeline(body.stream(), upstream, () => {});
		});
	}
	const onRequest = (req, res) => {
		handle(req, res).catch((error) => {
			const e = error instanceof CairnError ? error : null;
			log(`proxy: 500 ${req.method} (${e ? e.code : "INTERNAL"})`);
			answer(res, e ? HTTP_STATUS[e.code] : 500, e?.code ?? "INTERNAL", e?.message ?? "the proxy failed: see its log");
		});
	};
	const headersTimeout = options.headersTimeoutMs ?? 1e4;
	const requestTimeout = Math.max(options.requestTimeoutMs ?? 6e4, headersTimeout);
	const server = http.createServer({
		headersTimeout,
		requestTimeout,
		connectionsCheckingInterval: Math.max(10, Math.min(3e4, Math.floor(headersTimeout / 4)))
	}, onRequest);
	server.on("checkContinue", onRequest);
	server.keepAliveTimeout = 6e4;
	await new Promise((resolve, reject) => {
		server.once("error", reject);
		server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
	});
	const port = server.address().port;
	return {
		url: `http://${options.host ?? "127.0.0.1"}:${port}`,
		port,
		async close() {
			closing = true;
			server.closeAllConnections();
			await new Promise((resolve) => server.close(() => resolve()));
			agents["http:"].destroy();
			agents["https:"].destroy();
			await limiter.flush();
			await handleLimiter.flush();
		}
	};
}
export { startProxy as n, proxy_exports as t };
