import { A as invalidArgument } from "./front-BpLyP2oj.js";
import { b as unsafeIntegerIn } from "./args-Br0IqddQ.js";
// dist/ids.js
/**
* Identifiers are `<prefix>_<time><random>` in Crockford base32: sortable by
* creation time, 80 random bits, safe in URLs and file names.
*/
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";
const POOL_SIZE = 4096;
const pool = new Uint8Array(POOL_SIZE);
let poolOffset = POOL_SIZE;
/** Random bytes from a pooled buffer: one getrandom call per 4 KiB, not per id. */
function pooledRandom(size) {
	if (poolOffset + size > POOL_SIZE) {
		globalThis.crypto.getRandomValues(pool);
		poolOffset = 0;
	}
	const out = pool.subarray(poolOffset, poolOffset + size);
	poolOffset += size;
	return out;
}
/** `bytes` random bytes as lowercase hex (salts). */
function randomHex(bytes) {
	return Array.from(pooledRandom(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}
function encodeTime(ms) {
	let out = "";
	let t = ms;
	for (let i = 0; i < 10; i++) {
		out = ALPHABET[t % 32] + out;
		t = Math.floor(t / 32);
	}
	return out;
}
function encodeRandom(bytes) {
	let out = "";
	let acc = 0;
	let bits = 0;
	for (const byte of bytes) {
		acc = acc << 8 | byte;
		bits += 8;
		while (bits >= 5) {
			bits -= 5;
			out += ALPHABET[acc >> bits & 31];
		}
	}
	if (bits > 0) out += ALPHABET[acc << 5 - bits & 31];
	return out;
}
const ID_PREFIXES = {
	tenant: "tn",
	principal: "pr",
	token: "tk",
	session: "ss",
	branch: "br",
	event: "ev",
	line: "ln",
	workspace: "ws",
	snapshot: "sn",
	credential: "cr",
	grant: "gr",
	handle: "hd",
	approval: "ap",
	memory: "mr"
};
/** What an id with this prefix looks like: the prefix, `_`, 26 lowercase letters and digits. */
function idPattern(prefix) {
	return new RegExp(`^${prefix}_[0-9a-z]{26}$`);
}
function idMessage(prefix) {
	return `expected an id like ${prefix}_ followed by 26 lowercase letters and digits, as Cairn returned it`;
}
/**
* Text from outside (a command line) checked to be an id of one kind and
* typed so; INVALID_ARGUMENT naming `what` otherwise.
*/
function parseId(kind, text, what = kind) {
	const prefix = ID_PREFIXES[kind];
	if (!idPattern(prefix).test(text)) throw invalidArgument(`${what} "${text}": ${idMessage(prefix)}`, { field: what });
	return text;
}
/** parseId for an optional value: undefined stays undefined. */
function optionalId(kind, text, what = kind) {
	return text === void 0 ? void 0 : parseId(kind, text, what);
}
function newId(kind, now = Date.now()) {
	return `${ID_PREFIXES[kind]}_${encodeTime(now)}${encodeRandom(pooledRandom(10))}`;
}
/** A secret of 32 random bytes, base32 (52 characters). */
function newSecret() {
	return encodeRandom(globalThis.crypto.getRandomValues(/* @__PURE__ */ new Uint8Array(32)));
}
/**
* Refuses a value nested deeper than {@link MAX_INPUT_DEPTH}, or holding a
* number whose JSON form is an integer beyond ±2^53 − 1 — the literal HTTP's
* text check refuses, so a surface that hands over parsed values (MCP, the
* library) refuses what HTTP refuses. Iterative: no depth overflows the stack.
*/
function refuseUnsafeShape(input, what) {
	const stack = [[
		input,
		0,
		""
	]];
	while (stack.length > 0) {
		const [value, depth, path] = stack.pop();
		if (typeof value === "number") {
			if (Number.isInteger(value) && !Number.isSafeInteger(value) && unsafeIntegerIn(String(value))) throw invalidArgument(`${what}: ${path ? `${path}: ` : ""}the integer ${String(value).slice(0, 40)} is beyond what JSON numbers carry exactly (±${Number.MAX_SAFE_INTEGER}): send it as a string`, { field: path });
			continue;
		}
		if (value === null || typeof value !== "object" || ArrayBuffer.isView(value)) continue;
		if (!Array.isArray(value) && Object.getPrototypeOf(value) !== Object.prototype) continue;
		if (depth >= 256) throw invalidArgument(`${what}: ${path.split(".")[0] || "the input"} nests deeper than 256 levels: flatten it, or store it as text`, {
			field: path.split(".")[0] ?? "",
			maxDepth: 256
		});
		for (const [key, child] of Object.entries(value)) stack.push([
			child,
			depth + 1,
			depth < 4 ? path ? `${path}.${key}` : key : path
		]);
	}
}
/** Parses input at the public edge; a bad field becomes INVALID_ARGUMENT naming it. */
function parseInput(schema, input, what) {
	refuseUnsafeShape(input, what);
	const result = schema.safeParse(input ?? {});
	if (result.success) return result.data;
	const issue = result.error.issues[0];
	const field = issue.path.join(".");
	throw invalidArgument(`${what}: ${field ? `${field}: ` : ""}${issue.message}`, {
		field,
		issues: result.error.issues.map((i) => ({
			path: i.path.map(String),
			message: i.message
		}))
	});
}
export { newId as a, parseId as c, idPattern as i, randomHex as l, ID_PREFIXES as n, newSecret as o, idMessage as r, optionalId as s, parseInput as t };
