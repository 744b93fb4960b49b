import { A as invalidArgument, D as forbidden } from "./front-BpLyP2oj.js";
import { a as lineIn, c as scanWhole, i as lineCounter, o as looksBinary, r as StreamScan, s as redact } from "./text-CFBKie39.js";
import { i as readPackIndex } from "./pack-format-C6_KpTR7.js";
import { existsSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { spawn, spawnSync } from "node:child_process";
import { inflateSync } from "node:zlib";
import ignore from "ignore";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
// dist/desk/guard/git.js
/**
* Git history inside a workspace. `.git` is part of an agent's work and is
* kept, but what it holds is compressed: a credential committed and then
* deleted from the working tree lives on in a loose object (zlib) or a pack
* (zlib and deltas), where a byte scan of the file sees nothing.
*
* - Loose objects (`.git/objects/ab/cdef…`) are inflated here and their
*   content scanned.
* - Packs (`.git/objects/pack/pack-*.pack`) are read through git itself when
*   it is installed (`git show-index` lists the pack's objects, `git cat-file
*   --batch` hands over each one with its deltas resolved). Without git a pack
*   is kept unscanned and reported (`git-history:pack-not-scanned`).
*
* A finding names the object and, where `git log --find-object` can tell,
* a commit and path it appears under.
*/
const LOOSE = /(?:^|\/)\.git\/objects\/([0-9a-f]{2})\/([0-9a-f]{38})$/;
const PACK = /(?:^|\/)\.git\/objects\/pack\/pack-[0-9a-f]{40,64}\.pack$/;
/** Loose objects inflated in memory up to this size; larger ones are reported unscanned. */
const MAX_INFLATE = 268435456;
const GIT_ENV = {
	PATH: process.env.PATH ?? "/usr/bin:/bin",
	GIT_CONFIG_NOSYSTEM: "1",
	GIT_CONFIG_GLOBAL: "/dev/null",
	GIT_TERMINAL_PROMPT: "0",
	LC_ALL: "C"
};
function isLooseObject(relPath) {
	return LOOSE.test(relPath);
}
function isPack(relPath) {
	return PACK.test(relPath);
}
/** The object id a loose object's path names. */
function looseObjectId(relPath) {
	const m = LOOSE.exec(relPath);
	return m ? `${m[1]}${m[2]}` : "";
}
/** A loose object's content (after the `type size\0` header), or null when it does not inflate. */
function inflateLoose(bytes) {
	let raw;
	try {
		raw = inflateSync(bytes, { maxOutputLength: MAX_INFLATE });
	} catch {
		return null;
	}
	const nul = raw.indexOf(0);
	if (nul < 0 || nul > 32) return null;
	return {
		type: raw.subarray(0, nul).toString("latin1").split(" ")[0] ?? "",
		content: raw.subarray(nul + 1)
	};
}
let gitAvailable = null;
function hasGit() {
	gitAvailable ??= spawnSync("git", ["--version"], {
		env: GIT_ENV,
		stdio: "ignore"
	}).status === 0;
	return gitAvailable;
}
function gitDirOf(absPath, relPath) {
	const inGit = relPath.slice(relPath.lastIndexOf(".git/") + 5);
	let dir = absPath;
	for (let i = 0; i < inGit.split("/").length; i++) dir = dirname(dir);
	return dir;
}
/**
* The path of every object reachable from any ref (`git rev-list --objects
* --all`): one call for a whole repository, so every finding in its packs
* is judged by the path it lives under. Empty when git cannot tell.
*/
function reachablePaths(absPath, relPath) {
	const paths = /* @__PURE__ */ new Map();
	if (!hasGit()) return paths;
	const run = spawnSync("git", [
		"--git-dir",
		gitDirOf(absPath, relPath),
		"rev-list",
		"--objects",
		"--all"
	], {
		env: GIT_ENV,
		encoding: "utf8",
		timeout: 12e4,
		maxBuffer: 536870912
	});
	if (run.status !== 0) return paths;
	for (const line of run.stdout.split("\n")) {
		const space = line.indexOf(" ");
		if (space > 0) paths.set(line.slice(0, space), line.slice(space + 1));
	}
	return paths;
}
/** A commit and path an object appears under, where git can tell cheaply. */
function describeObject(absPath, relPath, oid) {
	if (!hasGit()) return {};
	const run = spawnSync("git", [
		"--git-dir",
		gitDirOf(absPath, relPath),
		"log",
		"--all",
		"-n",
		"1",
		"--format=%H",
		"--name-only",
		`--find-object=${oid}`
	], {
		env: GIT_ENV,
		encoding: "utf8",
		timeout: 1e4,
		maxBuffer: 1048576
	});
	if (run.status !== 0) return {};
	const lines = run.stdout.split("\n").filter((l) => l !== "");
	return {
		...lines[0] ? { commit: lines[0] } : {},
		...lines[1] ? { inPath: lines[1] } : {}
	};
}
/**
* Every object of one pack, deltas resolved, handed to `visit` (type, id,
* content) one at a time; resolves false when git is not installed. A
* `visit` that returns false stops the walk.
*/
async function walkPack(absPack, relPath, visit) {
	if (!hasGit()) return false;
	const gitDir = gitDirOf(absPack, relPath);
	const index = spawnSync("git", [
		"--git-dir",
		gitDir,
		"show-index"
	], {
		env: GIT_ENV,
		input: readFileSync(absPack.replace(/\.pack$/, ".idx")),
		encoding: "latin1",
		maxBuffer: 536870912
	});
	if (index.status !== 0) return false;
	const oids = index.stdout.split("\n").map((line) => line.split(" ")[1]).filter((oid) => oid !== void 0 && /^[0-9a-f]{40,64}$/.test(oid));
	const child = spawn("git", [
		"--git-dir",
		gitDir,
		"cat-file",
		"--batch"
	], {
		env: GIT_ENV,
		stdio: [
			"pipe",
			"pipe",
			"ignore"
		]
	});
	child.stdin.end(`${oids.join("\n")}\n`);
	let pending = Buffer.alloc(0);
	let stopped = false;
	try {
		for await (const data of child.stdout) {
			pending = pending.length === 0 ? data : Buffer.concat([pending, data]);
			for (;;) {
				const eol = pending.indexOf(10);
				if (eol < 0) break;
				const [oid = "", type = "", size = ""] = pending.subarray(0, eol).toString("latin1").split(" ");
				if (type === "missing") {
					pending = pending.subarray(eol + 1);
					continue;
				}
				const length = Number(size);
				if (pending.length < eol + 1 + length + 1) break;
				const content = pending.subarray(eol + 1, eol + 1 + length);
				pending = pending.subarray(eol + 1 + length + 1);
				if (!await visit(type, oid, content)) {
					stopped = true;
					break;
				}
			}
			if (stopped) break;
		}
	} finally {
		child.kill();
	}
	return true;
}
// dist/desk/guard/paths.js
/**
* Credential files recognised by their path alone: what such a file holds is
* a credential whatever it looks like, so it is withheld whole, without being
* read. `.npmrc` and `.pypirc` hold a secret only sometimes and are judged by
* their content ({@link contentPathFindings}).
*/
/** `.env` suffixes that by convention hold no real values. */
const SAFE_DOTENV_SUFFIXES = /* @__PURE__ */ new Set([
	"example",
	"sample",
	"template",
	"dist",
	"defaults",
	"schema"
]);
const SSH_KEY_PREFIXES = [
	"id_rsa",
	"id_dsa",
	"id_ecdsa",
	"id_ed25519"
];
const GCLOUD_DIR_FILES = /* @__PURE__ */ new Set(["credentials.db", "access_tokens.db"]);
const AZURE_FILES = /* @__PURE__ */ new Set([
	"accesstokens.json",
	"msal_token_cache.json",
	"msal_token_cache.bin",
	"service_principal_entries.json",
	"service_principal_entries.bin"
]);
function dotenvRule(name) {
	let rest = null;
	if (name === ".env" || name === ".envrc") return "credential-path:dotenv";
	if (name.startsWith(".env.") || name.startsWith(".env-") || name.startsWith(".env_")) rest = name.slice(5);
	else if (name.endsWith(".env") && name.length > 4) rest = name.slice(0, -4);
	if (rest === null) return null;
	return rest.split(/[.\-_]/).some((w) => SAFE_DOTENV_SUFFIXES.has(w)) ? null : "credential-path:dotenv";
}
/**
* The credential-path rule a path falls under (`'credential-path:dotenv'`,
* …), or null. Needs no content.
*/
function credentialPathRule(relPath) {
	const parts = relPath.split("/");
	const name = (parts[parts.length - 1] ?? "").toLowerCase();
	const parent = parts.length > 1 ? parts[parts.length - 2] : void 0;
	const dotenv = dotenvRule(name);
	if (dotenv) return dotenv;
	if (name.endsWith(".pem")) return "credential-path:pem";
	if (name.endsWith(".key")) return "credential-path:private-key";
	if (name.endsWith(".p12") || name.endsWith(".pfx")) return "credential-path:pkcs12";
	if (name.endsWith(".ppk")) return "credential-path:putty";
	if (name.endsWith(".jks") || name.endsWith(".keystore")) return "credential-path:keystore";
	if (SSH_KEY_PREFIXES.some((p) => name.startsWith(p)) && !name.endsWith(".pub")) return "credential-path:ssh-key";
	if (name === ".netrc" || name === "_netrc") return "credential-path:netrc";
	if (name === ".pgpass") return "credential-path:pgpass";
	if (name === ".git-credentials") return "credential-path:git-credentials";
	if (parent === ".aws" && name === "credentials") return "credential-path:aws";
	if (parent === ".docker" && name === "config.json") return "credential-path:docker";
	if (name === "application_default_credentials.json") return "credential-path:gcloud";
	const dirs = parts.slice(0, -1);
	if (dirs.includes("gcloud") && (GCLOUD_DIR_FILES.has(name) || dirs.includes("legacy_credentials"))) return "credential-path:gcloud";
	if (AZURE_FILES.has(name)) return "credential-path:azure";
	return null;
}
function contentPathKind(relPath) {
	const name = relPath.slice(relPath.lastIndexOf("/") + 1).toLowerCase();
	if (name === ".npmrc") return "npmrc";
	if (name === ".pypirc") return "pypirc";
	return null;
}
/** `_authToken=`, `_auth=`, `_password=` (optionally registry-scoped) in `.npmrc`; `password` in `.pypirc`. */
const CONTENT_PATH_KEYS = {
	npmrc: /^\s*(?:\S*:)?_(?:authToken|auth|password)\s*=\s*(.*)$/,
	pypirc: /^\s*password\s*[=:]\s*(.*)$/
};
/** Line numbers (1-based) of `.npmrc` / `.pypirc` lines that hold a credential. */
function contentPathLines(kind, text) {
	const found = [];
	const lines = text.split(/\r?\n/);
	for (let i = 0; i < lines.length; i++) {
		const line = lines[i] ?? "";
		if (/^\s*[#;]/.test(line)) continue;
		const m = CONTENT_PATH_KEYS[kind].exec(line);
		if (!m) continue;
		const value = (m[1] ?? "").trim().replace(/^["']|["']$/g, "");
		if (value === "" || kind === "npmrc" && value.startsWith("${")) continue;
		found.push(i + 1);
	}
	return found;
}
// dist/desk/guard/scan-pool.js
/**
* Large files are scanned on a worker thread, so on a machine with a second
* core the guard's byte pass runs while the checkpoint reads, hashes and
* stores the next chunk (the caller keeps one chunk's verdict outstanding).
* Small files go there too, in batches (one message for many files, the
* bytes copied once into the batch and moved, not cloned): a scan that
* defers their verdicts reads and hashes the next files meanwhile.
* The worker is started on first use, does not keep the process alive, and
* is stopped by `close`. Where the built worker module is not there (the
* library run from its TypeScript sources), scanning stays on the caller's
* thread: the same StreamScan either way.
*/
/** Buffers at least this large are not slices of Node's shared pool for small buffers (8 KiB). */
const OWN_BUFFER_MIN = 65536;
/** A batch of small files is sent once it holds this many bytes or files (or when its caller yields). */
const BATCH_BYTES = 1048576;
const BATCH_FILES = 256;
const WORKER_URL = new URL("./scan-worker.js", import.meta.url);
var ScanWorker = class {
	worker = null;
	nextId = 1;
	nextFile = 1;
	waiting = /* @__PURE__ */ new Map();
	batch = null;
	/** Windows of large files, and small files, scanned on the worker (for tests and benchmarks). */
	windows = 0;
	wholeFiles = 0;
	/** Whether the built worker module exists beside this one. */
	static available() {
		return WORKER_URL.protocol === "file:" && existsSync(fileURLToPath(WORKER_URL));
	}
	start() {
		if (this.worker) return this.worker;
		const worker = new Worker(WORKER_URL);
		worker.on("message", (reply) => {
			const waiter = this.waiting.get(reply.id);
			if (!waiter) return;
			this.waiting.delete(reply.id);
			if (this.waiting.size === 0) worker.unref();
			if ("error" in reply) waiter.reject(/* @__PURE__ */ new Error(`the secret scan failed: ${reply.error}`));
			else waiter.resolve(reply);
		});
		const fail = (error) => {
			this.failBatch(error);
			for (const waiter of this.waiting.values()) waiter.reject(error);
			this.waiting.clear();
			this.worker = null;
		};
		worker.on("error", fail);
		worker.on("exit", (code) => {
			if (this.worker === worker) fail(/* @__PURE__ */ new Error(`the secret scan worker stopped (exit ${code})`));
		});
		worker.unref();
		this.worker = worker;
		return worker;
	}
	/** Starts the worker thread (if it is not running), so that its start overlaps other work. */
	warm() {
		this.start();
	}
	/** A number naming one file's stream on the worker. */
	open() {
		return this.nextFile++;
	}
	/**
	* Sends a copy of `window` (so the caller may reuse its buffer at once) and
	* resolves with every finding of that file so far.
	*/
	/**
	* Moves `window` to the worker and resolves with every finding of that
	* file so far, and the window, moved back. The whole buffer under the
	* window moves: the caller hands it over (the desk's window copies are
	* buffers of their own); a view into Node's shared small-buffer pool, or
	* one not at the start of its buffer, is copied instead.
	*/
	feed(file, path, abs, window, offset) {
		const moved = window.byteOffset === 0 && window.buffer instanceof ArrayBuffer && window.buffer.byteLength >= OWN_BUFFER_MIN ? window : Buffer.from(window);
		this.windows++;
		return this.send((id) => ({
			type: "feed",
			id,
			file,
			path,
			abs,
			window: moved,
			offset
		}), moved).then((reply) => {
			if (!("findings" in reply)) throw new Error("the secret scan worker answered a window with no findings list");
			const back = reply.window;
			return {
				findings: reply.findings,
				window: Buffer.from(back.buffer, back.byteOffset, back.byteLength)
			};
		});
	}
	/**
	* Queues one small file's bytes for a batch scan (they are copied when the
	* batch goes out: the caller must not change them before it resolves) and
	* resolves with what the scan found. A batch goes out
	* when full or once the caller's thread yields.
	*/
	whole(path, bytes) {
		let batch = this.batch;
		if (!batch) {
			batch = {
				paths: [],
				files: [],
				bytes: 0,
				waiting: []
			};
			this.batch = batch;
			setImmediate(() => this.flush(batch));
		}
		batch.paths.push(path);
		batch.files.push(bytes);
		batch.bytes += bytes.length;
		this.wholeFiles++;
		const answer = new Promise((resolve, reject) => batch.waiting.push({
			resolve,
			reject
		}));
		if (batch.bytes >= BATCH_BYTES || batch.files.length >= BATCH_FILES) this.flush(batch);
		return answer;
	}
	flush(batch) {
		if (this.batch !== batch) return;
		this.batch = null;
		const bytes = new Uint8Array(batch.bytes);
		const ends = [];
		let at = 0;
		for (const file of batch.files) {
			bytes.set(file, at);
			at += file.length;
			ends.push(at);
		}
		this.send((id) => ({
			type: "batch",
			id,
			paths: batch.paths,
			ends,
			bytes
		}), bytes).then((reply) => {
			const results = "results" in reply ? reply.results : [];
			batch.waiting.forEach((w, i) => {
				const result = results[i];
				if (result) w.resolve(result);
				else w.reject(/* @__PURE__ */ new Error("the secret scan worker answered a batch short"));
			});
		}, (error) => {
			for (const w of batch.waiting) w.reject(error);
		});
	}
	failBatch(error) {
		const batch = this.batch;
		this.batch = null;
		for (const w of batch?.waiting ?? []) w.reject(error);
	}
	send(request, moved) {
		const worker = this.start();
		const id = this.nextId++;
		const answer = new Promise((resolve, reject) => this.waiting.set(id, {
			resolve,
			reject
		}));
		worker.ref();
		worker.postMessage(request(id), [moved.buffer]);
		return answer;
	}
	end(file) {
		this.worker?.postMessage({
			type: "end",
			file
		});
	}
	/** Stops the worker; scans still waiting fail (their caller is going away too). */
	async close() {
		const worker = this.worker;
		this.worker = null;
		this.failBatch(/* @__PURE__ */ new Error("the secret scan worker was closed"));
		for (const waiter of this.waiting.values()) waiter.reject(/* @__PURE__ */ new Error("the secret scan worker was closed"));
		this.waiting.clear();
		if (worker) await worker.terminate();
	}
};
// dist/desk/guard.js
/**
* What a workspace snapshot does not keep.
*
* Two separate things decide it:
*
* - The path filter: `.cairnignore` (gitignore syntax, via the `ignore`
*   package) on top of {@link DEFAULT_IGNORES}. An ignored path is simply not
*   part of the workspace as far as Cairn is concerned.
* - The secret guard ({@link Guard}): credential files recognised by their
*   path (guard/paths.ts), names and symlink targets that hold a credential,
*   and every byte of every file's content (guard/scan.ts: secretlint's
*   preset and Cairn's own rules, UTF-16/32 decoded, git objects inflated).
*   Low-confidence findings (examples) in a text file that fits one chunk
*   are redacted in the stored copy; anything else withholds the entry. What to do with a
*   high-confidence finding is the caller's policy ({@link SecretPolicy});
*   {@link guardFailure} builds the error for `'fail'`.
*
* A finding names the rule, the path (a secret-bearing name redacted), the
* line and a confidence, never the secret itself.
*
* Library code: it reads no environment, working directory or home folder.
*/
/**
* Patterns (gitignore syntax) left out of every snapshot before `.cairnignore`
* is applied; a `.cairnignore` negation (`!.venv/`) brings one back.
* `.git/` is deliberately kept: an agent's repository is part of its work.
*/
const DEFAULT_IGNORES = Object.freeze([
	".cairn/",
	"node_modules/.cache/",
	".venv/",
	"__pycache__/",
	".pytest_cache/",
	".mypy_cache/",
	".ruff_cache/",
	"*.swp",
	"*.swo",
	".DS_Store",
	"Thumbs.db"
]);
/**
* The filter for one workspace: {@link DEFAULT_IGNORES}, then the
* `.cairnignore` text (null when there is none), then `extra`, later rules
* winning as in git. Matching is case-sensitive, as git's is by default.
*/
function createPathFilter(cairnignoreText, extra = []) {
	const ig = ignore({ ignorecase: false }).add([...DEFAULT_IGNORES]);
	if (cairnignoreText !== null) ig.add(cairnignoreText);
	ig.add([...extra]);
	return { ignored(relPath, isDir) {
		if (relPath === "" || relPath.startsWith("/") || relPath.startsWith("./") || relPath.startsWith("../")) throw invalidArgument(`path ${JSON.stringify(relPath)} is not workspace-relative`, { path: relPath });
		return ig.ignores(isDir ? `${relPath}/` : relPath);
	} };
}
/** Files at least this large are scanned on the worker thread; smaller ones do not repay a message. */
const WORKER_MIN_BYTES = 4194304;
const MASTER_KEY_FILE = /^\s*(?:[0-9a-fA-F]{64}|[A-Za-z0-9+/_-]{43}=?)\s*$/;
function nameOf(path) {
	return path.slice(path.lastIndexOf("/") + 1);
}
/** The path with its last component replaced: how an entry whose name holds a credential is reported. */
function redactedName(path) {
	const slash = path.lastIndexOf("/");
	return `${slash < 0 ? "" : path.slice(0, slash + 1)}[redacted name]`;
}
var Guard = class {
	allowList;
	scanContent;
	constructor(options = {}) {
		this.scanContent = options.scanContent ?? true;
		this.allowList = (options.allow ?? []).map((a) => ({
			rule: String(a.rule),
			paths: ignore({ ignorecase: false }).add([...a.paths].map(String))
		}));
	}
	allowed(f, path) {
		return this.allowList.some((a) => (a.rule === "*" || a.rule === f.rule) && a.paths.ignores(path));
	}
	keep(findings, path) {
		return this.allowList.length === 0 ? findings : findings.filter((f) => !this.allowed(f, path));
	}
	/** A finding when the path alone names a credential file. */
	pathFinding(path) {
		const rule = credentialPathRule(path);
		if (!rule) return null;
		const finding = {
			rule,
			path,
			line: 0,
			confidence: "high",
			action: "withheld"
		};
		return this.keep([finding], path).length > 0 ? finding : null;
	}
	/**
	* A finding when an entry's name (or a symlink's target) holds a
	* credential; its path is reported with the name redacted.
	*/
	async nameFinding(path, target = null) {
		for (const text of target === null ? [nameOf(path)] : [nameOf(path), target]) {
			const scan = new StreamScan(path);
			await scan.feed(Buffer.from(text, "utf8"), 0);
			const found = this.keep(scan.findings, path);
			if (found.length > 0) {
				const first = found[0];
				const inTarget = target !== null && text === target;
				return {
					rule: `${first.rule} (${inTarget ? "symlink target" : "name"})`,
					path: inTarget ? path : redactedName(path),
					line: 0,
					confidence: first.confidence,
					action: "withheld"
				};
			}
		}
		return null;
	}
	/**
	* Whether {@link admit} can scan on the worker thread: a caller that does
	* not await each verdict before reading the next file then overlaps the two.
	*/
	get scansOffThread() {
		return this.scanContent && this.worker() !== null;
	}
	/**
	* The verdict on a whole file's bytes (a file that fits one chunk). `abs`
	* locates `.git` for history findings. With `offThread`, the content scan
	* runs on the worker where there is one (`bytes` must not change until the
	* verdict is in).
	*/
	async admit(path, bytes, abs, pathChecked = false, offThread = false) {
		const byPath = pathChecked ? null : this.pathFinding(path);
		if (byPath) return {
			store: "withhold",
			findings: [byPath]
		};
		const findings = [];
		const kind = contentPathKind(path);
		if (kind !== null) for (const line of contentPathLines(kind, bytes.toString("utf8"))) findings.push({
			rule: `credential-path:${kind}`,
			path,
			line,
			confidence: "high",
			action: "withheld"
		});
		if (!this.scanContent) return this.verdict(path, bytes, findings, null);
		if (isLooseObject(path)) {
			const object = inflateLoose(bytes);
			if (object) {
				const scan = new StreamScan(path, { lineAt: (o) => lineIn(object.content, o) });
				await scan.feed(object.content, 0);
				const oid = looseObjectId(path);
				const located = scan.findings.length > 0 ? await locate(scan.findings, object.content, oid, abs, path) : [];
				findings.push(...located);
				return this.verdict(path, bytes, findings, null);
			}
		}
		const worker = offThread ? this.worker() : null;
		const scan = worker ? await worker.whole(path, bytes) : await scanWhole(path, bytes);
		findings.push(...scan.findings);
		if (/key/i.test(nameOf(path)) && bytes.length <= 128 && MASTER_KEY_FILE.test(bytes.toString("latin1"))) findings.push({
			rule: "cairn:master-key",
			path,
			line: 1,
			confidence: "high",
			action: "withheld"
		});
		const redactable = kind === null && !scan.decoded && !looksBinary(bytes) && findings.every((f) => f.line > 0);
		return this.verdict(path, bytes, findings, redactable ? scan.spans : null);
	}
	/** `spans`: where the findings are, when the file may be redacted rather than withheld. */
	verdict(path, bytes, all, spans) {
		const findings = dedupe(this.keep(all, path));
		if (findings.every((f) => f.action === "kept")) return {
			store: "as-is",
			findings
		};
		if (spans && findings.every((f) => f.confidence === "low")) {
			const kept = new Set(findings.map((f) => `${f.rule}\n${f.line}`));
			const found = spans.filter((s) => kept.has(`${s.rule}\n${lineIn(bytes, s.start)}`));
			if (new Set(found.map((s) => `${s.rule}\n${lineIn(bytes, s.start)}`)).size === kept.size) return {
				store: "redacted",
				bytes: redact(bytes, found),
				findings: mark(findings, "redacted")
			};
		}
		return {
			store: "withhold",
			findings: mark(findings, "withheld")
		};
	}
	/**
	* A scan of a file larger than one chunk (`abs` on disk, `size` bytes),
	* window by window; such a file is withheld whole on a finding. Files of
	* 4 MiB and more go to the scan worker where there is one.
	*/
	stream(path, abs, size) {
		const guard = this;
		let findings = [];
		const settle = (found) => {
			findings = dedupe(guard.keep(found, path));
			return findings.length === 0;
		};
		const worker = this.scanContent && size >= WORKER_MIN_BYTES ? this.worker() : null;
		if (worker) {
			const file = worker.open();
			return {
				get findings() {
					return findings;
				},
				async feed(window, offset) {
					const scanned = await worker.feed(file, path, abs, window, offset);
					return {
						clean: settle(scanned.findings),
						window: scanned.window
					};
				},
				close: () => worker.end(file)
			};
		}
		const scan = new StreamScan(path, { lineAt: lineCounter(abs) });
		let queue = Promise.resolve();
		return {
			get findings() {
				return findings;
			},
			feed(window, offset) {
				if (!guard.scanContent) return Promise.resolve({
					clean: true,
					window
				});
				const done = queue.then(async () => {
					await scan.feed(window, offset);
					return {
						clean: settle(scan.findings),
						window
					};
				});
				queue = done.catch(() => void 0);
				return done;
			},
			close: () => {}
		};
	}
	scanWorker;
	/** The scan worker, started on first use; null where the built worker module is not there. */
	worker() {
		if (this.scanWorker === void 0) this.scanWorker = ScanWorker.available() ? new ScanWorker() : null;
		return this.scanWorker;
	}
	/** Starts the scan worker now (where there is one), ahead of the scans that will need it. */
	warmUp() {
		if (this.scanContent) this.worker()?.warm();
	}
	/** Windows scanned on the worker thread so far (benchmarks and tests). */
	get workerWindows() {
		return this.scanWorker?.windows ?? 0;
	}
	/** Small files scanned on the worker thread so far (benchmarks and tests). */
	get workerFiles() {
		return this.scanWorker?.wholeFiles ?? 0;
	}
	async close() {
		await this.scanWorker?.close();
		this.scanWorker = void 0;
	}
	/** Findings in a git pack's objects (through git); one `pack-not-scanned` finding, kept, when git is missing. */
	async packFindings(path, abs) {
		if (!this.scanContent || !isPack(path)) return [];
		const findings = [];
		let described = 0;
		let paths = null;
		if (!await walkPack(abs, path, async (type, oid, content) => {
			if (type === "tree") return true;
			const scan = new StreamScan(path, { lineAt: (o) => lineIn(content, o) });
			await scan.feed(content, 0);
			const found = this.keep(scan.findings, path);
			if (found.length === 0) return true;
			paths ??= reachablePaths(abs, path);
			const inPath = paths.get(oid);
			findings.push(...described++ < 20 ? await locate(found, content, oid, abs, path) : await locate(found, content, oid, void 0, path, inPath));
			return true;
		})) return [{
			rule: "git-history:pack-not-scanned",
			path,
			line: 0,
			confidence: "low",
			action: "kept"
		}];
		return dedupe(findings);
	}
};
/**
* Findings in a git object, with the commit and path git gives for it and
* judged by that path (the object is rescanned under it). Withholding an
* object (or a whole pack) takes it out of the restored repository, so a
* low-confidence finding there (an example in a test or README, whose
* working-tree copy is redacted) is listed and kept; a high one is withheld.
*/
async function locate(found, content, object, abs, path, knownPath) {
	const where = abs ? describeObject(abs, path, object) : knownPath ? { inPath: knownPath } : {};
	let judged = found;
	if (where.inPath) {
		const rescan = new StreamScan(where.inPath, { lineAt: (o) => lineIn(content, o) });
		await rescan.feed(content, 0);
		if (rescan.findings.length > 0) judged = rescan.findings.map((f) => ({
			...f,
			path
		}));
	}
	return judged.map((f) => ({
		...f,
		action: f.confidence === "low" ? "kept" : f.action,
		object,
		...where
	}));
}
function mark(findings, action) {
	return findings.map((f) => f.action === "kept" ? f : {
		...f,
		action
	});
}
/** True when the `'fail'` policy refuses: a high-confidence credential would be kept out. */
function blocksCheckpoint(findings) {
	return findings.some((f) => f.confidence === "high" && f.action !== "kept");
}
const defaultGuard = new Guard();
function dedupe(findings) {
	const seen = /* @__PURE__ */ new Set();
	const out = [];
	for (const f of findings.sort((a, b) => a.line - b.line || (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0))) {
		const key = `${f.rule}\n${f.line}\n${f.object ?? ""}`;
		if (seen.has(key)) continue;
		seen.add(key);
		out.push(f);
	}
	return out;
}
/**
* The store's own look at a pack a remote client sends (`deskPutPack`, a
* commit's inline pack): the client's guard may be off or not Cairn's, so
* every object is scanned again, off the event loop where the scan worker is
* built. An honest client keeps credentials out (withheld, or redacted when
* they are examples), so a high-confidence finding here means the client's
* guard did not run: FORBIDDEN (see {@link guardFailure}), and nothing of the
* pack is stored. Findings name the object; they hold no secret.
*/
async function refuseSecretsInPack(pack, guard = defaultGuard) {
	const findings = [];
	for (const entry of readPackIndex(pack)) {
		const bytes = Buffer.from(pack.subarray(entry.off, entry.off + entry.len));
		const verdict = await guard.admit(`[${entry.kind} ${entry.digest}]`, bytes, void 0, true, true);
		findings.push(...verdict.findings);
	}
	if (blocksCheckpoint(findings)) throw guardFailure(findings);
}
const MESSAGE_FINDINGS = 5;
/**
* The error for the `'fail'` policy: FORBIDDEN, with `data.findings` holding
* rule, path and line of each finding (copied field by field: nothing else
* from the caller's objects is carried along).
*/
function guardFailure(findings) {
	const clean = findings.map((f) => ({
		rule: String(f.rule),
		path: String(f.path),
		line: Number(f.line),
		confidence: f.confidence === "low" ? "low" : "high",
		...f.commit ? { commit: String(f.commit) } : {},
		...f.inPath ? { inPath: String(f.inPath) } : {}
	}));
	const shown = clean.slice(0, MESSAGE_FINDINGS).map((f) => `${f.path}${f.line > 0 ? `:${f.line}` : ""} (${f.rule}${f.commit ? ` in commit ${f.commit}` : ""}${f.inPath ? ` at ${f.inPath}` : ""})`).join(", ");
	const more = clean.length > MESSAGE_FINDINGS ? ` and ${clean.length - MESSAGE_FINDINGS} more` : "";
	return forbidden(`checkpoint refused: ${clean.length} secret finding(s) in the workspace: ${shown}${more}; remove the secret (from git history too, for a finding in .git), or add the path to .cairnignore to leave it out of snapshots`, { findings: clean });
}
export { refuseSecretsInPack as a, guardFailure as i, blocksCheckpoint as n, credentialPathRule as o, createPathFilter as r, Guard as t };
