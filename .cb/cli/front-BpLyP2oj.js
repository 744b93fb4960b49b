import "node:module";
import { lstatSync, mkdirSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { createHash } from "node:crypto";
import { connect } from "node:net";
// \0rolldown/runtime.js
var __defProp = Object.defineProperty;
var __exportAll = (all, no_symbols) => {
	let target = {};
	for (var name in all) __defProp(target, name, {
		get: all[name],
		enumerable: true
	});
	if (!no_symbols) __defProp(target, Symbol.toStringTag, { value: "Module" });
	return target;
};
// dist/errors.js
/**
* The closed set of error codes Cairn reports. Codes are stable strings: they
* cross HTTP, MCP and the CLI unchanged, so callers may switch on them.
*/
const ERROR_CODES = [
	"INVALID_ARGUMENT",
	"NOT_FOUND",
	"CONFLICT",
	"FORBIDDEN",
	"UNAUTHENTICATED",
	"PAYLOAD_TOO_LARGE",
	"UNSUPPORTED_FORMAT",
	"CORRUPT",
	"UNAVAILABLE",
	"IN_DOUBT",
	"DIVERGED",
	"INTERNAL"
];
/** HTTP status for each code; the server and the remote client share this table. */
const HTTP_STATUS = {
	INVALID_ARGUMENT: 400,
	UNAUTHENTICATED: 401,
	FORBIDDEN: 403,
	NOT_FOUND: 404,
	CONFLICT: 409,
	IN_DOUBT: 409,
	DIVERGED: 409,
	PAYLOAD_TOO_LARGE: 413,
	UNSUPPORTED_FORMAT: 500,
	CORRUPT: 500,
	INTERNAL: 500,
	UNAVAILABLE: 503
};
/** Every error Cairn raises on purpose. The message says what was wrong and what to do. */
var CairnError = class CairnError extends Error {
	code;
	data;
	constructor(code, message, data = {}, options) {
		super(message, options);
		this.name = "CairnError";
		this.code = code;
		this.data = data;
	}
	toJSON() {
		return {
			code: this.code,
			message: this.message,
			data: this.data
		};
	}
	static fromJSON(json) {
		const code = ERROR_CODES.includes(json.code) ? json.code : "INTERNAL";
		return new CairnError(code, json.message, json.data ?? {});
	}
};
function isCairnError(value, code) {
	return value instanceof CairnError && (code === void 0 || value.code === code);
}
/** Bad input: the message says what was wrong and what to give instead. */
function invalidArgument(message, data = {}, options) {
	return new CairnError("INVALID_ARGUMENT", message, data, options);
}
function notFound(what, idOrData = {}, options) {
	if (typeof idOrData === "string") {
		const data = {
			resource: what,
			id: idOrData
		};
		return new CairnError("NOT_FOUND", `${what} ${idOrData} not found: check the id, and that it belongs to your tenant`, data);
	}
	return new CairnError("NOT_FOUND", what, idOrData, options);
}
/** The state is not what the request assumed (taken name, moved head, decided approval). */
function conflict(message, data = {}, options) {
	return new CairnError("CONFLICT", message, data, options);
}
/** The caller is known but may not do this. */
function forbidden(message, data = {}, options) {
	return new CairnError("FORBIDDEN", message, data, options);
}
/** No caller could be established (no token, a bad one). */
function unauthenticated(message, data = {}, options) {
	return new CairnError("UNAUTHENTICATED", message, data, options);
}
/** A body or payload over its limit. */
function payloadTooLarge(message, data, options) {
	return new CairnError("PAYLOAD_TOO_LARGE", message, data, options);
}
/** A store in a format this Cairn does not read. */
function unsupportedFormat(message, data, options) {
	return new CairnError("UNSUPPORTED_FORMAT", message, data, options);
}
/** Stored bytes that fail their own checks: the store is damaged. */
function corrupt(message, data = {}, options) {
	return new CairnError("CORRUPT", message, data, options);
}
/** Something needed is not there now (a closed store, a full disk, an unreachable server); retrying may help. */
function unavailable(message, data = {}, options) {
	return new CairnError("UNAVAILABLE", message, data, options);
}
/** A write that may or may not have happened: read back before retrying. */
function inDoubt(message, data = {}, options) {
	return new CairnError("IN_DOUBT", message, data, options);
}
/** A replay that no longer matches what was recorded. */
function diverged(message, data, options) {
	return new CairnError("DIVERGED", message, data, options);
}
/** A bug in Cairn, or a failure it cannot name better. */
function internal(message, data = {}, options) {
	return new CairnError("INTERNAL", message, data, options);
}
// dist/cli/output.js
var output_exports = /* @__PURE__ */ __exportAll({
	EXIT: () => EXIT,
	InputRefused: () => InputRefused,
	Output: () => Output,
	UsageError: () => UsageError,
	compactJson: () => compactJson,
	escapeControl: () => escapeControl,
	exitCodeFor: () => exitCodeFor,
	isoTime: () => isoTime,
	table: () => table
});
/** A malformed command line: unknown command or flag, missing or extra argument. Exit code 2. */
var UsageError = class extends Error {
	constructor(message) {
		super(message);
		this.name = "UsageError";
	}
};
/**
* Input an operation's schema refuses, found on the command line before
* anything was opened: the operation's own code and message (as HTTP and MCP
* give them), and exit 2, a usage error.
*/
var InputRefused = class InputRefused extends Error {
	data;
	code = "INVALID_ARGUMENT";
	constructor(message, field, data = { field }) {
		super(message);
		this.data = data;
		this.name = "InputRefused";
	}
	static from(error) {
		return new InputRefused(error.message, String(error.data.field ?? ""), error.data);
	}
};
const EXIT = {
	ok: 0,
	checkFailed: 1,
	usage: 2,
	internal: 70
};
/** Exit code per error code; documented in docs/cli.md, so scripts may rely on it. */
const EXIT_CODES = {
	NOT_FOUND: 3,
	CONFLICT: 4,
	IN_DOUBT: 4,
	DIVERGED: 4,
	INVALID_ARGUMENT: 5,
	PAYLOAD_TOO_LARGE: 5,
	UNAUTHENTICATED: 6,
	FORBIDDEN: 6,
	UNAVAILABLE: 7,
	CORRUPT: 8,
	UNSUPPORTED_FORMAT: 8,
	INTERNAL: EXIT.internal
};
function exitCodeFor(code) {
	return EXIT_CODES[code] ?? EXIT.internal;
}
/**
* Everything the CLI prints goes through here: with `--json` exactly one JSON
* document on stdout, else human lines; problems as one `cairn: …` line on stderr.
*/
var Output = class {
	json;
	streams;
	debug;
	constructor(json, streams, debug) {
		this.json = json;
		this.streams = streams;
		this.debug = debug;
	}
	/**
	* The command's answer: its JSON document with --json, else the human
	* lines. Each line is one line: control characters in it (stored text a
	* line quotes: names, titles, memory) are shown escaped, never sent to the
	* terminal.
	*/
	result(document, human) {
		if (this.json) {
			this.streams.stdout.write(`${JSON.stringify(document)}\n`);
			return;
		}
		const lines = typeof human === "string" ? [human] : human;
		if (lines.length > 0) this.streams.stdout.write(`${lines.map(escapeControl).join("\n")}\n`);
	}
	/** Human-only text (help): its own lines, wrapped in a document with --json. */
	text(text, key) {
		this.result({ [key]: text }, text.replace(/\n$/, "").split("\n"));
	}
	/**
	* A progress line for long operations, redrawn in place; only on a
	* terminal and never with --json. `null` clears it.
	*/
	progress(text) {
		const stderr = this.streams.stderr;
		if (this.json || !stderr.isTTY) return;
		stderr.write(text === null ? "\r\x1B[K" : `\r\x1b[K${text}`);
	}
	/** A child command's own output, passed through as it is (human mode only). */
	raw(stdout, stderr) {
		if (this.json) return;
		if (stdout.length > 0) this.streams.stdout.write(stdout);
		if (stderr.length > 0) this.streams.stderr.write(stderr);
	}
	/** One line on stderr, whatever the mode. */
	problem(message) {
		this.streams.stderr.write(`cairn: ${oneLine(message)}\n`);
	}
	/** Reports a failure as the contract says and returns the exit code. */
	fail(error) {
		const { code, message, data, exitCode } = describeFailure(error);
		this.problem(message);
		if (this.debug && error instanceof Error && error.stack) this.streams.stderr.write(`${error.stack}\n`);
		if (this.json) this.streams.stdout.write(`${JSON.stringify({ error: {
			code,
			message,
			data
		} })}\n`);
		return exitCode;
	}
	/** Logs an error the server hit while serving a request (a bug, not the caller's fault). */
	serverError(error) {
		const message = error instanceof Error ? error.message : String(error);
		this.problem(`internal error while handling a request: ${message}`);
		if (this.debug && error instanceof Error && error.stack) this.streams.stderr.write(`${error.stack}\n`);
	}
};
function describeFailure(error) {
	if (error instanceof UsageError) return {
		code: "USAGE",
		message: error.message,
		data: {},
		exitCode: EXIT.usage
	};
	if (error instanceof InputRefused) return {
		code: error.code,
		message: error.message,
		data: error.data,
		exitCode: EXIT.usage
	};
	if (error instanceof CairnError) return {
		code: error.code,
		message: error.message,
		data: error.data,
		exitCode: exitCodeFor(error.code)
	};
	return {
		code: "INTERNAL",
		message: `internal error: ${error instanceof Error ? error.message : String(error)}: rerun with CAIRN_DEBUG=1 to see the stack trace, and report it`,
		data: {},
		exitCode: EXIT.internal
	};
}
function oneLine(text) {
	return escapeControl(text.replace(/\s*\n\s*/g, " ").trim());
}
/**
* C0 and C1 controls (but tab), DEL, line and paragraph separators and bidi
* overrides: what could move the cursor, clear the screen, forge a line or
* reorder a name on a terminal.
*/
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED = {
	"\n": "\\n",
	"\r": "\\r"
};
/** Text for a human line: every control character shown as an escape (`\x1b`, `\r`, `\u202e`). */
function escapeControl(text) {
	return text.replace(CONTROL, (c) => {
		const code = c.charCodeAt(0);
		return NAMED[c] ?? (code <= 255 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16)}`);
	});
}
/** Rows as left-aligned columns separated by two spaces; the last column is not padded. */
function table(rows) {
	const widths = [];
	for (const row of rows) row.forEach((cell, i) => {
		widths[i] = Math.max(widths[i] ?? 0, cell.length);
	});
	return rows.map((row) => row.map((cell, i) => i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)).join("  ").trimEnd());
}
function isoTime(ms) {
	return new Date(ms).toISOString();
}
/** A value as one line of JSON, for human listings. */
function compactJson(value) {
	return JSON.stringify(value) ?? "null";
}
// dist/cli/store-dir.js
/**
* Where the local store is, from the command line and the environment:
* shared by the CLI and its watcher front (front.ts), which must find
* the same store without loading the rest of the CLI.
*/
/** Treats an empty environment variable as unset. */
function fromEnv(env, name) {
	const value = env[name];
	return value === void 0 || value === "" ? void 0 : value;
}
/**
* The local store: --store, else $CAIRN_STORE, else the user's data folder
* ($XDG_DATA_HOME/cairn, else ~/.local/share/cairn). The default lies outside
* every project, so `cairn ws attach .` works in any directory and leaves
* nothing behind in it.
*/
function storeDir(values, env, cwd) {
	const flag = values.store;
	const chosen = (typeof flag === "string" ? flag : void 0) ?? fromEnv(env, "CAIRN_STORE");
	if (chosen !== void 0) return {
		dir: resolve(cwd, chosen),
		chosen: true
	};
	const dataHome = fromEnv(env, "XDG_DATA_HOME");
	if (dataHome !== void 0 && isAbsolute(dataHome)) return {
		dir: join(dataHome, "cairn"),
		chosen: false
	};
	const home = fromEnv(env, "HOME");
	if (home === void 0 || !isAbsolute(home)) throw new UsageError("no home folder to keep the store in ($HOME is not set): pass --store DIR or set $CAIRN_STORE");
	return {
		dir: join(home, ".local", "share", "cairn"),
		chosen: false
	};
}
// dist/cli/front.js
/**
* The CLI's front: what runs before the CLI itself is loaded, the client
* side of `cairn watch`. A workspace command on a local store looks for the
* store's watch socket and, when a `cairn watch` answers there, has it run
* the command line in its long-lived process (store open, desk watching)
* and prints its answer. With no watcher (no socket, or nobody listening)
* the command runs here as always. Loaded by every call, so it loads little
* beyond Node's own modules.
*/
/**
* The commands a watcher runs for the CLI: workspace and unit commands that
* need no stdin and no terminal. Declared once: the front forwards only
* these, and the watcher refuses every other command line.
*/
const FORWARDED = /* @__PURE__ */ new Set([
	"checkpoint",
	"status",
	"restore",
	"fork",
	"keep",
	"abandon",
	"ws attach",
	"ws checkpoint",
	"ws ls",
	"ws restore",
	"ws diff",
	"ws fork",
	"ws merge",
	"ws detach"
]);
/**
* The only environment a forwarded command is given: the store the front
* resolved (as CAIRN_STORE) and these. Tokens, keys and the master key path are never sent.
*/
const FORWARDED_ENV = ["CAIRN_DEBUG"];
/** Longest socket path Linux takes (sun_path is 108 bytes with its NUL), with room to spare. */
const MAX_SOCKET_PATH = 100;
function socketPlaces(env) {
	const absolute = (name) => {
		const value = fromEnv(env, name);
		return value !== void 0 && isAbsolute(value) ? value : void 0;
	};
	const runtimeDir = absolute("XDG_RUNTIME_DIR");
	return {
		...runtimeDir ? { runtimeDir } : {},
		tempDir: absolute("TMPDIR") ?? "/tmp",
		uid: myUid()
	};
}
function myUid() {
	return process.getuid?.() ?? -1;
}
/**
* A store's watch socket, always in a folder only its owner may enter: the
* store folder; for a path too long for a socket, `$XDG_RUNTIME_DIR/cairn/`,
* else `<temp>/cairn-<uid>/` (made 0700 and checked before use, never a
* shared name). Undefined when no path is short enough (no watcher then).
*/
function watchSocketPath(storeDir, places) {
	const fits = (path) => Buffer.byteLength(path) <= MAX_SOCKET_PATH;
	const beside = join(storeDir, "watch.sock");
	if (fits(beside)) return beside;
	const name = `watch-${createHash("sha256").update(storeDir).digest("hex").slice(0, 16)}.sock`;
	return [...places.runtimeDir ? [join(places.runtimeDir, "cairn", name)] : [], join(places.tempDir, `cairn-${places.uid}`, name)].find(fits);
}
const octal = (mode) => (mode & 4095).toString(8).padStart(4, "0");
/**
* Why `dir` is not a folder only `uid` may enter, or undefined when it is.
* The store folder is followed if it is a link (the user named it); a
* folder Cairn makes elsewhere must not be one.
*/
function privateDirProblem(dir, uid, follow) {
	let st;
	try {
		st = follow ? statSync(dir) : lstatSync(dir);
	} catch (error) {
		return `cannot look at ${dir} (${error.code ?? String(error)})`;
	}
	if (st.isSymbolicLink()) return `${dir} is a symbolic link`;
	if (!st.isDirectory()) return `${dir} is not a folder`;
	if (uid >= 0 && st.uid !== uid) return `${dir} belongs to uid ${st.uid}, not to you (uid ${uid})`;
	if ((st.mode & 63) !== 0) return `${dir} is open to other users (mode ${octal(st.mode)})`;
}
/** The typed refusal to use a socket folder that others may enter or that is not ours. */
function unsafeSocket(socket, storeDir, problem) {
	return forbidden(`not using the watch socket ${socket}: ${problem}; ${dirname(socket) === storeDir ? `run \`cairn doctor --fix --store ${storeDir}\`` : `remove ${dirname(socket)} (a watcher makes it again, private)`}`, { socket });
}
/**
* Makes (if missing) and checks the folder a watcher binds its socket in:
* afterwards only this user may enter it, so nobody else can connect.
*/
function prepareSocketDir(socket, storeDir, uid) {
	const dir = dirname(socket);
	const inStore = dir === storeDir;
	if (!inStore) try {
		mkdirSync(dir, { mode: 448 });
	} catch (error) {
		if (error.code !== "EEXIST") throw error;
	}
	const problem = privateDirProblem(dir, uid, inStore);
	if (problem !== void 0) throw unsafeSocket(socket, storeDir, problem);
}
/** The command words a forwarded command line starts with, or null when it is not one the watcher runs. */
function forwardedCommand(argv) {
	const one = argv[0] ?? "";
	const two = `${one} ${argv[1] ?? ""}`;
	const name = FORWARDED.has(two) ? two : FORWARDED.has(one) ? one : null;
	if (name === null) return null;
	for (const arg of argv) {
		if (arg === "-h" || arg === "--help") return null;
		if (/^--(url|token|token-file|secrets|master-key-file)(=|$)/.test(arg)) return null;
	}
	return name;
}
/** What a forwarded command is told of the caller's environment: its store, and the short list above. */
function forwardedEnv(env, store = env.CAIRN_STORE) {
	const passed = store === void 0 ? {} : { CAIRN_STORE: store };
	for (const name of FORWARDED_ENV) {
		const value = env[name];
		if (value !== void 0) passed[name] = value;
	}
	return passed;
}
/** The --store value as written on the command line (the watcher parses the line again itself). */
function storeArgument(argv) {
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		if (arg === "--") return void 0;
		if (arg === "--store") return argv[i + 1];
		if (arg.startsWith("--store=")) return arg.slice(8);
	}
}
/**
* Has the store's watcher run `request`; undefined when there is no watcher
* (the caller runs the command itself). Before a byte is sent, the socket
* must be this user's, in a folder only this user may enter (FORBIDDEN
* otherwise). A watcher that goes away after it took the command is
* IN_DOUBT: the command may have run.
*/
function askWatcher(socket, storeDir, uid, request) {
	let st;
	try {
		st = lstatSync(socket);
	} catch {
		return Promise.resolve(void 0);
	}
	const problem = privateDirProblem(dirname(socket), uid, dirname(socket) === storeDir) ?? (!st.isSocket() ? `${socket} is not a socket` : uid >= 0 && st.uid !== uid ? `${socket} belongs to uid ${st.uid}, not to you (uid ${uid})` : void 0);
	if (problem !== void 0) return Promise.reject(unsafeSocket(socket, storeDir, problem));
	return new Promise((resolve, reject) => {
		const conn = connect(socket);
		const chunks = [];
		let sent = false;
		conn.on("connect", () => {
			sent = true;
			conn.end(`${JSON.stringify(request)}\n`);
		});
		conn.on("data", (chunk) => chunks.push(chunk));
		conn.on("error", (error) => {
			if (!sent) resolve(void 0);
			else reject(lostWatcher(socket, error.message));
		});
		conn.on("close", () => {
			if (!sent) return;
			const text = Buffer.concat(chunks).toString("utf8");
			try {
				const answer = JSON.parse(text);
				if (typeof answer.code !== "number") throw new Error("no exit code");
				resolve(answer);
			} catch {
				reject(lostWatcher(socket, "it closed the connection before answering"));
			}
		});
	});
}
function lostWatcher(socket, why) {
	return inDoubt(`the watcher at ${socket} took the command but did not answer (${why}): it may or may not have run; look with \`cairn status\` before running it again`, { socket });
}
/** A reader that stopped reading (`cairn log show | head`) is not an error worth a stack trace. */
function ignoreClosedPipe(stream) {
	stream.on("error", (error) => {
		if (error.code !== "EPIPE") throw error;
	});
}
/**
* A workspace command on a local store, when a `cairn watch` holds that
* store: run by the watcher, so this process loads no command and scans
* nothing; its exit code. Undefined: run it here (`bin/cairn.js` then loads
* the CLI).
*/
async function forward(front) {
	const { argv, env } = front;
	if (forwardedCommand(argv) === null) return void 0;
	ignoreClosedPipe(front.stdout);
	ignoreClosedPipe(front.stderr);
	const store = storeArgument(argv);
	if (store === void 0 && fromEnv(env, "CAIRN_URL") !== void 0) return void 0;
	try {
		const dir = storeDir({ store }, env, front.cwd).dir;
		const places = socketPlaces(env);
		const socket = watchSocketPath(dir, places);
		if (socket === void 0) return void 0;
		const request = {
			argv,
			cwd: front.cwd,
			env: forwardedEnv(env, dir)
		};
		const answer = await askWatcher(socket, dir, places.uid, request);
		if (answer === void 0) return void 0;
		front.stdout.write(answer.stdout);
		front.stderr.write(answer.stderr);
		return answer.code;
	} catch (error) {
		const [{ Output }, { wantsJson }] = await Promise.all([Promise.resolve().then(() => output_exports), import("./args-Br0IqddQ.js").then((n) => n.t)]);
		return new Output(wantsJson(argv), front, env.CAIRN_DEBUG === "1").fail(error);
	}
}
export { invalidArgument as A, HTTP_STATUS as C, forbidden as D, diverged as E, unavailable as F, unsupportedFormat as I, __exportAll as L, notFound as M, payloadTooLarge as N, inDoubt as O, unauthenticated as P, ERROR_CODES as S, corrupt as T, UsageError as _, ignoreClosedPipe as a, table as b, socketPlaces as c, watchSocketPath as d, fromEnv as f, Output as g, InputRefused as h, forwardedEnv as i, isCairnError as j, internal as k, storeArgument as l, EXIT as m, forward as n, prepareSocketDir as o, storeDir as p, forwardedCommand as r, privateDirProblem as s, askWatcher as t, unsafeSocket as u, compactJson as v, conflict as w, CairnError as x, isoTime as y };
