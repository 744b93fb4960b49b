import { A as invalidArgument, D as forbidden, F as unavailable, M as notFound, T as corrupt, k as internal, w as conflict, x as CairnError } from "./front-BpLyP2oj.js";
import { i as guardFailure, n as blocksCheckpoint, o as credentialPathRule, r as createPathFilter, t as Guard } from "./guard-BHiFyyvg.js";
import { a as returnCopy, i as digestOf, n as chunkFile, r as copyWindow } from "./chunker-BmGAprKG.js";
import { c as decodeTree, l as encodeTree, n as packIndex, o as EMPTY_TREE, u as validName } from "./pack-format-C6_KpTR7.js";
import { n as PACK_BYTES, r as packIndexBytes } from "./pack-limits-oElBX9PA.js";
import { a as newId, i as idPattern, l as randomHex, t as parseInput } from "./validate-Dzwxqk5b.js";
import { a as BranchName } from "./schema-akKHYQxY.js";
import { I as inBatches, R as placeholders, z as authorize } from "./store-folder-D53airw-.js";
import { m as getEvent } from "./session-log-CJJ_c6sf.js";
import { i as lockDesk, r as alreadyAttached, t as LocalDeskStore } from "./local-store-Bcz_Wbkg.js";
import { t as eventsAfter } from "./pages-Dke7rruH.js";
import { chmodSync, closeSync, existsSync, fchmodSync, ftruncateSync, lstatSync, mkdirSync, mkdtempSync, openSync, promises, readFileSync, readdirSync, readlinkSync, realpathSync, renameSync, rmSync, rmdirSync, symlinkSync, unlinkSync, utimesSync, watch, writeFileSync, writeSync } from "node:fs";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import { randomBytes, randomFillSync } from "node:crypto";
import { spawn, spawnSync } from "node:child_process";
import { diff3Merge } from "node-diff3";
import { isUtf8 } from "node:buffer";
const PENDING_BYTES = 2097152;
/** Objects this large are looked up one by one and copied straight into the pack. */
const DIRECT_BYTES = 65536;
const BATCH = 400;
const PREFETCH_OBJECTS = 256;
var ObjectStore = class {
	store;
	/** Decoded tree objects (immutable, so safe to share), most recently used last. */
	trees = /* @__PURE__ */ new Map();
	/** Objects fetched ahead and not yet read (each is handed out once). */
	ahead = /* @__PURE__ */ new Map();
	constructor(store) {
		this.store = store;
	}
	/** The bytes of an object, re-hashed; NOT_FOUND when the store lacks it, CORRUPT when they do not match. */
	async get(digest) {
		const fetched = this.ahead.get(digest);
		if (fetched) {
			this.ahead.delete(digest);
			return checked(digest, fetched);
		}
		const [bytes] = await this.store.getObjects([digest]);
		return checked(digest, bytes);
	}
	/**
	* Fetches objects that are about to be read, in one call per
	* PREFETCH_OBJECTS (one round trip to a server instead of one per object),
	* holding at most PREFETCH_BYTES of them; `sizes` bounds what is asked.
	* What is not read is dropped at the next prefetch.
	*/
	async prefetch(wanted) {
		this.ahead.clear();
		let bytes = 0;
		const digests = [];
		for (const w of wanted) {
			if (bytes + w.size > 16777216 || this.ahead.has(w.digest)) continue;
			bytes += w.size;
			digests.push(w.digest);
		}
		for (let i = 0; i < digests.length; i += PREFETCH_OBJECTS) {
			const slice = digests.slice(i, i + PREFETCH_OBJECTS);
			const got = await this.store.getObjects(slice);
			for (let j = 0; j < slice.length; j++) this.ahead.set(slice[j], got[j]);
		}
	}
	/** A tree object, decoded; cached, since restores and forks walk the same trees again and again. */
	async tree(digest) {
		const cached = this.trees.get(digest);
		if (cached) {
			this.trees.delete(digest);
			this.trees.set(digest, cached);
			return cached;
		}
		const items = decodeTree(digest, await this.get(digest));
		if (this.trees.size >= 4096) this.trees.delete(this.trees.keys().next().value);
		this.trees.set(digest, items);
		return items;
	}
	forget() {
		this.trees.clear();
	}
	writer() {
		return new PackWriter(this.store);
	}
};
function checked(digest, bytes) {
	const actual = digestOf(bytes);
	if (actual !== digest) throw corrupt(`desk object ${digest} is corrupt (the store holds bytes hashing to ${actual}): restore the store from a backup`, {
		digest,
		actual
	});
	return bytes;
}
/**
* Collects the new objects of one checkpoint into packs. `add` skips objects
* the store already holds (asked in batches) or already added; each full
* pack is stored at once (`putPack`), the last small one rides with the
* commit. `commitFields` is what the snapshot's commit needs to make them
* reachable and to re-check what it reused, so a concurrent GC cannot leave
* the new snapshot pointing at nothing.
*/
var PackWriter = class {
	store;
	/** The pack being filled: one buffer reused for every pack of this writer (no per-chunk copies, no concat). */
	pack = null;
	packLength = 0;
	packRows = [];
	written = /* @__PURE__ */ new Set();
	reused = /* @__PURE__ */ new Set();
	packs = [];
	/** A pack being stored whose put has not returned: `discard` removes it too. */
	announced = [];
	/** The checkpoint's only pack when it is small: sent with the commit, stored in the snapshot's transaction. */
	inline = null;
	pending = [];
	pendingBytes = 0;
	addedBytes = 0;
	/** A preview: objects are counted but never stored. */
	dryRun = false;
	constructor(store) {
		this.store = store;
	}
	/**
	* Stores an object unless the store already has it. Large objects are
	* looked up at once and copied into the pack before `add` returns, so
	* `bytes` may be a view the caller reuses afterwards; small ones are
	* queued and looked up in batches, so the caller must not reuse
	* `bytes` unless it says `owned: false` (they are then copied).
	*/
	async add(digest, kind, bytes, owned = true) {
		if (this.dryRun) return;
		if (this.written.has(digest) || this.reused.has(digest)) return;
		if (bytes.length >= DIRECT_BYTES) {
			if ((await this.store.missing([digest])).length === 0) this.reused.add(digest);
			else await this.append(digest, kind, bytes);
			return;
		}
		this.pending.push({
			digest,
			kind,
			bytes: owned ? bytes : Buffer.from(bytes)
		});
		this.pendingBytes += bytes.length;
		if (this.pending.length >= BATCH || this.pendingBytes >= PENDING_BYTES) await this.resolvePending();
	}
	/** Asks the store about the queued objects and appends the unknown ones to the current pack. */
	async resolvePending() {
		const batch = this.pending;
		this.pending = [];
		this.pendingBytes = 0;
		const fresh = batch.filter((o) => !this.written.has(o.digest) && !this.reused.has(o.digest));
		if (fresh.length === 0) return;
		const missing = new Set(await this.store.missing([...new Set(fresh.map((o) => o.digest))]));
		for (const object of fresh) if (!missing.has(object.digest)) this.reused.add(object.digest);
		else if (!this.written.has(object.digest)) await this.append(object.digest, object.kind, object.bytes);
	}
	/** Copies one new object into the current pack, storing the pack first when it would overflow. */
	async append(digest, kind, bytes) {
		if (this.packLength > 16 && this.packLength + bytes.length > 8388608) await this.flushPack();
		const index = packIndexBytes(this.packRows.length + 1);
		const need = this.packLength + bytes.length + 16 + index;
		if (!this.pack || this.pack.length < need) {
			const grown = Buffer.allocUnsafe(Math.max(PACK_BYTES, need) + packIndexBytes(1024));
			this.pack?.copy(grown, 0, 0, this.packLength);
			this.pack = grown;
		}
		if (this.packLength === 0) {
			randomFillSync(this.pack, 0, 16);
			this.packLength = 16;
		}
		bytes.copy(this.pack, this.packLength);
		this.packRows.push({
			digest,
			kind,
			off: this.packLength,
			len: bytes.length
		});
		this.packLength += bytes.length;
		this.written.add(digest);
		this.addedBytes += bytes.length;
	}
	async flushPack(last = false) {
		if (this.packLength <= 16 || !this.pack) return;
		const index = packIndex(this.packRows);
		if (this.pack.length < this.packLength + index.length) {
			const grown = Buffer.allocUnsafe(this.packLength + index.length);
			this.pack.copy(grown, 0, 0, this.packLength);
			this.pack = grown;
		}
		index.copy(this.pack, this.packLength);
		const bytes = this.pack.subarray(0, this.packLength + index.length);
		this.packLength = 0;
		this.packRows = [];
		if (last && this.packs.length === 0 && bytes.length <= 262144) {
			this.inline = Buffer.from(bytes);
			return;
		}
		const digest = digestOf(bytes);
		this.announced.push(digest);
		await this.store.putPack(digest, bytes);
		this.announced.pop();
		this.packs.push(digest);
	}
	/**
	* After a checkpoint failed before its commit (a full disk, a retry): deletes
	* the packs this writer stored, so their space is free for the retry at once
	* rather than after GC's grace. Safe: pack names are salted, so no other
	* writer's pack has the same name, and none of them was committed. Best
	* effort — what it cannot delete, GC still collects.
	*/
	async discard() {
		const announced = [...this.packs, ...this.announced];
		this.packs.length = 0;
		this.announced.length = 0;
		this.pack = null;
		this.packLength = 0;
		await this.store.discardPacks(announced).catch(() => void 0);
	}
	/** Stores everything still buffered (a small remainder is kept for the commit); call before committing. */
	async flush() {
		await this.resolvePending();
		await this.flushPack(true);
		this.pack = null;
	}
	/** The commit's fields for these objects: the packs stored, the inline pack, and what was reused (plus `alsoNamed`). */
	commitFields(alsoNamed = []) {
		const reused = [.../* @__PURE__ */ new Set([...this.reused, ...alsoNamed])].filter((d) => !this.written.has(d));
		return {
			packs: [...this.packs],
			...this.inline ? { inline: this.inline } : {},
			reused,
			addedBytes: this.addedBytes
		};
	}
};
// dist/desk/overlay.js
function run(args) {
	const result = spawnSync(args[0], args.slice(1), { encoding: "utf8" });
	return {
		ok: result.status === 0,
		message: (result.stderr || result.error?.message || "").trim()
	};
}
function quote(text) {
	return `'${text.replace(/'/g, `'\\''`)}'`;
}
/**
* Runs mount and umount through one long-lived `sh`: forking this (large)
* process for every mount costs ~10 ms here, a fork of the small shell ~1 ms.
* Commands run one at a time; the shell does not keep the process alive
* while idle, and `close` ends it.
*/
var Mounter = class {
	shell = null;
	queue = Promise.resolve();
	start() {
		if (this.shell && this.shell.exitCode === null) return this.shell;
		const shell = spawn("sh", [], { stdio: [
			"pipe",
			"pipe",
			"pipe"
		] });
		shell.stdout.setEncoding("utf8");
		shell.on("error", () => void 0);
		this.shell = shell;
		return shell;
	}
	idle(shell, idle) {
		for (const handle of [
			shell,
			shell.stdin,
			shell.stdout,
			shell.stderr
		]) if (idle) handle.unref();
		else handle.ref();
	}
	/** Runs one command line; resolves to its exit status and combined output. */
	run(args) {
		const step = this.queue.then(() => new Promise((resolve) => {
			const shell = this.start();
			this.idle(shell, false);
			let output = "";
			const onData = (chunk) => {
				output += chunk;
				const done = /__cairn_done (\d+)\n$/.exec(output);
				if (!done) return;
				shell.stdout.off("data", onData);
				shell.off("exit", onExit);
				this.idle(shell, true);
				resolve({
					ok: done[1] === "0",
					message: output.slice(0, done.index).trim()
				});
			};
			const onExit = () => {
				shell.stdout.off("data", onData);
				resolve({
					ok: false,
					message: output.trim() || "the helper shell exited"
				});
			};
			shell.stdout.on("data", onData);
			shell.once("exit", onExit);
			shell.stdin.write(`${args.map(quote).join(" ")} 2>&1; printf '\\n__cairn_done %d\\n' $?\n`);
		}));
		this.queue = step.catch(() => void 0);
		return step;
	}
	close() {
		this.shell?.stdin.end();
		this.shell?.kill();
		this.shell = null;
	}
};
async function mountOverlay(layout, mounter) {
	for (const path of [
		layout.lower,
		layout.upper,
		layout.work
	]) if (/[,:\n]/.test(path)) throw unavailable(`overlay layer path ${path} holds "," ":" or a newline: use the copy driver`, { path });
	if (layout.mountpoint.includes("\n")) throw invalidArgument("a directory name with a newline cannot be an overlay mount point");
	mkdirSync(layout.upper, { recursive: true });
	mkdirSync(layout.work, { recursive: true });
	mkdirSync(layout.mountpoint, { recursive: true });
	const options = `lowerdir=${layout.lower},upperdir=${layout.upper},workdir=${layout.work}`;
	const result = await mounter.run([
		"mount",
		"-t",
		"overlay",
		"overlay",
		"-o",
		options,
		layout.mountpoint
	]);
	if (!result.ok) throw unavailable(`could not mount an overlay at ${layout.mountpoint} (${result.message}): use the copy driver, or run with CAP_SYS_ADMIN`, { mountpoint: layout.mountpoint });
}
async function unmountOverlay(mountpoint, mounter) {
	const result = await mounter.run(["umount", mountpoint]);
	if (!result.ok && !/not mounted|no mount point/i.test(result.message)) throw unavailable(`could not unmount ${mountpoint} (${result.message}): is a process using it?`, { mountpoint });
}
/** A path as /proc/self/mounts writes it: octal escapes for space, tab, newline and backslash (and, in an option's value, "," and "="). */
function mountEscape(path, inOption = false) {
	const special = inOption ? /[\\ \t\n,=]/g : /[\\ \t\n]/g;
	return path.replace(special, (c) => `\\${c.charCodeAt(0).toString(8).padStart(3, "0")}`);
}
/** The options of the topmost mount at `mountpoint` (one per comma), or null when nothing is mounted there. */
function mountOptions(mountpoint) {
	if (process.platform !== "linux") return null;
	const escaped = mountEscape(mountpoint);
	let found = null;
	for (const line of readFileSync("/proc/self/mounts", "utf8").split("\n")) {
		const fields = line.split(" ");
		if (fields[1] === escaped) found = (fields[3] ?? "").split(",");
	}
	return found;
}
function isMounted(mountpoint) {
	return mountOptions(mountpoint) !== null;
}
let supported;
/** Whether this process can mount overlays here; tried once per process. */
function overlaySupported(scratchParent) {
	if (supported !== void 0) return supported;
	if (process.platform !== "linux") {
		supported = false;
		return false;
	}
	mkdirSync(scratchParent, { recursive: true });
	const dir = mkdtempSync(join(scratchParent, "overlay-probe-"));
	const layout = {
		lower: join(dir, "lower"),
		upper: join(dir, "upper"),
		work: join(dir, "work"),
		mountpoint: join(dir, "mnt")
	};
	try {
		mkdirSync(layout.lower);
		mkdirSync(layout.upper);
		mkdirSync(layout.work);
		mkdirSync(layout.mountpoint);
		writeFileSync(join(layout.lower, "probe"), "x");
		supported = run([
			"mount",
			"-t",
			"overlay",
			"overlay",
			"-o",
			`lowerdir=${layout.lower},upperdir=${layout.upper},workdir=${layout.work}`,
			layout.mountpoint
		]).ok;
		if (supported) run(["umount", layout.mountpoint]);
	} catch {
		supported = false;
	} finally {
		rmSync(dir, {
			recursive: true,
			force: true
		});
	}
	return supported;
}
// dist/desk/context.js
/** The head of a workspace that has one (every workspace past its attach). */
function headOf(h) {
	if (!h.head) throw new Error(`workspace ${h.row.id} has no snapshot yet`);
	return h.head;
}
/**
* What every module of the desk shares: its options, the store and its
* objects, the guard, the clock, this process's mounts and open workspaces,
* and the desk's own state folder on this machine.
*/
var DeskContext = class {
	options;
	store;
	objects;
	now;
	policy;
	guard;
	mounter = new Mounter();
	/** The workspaces this desk has open, each with its model; operations on one run one at a time. */
	handles = /* @__PURE__ */ new Map();
	constructor(options) {
		this.options = options;
		this.store = options.store;
		this.objects = new ObjectStore(options.store);
		this.now = options.now ?? Date.now;
		this.policy = options.secretPolicy ?? "exclude";
		this.guard = new Guard(options.guard);
	}
	get tenant() {
		return this.store.tenant;
	}
	/** Resolves a directory argument: absolute, existing, a real directory (not a link to one), outside the store's state. */
	resolveDir(dir, mustExist = true, refuseOverlap = true) {
		if (typeof dir !== "string" || !isAbsolute(dir)) throw invalidArgument(`workspace directory "${String(dir)}" is not an absolute path: pass an absolute path`, { dir });
		if (!mustExist) return dir;
		const st = lstatSync(dir, { throwIfNoEntry: false });
		if (!st) throw notFound("directory", dir);
		if (!st.isDirectory()) throw invalidArgument(`${dir} is not a directory (a symlink or a file): pass the directory itself`, { dir });
		const real = realpathSync(dir);
		const state = realpathSync(this.ensureStateDir());
		if (refuseOverlap && (real === state || real.startsWith(state + sep) || state.startsWith(real + sep))) throw invalidArgument(`${dir} overlaps the desk's own state folder ${state}: attach a directory outside it`, { dir });
		return real;
	}
	ensureStateDir() {
		mkdirSync(this.options.stateDir, { recursive: true });
		return this.options.stateDir;
	}
	statCachePath(id) {
		return join(this.ensureStateDir(), "stat", `${id}.json`);
	}
	/** A per-operation counter reporting every 100th step to onProgress. */
	counter(phase) {
		const report = this.options.onProgress;
		if (!report) return void 0;
		let done = 0;
		return () => {
			if (++done % 100 === 0) report(phase, done);
		};
	}
	snapshotById(id) {
		return this.store.snapshot(id);
	}
	/** A stored file's bytes, its chunks read (and re-hashed) in order. */
	async content(entry) {
		const parts = [];
		for (const digest of entry.chunks) parts.push(await this.objects.get(digest));
		return Buffer.concat(parts);
	}
};
// dist/desk/created.js
const WORKSPACE = idPattern("ws");
var CreatedDirs = class {
	ctx;
	constructor(ctx) {
		this.ctx = ctx;
	}
	folder() {
		const folder = join(this.ctx.ensureStateDir(), "created");
		mkdirSync(folder, {
			recursive: true,
			mode: 448
		});
		return folder;
	}
	file(workspace) {
		if (!WORKSPACE.test(workspace)) throw invalidArgument(`"${workspace}" is not a workspace id: pass a ws_… id`, { workspace });
		return join(this.folder(), `${workspace}.json`);
	}
	/** Records a directory this desk has just made (or found empty and is about to fill), before anything is written into it. */
	record(input) {
		const st = lstatSync(input.dir);
		const entry = {
			...input,
			tenant: this.ctx.tenant,
			dev: st.dev,
			ino: st.ino,
			at: this.ctx.now()
		};
		const file = this.file(input.workspace);
		const temp = `${file}.tmp-${process.pid}`;
		writeFileSync(temp, JSON.stringify(entry), { mode: 384 });
		renameSync(temp, file);
	}
	forget(workspace) {
		rmSync(this.file(workspace), { force: true });
	}
	read(workspace) {
		try {
			return JSON.parse(readFileSync(this.file(workspace), "utf8"));
		} catch {
			return null;
		}
	}
	/**
	* Whether `row`'s directory is one this desk created on this host and is
	* still that directory: the registry names this workspace, tenant, path
	* and driver, and the path is the same directory (same device and inode,
	* not a link) — or, for an overlay that is mounted, a mount whose upper
	* layer is this fork's own.
	*/
	holds(row) {
		const host = this.ctx.options.host;
		const refuse = (reason, message) => ({
			ok: false,
			reason,
			message,
			host: row.host,
			dir: row.dir
		});
		if (row.host !== host) return refuse("other-host", `workspace ${row.id} lives on host ${row.host}, not ${host}: only the desk on ${row.host} may change ${row.dir}`);
		const notCreated = (why) => refuse("not-created", `${row.dir} (workspace ${row.id}) ${why}: Cairn deletes only directories its desk on this host created; remove it yourself if you mean to, then detach without --discard`);
		const entry = this.read(row.id);
		if (!entry || entry.workspace !== row.id || entry.tenant !== this.ctx.tenant || entry.dir !== row.dir || entry.driver !== row.driver) return notCreated("was not created by this desk");
		if (row.driver === "overlay") {
			const options = mountOptions(row.dir);
			if (options !== null) return options.includes(`upperdir=${mountEscape(overlayLayout(this.ctx, row.id).upper, true)}`) ? { ok: true } : notCreated("is a mount this desk did not make");
		}
		const st = lstatSync(row.dir, { throwIfNoEntry: false });
		if (!st) return { ok: true };
		if (!st.isDirectory() || st.dev !== entry.dev || st.ino !== entry.ino) return notCreated("is no longer the directory this desk created (replaced or a link)");
		return { ok: true };
	}
	/**
	* Refuses destructive work (`discard`, `mount`) on a directory this desk
	* may not touch: FORBIDDEN with the reason, audited in the store, nothing changed.
	*/
	async require(row, action) {
		const held = this.holds(row);
		if (held.ok) return;
		const { reason, host, dir } = held;
		await this.ctx.store.refused({
			workspace: row.id,
			action,
			reason,
			host,
			dir
		});
		throw forbidden(held.message, {
			action: `desk.${action}`,
			workspace: row.id,
			reason,
			host,
			dir
		});
	}
};
// dist/desk/model.js
function dirNode(tree, files = 0, bytes = 0, redacted = 0) {
	const node = {
		kind: "dir",
		tree,
		children: tree === null ? /* @__PURE__ */ new Map() : null,
		files,
		bytes
	};
	if (redacted > 0) node.redacted = redacted;
	return node;
}
/** Timestamps on Linux filesystems advance in ticks of a few milliseconds: treat anything this recent as racy. */
const RACY_MS = 50;
function statKeyOf(st, startedMs) {
	return {
		ino: st.ino,
		size: st.size,
		mtimeMs: st.mtimeMs,
		ctimeMs: st.ctimeMs,
		mode: st.mode,
		racy: st.mtimeMs + RACY_MS >= startedMs || st.ctimeMs + RACY_MS >= startedMs
	};
}
function unchanged(key, st) {
	return key !== null && !key.racy && key.ino === st.ino && key.size === st.size && key.mtimeMs === st.mtimeMs && key.ctimeMs === st.ctimeMs && key.mode === st.mode;
}
/**
* A copy of the loaded part of a model, for scans that must not change the
* real one (a preview, a live diff): nodes are copied, digests and stat
* data shared (they are replaced, never mutated, by a scan).
*/
function cloneDir(node) {
	const children = node.children ? /* @__PURE__ */ new Map() : null;
	for (const [name, child] of node.children ?? []) children?.set(name, child.kind === "dir" ? cloneDir(child) : { ...child });
	return {
		...node,
		children
	};
}
async function loadDir(objects, node) {
	if (node.children) return node.children;
	const digest = node.tree;
	const children = /* @__PURE__ */ new Map();
	if (digest !== EMPTY_TREE.digest) for (const item of await objects.tree(digest)) if (item.kind === "file") children.set(item.name, {
		kind: "file",
		size: item.size,
		exec: item.exec,
		chunks: item.chunks,
		stat: null,
		...item.redacted ? { redacted: true } : {}
	});
	else if (item.kind === "symlink") children.set(item.name, {
		kind: "symlink",
		target: item.target,
		stat: null
	});
	else children.set(item.name, dirNode(item.tree, item.files, item.bytes, item.redacted));
	node.children = children;
	return children;
}
function childPath(parent, name) {
	return parent === "" ? name : `${parent}/${name}`;
}
/** Looks a directory up by path, loading trees on the way; null when absent or not a directory. */
async function findDir(objects, root, path) {
	const chain = [root];
	if (path === "") return chain;
	let node = root;
	for (const name of path.split("/")) {
		const next = (await loadDir(objects, node)).get(name);
		if (!next || next.kind !== "dir") return null;
		chain.push(next);
		node = next;
	}
	return chain;
}
/**
* Bytes of a large file's chunks read and hashed ahead of their scans'
* verdicts (held in memory meanwhile): enough that the first large file of a
* scan does not wait for the scan worker to start.
*/
const AHEAD_BYTES = 25165824;
/** Settles every file whose verdict is still out (see {@link ScanContext.later}); call it before {@link seal}. */
async function settleFiles(ctx) {
	await ctx.later?.settle();
}
/**
* Reads and hashes one file. Returns null when the guard keeps it out, and
* `later: true` when its verdict is still out (it is in `ctx.later`, and
* `remove` runs if the verdict withholds it).
*/
async function hashFile(ctx, path, st, remove) {
	const abs = join(ctx.root, path);
	if (!await ctx.admitPack(path, abs)) return null;
	const chunks = [];
	let size = 0;
	let redacted = false;
	const exec = (st.mode & 64) !== 0;
	if (st.size <= 524288 && ctx.later) {
		const [chunk] = chunkFile(abs, st.size);
		if (chunk) {
			const node = {
				kind: "file",
				size: chunk.bytes.length,
				exec,
				chunks: [chunk.digest],
				stat: statKeyOf(st, ctx.startedMs)
			};
			const verdict = ctx.admit(path, chunk.bytes, abs, true);
			verdict.catch(() => null);
			const finish = async () => {
				const admitted = await verdict;
				if (!admitted) return false;
				const digest = admitted.redacted ? digestOf(admitted.bytes) : chunk.digest;
				await ctx.writer.add(digest, "chunk", admitted.bytes, true);
				node.chunks = [digest];
				node.size = admitted.bytes.length;
				if (admitted.redacted) node.redacted = true;
				return true;
			};
			await ctx.later.add({
				bytes: chunk.bytes.length,
				finish,
				remove
			});
			return {
				node,
				later: true
			};
		}
	}
	if (st.size <= 524288) {
		let seen = false;
		for (const chunk of chunkFile(abs, st.size)) {
			seen = true;
			const admitted = await ctx.admit(path, chunk.bytes, abs);
			if (!admitted) return null;
			const digest = admitted.redacted ? digestOf(admitted.bytes) : chunk.digest;
			await ctx.writer.add(digest, "chunk", admitted.bytes, chunk.owned || admitted.redacted);
			chunks.push(digest);
			size += admitted.bytes.length;
			redacted = admitted.redacted;
		}
		if (!seen && !await ctx.admit(path, Buffer.alloc(0), abs)) return null;
	} else {
		const scan = ctx.stream(path, abs, st.size);
		const pending = [];
		let held = 0;
		const store = async (chunk) => {
			held -= chunk.held;
			const { clean, window } = await chunk.scanned;
			if (!clean) return false;
			await ctx.writer.add(chunk.digest, "chunk", window.subarray(0, chunk.length), false);
			returnCopy(window);
			chunks.push(chunk.digest);
			size += chunk.length;
			return true;
		};
		const drain = async () => {
			for (const chunk of pending) await chunk.scanned.catch(() => null);
		};
		try {
			let offset = 0;
			for (const chunk of chunkFile(abs, st.size)) {
				const window = copyWindow(chunk.window ?? chunk.bytes);
				const scanned = scan.feed(window, offset);
				scanned.catch(() => null);
				offset += chunk.bytes.length;
				pending.push({
					digest: chunk.digest,
					length: chunk.bytes.length,
					held: window.length,
					scanned
				});
				held += window.length;
				if (held > AHEAD_BYTES && !await store(pending.shift())) {
					await drain();
					return null;
				}
			}
			const finish = async () => {
				while (pending.length > 0) if (!await store(pending.shift())) {
					await drain();
					return false;
				}
				return true;
			};
			if (ctx.later && pending.length > 0) {
				const node = {
					kind: "file",
					size: 0,
					exec,
					chunks,
					stat: statKeyOf(st, ctx.startedMs)
				};
				await ctx.later.add({
					bytes: held,
					finish: async () => {
						const clean = await finish();
						node.size = size;
						return clean;
					},
					remove
				});
				return {
					node,
					later: true
				};
			}
			if (!await finish()) return null;
		} finally {
			scan.close();
		}
	}
	ctx.onFile?.();
	const node = {
		kind: "file",
		size,
		exec,
		chunks,
		stat: statKeyOf(st, ctx.startedMs)
	};
	if (redacted) node.redacted = true;
	return {
		node,
		later: false
	};
}
function lstatOrNull(path) {
	try {
		return lstatSync(path, { throwIfNoEntry: false }) ?? null;
	} catch (error) {
		if (error.code === "ENOTDIR") return null;
		throw error;
	}
}
/**
* Brings one directory node in line with the disk: its listing always, its
* subdirectories too when `deep`. Returns whether anything in it changed
* (its tree digest is then cleared, to be recomputed by `seal`).
*/
async function rescan(ctx, node, path, deep) {
	const children = await loadDir(ctx.objects, node);
	let listing;
	try {
		listing = readdirSync(path === "" ? ctx.root : join(ctx.root, path), { withFileTypes: true });
	} catch (error) {
		const code = error.code;
		if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
		listing = [];
	}
	let changed = false;
	const seen = /* @__PURE__ */ new Set();
	for (const dirent of listing) {
		const outcome = await updateEntry(ctx, children, path, dirent.name, dirent.isDirectory(), deep);
		if (outcome.kept) seen.add(dirent.name);
		if (outcome.changed) changed = true;
	}
	for (const name of [...children.keys()]) if (!seen.has(name)) {
		children.delete(name);
		changed = true;
	}
	if (changed) node.tree = null;
	return changed;
}
/**
* Brings one entry of a directory in line with the disk (the watcher saw a
* change to its content, not to the directory's listing). Returns whether
* it changed; 'listing' when the entry's kind changed and the directory
* should be rescanned instead.
*/
async function refreshEntry(ctx, node, path, name) {
	const children = await loadDir(ctx.objects, node);
	const existing = children.get(name);
	const st = lstatOrNull(join(ctx.root, childPath(path, name)));
	if (!st || st.isDirectory() !== (existing?.kind === "dir") || existing === void 0) return "listing";
	const outcome = await updateEntry(ctx, children, path, name, st.isDirectory(), false);
	if (!outcome.kept) {
		children.delete(name);
		node.tree = null;
		return true;
	}
	if (outcome.changed) node.tree = null;
	return outcome.changed;
}
/** Looks at one directory entry and updates `children`; `kept` is false when it must not be in the snapshot. */
async function updateEntry(ctx, children, path, name, isDir, deep) {
	const rel = childPath(path, name);
	if (name.includes("�")) {
		ctx.unsupported.push(rel);
		return {
			kept: false,
			changed: false
		};
	}
	if (ctx.skip(rel, isDir)) return {
		kept: false,
		changed: false
	};
	const st = lstatOrNull(join(ctx.root, rel));
	if (!st) return {
		kept: false,
		changed: false
	};
	const existing = children.get(name);
	if (!st.isSymbolicLink() && existing === void 0 && !await ctx.admitName(rel, null)) return {
		kept: false,
		changed: false
	};
	if (st.isDirectory()) {
		if (existing?.kind === "dir") return {
			kept: true,
			changed: deep && await rescan(ctx, existing, rel, true)
		};
		const fresh = dirNode(null);
		await rescan(ctx, fresh, rel, true);
		children.set(name, fresh);
		return {
			kept: true,
			changed: true
		};
	}
	if (st.isFile()) {
		if (existing?.kind === "file" && (unchanged(existing.stat, st) || await sameAsLower(ctx, rel, existing, st))) return {
			kept: true,
			changed: false
		};
		const hashed = await hashFile(ctx, rel, st, () => {
			if (children.get(name) === hashed?.node) children.delete(name);
		});
		if (!hashed) return {
			kept: false,
			changed: false
		};
		children.set(name, hashed.node);
		if (hashed.later) return {
			kept: true,
			changed: true
		};
		return {
			kept: true,
			changed: !(existing?.kind === "file" && sameFile(existing, hashed.node))
		};
	}
	if (st.isSymbolicLink()) {
		if (existing?.kind === "symlink" && unchanged(existing.stat, st)) return {
			kept: true,
			changed: false
		};
		const target = readlinkSync(join(ctx.root, rel));
		if (!await ctx.admitName(rel, target)) return {
			kept: false,
			changed: false
		};
		children.set(name, {
			kind: "symlink",
			target,
			stat: statKeyOf(st, ctx.startedMs)
		});
		return {
			kept: true,
			changed: !(existing?.kind === "symlink" && existing.target === target)
		};
	}
	ctx.unsupported.push(rel);
	return {
		kept: false,
		changed: false
	};
}
function sameFile(a, b) {
	return a.exec === b.exec && a.size === b.size && a.chunks.join() === b.chunks.join() && (a.redacted ?? false) === (b.redacted ?? false);
}
/** Overlay: a file the upper directory does not hold is the lower one, unchanged since the fork. */
async function sameAsLower(ctx, path, node, st) {
	if (ctx.upper === void 0 || node.stat !== null) return false;
	if (lstatOrNull(join(ctx.upper, path)) !== null) return false;
	node.stat = statKeyOf(st, ctx.startedMs);
	return true;
}
/**
* Computes the digests of changed directories bottom-up, queueing their tree
* objects. Every file's verdict must be in ({@link settleFiles}).
*/
async function seal(ctx, node) {
	if ((ctx.later?.size ?? 0) > 0) throw internal("a tree was sealed while file verdicts were still out; this is a bug in Cairn");
	return sealDir(ctx.writer, node);
}
async function sealDir(writer, node) {
	if (node.tree !== null) return node.tree;
	const items = [];
	let files = 0;
	let bytes = 0;
	let redacted = 0;
	for (const [name, child] of node.children ?? []) if (child.kind === "file") {
		const marker = child.redacted ? { redacted: true } : {};
		items.push({
			name,
			kind: "file",
			size: child.size,
			exec: child.exec,
			chunks: child.chunks,
			...marker
		});
		files++;
		bytes += child.size;
		if (child.redacted) redacted++;
	} else if (child.kind === "symlink") items.push({
		name,
		kind: "symlink",
		target: child.target
	});
	else {
		const tree = await sealDir(writer, child);
		const below = child.redacted ?? 0;
		const marker = below > 0 ? { redacted: below } : {};
		items.push({
			name,
			kind: "dir",
			tree,
			files: child.files,
			bytes: child.bytes,
			...marker
		});
		files += child.files;
		bytes += child.bytes;
		redacted += below;
	}
	const tree = encodeTree(items);
	await writer.add(tree.digest, "tree", tree.bytes);
	node.tree = tree.digest;
	node.files = files;
	node.bytes = bytes;
	if (redacted > 0) node.redacted = redacted;
	else delete node.redacted;
	return tree.digest;
}
/** Every entry of a tree by path, for diff and merge. */
async function flatten(objects, node, path = "", into = /* @__PURE__ */ new Map()) {
	for (const [name, child] of await loadDir(objects, node)) {
		const rel = childPath(path, name);
		let entry;
		if (child.kind === "file") entry = {
			kind: "file",
			path: rel,
			size: child.size,
			exec: child.exec,
			chunks: child.chunks
		};
		else if (child.kind === "symlink") entry = {
			kind: "symlink",
			path: rel,
			target: child.target
		};
		else entry = {
			kind: "dir",
			path: rel
		};
		into.set(rel, entry);
		if (child.kind === "dir") await flatten(objects, child, rel, into);
	}
	return into;
}
/**
* Paths of the redacted files below a directory (a snapshot's root: every
* one), reading only the trees that hold any. The root's own count is not
* recorded anywhere, so its tree is always read.
*/
async function redactedPaths(objects, node, path = "", out = []) {
	for (const [name, child] of await loadDir(objects, node)) {
		const rel = childPath(path, name);
		if (child.kind === "file" && child.redacted) out.push(rel);
		else if (child.kind === "dir" && (child.redacted ?? 0) > 0) await redactedPaths(objects, child, rel, out);
	}
	return out;
}
// dist/desk/materialize.js
function applyContext(root, objects, apply, withhold = () => false, only) {
	return {
		root,
		objects,
		apply,
		only,
		withhold,
		changes: [],
		withheld: [],
		blocked: [],
		untouched: [],
		written: [],
		stats: /* @__PURE__ */ new Map()
	};
}
/** Whether `path` lies in, or leads to, one of the paths the change is limited to. */
function inScope(ctx, path) {
	if (!ctx.only) return true;
	return ctx.only.some((p) => p === path || path.startsWith(`${p}/`) || p.startsWith(`${path}/`));
}
/** Whether `path` lies in one of the paths (not merely on the way to one). */
function covered(ctx, path) {
	return !ctx.only || ctx.only.some((p) => p === path || path.startsWith(`${p}/`));
}
const HOLE = 65536;
const ZEROS = Buffer.alloc(HOLE);
/** Writes bytes at a position, leaving all-zero 64 KiB blocks as holes; true when the last block was a hole. */
function writeSparse(fd, bytes, position) {
	let hole = false;
	for (let at = 0; at < bytes.length; at += HOLE) {
		const block = bytes.subarray(at, Math.min(at + HOLE, bytes.length));
		hole = block.length === HOLE && block.equals(ZEROS);
		if (hole) continue;
		let done = 0;
		while (done < block.length) done += writeSync(fd, block, done, block.length - done, position + at + done);
	}
	return hole;
}
/**
* Writes a file's chunks; zero blocks become holes, so sparse files stay
* sparse. Into a live directory the file goes to a temporary name and is
* renamed into place; `fresh` (a new directory nobody uses yet) writes it
* under its own name.
*/
async function writeFileNode(objects, abs, node, fresh = false) {
	const temp = fresh ? abs : `${abs}.cairn-${randomBytes(6).toString("hex")}`;
	const fd = openSync(temp, "wx", 384);
	try {
		let position = 0;
		let hole = false;
		for (const digest of node.chunks) {
			const bytes = await objects.get(digest);
			hole = writeSparse(fd, bytes, position);
			position += bytes.length;
		}
		if (hole) ftruncateSync(fd, node.size);
		fchmodSync(fd, node.exec ? 493 : 420);
	} catch (error) {
		closeSync(fd);
		unlinkSync(temp);
		throw error;
	}
	closeSync(fd);
	renameSync(temp, abs);
}
function exists(abs) {
	return lstatSync(abs, { throwIfNoEntry: false }) !== void 0;
}
async function create(ctx, rel, node) {
	if (node.kind !== "dir" && ctx.withhold(rel)) {
		ctx.withheld.push(rel);
		return false;
	}
	const abs = join(ctx.root, rel);
	if (ctx.apply && exists(abs)) {
		ctx.blocked.push(rel);
		return false;
	}
	ctx.changes.push({
		path: rel,
		change: "added",
		kind: node.kind
	});
	if (node.kind === "dir") {
		if (ctx.apply) mkdirSync(abs);
		const children = await loadDir(ctx.objects, node);
		for (const [name, child] of [...children]) if (!await create(ctx, childPath(rel, name), child) && ctx.apply) {
			children.delete(name);
			node.tree = null;
		}
	} else if (ctx.apply) {
		if (node.kind === "file") await writeFileNode(ctx.objects, abs, node);
		else symlinkSync(node.target, abs);
		ctx.written.push({
			path: rel,
			node
		});
		ctx.onFile?.();
	}
	return true;
}
/** Removes a tracked entry; returns false when something untracked kept a directory in place. */
async function remove(ctx, rel, node) {
	ctx.changes.push({
		path: rel,
		change: "removed",
		kind: node.kind
	});
	if (!ctx.apply) {
		if (node.kind === "dir") for (const [name, child] of await loadDir(ctx.objects, node)) await remove(ctx, childPath(rel, name), child);
		return true;
	}
	const abs = join(ctx.root, rel);
	if (node.kind !== "dir") {
		try {
			unlinkSync(abs);
		} catch (error) {
			if (error.code !== "ENOENT") throw error;
		}
		return true;
	}
	const children = await loadDir(ctx.objects, node);
	for (const [name, child] of [...children]) if (await remove(ctx, childPath(rel, name), child)) children.delete(name);
	node.tree = null;
	try {
		rmdirSync(abs);
	} catch (error) {
		const code = error.code;
		if (code === "ENOTEMPTY" || code === "EEXIST") {
			ctx.blocked.push(rel);
			return false;
		}
		if (code !== "ENOENT") throw error;
	}
	return true;
}
/**
* Applies (or previews) the change from `current` to `target` below `rel`.
* When applying, `current` is updated in place to describe the disk
* afterwards; directories that changed lose their digest (seal recomputes it).
*/
async function applyTree(ctx, current, target, rel = "") {
	if (current.tree !== null && current.tree === target.tree) return;
	const from = await loadDir(ctx.objects, current);
	const to = await loadDir(ctx.objects, target);
	const skippedNow = () => ctx.blocked.length + ctx.withheld.length + ctx.untouched.length;
	const skipped = skippedNow();
	const touch = () => {
		if (ctx.apply) current.tree = null;
	};
	for (const [name, before] of [...from]) {
		const path = childPath(rel, name);
		if (ctx.untouchable?.(path)) {
			ctx.untouched.push(path);
			continue;
		}
		if (!to.has(name) && covered(ctx, path)) {
			touch();
			if (await remove(ctx, path, before) && ctx.apply) from.delete(name);
		}
	}
	for (const [name, after] of to) {
		const path = childPath(rel, name);
		if (!inScope(ctx, path)) continue;
		if (ctx.untouchable?.(path)) {
			if (!from.has(name)) ctx.untouched.push(path);
			continue;
		}
		const before = from.get(name);
		if (before?.kind === "dir" && after.kind === "dir") {
			await applyTree(ctx, before, after, path);
			if (before.tree === null) touch();
			continue;
		}
		if (!covered(ctx, path)) continue;
		if (!before) {
			touch();
			if (await create(ctx, path, after) && ctx.apply) from.set(name, after);
		} else if (before.kind === "file" && after.kind === "file" && before.chunks.join() === after.chunks.join()) {
			if (before.exec !== after.exec) {
				ctx.changes.push({
					path,
					change: "changed",
					kind: "file"
				});
				if (ctx.apply) {
					touch();
					ctx.onWrite?.(path);
					chmodSync(join(ctx.root, path), after.exec ? 493 : 420);
					before.exec = after.exec;
					before.stat = null;
					ctx.written.push({
						path,
						node: before
					});
				}
			}
		} else if (before.kind === "symlink" && after.kind === "symlink" && before.target === after.target) {} else if (before.kind === "file" && after.kind === "file" && !ctx.withhold(path)) {
			ctx.changes.push({
				path,
				change: "changed",
				kind: "file"
			});
			if (ctx.apply) {
				touch();
				ctx.onWrite?.(path);
				await writeFileNode(ctx.objects, join(ctx.root, path), after);
				from.set(name, after);
				ctx.written.push({
					path,
					node: after
				});
				ctx.onFile?.();
			}
		} else {
			touch();
			if (!await remove(ctx, path, before)) continue;
			if (ctx.apply) from.delete(name);
			if (await create(ctx, path, after) && ctx.apply) from.set(name, after);
		}
	}
	if (ctx.apply && !ctx.only && skippedNow() === skipped) {
		current.tree = target.tree;
		current.files = target.files;
		current.bytes = target.bytes;
		if (target.redacted) current.redacted = target.redacted;
		else delete current.redacted;
	}
}
const PARALLEL_WRITES = 8;
/** Files per group of a materialise: their small contents are fetched together. */
const GROUP_FILES = 256;
/** Writes one file into a new directory with async calls (so several run at once on libuv's pool). */
async function writeFresh(objects, abs, node) {
	const handle = await promises.open(abs, "wx", 384);
	try {
		let position = 0;
		for (const digest of node.chunks) {
			const bytes = await objects.get(digest);
			for (let at = 0; at < bytes.length; at += HOLE) {
				const block = bytes.subarray(at, Math.min(at + HOLE, bytes.length));
				if (block.length === HOLE && block.equals(ZEROS)) continue;
				let done = 0;
				while (done < block.length) done += (await handle.write(block, done, block.length - done, position + at + done)).bytesWritten;
			}
			position += bytes.length;
		}
		await handle.truncate(node.size);
		await handle.chmod(node.exec ? 493 : 420);
		return await handle.stat();
	} finally {
		await handle.close();
	}
}
/**
* Writes a whole tree into an empty directory (a copy fork, a lower layer):
* directories and links first, then the files, several at a time. Files go
* straight under their names (nobody uses the directory yet); the stat of
* each is taken from its open descriptor for the new model's stat cache.
*/
async function materialize(objects, root, tree, onFile) {
	const ctx = applyContext(root, objects, true);
	const files = [];
	const walk = async (node, rel) => {
		for (const [name, child] of await loadDir(objects, node)) {
			const path = childPath(rel, name);
			const abs = join(root, path);
			if (child.kind === "dir") {
				mkdirSync(abs);
				await walk(child, path);
			} else if (child.kind === "symlink") {
				symlinkSync(child.target, abs);
				ctx.written.push({
					path,
					node: child
				});
			} else files.push({
				path,
				node: child
			});
		}
	};
	await walk(tree, "");
	for (let start = 0; start < files.length;) {
		let end = start;
		let bytes = 0;
		while (end < files.length && end - start < GROUP_FILES && bytes < 16777216) bytes += files[end++].node.size;
		const group = files.slice(start, end);
		await objects.prefetch(group.flatMap(({ node }) => node.chunks.length === 1 ? [{
			digest: node.chunks[0],
			size: node.size
		}] : []));
		let next = 0;
		const worker = async () => {
			while (next < group.length) {
				const { path, node } = group[next++];
				const st = await writeFresh(objects, join(root, path), node);
				ctx.stats.set(path, st);
				ctx.written.push({
					path,
					node
				});
				onFile?.();
			}
		};
		await Promise.all(Array.from({ length: PARALLEL_WRITES }, worker));
		start = end;
	}
	return ctx;
}
// dist/desk/fork.js
/** Where an overlay fork's own layers live in the desk's state folder: its upper layer and overlayfs's work dir. */
function overlayLayout(ctx, id) {
	const base = join(ctx.ensureStateDir(), "forks", id);
	return {
		upper: join(base, "upper"),
		work: join(base, "work")
	};
}
/** The read-only lower layer holding a snapshot, materialised once per root tree and shared by its forks. */
async function lowerFor(ctx, snapshot) {
	const lower = join(ctx.ensureStateDir(), "lower", ctx.tenant, snapshot.root);
	if (existsSync(lower)) {
		const now = new Date(ctx.now());
		utimesSync(lower, now, now);
		return lower;
	}
	const temp = `${lower}.tmp-${newId("snapshot")}`;
	mkdirSync(temp, { recursive: true });
	await materialize(ctx.objects, temp, dirNode(snapshot.root), ctx.counter("write"));
	try {
		renameSync(temp, lower);
	} catch (error) {
		rmSync(temp, {
			recursive: true,
			force: true
		});
		if (!existsSync(lower)) throw error;
	}
	return lower;
}
async function mountFork(ctx, row, base) {
	const layout = overlayLayout(ctx, row.id);
	await mountOverlay({
		lower: await lowerFor(ctx, base),
		upper: layout.upper,
		work: layout.work,
		mountpoint: row.dir
	}, ctx.mounter);
}
/**
* Deletes this tenant's overlay lower layers on this host that no attached
* overlay workspace starts from and that were last used before `before`
* (a fork being created in another process touches its layer first).
*/
async function sweepLayers(ctx, before) {
	const dir = join(ctx.ensureStateDir(), "lower", ctx.tenant);
	if (!existsSync(dir)) return 0;
	const forks = (await ctx.store.listWorkspaces()).filter((w) => w.host === ctx.options.host && w.driver === "overlay" && w.state === "attached");
	const used = new Set(await Promise.all(forks.map(async (w) => (await ctx.store.snapshot(w.baseSnapshot)).root)));
	let removed = 0;
	for (const name of readdirSync(dir)) {
		const path = join(dir, name);
		if (used.has(name) || lstatSync(path).mtimeMs >= before) continue;
		rmSync(path, {
			recursive: true,
			force: true
		});
		removed++;
	}
	return removed;
}
function isEmptyDir(path) {
	return readdirSync(path).length === 0;
}
/** Forking a workspace into a new directory of its own, by the copy or the overlay driver. */
var Forks = class {
	ctx;
	handles;
	snapshots;
	constructor(ctx, handles, snapshots) {
		this.ctx = ctx;
		this.handles = handles;
		this.snapshots = snapshots;
	}
	/**
	* Forks a workspace: checkpoints it, starts a new log branch at that
	* checkpoint, and gives the branch its own directory. The driver is chosen
	* by capability (overlay where this process may mount, else copy) unless
	* named. Writes in either directory never show in the other.
	*/
	async fork(workspace, input) {
		const ctx = this.ctx;
		if (input.branch !== void 0) parseInput(BranchName, input.branch, "fork");
		const dir = ctx.resolveDir(input.dir, false);
		if (existsSync(dir) && !(lstatSync(dir).isDirectory() && isEmptyDir(dir))) throw invalidArgument(`${dir} exists and is not an empty directory: fork into a new or empty directory`, { dir });
		const canOverlay = overlaySupported(join(ctx.ensureStateDir(), "probe"));
		if (input.driver === "overlay" && !canOverlay) throw unavailable("this process cannot mount overlays here: use the copy driver");
		const driver = input.driver ?? (canOverlay ? "overlay" : "copy");
		return this.handles.withHandle(workspace, async (h) => {
			const checkpoint = input.at ? null : await this.snapshots.snapshot(h, "checkpoint");
			const base = input.at ? await ctx.snapshotById(input.at.snapshot) : headOf(h);
			const id = newId("workspace", ctx.now());
			mkdirSync(dir, { recursive: true });
			const path = realpathSync(dir);
			const created = new CreatedDirs(ctx);
			created.record({
				workspace: id,
				dir: path,
				driver
			});
			const planned = {
				id,
				host: ctx.options.host,
				dir: path,
				session: h.row.session,
				branch: "",
				driver,
				state: "attached",
				baseSnapshot: base.id,
				headSnapshot: base.id,
				forkedFrom: h.row.id,
				createdAt: ctx.now()
			};
			let tree;
			let row;
			try {
				tree = dirNode(base.root, base.files, base.bytes);
				if (driver === "overlay") await mountFork(ctx, planned, base);
				else {
					const written = await materialize(ctx.objects, path, tree, ctx.counter("write"));
					const settled = ctx.now();
					for (const { path: p, node } of written.written) node.stat = statKeyOf(written.stats.get(p) ?? lstatSync(join(path, p)), settled);
				}
				row = await ctx.store.fork({
					id,
					from: h.row.id,
					host: ctx.options.host,
					path,
					driver,
					baseSnapshot: base.id,
					...input.at ? { at: input.at.event } : {},
					...input.branch !== void 0 ? { branch: input.branch } : {}
				});
			} catch (error) {
				created.forget(id);
				if (driver === "overlay") await unmountOverlay(path, ctx.mounter);
				rmSync(overlayLayout(ctx, id).upper, {
					recursive: true,
					force: true
				});
				if (driver === "copy") for (const name of readdirSync(path)) rmSync(join(path, name), {
					recursive: true,
					force: true
				});
				throw error;
			}
			const handle = this.handles.newHandle(row, tree, base);
			handle.fullScan = false;
			ctx.handles.set(row.id, handle);
			const redacted = await redactedPaths(ctx.objects, dirNode(base.root));
			return {
				workspace: row,
				checkpoint,
				redacted
			};
		});
	}
};
// dist/desk/later-files.js
/**
* Files read and hashed during a scan whose guard verdicts come from another
* thread (see ScanContext.later in model.ts): the scan reads on while the
* worker scans, and settles them here, in read order, before any tree is
* sealed.
*/
/** Files read and hashed ahead of their verdicts: at most this many, or this many bytes held, at once. */
const LATER_FILES = 2048;
const LATER_BYTES = 33554432;
/**
* Files whose verdicts are out, in the order they were read. Each is in the
* model already (its directory marked changed); settling stores what its
* verdict admits (a redacted copy under its own digest) or takes the entry
* out. What they hold waits in memory, bounded: past LATER_FILES or
* LATER_BYTES, all outstanding are settled.
*/
var LaterFiles = class {
	onFile;
	items = [];
	bytes = 0;
	/** `onFile`: called for each file stored (progress). */
	constructor(onFile) {
		this.onFile = onFile;
	}
	get size() {
		return this.items.length;
	}
	async add(item) {
		this.items.push(item);
		this.bytes += item.bytes;
		if (this.items.length >= LATER_FILES || this.bytes >= LATER_BYTES) await this.settle();
	}
	/** Settles every file still out, in the order they were read. */
	async settle() {
		const items = this.items;
		this.items = [];
		this.bytes = 0;
		for (const item of items) if (await item.finish()) this.onFile?.();
		else item.remove();
	}
};
// dist/desk/watcher.js
/** Temporary names a restore writes beside a file before renaming it into place. */
const TEMP_NAME = /\.cairn-[0-9a-f]{12}$/;
/** Files the watcher writes into the workspace root to learn that every earlier event has arrived; never snapshotted. */
const COOKIE_PREFIX = ".cairn-cookie-";
/**
* Tracks which directories changed since the last drain, with one inotify
* watch per directory (`fs.watch`, not recursive: Node 20's recursive mode on
* Linux polls). A drain first writes a cookie file into the root and waits
* for its event: events are queued in order, so every change made before the
* drain began has then been seen (the same trick as watchman's cookies).
* Anything it cannot vouch for (a watch that failed, the inotify limit)
* makes the next drain answer 'all', i.e. a full stat-cache scan.
*/
var DirWatcher = class {
	root;
	skip;
	watchers = /* @__PURE__ */ new Map();
	dirty = /* @__PURE__ */ new Set();
	/** Entries whose content changed (a 'change' event), when their directory's listing did not. */
	dirtyFiles = /* @__PURE__ */ new Set();
	/** Directories created, or moved into place, since the last drain: rescanned whole. */
	deep = /* @__PURE__ */ new Set();
	/** Paths this process is about to write itself: their events mark only the entry, not the listing. */
	expected = /* @__PURE__ */ new Set();
	lost = false;
	cookies = /* @__PURE__ */ new Map();
	constructor(root, skip) {
		this.root = root;
		this.skip = skip;
		this.watchTree("");
	}
	watchTree(rel) {
		if (this.watchers.has(rel)) return;
		const abs = rel === "" ? this.root : join(this.root, rel);
		let watcher;
		try {
			watcher = watch(abs, { persistent: false }, (event, name) => this.onEvent(rel, event, name));
		} catch {
			this.lost = true;
			return;
		}
		watcher.on("error", () => {
			this.lost = true;
			watcher.close();
			this.watchers.delete(rel);
		});
		this.watchers.set(rel, watcher);
		let names = [];
		try {
			names = readdirSync(abs, { withFileTypes: true });
		} catch {
			return;
		}
		for (const d of names) {
			const child = childPath(rel, d.name);
			if (d.isDirectory() && !this.skip(child, true)) this.watchTree(child);
		}
	}
	onEvent(rel, event, name) {
		if (name === null) {
			this.lost = true;
			return;
		}
		const text = name.toString();
		if (rel === "" && text.startsWith(".cairn-cookie-")) {
			this.cookies.get(text)?.();
			return;
		}
		if (TEMP_NAME.test(text)) return;
		const child = childPath(rel, text);
		if (event === "change" || this.expected.has(child)) {
			this.dirtyFiles.add(child);
			return;
		}
		this.dirty.add(rel);
		for (const [path, watcher] of this.watchers) if (path === child || path.startsWith(`${child}/`)) {
			watcher.close();
			this.watchers.delete(path);
		}
		if (lstatSync(join(this.root, child), { throwIfNoEntry: false })?.isDirectory() && !this.skip(child, true)) {
			this.watchTree(child);
			this.deep.add(child);
		}
	}
	/**
	* Paths this process is about to write (a restore): events about them
	* mark only those entries dirty, not their directories' listings.
	*/
	expect(paths) {
		for (const path of paths) this.expected.add(path);
	}
	/**
	* What changed since the previous drain: directories whose listing may
	* have changed and entries whose content did; 'all' when the watcher
	* cannot tell.
	*/
	async drain() {
		const cookie = `${COOKIE_PREFIX}${randomHex(8)}`;
		const path = join(this.root, cookie);
		const seen = new Promise((resolve) => {
			const timer = setTimeout(() => resolve(false), 2e3);
			this.cookies.set(cookie, () => {
				clearTimeout(timer);
				resolve(true);
			});
		});
		try {
			writeFileSync(path, "");
			unlinkSync(path);
		} catch {
			this.lost = true;
		}
		const arrived = await seen;
		this.cookies.delete(cookie);
		const lost = this.lost || !arrived || !this.watchers.has("");
		const dirs = this.dirty;
		const files = this.dirtyFiles;
		const deep = this.deep;
		this.dirty = /* @__PURE__ */ new Set();
		this.dirtyFiles = /* @__PURE__ */ new Set();
		this.deep = /* @__PURE__ */ new Set();
		this.expected.clear();
		this.lost = false;
		return lost ? "all" : {
			dirs,
			files,
			deep
		};
	}
	close() {
		for (const watcher of this.watchers.values()) watcher.close();
		this.watchers.clear();
	}
};
// dist/desk/scan.js
/**
* How the desk looks at a workspace directory: which paths it skips (its own
* temporary files, the ignore rules, credential paths), how a scan hands
* content to the guard, and what the watcher (or an overlay's upper layer)
* says needs rescanning.
*/
var Scanner = class {
	ctx;
	constructor(ctx) {
		this.ctx = ctx;
	}
	skipPath(h, path, isDir, findings) {
		const slash = path.lastIndexOf("/");
		const name = slash < 0 ? path : path.slice(slash + 1);
		if (slash < 0 && name.startsWith(".cairn-cookie-")) return true;
		if (TEMP_NAME.test(name)) return true;
		if (!this.ctx.options.includeGit && name === ".git") return true;
		if (path === ".cairnignore") return false;
		if (createPathFilterCached(h).ignored(path, isDir)) return true;
		if (!isDir) {
			const finding = this.ctx.guard.pathFinding(path);
			if (finding) {
				findings?.push(finding);
				return true;
			}
		}
		return false;
	}
	watcherFor(h) {
		return new DirWatcher(h.row.dir, (p, d) => this.skipPath(h, p, d, null));
	}
	/**
	* A full scan hands small files' content scans to the worker thread (where
	* there is one) and reads on meanwhile; the worker is started now, so its
	* start overlaps the first files. A scan of a few changed files stays on
	* this thread: a worker's start would cost more than their scans.
	*/
	scanOffThread(ctx) {
		if (!this.ctx.guard.scansOffThread) return;
		ctx.later = new LaterFiles(ctx.onFile);
		this.ctx.guard.warmUp();
	}
	scanContext(h, writer, findings) {
		const guard = this.ctx.guard;
		const text = readIgnore(h.row.dir);
		if (text !== h.ignoreText) {
			h.ignoreText = text;
			filters.delete(h);
			h.fullScan = true;
			if (h.watcher) {
				h.watcher.close();
				h.watcher = this.watcherFor(h);
			}
		}
		return {
			root: h.row.dir,
			objects: this.ctx.objects,
			writer,
			skip: (path, isDir) => this.skipPath(h, path, isDir, findings),
			admit: async (path, bytes, abs, offThread) => {
				const verdict = await guard.admit(path, bytes, abs, true, offThread);
				findings.push(...verdict.findings);
				if (verdict.store === "withhold") return null;
				return verdict.store === "redacted" ? {
					bytes: verdict.bytes,
					redacted: true
				} : {
					bytes,
					redacted: false
				};
			},
			admitName: async (path, target) => {
				const finding = await guard.nameFinding(path, target);
				if (finding) findings.push(finding);
				return finding === null;
			},
			stream: (path, abs, size) => {
				const scan = guard.stream(path, abs, size);
				let reported = false;
				return {
					get findings() {
						return scan.findings;
					},
					feed: async (window, offset) => {
						const scanned = await scan.feed(window, offset);
						if (!scanned.clean && !reported) {
							findings.push(...scan.findings);
							reported = true;
						}
						return scanned;
					},
					close: () => scan.close()
				};
			},
			admitPack: async (path, abs) => {
				const found = await guard.packFindings(path, abs);
				findings.push(...found);
				return found.every((f) => f.action === "kept");
			},
			later: null,
			upper: h.upper,
			startedMs: this.ctx.now(),
			unsupported: [],
			onFile: this.ctx.counter("scan")
		};
	}
	/**
	* What to rescan: the directories (and single entries) the watcher saw
	* change, the directories of an overlay's upper layer, or everything.
	*/
	async dirtyDirs(h) {
		const full = h.fullScan;
		h.fullScan = false;
		if (h.watcher) {
			const seen = await h.watcher.drain();
			if (!full) return seen;
		}
		if (full && h.row.driver !== "overlay") return "all";
		if (h.upper) return {
			dirs: upperDirs(h.upper),
			files: /* @__PURE__ */ new Set(),
			deep: /* @__PURE__ */ new Set()
		};
		return "all";
	}
	/** The live directory as a model, from a full scan of a copy of the workspace's model, storing nothing. */
	async dryScan(h, findings = []) {
		const copy = cloneDir(h.root);
		const writer = this.ctx.objects.writer();
		writer.dryRun = true;
		const ctx = this.scanContext(h, writer, findings);
		this.scanOffThread(ctx);
		await rescan(ctx, copy, "", true);
		await settleFiles(ctx);
		await seal(ctx, copy);
		return copy;
	}
};
/**
* Whether a path lies in a `.git` directory (at any depth): left out of
* snapshots unless the store includes git, and then never written or
* removed by a restore, so a restore cannot rewind the user's git history.
*/
function inGitDir(path) {
	return path === ".git" || path.startsWith(".git/") || path.includes("/.git/") || path.endsWith("/.git");
}
const filters = /* @__PURE__ */ new WeakMap();
function createPathFilterCached(h) {
	let filter = filters.get(h);
	if (!filter) {
		filter = createPathFilter(h.ignoreText);
		filters.set(h, filter);
	}
	return filter;
}
function readIgnore(root) {
	const ignore = join(root, ".cairnignore");
	return existsSync(ignore) ? readFileSync(ignore, "utf8") : null;
}
/** Directories present in an overlay's upper layer: the only ones a change since the fork can be in. */
function upperDirs(upper) {
	const out = /* @__PURE__ */ new Set([""]);
	const walk = (abs, rel) => {
		for (const d of readdirSync(abs, { withFileTypes: true })) {
			if (!d.isDirectory()) continue;
			const child = rel === "" ? d.name : `${rel}/${d.name}`;
			out.add(child);
			walk(join(abs, d.name), child);
		}
	};
	walk(upper, "");
	return out;
}
// dist/desk/stat-cache.js
function packStat(st) {
	return st ? [
		st.ino,
		st.size,
		st.mtimeMs,
		st.ctimeMs,
		st.mode,
		st.racy ? 1 : 0
	] : null;
}
function unpackStat(t) {
	return t ? {
		ino: t[0],
		size: t[1],
		mtimeMs: t[2],
		ctimeMs: t[3],
		mode: t[4],
		racy: t[5] === 1
	} : null;
}
function store(node) {
	if (node.kind === "file") {
		const stored = {
			k: "f",
			s: node.size,
			x: node.exec ? 1 : 0,
			h: node.chunks,
			st: packStat(node.stat)
		};
		if (node.redacted) stored.r = 1;
		return stored;
	}
	if (node.kind === "symlink") return {
		k: "l",
		t: node.target,
		st: packStat(node.stat)
	};
	let c = null;
	if (node.children) {
		c = {};
		for (const [name, child] of node.children) c[name] = store(child);
	}
	const dir = {
		k: "d",
		t: node.tree,
		f: node.files,
		b: node.bytes,
		c
	};
	if (node.redacted) dir.r = node.redacted;
	return dir;
}
function load(s) {
	if (s.k === "f") {
		const file = {
			kind: "file",
			size: s.s,
			exec: s.x === 1,
			chunks: s.h,
			stat: unpackStat(s.st)
		};
		if (s.r === 1) file.redacted = true;
		return file;
	}
	if (s.k === "l") return {
		kind: "symlink",
		target: s.t,
		stat: unpackStat(s.st)
	};
	let children = null;
	if (s.c) {
		children = /* @__PURE__ */ new Map();
		for (const [name, child] of Object.entries(s.c)) children.set(name, load(child));
	}
	const dir = {
		kind: "dir",
		tree: s.t,
		files: s.f,
		bytes: s.b,
		children
	};
	if (s.r) dir.redacted = s.r;
	return dir;
}
/** Saves a sealed model (every directory digest known) for the given head snapshot. */
function saveStatCache(path, snapshot, root) {
	mkdirSync(dirname(path), { recursive: true });
	const temp = `${path}.${randomHex(6)}`;
	writeFileSync(temp, JSON.stringify({
		v: 1,
		snapshot,
		root: store(root)
	}));
	renameSync(temp, path);
}
/** The cached model for `snapshot`, or null when there is none for it. */
function loadStatCache(path, snapshot) {
	try {
		const doc = JSON.parse(readFileSync(path, "utf8"));
		if (doc.v !== 1 || doc.snapshot !== snapshot || doc.root.k !== "d") return null;
		return load(doc.root);
	} catch {
		return null;
	}
}
// dist/desk/handles.js
/**
* The desk's open workspaces: each opened once (its model from the stat
* cache or the head snapshot, an overlay fork mounted again if it is not),
* used by one operation at a time, dropped on failure and rebuilt on next use.
*/
var Handles = class {
	ctx;
	scanner;
	constructor(ctx, scanner) {
		this.ctx = ctx;
		this.scanner = scanner;
	}
	newHandle(row, root, head) {
		const handle = {
			row,
			root,
			head,
			fullScan: true,
			busy: Promise.resolve(),
			ignoreText: null
		};
		if (row.driver === "overlay") handle.upper = overlayLayout(this.ctx, row.id).upper;
		else if (this.ctx.options.watch) {
			handle.ignoreText = readIgnore(row.dir);
			handle.watcher = this.scanner.watcherFor(handle);
		}
		return handle;
	}
	async open(id) {
		const ctx = this.ctx;
		const cached = ctx.handles.get(id);
		if (cached) return cached;
		const { workspace: row, head } = await ctx.store.head(id);
		if (row.state !== "attached") throw conflict(`workspace ${id} is detached: attach its directory again to use it`, { workspace: id });
		if (row.host !== ctx.options.host) throw conflict(`workspace ${id} lives on host ${row.host}, not ${ctx.options.host}: run this there`, {
			workspace: id,
			host: row.host
		});
		if (row.driver === "overlay" && !isMounted(row.dir)) {
			await new CreatedDirs(ctx).require(row, "mount");
			await mountFork(ctx, row, await ctx.snapshotById(row.baseSnapshot));
		}
		const root = loadStatCache(ctx.statCachePath(id), head.id) ?? dirNode(head.root, head.files, head.bytes);
		const handle = this.newHandle(row, root, head);
		handle.fullScan = row.driver !== "overlay";
		ctx.handles.set(id, handle);
		return handle;
	}
	/** Runs fn with the workspace to itself; on failure its in-memory state is dropped and rebuilt on next use. */
	async withHandle(id, fn) {
		const h = await this.open(id);
		const run = h.busy.then(() => fn(h), () => fn(h));
		h.busy = run.catch(() => void 0);
		try {
			return await run;
		} catch (error) {
			this.drop(id);
			throw error;
		}
	}
	drop(id) {
		const h = this.ctx.handles.get(id);
		h?.watcher?.close();
		h?.prepared?.writer.discard();
		this.ctx.handles.delete(id);
	}
	/** Writes stat caches so the next process need not re-read unchanged files, and stops watchers. */
	async close() {
		for (const [id, h] of this.ctx.handles) {
			if (h.head && h.root.tree === h.head.root) saveStatCache(this.ctx.statCachePath(id), h.head.id, h.root);
			h.watcher?.close();
			await h.prepared?.writer.discard();
		}
		this.ctx.handles.clear();
	}
};
// dist/desk/gc.js
/** Walks every tree from every snapshot root, re-hashing each object once; stops at the first problem. */
async function verifyStore(store, objects) {
	const { engine, tenant, who } = store;
	authorize(who, "desk.read");
	const snapshots = await engine.read(tenant, (tx) => tx.all("SELECT id, root, event FROM desk_snapshots WHERE tenant = ? ORDER BY id", [tenant]));
	const seen = /* @__PURE__ */ new Set();
	let bytes = 0;
	const visit = async (digest, tree) => {
		if (seen.has(digest)) return;
		seen.add(digest);
		const data = await objects.get(digest);
		bytes += data.length;
		if (!tree) return;
		for (const child of (await loadDir(objects, dirNode(digest))).values()) if (child.kind === "file") for (const c of child.chunks) await visit(c, false);
		else if (child.kind === "dir") await visit(child.tree, true);
	};
	for (const s of snapshots) try {
		if ((await engine.read(tenant, (tx) => getEvent(tx, who, s.event))).payload?.root !== s.root) throw corrupt(`snapshot ${s.id} names root ${s.root} but its log event ${s.event} says otherwise`);
		await visit(s.root, true);
	} catch (error) {
		const e = error;
		return {
			ok: false,
			snapshots: snapshots.length,
			objects: seen.size,
			bytes,
			problem: {
				code: e.code ?? "INTERNAL",
				message: e.message,
				snapshot: s.id,
				digest: e.data?.digest
			}
		};
	}
	return {
		ok: true,
		snapshots: snapshots.length,
		objects: seen.size,
		bytes
	};
}
/**
* Retention, then mark and sweep: marks every object reachable from a
* snapshot, removes index rows of the rest, deletes packs left with no live
* object, and deletes packs (and their staged objects) abandoned mid-write
* more than `graceMs` before `started`. (A pack that is only partly garbage
* keeps its bytes until all of it is garbage: no repacking yet.) Safe while
* checkpoints run: a checkpoint re-checks the objects it reuses when it
* commits, and the sweep re-marks any snapshot that appeared after the mark.
* `removedLayers` is left 0: layers are the desk host's.
*/
async function collectGarbage(store, objects, options) {
	const { engine, tenant, who, blobs } = store;
	const progress = options.onProgress;
	authorize(who, "desk.gc");
	const graceMs = options.graceMs ?? 36e5;
	if (!Number.isSafeInteger(graceMs) || graceMs < 0) throw invalidArgument(`graceMs must be a whole number of milliseconds, at least 0, not ${graceMs}`, { graceMs });
	const { started } = options;
	const expired = options.keepLast === void 0 ? 0 : await expireSnapshots(store, options.keepLast);
	const live = /* @__PURE__ */ new Set();
	const marked = /* @__PURE__ */ new Set();
	let broken = false;
	const mark = async (digest) => {
		if (live.has(digest)) return;
		live.add(digest);
		let children;
		try {
			children = await loadDir(objects, dirNode(digest));
		} catch (error) {
			const code = error.code;
			if (code !== "NOT_FOUND" && code !== "CORRUPT") throw error;
			broken = true;
			return;
		}
		for (const child of children.values()) if (child.kind === "file") for (const c of child.chunks) live.add(c);
		else if (child.kind === "dir") await mark(child.tree);
		if (live.size % 1e3 < 50) progress?.("mark", live.size);
	};
	const report = {
		expiredSnapshots: expired,
		marked: 0,
		removedObjects: 0,
		removedPacks: 0,
		removedLayers: 0,
		freedBytes: 0,
		brokenSnapshots: []
	};
	const doomedPacks = [];
	for (let round = 0;; round++) {
		const snaps = await engine.read(tenant, (tx) => tx.all("SELECT id, root FROM desk_snapshots WHERE tenant = ?", [tenant]));
		for (const s of snaps) if (!marked.has(s.id)) {
			broken = false;
			await mark(s.root);
			if (broken) report.brokenSnapshots.push(s.id);
			marked.add(s.id);
		}
		if (await engine.write(tenant, async (tx) => {
			await lockDesk(tx, tenant);
			if ((await tx.all("SELECT id FROM desk_snapshots WHERE tenant = ?", [tenant])).some((s) => !marked.has(s.id))) return false;
			const rows = await tx.all("SELECT digest, pack, len FROM desk_objects WHERE tenant = ?", [tenant]);
			const dead = rows.filter((r) => !live.has(r.digest));
			await inBatches(dead, async (slice) => {
				await tx.run(`DELETE FROM desk_objects WHERE tenant = ? AND digest IN (${placeholders(slice.length)})`, [tenant, ...slice.map((r) => r.digest)]);
			});
			report.removedObjects = dead.length;
			const used = new Set(rows.filter((r) => live.has(r.digest)).map((r) => r.pack));
			const packs = await tx.all("SELECT digest, state, size, created_at, inline FROM desk_packs WHERE tenant = ?", [tenant]);
			for (const p of packs) {
				const abandoned = p.state === "writing" && Number(p.created_at) < started - graceMs && !used.has(p.digest);
				if (p.state === "live" && !used.has(p.digest) || abandoned) {
					await tx.run("DELETE FROM desk_packs WHERE tenant = ? AND digest = ?", [tenant, p.digest]);
					if (abandoned) await tx.run("DELETE FROM desk_staged WHERE tenant = ? AND pack = ?", [tenant, p.digest]);
					if (!Number(p.inline)) doomedPacks.push(p.digest);
					else report.removedPacks++;
					report.freedBytes += Number(p.size);
				}
			}
			return true;
		})) break;
		if (round > 100) throw unavailable("gc could not keep up with new snapshots: run it again later");
	}
	report.marked = live.size;
	for (const digest of doomedPacks) {
		await blobs.delete(tenant, digest);
		report.removedPacks++;
		progress?.("sweep", report.removedPacks);
	}
	return report;
}
/**
* Retention: keeps each workspace's newest `keepLast` snapshots, its head,
* and every snapshot a fork started from; removes the other snapshot rows.
* Their log events stay; restoring one of them is then NOT_FOUND.
*/
async function expireSnapshots(store, keepLast) {
	const { engine, tenant } = store;
	if (!Number.isSafeInteger(keepLast) || keepLast < 1) throw invalidArgument(`keepLast must be a whole number of at least 1, not ${keepLast}`, { keepLast });
	return engine.write(tenant, async (tx) => {
		await lockDesk(tx, tenant);
		const pinned = /* @__PURE__ */ new Set();
		for (const w of await tx.all("SELECT head_snapshot, base_snapshot FROM desk_workspaces WHERE tenant = ?", [tenant])) {
			pinned.add(w.head_snapshot);
			pinned.add(w.base_snapshot);
		}
		const rows = await tx.all("SELECT id, workspace FROM desk_snapshots WHERE tenant = ? ORDER BY workspace, created_at DESC, id DESC", [tenant]);
		const seen = /* @__PURE__ */ new Map();
		const doomed = [];
		for (const r of rows) {
			const rank = (seen.get(r.workspace) ?? 0) + 1;
			seen.set(r.workspace, rank);
			if (rank > keepLast && !pinned.has(r.id)) doomed.push(r.id);
		}
		await inBatches(doomed, async (slice) => {
			await tx.run(`DELETE FROM desk_snapshots WHERE tenant = ? AND id IN (${placeholders(slice.length)})`, [tenant, ...slice]);
		});
		return doomed.length;
	});
}
// dist/desk/maintenance.js
/** Verify and GC as a desk runs them: where the store is, and then this host's overlay layers. */
var Maintenance = class {
	ctx;
	constructor(ctx) {
		this.ctx = ctx;
	}
	/** The store side as this process holds it: verify and GC run where the store is. */
	local(what) {
		if (this.ctx.store instanceof LocalDeskStore) return this.ctx.store;
		throw unavailable(`${what} runs where the store is: run it on the server's host`);
	}
	/** Walks every tree from every snapshot root, re-hashing each object once; stops at the first problem. */
	verify() {
		return verifyStore(this.local("verify"), this.ctx.objects);
	}
	/**
	* Retention, then mark and sweep (see gc.ts), then this host's overlay
	* lower layers no attached fork uses.
	*/
	async gc(options = {}) {
		const ctx = this.ctx;
		const started = ctx.now();
		const graceMs = options.graceMs ?? 36e5;
		const report = await collectGarbage(this.local("gc"), ctx.objects, {
			...options,
			started,
			...ctx.options.onProgress ? { onProgress: ctx.options.onProgress } : {}
		});
		report.removedLayers = await sweepLayers(ctx, started - graceMs);
		return report;
	}
};
// dist/desk/types.js
/** Two file entries hold the same bytes exactly when their chunk lists match (chunking is deterministic). */
function sameContent(a, b) {
	return a.size === b.size && a.chunks.length === b.chunks.length && a.chunks.every((c, i) => c === b.chunks[i]);
}
/** Same kind, same content, same mode, same link text. */
function sameEntry(a, b) {
	if (a.kind !== b.kind) return false;
	if (a.kind === "file" && b.kind === "file") return a.exec === b.exec && sameContent(a, b);
	if (a.kind === "symlink" && b.kind === "symlink") return a.target === b.target;
	return true;
}
// dist/desk/diff.js
/** How far {@link isText} looks for a NUL byte (git's heuristic window). */
const SNIFF_BYTES = 8192;
/** Paths compare in UTF-16 code-unit order, the same order tree objects use. */
function comparePaths(a, b) {
	return a < b ? -1 : a > b ? 1 : 0;
}
/** Text means: no NUL byte in the first 8 KiB, and the whole buffer is valid UTF-8. */
function isText(bytes) {
	if (bytes.subarray(0, SNIFF_BYTES).includes(0)) return false;
	return isUtf8(bytes);
}
function classify(before, after) {
	if (before === void 0 && after === void 0) return null;
	if (before === void 0) return "added";
	if (after === void 0) return "removed";
	if (sameEntry(before, after)) return null;
	if (before.kind !== after.kind) return "type-changed";
	if (before.kind === "file" && after.kind === "file" && sameContent(before, after)) return "mode-changed";
	return "modified";
}
/**
* Every path whose entry differs between `before` and `after`, sorted by path.
* Metadata only: file contents are compared by chunk digests, never read.
*/
function diffEntryMaps(before, after) {
	const paths = /* @__PURE__ */ new Set([...before.keys(), ...after.keys()]);
	const items = [];
	for (const path of [...paths].sort(comparePaths)) {
		const b = before.get(path);
		const a = after.get(path);
		const change = classify(b, a);
		if (change === null) continue;
		items.push({
			path,
			change,
			before: b ?? null,
			after: a ?? null
		});
	}
	return items;
}
async function loadSide(entry, read, maxBytes) {
	if (entry === null) return { kind: "absent" };
	if (entry.kind === "dir") return null;
	if (entry.kind === "symlink") return {
		kind: "text",
		text: entry.target,
		size: Buffer.byteLength(entry.target)
	};
	return loadFile(entry, read, maxBytes);
}
async function loadFile(entry, read, maxBytes) {
	if (entry.size > maxBytes) return {
		kind: "opaque",
		size: entry.size
	};
	const bytes = await read(entry);
	if (!isText(bytes)) return {
		kind: "opaque",
		size: bytes.length
	};
	return {
		kind: "text",
		text: bytes.toString("utf8"),
		size: bytes.length
	};
}
function sizeOf(side) {
	return side.kind === "absent" ? 0 : side.size;
}
async function addPatch(item, read, maxBytes) {
	if (item.change === "type-changed" || item.change === "mode-changed") return { ...item };
	const [before, after] = await Promise.all([loadSide(item.before, read, maxBytes), loadSide(item.after, read, maxBytes)]);
	if (before === null || after === null) return { ...item };
	if (before.kind === "opaque" || after.kind === "opaque") return {
		...item,
		binary: {
			before: sizeOf(before),
			after: sizeOf(after)
		}
	};
	const oldName = before.kind === "absent" ? "/dev/null" : `a/${item.path}`;
	const newName = after.kind === "absent" ? "/dev/null" : `b/${item.path}`;
	const oldText = before.kind === "text" ? before.text : "";
	const newText = after.kind === "text" ? after.text : "";
	const { createTwoFilesPatch, FILE_HEADERS_ONLY } = await import("diff");
	const patch = createTwoFilesPatch(oldName, newName, oldText, newText, void 0, void 0, { headerOptions: FILE_HEADERS_ONLY });
	return {
		...item,
		patch
	};
}
/**
* Copies of `items` with content detail: a unified diff (`--- a/<path>` /
* `+++ b/<path>`, `/dev/null` for an absent side, as git writes them) when
* every present side is text of at most `maxBytes` (default 1 MiB), otherwise
* `binary` with both sizes (0 for an absent side). Symlinks diff their link
* text. Directories, `type-changed` and `mode-changed` items get neither.
*/
async function withPatches(items, read, options = {}) {
	const maxBytes = options.maxBytes ?? 1048576;
	const out = new Array(items.length);
	let next = 0;
	const worker = async () => {
		while (next < items.length) {
			const i = next++;
			out[i] = await addPatch(items[i], read, maxBytes);
		}
	};
	await Promise.all(Array.from({ length: Math.min(8, items.length) }, worker));
	return out;
}
// dist/desk/merge.js
/** Whether text still holds a whole conflict block as `mergeText` writes it (the user has not resolved it). */
function hasConflictMarkers(text) {
	return /^<<<<<<< .*\r?\n[\s\S]*?^=======\r?\n[\s\S]*?^>>>>>>> /m.test(text);
}
function isMergedFile(entry) {
	return "content" in entry;
}
const BASE_LABEL = "base";
function same(a, b) {
	if (a === void 0 || b === void 0) return a === b;
	return sameEntry(a, b);
}
/** Lines with their terminators kept, so joining them gives back the exact text (CRLF, missing final newline). */
function splitLines(text) {
	const lines = [];
	let start = 0;
	for (;;) {
		const nl = text.indexOf("\n", start);
		if (nl < 0) break;
		lines.push(text.slice(start, nl + 1));
		start = nl + 1;
	}
	if (start < text.length) lines.push(text.slice(start));
	return lines;
}
function eolOf(...texts) {
	for (const text of texts) {
		if (text === null) continue;
		const nl = text.indexOf("\n");
		if (nl >= 0) return nl > 0 && text[nl - 1] === "\r" ? "\r\n" : "\n";
	}
	return "\n";
}
/**
* diff3 line merge. `base` null means both sides added the file (an empty base).
* Clean merges are the exact concatenation of input lines, so bytes round trip.
*/
function mergeText(base, ours, theirs, labels) {
	const eol = eolOf(ours, theirs, base);
	const section = (lines) => {
		const text = lines.join("");
		return text === "" || text.endsWith("\n") ? text : text + eol;
	};
	const regions = diff3Merge(splitLines(ours), splitLines(base ?? ""), splitLines(theirs), { excludeFalseConflicts: true });
	let text = "";
	let conflict = false;
	for (const region of regions) if (region.ok) text += region.ok.join("");
	else if (region.conflict) {
		conflict = true;
		text += `<<<<<<< ${labels.ours}${eol}${section(region.conflict.a)}||||||| ${BASE_LABEL}${eol}${section(region.conflict.o)}=======${eol}${section(region.conflict.b)}>>>>>>> ${labels.theirs}${eol}`;
	}
	return {
		text,
		conflict
	};
}
async function show(entry, read) {
	if (entry === void 0 || entry.kind === "dir") return {
		text: null,
		size: null,
		binary: false
	};
	if (entry.kind === "symlink") return {
		text: entry.target,
		size: null,
		binary: false
	};
	const bytes = await read(entry);
	if (!isText(bytes)) return {
		text: null,
		size: bytes.length,
		binary: true
	};
	return {
		text: bytes.toString("utf8"),
		size: bytes.length,
		binary: false
	};
}
async function conflictRecord(path, reason, sides, read) {
	const [b, o, t] = await Promise.all([
		show(sides.base, read),
		show(sides.ours, read),
		show(sides.theirs, read)
	]);
	const record = {
		path,
		reason,
		base: b.text,
		ours: o.text,
		theirs: t.text
	};
	if (b.binary || o.binary || t.binary) record.sizes = {
		base: b.size,
		ours: o.size,
		theirs: t.size
	};
	return record;
}
/** Both sides changed a file's content differently (base: the base file, if the base had a file here). */
async function mergeFiles(path, base, ours, theirs, read, labels) {
	const baseFile = base?.kind === "file" ? base : void 0;
	const exec = baseFile === void 0 || ours.exec !== baseFile.exec ? ours.exec : theirs.exec;
	const withExec = (f) => f.exec === exec ? f : {
		...f,
		exec
	};
	if (sameContent(ours, theirs)) {
		if (baseFile === void 0 && ours.exec !== theirs.exec) return {
			entry: ours,
			conflict: await conflictRecord(path, "add-add", {
				base,
				ours,
				theirs
			}, read)
		};
		return { entry: withExec(ours) };
	}
	if (baseFile !== void 0 && sameContent(baseFile, ours)) return { entry: withExec(theirs) };
	if (baseFile !== void 0 && sameContent(baseFile, theirs)) return { entry: withExec(ours) };
	const [b, o, t] = await Promise.all([
		baseFile === void 0 ? Promise.resolve(null) : read(baseFile),
		read(ours),
		read(theirs)
	]);
	const addAdd = baseFile === void 0;
	if (b !== null && !isText(b) || !isText(o) || !isText(t)) {
		const conflict = {
			path,
			reason: addAdd ? "add-add" : "binary",
			base: null,
			ours: null,
			theirs: null,
			sizes: {
				base: b === null ? null : b.length,
				ours: o.length,
				theirs: t.length
			}
		};
		if (b !== null && isText(b)) conflict.base = b.toString("utf8");
		if (isText(o)) conflict.ours = o.toString("utf8");
		if (isText(t)) conflict.theirs = t.toString("utf8");
		return {
			entry: ours,
			conflict
		};
	}
	const baseText = b === null ? null : b.toString("utf8");
	const oursText = o.toString("utf8");
	const theirsText = t.toString("utf8");
	const merged = mergeText(baseText, oursText, theirsText, labels);
	const content = Buffer.from(merged.text, "utf8");
	let entry;
	if (content.equals(o)) entry = withExec(ours);
	else if (content.equals(t)) entry = withExec(theirs);
	else entry = {
		kind: "file",
		path,
		exec,
		content
	};
	if (!merged.conflict) return { entry };
	return {
		entry,
		conflict: {
			path,
			reason: addAdd ? "add-add" : "content",
			base: baseText,
			ours: oursText,
			theirs: theirsText
		}
	};
}
async function mergePath(path, base, ours, theirs, read, labels) {
	if (same(ours, theirs)) return { entry: ours };
	if (same(base, ours)) return { entry: theirs };
	if (same(base, theirs)) return { entry: ours };
	const sides = {
		base,
		ours,
		theirs
	};
	if (ours === void 0 || theirs === void 0) return {
		entry: ours ?? theirs,
		conflict: await conflictRecord(path, "modify-delete", sides, read)
	};
	if (ours.kind !== theirs.kind) return {
		entry: ours,
		conflict: await conflictRecord(path, "type", sides, read)
	};
	if (ours.kind === "file" && theirs.kind === "file") return mergeFiles(path, base, ours, theirs, read, labels);
	return {
		entry: ours,
		conflict: await conflictRecord(path, base?.kind === ours.kind ? "content" : "add-add", sides, read)
	};
}
function parentsOf(path) {
	const parts = path.split("/");
	const out = [];
	for (let i = 1; i < parts.length; i++) out.push(parts.slice(0, i).join("/"));
	return out;
}
/**
* Make the merged tree consistent: every entry's ancestors must be 'dir'
* entries. A missing ancestor (a dir one side removed while the other added
* or kept changed files inside) comes back as a dir. An ancestor that merged
* to a file or symlink is a file/directory clash, resolved toward ours: if ours
* has a dir there, the dir stays; otherwise ours' entry stays and the entries
* beneath it (theirs alone) go. Either way a 'type' conflict is recorded.
*/
async function repairTree(merged, conflicts, sides, read) {
	const clash = async (path) => {
		if (conflicts.get(path)?.reason === "type") return;
		const record = await conflictRecord(path, "type", {
			base: sides.base.get(path),
			ours: sides.ours.get(path),
			theirs: sides.theirs.get(path)
		}, read);
		conflicts.set(path, record);
	};
	for (const path of [...merged.keys()].sort(comparePaths)) {
		if (!merged.has(path)) continue;
		for (const parent of parentsOf(path)) {
			const entry = merged.get(parent);
			if (entry === void 0) {
				merged.set(parent, {
					kind: "dir",
					path: parent
				});
				continue;
			}
			if (entry.kind === "dir") continue;
			await clash(parent);
			if (sides.ours.get(parent)?.kind === "dir") {
				merged.set(parent, {
					kind: "dir",
					path: parent
				});
				continue;
			}
			merged.delete(path);
			break;
		}
	}
}
/**
* Three-way merge of `ours` and `theirs` against their common ancestor `base`.
*
* Per path: a side that left the path as in base takes the other side's
* version; equal changes merge to that change; the exec bit takes a one-sided
* flip; two different text edits line-merge with diff3 (see the marker style
* above); otherwise the path is a conflict: 'modify-delete' (the surviving
* side is kept), 'add-add' (text: markers over an empty base; else ours is
* kept), 'type' (ours is kept), 'binary' (ours is kept) or 'content' (text
* with markers; two symlinks: ours). Then the tree is made consistent (see
* repairTree): removed dirs come back when something inside survives.
*/
async function mergeTrees(base, ours, theirs, read, labels = {
	ours: "ours",
	theirs: "theirs"
}) {
	const paths = [.../* @__PURE__ */ new Set([
		...base.keys(),
		...ours.keys(),
		...theirs.keys()
	])].sort(comparePaths);
	const merged = /* @__PURE__ */ new Map();
	const conflicts = /* @__PURE__ */ new Map();
	for (const path of paths) {
		const result = await mergePath(path, base.get(path), ours.get(path), theirs.get(path), read, labels);
		if (result.entry !== void 0) merged.set(path, result.entry);
		if (result.conflict !== void 0) conflicts.set(path, result.conflict);
	}
	await repairTree(merged, conflicts, {
		base,
		ours,
		theirs
	}, read);
	const entries = /* @__PURE__ */ new Map();
	for (const path of [...merged.keys()].sort(comparePaths)) entries.set(path, merged.get(path));
	const changed = [];
	for (const path of [.../* @__PURE__ */ new Set([...entries.keys(), ...ours.keys()])].sort(comparePaths)) {
		const mine = ours.get(path);
		const next = entries.get(path);
		if (next === void 0 || mine === void 0) {
			if (next !== mine) changed.push(path);
		} else if (isMergedFile(next) || !sameEntry(next, mine)) changed.push(path);
	}
	return {
		entries,
		conflicts: [...conflicts.values()].sort((a, b) => comparePaths(a.path, b.path)),
		changed
	};
}
// dist/desk/merge-run.js
/**
* Merging one workspace into another: finds the fork point, refuses while
* the last merge's markers remain, checkpoints both sides, runs the
* three-way merge (merge.ts), writes its result and records it.
*/
var MergeRun = class {
	ctx;
	handles;
	snapshots;
	constructor(ctx, handles, snapshots) {
		this.ctx = ctx;
		this.handles = handles;
		this.snapshots = snapshots;
	}
	/**
	* The base of a merge: the latest earlier merge between the two workspaces
	* (either way) whose result and merged side both still lie on their
	* workspaces' lines — its merged side is then in both — else the fork
	* point. So a second merge from one fork does not re-conflict what the
	* first resolved, and a merge undone by a restore no longer counts.
	*/
	async mergeBase(from, into) {
		const forkPoint = this.forkPoint(from, into);
		const [fromLine, intoLine] = await Promise.all([this.lineOf(from), this.lineOf(into)]);
		let best;
		const consider = (line, other, otherId) => {
			for (const { snapshot, merged } of line.values()) {
				if (!merged || merged.from !== otherId || !other.has(merged.theirs)) continue;
				if (!best || snapshot.createdAt >= best.at) best = {
					at: snapshot.createdAt,
					base: merged.theirs
				};
			}
		};
		consider(intoLine, fromLine, from.id);
		consider(fromLine, intoLine, into.id);
		return best?.base ?? forkPoint;
	}
	forkPoint(from, into) {
		if (from.forkedFrom === into.id) return from.baseSnapshot;
		if (into.forkedFrom === from.id) return into.baseSnapshot;
		if (from.forkedFrom !== "" && from.forkedFrom === into.forkedFrom && from.baseSnapshot === into.baseSnapshot) return from.baseSnapshot;
		throw invalidArgument(`workspaces ${from.id} and ${into.id} share no fork point: merge a fork into its parent (or the parent into a fork)`, {
			from: from.id,
			into: into.id
		});
	}
	/**
	* The snapshots a workspace's content descends from: its head, then each
	* parent — except that a restore's content is its target's, so the line
	* goes on from the snapshot it restored, not from the state it replaced.
	*/
	async lineOf(ws) {
		const store = this.ctx.store;
		const own = new Map((await store.listSnapshots(ws.id)).map((s) => [s.id, s]));
		const line = /* @__PURE__ */ new Map();
		let at = ws.headSnapshot ? own.get(ws.headSnapshot) : void 0;
		while (at && !line.has(at.id)) {
			const payload = at.kind === "merge" || at.kind === "restore" ? (await store.getEvent(at.event)).payload : {};
			const merged = at.kind === "merge" && typeof payload.from === "string" && typeof payload.theirs === "string" ? {
				from: payload.from,
				theirs: payload.theirs
			} : void 0;
			line.set(at.id, {
				snapshot: at,
				merged
			});
			const next = at.kind === "restore" && typeof payload.restored === "string" ? payload.restored : at.parent;
			at = own.get(next);
		}
		return line;
	}
	/**
	* Refuses a merge into a workspace whose last merge left conflict markers
	* that are still there: a second merge would nest markers in them.
	*/
	async refuseUnresolvedMerge(into) {
		const last = (await this.ctx.store.listSnapshots(into.id)).filter((s) => s.kind === "merge").pop();
		if (!last) return;
		const unresolved = ((await this.ctx.store.getEvent(last.event)).payload.conflicts ?? []).filter((path) => {
			const abs = join(into.dir, path);
			return lstatSync(abs, { throwIfNoEntry: false })?.isFile() === true && hasConflictMarkers(readFileSync(abs, "utf8"));
		});
		if (unresolved.length === 0) return;
		throw conflict(`${unresolved.length} file(s) still hold conflict markers from merge ${last.id} (${unresolved.slice(0, 5).join(", ")}): resolve them and run \`cairn ws checkpoint\`, or abort that merge with \`cairn ws restore ${last.parent}\`, then merge again`, {
			workspace: into.id,
			merge: last.id,
			unresolved,
			abort: last.parent
		});
	}
	/**
	* Three-way merge of one workspace into another, base = the last merge
	* between them still in both (else the fork snapshot).
	* Clean changes are written; conflicts are written with markers and
	* returned with the base, ours and theirs texts. The target is then
	* checkpointed (kind `merge`).
	*/
	async merge(input) {
		const ctx = this.ctx;
		if (input.from === input.into) throw invalidArgument("a workspace cannot be merged into itself", { workspace: input.from });
		const [fromRow, intoRow] = await Promise.all([ctx.store.workspace(input.from), ctx.store.workspace(input.into)]);
		const baseId = await this.mergeBase(fromRow, intoRow);
		await this.refuseUnresolvedMerge(intoRow);
		const theirs = (await this.snapshots.checkpoint(input.from)).snapshot;
		return this.handles.withHandle(input.into, async (h) => {
			const ours = (await this.snapshots.snapshot(h, "checkpoint")).snapshot;
			const base = await ctx.snapshotById(baseId);
			const maps = await Promise.all([
				base.root,
				ours.root,
				theirs.root
			].map((r) => flatten(ctx.objects, dirNode(r))));
			const merged = await mergeTrees(maps[0], maps[1], maps[2], (e) => ctx.content(e), {
				ours: `${intoRow.branch} (${input.into})`,
				theirs: `${fromRow.branch} (${input.from})`
			});
			await writeMerge(h.row.dir, maps[1], merged.entries, (e) => ctx.content(e));
			h.fullScan = true;
			return {
				snapshot: (await this.snapshots.snapshot(h, "merge", {
					force: true,
					payload: {
						from: input.from,
						base: baseId,
						theirs: theirs.id,
						conflicts: merged.conflicts.map((c) => c.path)
					}
				})).snapshot,
				base: baseId,
				ours: ours.id,
				theirs: theirs.id,
				changed: merged.changed,
				conflicts: merged.conflicts
			};
		});
	}
};
/** Writes a merge result over the target directory: changed entries written, entries gone from the result removed. */
async function writeMerge(root, ours, entries, read) {
	const removed = [...ours.keys()].filter((p) => !entries.has(p)).sort().reverse();
	for (const path of removed) {
		const abs = join(root, path);
		const st = lstatSync(abs, { throwIfNoEntry: false });
		if (!st) continue;
		if (st.isDirectory()) try {
			rmdirSync(abs);
		} catch {}
		else unlinkSync(abs);
	}
	for (const [path, entry] of [...entries].sort(([a], [b]) => a < b ? -1 : 1)) {
		const before = ours.get(path);
		if (!isMergedFile(entry) && before && sameEntry(before, entry)) continue;
		const abs = join(root, path);
		const st = lstatSync(abs, { throwIfNoEntry: false });
		if (entry.kind === "dir") {
			if (st && !st.isDirectory()) unlinkSync(abs);
			if (!st?.isDirectory()) mkdirSync(abs, { recursive: true });
			continue;
		}
		if (st?.isDirectory()) rmSync(abs, { recursive: true });
		else if (st) unlinkSync(abs);
		if (entry.kind === "symlink") symlinkSync(entry.target, abs);
		else {
			const bytes = isMergedFile(entry) ? entry.content : await read(entry);
			writeFileSync(abs, bytes);
			chmodSync(abs, entry.exec ? 493 : 420);
		}
	}
}
// dist/desk/restore.js
/**
* Restoring a snapshot into a workspace (and previewing it), and diffing two
* snapshots or a snapshot and a workspace's live directory.
*/
var Restore = class {
	ctx;
	handles;
	scanner;
	snapshots;
	constructor(ctx, handles, scanner, snapshots) {
		this.ctx = ctx;
		this.handles = handles;
		this.scanner = scanner;
		this.snapshots = snapshots;
	}
	checkPaths(h, paths) {
		if (paths === void 0) return void 0;
		return paths.map((p) => workspacePath(h.row.dir, p));
	}
	/**
	* Lists what restoring a snapshot would change: files added, changed and
	* removed, the log events after it, and credentials it would not write.
	*/
	async previewRestore(workspace, snapshot, options = {}) {
		const ctx = this.ctx;
		return this.handles.withHandle(workspace, async (h) => {
			const only = this.checkPaths(h, options.paths);
			const target = await ctx.snapshotById(snapshot);
			const findings = [];
			const live = await this.scanner.dryScan(h, findings);
			if (this.snapshots.refusesUnderPolicy(findings)) this.snapshots.refuseUnderPolicy(findings);
			const apply = this.applyTo(h, false, only);
			await applyTree(apply, live, dirNode(target.root, target.files, target.bytes));
			const eventsAfter = await this.eventsAfter(h, target);
			const redacted = await redactedPaths(ctx.objects, dirNode(target.root));
			return {
				snapshot: target,
				changes: apply.changes,
				eventsAfter,
				withheld: apply.withheld,
				redacted
			};
		});
	}
	/** How a restore changes a workspace: never a credential path, and never `.git` unless snapshots include it. */
	applyTo(h, apply, only) {
		const ctx = applyContext(h.row.dir, this.ctx.objects, apply, (p) => credentialPathRule(p) !== null, only);
		if (!this.ctx.options.includeGit) ctx.untouchable = inGitDir;
		return ctx;
	}
	/** Events on the workspace's branch after the snapshot's event; none when that event is not on the branch's path. */
	async eventsAfter(h, target) {
		const store = this.ctx.store;
		const event = await store.getEvent(target.event);
		if (event.session !== h.row.session) return [];
		return eventsAfter((from) => store.readBranch({
			session: h.row.session,
			branch: h.row.branch,
			from,
			limit: 1e3
		}), event);
	}
	/**
	* Restores a snapshot into the workspace directory: checkpoints the current
	* state first (so the restore can be undone), then rewrites only the
	* entries that differ. Never writes a credential path.
	*/
	async restore(workspace, snapshot, options = {}) {
		const ctx = this.ctx;
		return this.handles.withHandle(workspace, async (h) => {
			const only = this.checkPaths(h, options.paths);
			const target = await ctx.snapshotById(snapshot);
			const plan = this.applyTo(h, false, only);
			await applyTree(plan, h.root, dirNode(target.root, target.files, target.bytes));
			checkPlan(h.row.dir, plan.changes);
			const before = (await this.snapshots.snapshot(h, "checkpoint")).snapshot;
			const eventsAfter = await this.eventsAfter(h, target);
			const apply = this.applyTo(h, true, only);
			apply.onWrite = h.watcher ? (path) => h.watcher?.expect([path]) : void 0;
			apply.onFile = ctx.counter("write");
			await applyTree(apply, h.root, dirNode(target.root, target.files, target.bytes));
			const settled = ctx.now();
			for (const { path, node } of apply.written) {
				const st = lstatSync(join(h.row.dir, path), { throwIfNoEntry: false });
				node.stat = st ? statKeyOf(st, settled) : null;
			}
			return {
				snapshot: target,
				before,
				after: (await this.snapshots.snapshot(h, "restore", {
					force: true,
					noScan: true,
					payload: { restored: target.id },
					alsoNamed: [target.root]
				})).snapshot,
				changes: apply.changes,
				eventsAfter,
				withheld: apply.withheld,
				redacted: await redactedPaths(ctx.objects, dirNode(target.root)),
				blocked: apply.blocked
			};
		});
	}
	/**
	* Differences between two snapshots, or between a snapshot and the live
	* directory of a workspace (`to` omitted): paths, unified patches for text,
	* sizes for binaries.
	*/
	async diff(input) {
		const ctx = this.ctx;
		const from = await ctx.snapshotById(input.from);
		let after;
		let only;
		if (input.to !== void 0) {
			after = dirNode((await ctx.snapshotById(input.to)).root);
			only = input.paths?.map((p) => normalisePath(p));
		} else {
			if (input.workspace === void 0) throw invalidArgument("diff needs `to` (a snapshot) or `workspace` (its live directory)");
			if (input.record === false) return this.liveDiff(input.workspace, from, input.paths);
			after = dirNode((await this.snapshots.checkpoint(input.workspace)).snapshot.root);
			const h = await this.handles.open(input.workspace);
			only = this.checkPaths(h, input.paths);
		}
		let items = diffEntryMaps(await flatten(ctx.objects, dirNode(from.root)), await flatten(ctx.objects, after));
		if (only) items = items.filter((i) => only.some((p) => i.path === p || i.path.startsWith(`${p}/`)));
		if (input.patches === false) return items;
		return withPatches(items, (e) => ctx.content(e));
	}
	/** The live directory against a snapshot, storing nothing. */
	async liveDiff(workspace, from, paths) {
		const ctx = this.ctx;
		return this.handles.withHandle(workspace, async (h) => {
			const only = this.checkPaths(h, paths);
			const live = await flatten(ctx.objects, await this.scanner.dryScan(h));
			const items = diffEntryMaps(await flatten(ctx.objects, dirNode(from.root)), live);
			return only ? items.filter((i) => only.some((p) => i.path === p || i.path.startsWith(`${p}/`))) : items;
		});
	}
};
/** Normalises a workspace-relative path argument; refuses anything that leaves the workspace. */
function normalisePath(path) {
	if (typeof path !== "string" || path === "" || isAbsolute(path) || path.includes("\0")) throw invalidArgument(`path "${String(path)}" is not a relative path inside the workspace`, { path });
	const parts = [];
	for (const part of path.split(/[\\/]+/)) {
		if (part === "" || part === ".") continue;
		if (part === "..") {
			if (parts.length === 0) throw invalidArgument(`path "${path}" leaves the workspace: pass a path inside it`, { path });
			parts.pop();
		} else parts.push(part);
	}
	if (parts.length === 0) throw invalidArgument(`path "${path}" names the workspace root: omit it to mean everything`, { path });
	return parts.join("/");
}
/** A path argument inside a live workspace: no `..` escape, and no symlink on the way out of it. */
function workspacePath(root, path) {
	const rel = normalisePath(path);
	let at = root;
	for (const part of rel.split("/")) {
		at = join(at, part);
		const st = lstatSync(at, { throwIfNoEntry: false });
		if (!st) break;
		if (st.isSymbolicLink()) {
			let real;
			try {
				real = realpathSync(at);
			} catch {
				throw invalidArgument(`path "${path}" goes through a symlink that does not resolve: pass a path inside the workspace`, { path });
			}
			const inside = relative(root, real);
			if (inside.startsWith("..") || isAbsolute(inside)) throw invalidArgument(`path "${path}" goes through a symlink that leaves the workspace: pass a path inside it`, { path });
		}
	}
	return rel;
}
/**
* Refuses a restore plan with any path a restore must not write: too long
* (a name over 255 bytes, a path over 4,096), or below a symlink on disk
* that leaves the workspace and that the plan does not replace.
*/
function checkPlan(root, changes) {
	const replaced = new Set(changes.filter((c) => c.change !== "added").map((c) => c.path));
	for (const { path, change } of changes) {
		if (Buffer.byteLength(path, "utf8") > 4096 || !path.split("/").every(validName)) throw invalidArgument(`the snapshot holds a path a restore cannot write (${path.slice(0, 80)}…, ${Buffer.byteLength(path, "utf8")} bytes): nothing was changed; restore another snapshot, or pass --path to restore the rest`, { path: path.slice(0, 256) });
		if (change === "removed") continue;
		const parts = path.split("/");
		for (let i = 1; i < parts.length; i++) {
			const on = parts.slice(0, i).join("/");
			if (replaced.has(on)) break;
			const st = lstatSync(join(root, on), { throwIfNoEntry: false });
			if (!st) break;
			if (st.isSymbolicLink()) workspacePath(root, path);
		}
	}
}
// dist/desk/snapshots.js
const RETRIES = 3;
/** A commit refused because the head moved or an object went: the snapshot is taken again. */
function isRetry(error) {
	return error instanceof CairnError && error.code === "CONFLICT" && error.data?.["retry"] !== void 0;
}
/**
* Taking a snapshot of an open workspace: brings its model in line with the
* disk (all of it, or what changed), stores what is new, and commits the
* snapshot against the head it started from, retrying when that moved.
*/
var Snapshots = class {
	ctx;
	scanner;
	handles;
	constructor(ctx, scanner, handles) {
		this.ctx = ctx;
		this.scanner = scanner;
		this.handles = handles;
	}
	/**
	* Brings the model in line with the disk and records a snapshot when it
	* changed (or when forced). Retries from a clean model if a concurrent GC
	* removed an object it meant to reuse, or another process moved the head.
	*/
	async snapshot(h, kind, extra = {}) {
		for (let attempt = 0;; attempt++) try {
			const pass = attempt === 0 ? extra : {
				...extra,
				noScan: false
			};
			return await this.snapshotOnce(h, kind, pass);
		} catch (error) {
			if (!isRetry(error)) throw error;
			if (attempt >= RETRIES) throw conflict(`workspace ${h.row.id} kept changing under this checkpoint (${error.message}): try again`, { workspace: h.row.id });
			this.ctx.objects.forget();
			if (h.head === null) {
				h.root = dirNode(null);
				h.fullScan = true;
			} else {
				const { workspace: row, head } = await this.ctx.store.head(h.row.id);
				h.row = row;
				h.head = head;
				h.root = dirNode(head.root, head.files, head.bytes);
				h.fullScan = true;
			}
		}
	}
	/**
	* One try at a snapshot. When it fails before its commit (a full disk, a
	* retry, a refusal inside the transaction), the packs it stored are
	* deleted at once, so a retry that fits the disk succeeds; once the
	* transaction's work is done they are left to GC (the commit may have
	* landed).
	*/
	async snapshotOnce(h, kind, extra) {
		const carried = h.prepared;
		h.prepared = void 0;
		const writer = carried?.writer ?? this.ctx.objects.writer();
		const stage = { committing: false };
		try {
			return await this.snapshotWith(h, kind, extra, writer, stage, carried);
		} catch (error) {
			if (!stage.committing || isRetry(error)) await writer.discard();
			throw error;
		}
	}
	async snapshotWith(h, kind, extra, writer, stage, carried) {
		const objects = this.ctx.objects;
		const findings = [];
		const ctx = this.scanner.scanContext(h, writer, findings);
		const dirty = extra.noScan ? {
			dirs: /* @__PURE__ */ new Set(),
			files: /* @__PURE__ */ new Set(),
			deep: /* @__PURE__ */ new Set()
		} : await this.scanner.dirtyDirs(h);
		if (carried && dirty !== "all") {
			findings.push(...carried.findings);
			ctx.unsupported.push(...carried.unsupported);
		}
		if (dirty === "all") {
			this.scanner.scanOffThread(ctx);
			await rescan(ctx, h.root, "", true);
		} else {
			const listings = new Set(dirty.dirs);
			for (const file of dirty.files) {
				const slash = file.lastIndexOf("/");
				const dir = slash < 0 ? "" : file.slice(0, slash);
				if (listings.has(dir)) continue;
				const chain = await findDir(objects, h.root, dir);
				if (!chain) continue;
				const outcome = await refreshEntry(ctx, chain[chain.length - 1], dir, file.slice(slash + 1));
				if (outcome === "listing") listings.add(dir);
				else if (outcome) for (const node of chain) node.tree = null;
			}
			for (const dir of [...listings].sort()) {
				const chain = await findDir(objects, h.root, dir);
				if (!chain) continue;
				if (await rescan(ctx, chain[chain.length - 1], dir, false)) for (const node of chain) node.tree = null;
			}
			for (const dir of [...dirty.deep].sort()) {
				const chain = await findDir(objects, h.root, dir);
				if (!chain) continue;
				if (await rescan(ctx, chain[chain.length - 1], dir, true)) for (const node of chain) node.tree = null;
			}
		}
		await settleFiles(ctx);
		if (this.refusesUnderPolicy(findings)) {
			h.fullScan = true;
			this.refuseUnderPolicy(findings);
		}
		const root = await seal(ctx, h.root);
		if (extra.prepare && h.head) {
			h.prepared = {
				writer,
				findings,
				unsupported: ctx.unsupported
			};
			return {
				snapshot: h.head,
				created: false,
				findings,
				withheld: [],
				redacted: [],
				unsupported: []
			};
		}
		const withheld = findings.filter((f) => f.action === "withheld").map((f) => f.path);
		if (!extra.force && h.head && root === h.head.root) {
			const redacted = await redactedPaths(objects, h.root);
			return {
				snapshot: h.head,
				created: false,
				findings,
				withheld,
				redacted,
				unsupported: ctx.unsupported
			};
		}
		await writer.flush();
		const id = newId("snapshot", this.ctx.now());
		stage.committing = true;
		const committed = await this.ctx.store.commit({
			id,
			workspace: h.row.id,
			...extra.attach ? { attach: extra.attach } : {},
			expectHead: h.head?.id ?? "",
			kind,
			root,
			files: h.root.files,
			bytes: h.root.bytes,
			...writer.commitFields(extra.alsoNamed),
			...extra.payload ? { payload: extra.payload } : {},
			...extra.also ? { also: extra.also } : {},
			...extra.ifHead !== void 0 ? { ifHead: extra.ifHead } : {},
			...extra.ifMoves !== void 0 ? { ifMoves: extra.ifMoves } : {},
			...extra.moveHeadTo !== void 0 ? { moveHeadTo: extra.moveHeadTo } : {}
		}).catch((error) => {
			if (error instanceof CairnError && error.code !== "IN_DOUBT" && error.code !== "UNAVAILABLE") stage.committing = false;
			throw error;
		});
		h.head = committed.snapshot;
		h.row = committed.workspace;
		return {
			snapshot: committed.snapshot,
			created: true,
			findings,
			withheld,
			redacted: await redactedPaths(objects, h.root),
			unsupported: ctx.unsupported,
			...committed.appended ? { appended: committed.appended } : {}
		};
	}
	/** Whether the secret policy refuses a snapshot with these findings (`fail` and a confident one). */
	refusesUnderPolicy(findings) {
		return this.ctx.policy === "fail" && blocksCheckpoint(findings);
	}
	refuseUnderPolicy(findings) {
		throw guardFailure(findings.filter((f) => f.confidence === "high" && f.action !== "kept"));
	}
	/**
	* Opens a workspace and brings its model in line with the disk without
	* recording anything, for a long-lived desk (`watch: true`, as in
	* `cairn watch`): from then on a checkpoint looks only at what the watcher
	* saw. What the scan stored and found rides with the next snapshot; if
	* none follows, GC takes the packs it stored after its grace.
	*/
	async prepare(workspace) {
		await this.handles.withHandle(workspace, async (h) => {
			if (h.prepared || !h.fullScan) return;
			await this.snapshot(h, "checkpoint", { prepare: true });
		});
	}
	/** Snapshots the workspace directory if anything changed since its head snapshot. */
	async checkpoint(workspace, options = {}) {
		return this.handles.withHandle(workspace, (h) => this.snapshot(h, "checkpoint", options));
	}
};
// dist/desk/workspaces.js
/** A new workspace's session and snapshots before its attach commits (the store fills them in). */
const UNSET = "";
/** A workspace's lifecycle: attached (its first snapshot taken), found, listed, detached. */
var Workspaces = class {
	ctx;
	handles;
	snapshots;
	created;
	constructor(ctx, handles, snapshots) {
		this.ctx = ctx;
		this.handles = handles;
		this.snapshots = snapshots;
		this.created = new CreatedDirs(ctx);
	}
	/** Binds a directory to a session branch and takes its first snapshot. */
	async attach(input) {
		const ctx = this.ctx;
		const path = ctx.resolveDir(input.dir);
		const branch = input.branch ?? "main";
		const [clash] = await ctx.store.attachedAt(ctx.options.host, [path]);
		if (clash) throw alreadyAttached(path, clash.id);
		if (input.session !== void 0) await ctx.store.checkSession(input.session);
		const id = newId("workspace", ctx.now());
		const row = {
			id,
			host: ctx.options.host,
			dir: path,
			session: input.session ?? UNSET,
			branch,
			driver: "plain",
			state: "attached",
			baseSnapshot: UNSET,
			headSnapshot: UNSET,
			forkedFrom: "",
			createdAt: ctx.now()
		};
		const handle = this.handles.newHandle(row, dirNode(null), null);
		const result = await this.snapshots.snapshot(handle, "checkpoint", {
			force: true,
			attach: {
				host: ctx.options.host,
				path,
				branch,
				...input.session !== void 0 ? { session: input.session } : {}
			}
		});
		ctx.handles.set(id, handle);
		return {
			workspace: handle.row,
			checkpoint: result
		};
	}
	getWorkspace(id) {
		return this.ctx.store.workspace(id);
	}
	listWorkspaces() {
		return this.ctx.store.listWorkspaces();
	}
	/** The workspace attached at a directory on this host (or, when the directory lies inside one, a hint naming it). */
	async findWorkspace(dir) {
		const path = this.ctx.resolveDir(dir, true, false);
		const ancestors = [path];
		for (let up = dirname(path); up !== ancestors[ancestors.length - 1]; up = dirname(up)) ancestors.push(up);
		const rows = await this.ctx.store.attachedAt(this.ctx.options.host, ancestors);
		const exact = rows.find((r) => r.dir === path);
		if (exact) return exact;
		const around = rows.sort((a, b) => b.dir.length - a.dir.length)[0];
		throw notFound(around ? `${path} is not a workspace but lies inside workspace ${around.id} at ${around.dir}: act there, or name its workspace (${around.id})` : `no workspace is attached at ${path}: run \`cairn ws attach ${path}\` first, or name a workspace that is`, {
			resource: "workspace",
			path,
			...around ? { inside: around.id } : {}
		});
	}
	listSnapshots(workspace) {
		return this.ctx.store.listSnapshots(workspace);
	}
	getSnapshot(id) {
		return this.ctx.store.snapshot(id);
	}
	holds(row) {
		return this.created.holds(row);
	}
	/**
	* Stops tracking a workspace. A fork's directory can be discarded with it
	* (an overlay fork is unmounted and its upper layer deleted); a directly
	* attached directory is never deleted, nor one this desk did not create on
	* this host (see created.ts): that refusal is audited and changes nothing.
	*/
	async detach(workspace, options = {}) {
		const ctx = this.ctx;
		const row = await ctx.store.workspace(workspace);
		if (options.discard && row.forkedFrom === "") throw invalidArgument(`workspace ${workspace} was attached, not forked: Cairn never deletes a directory it did not create`, { workspace });
		const held = this.created.holds(row);
		const foreign = !held.ok && held.reason === "not-created";
		if (row.driver === "overlay" && !options.discard && !foreign) throw invalidArgument(`workspace ${workspace} is an overlay fork: detach it with discard (merge it first to keep its changes)`, { workspace });
		if (options.discard) await this.created.require(row, "discard");
		this.handles.drop(workspace);
		const detached = await ctx.store.detach(workspace);
		if (options.discard) {
			if (row.driver === "overlay") {
				await unmountOverlay(row.dir, ctx.mounter);
				rmSync(join(ctx.ensureStateDir(), "forks", row.id), {
					recursive: true,
					force: true
				});
			} else if (existsSync(row.dir)) for (const name of readdirSync(row.dir)) rmSync(join(row.dir, name), {
				recursive: true,
				force: true
			});
		}
		this.created.forget(workspace);
		rmSync(ctx.statCachePath(workspace), { force: true });
		return detached;
	}
};
// dist/desk/desk.js
/**
* The desk: directories bound to session branches, snapshotted into the
* tenant's content-addressed store. One Desk acts as one identity on one
* machine; operations on one workspace run one at a time.
*
* `Desk` is the facade: each concern lives in its own module
* (`workspaces.ts`, `handles.ts`, `scan.ts`, `snapshots.ts`, `restore.ts`,
* `fork.ts`, `merge-run.ts`, `maintenance.ts`), sharing one `DeskContext`
* (options, store, objects, guard, clock, mounts, open workspaces).
*/
var Desk = class {
	context;
	/** The secret guard (tests read its counters). */
	guard;
	handles;
	workspaces;
	snapshots;
	restores;
	forks;
	merges;
	maintenance;
	constructor(options) {
		const context = new DeskContext(options);
		this.context = context;
		this.guard = context.guard;
		const scanner = new Scanner(context);
		this.handles = new Handles(context, scanner);
		this.snapshots = new Snapshots(context, scanner, this.handles);
		this.workspaces = new Workspaces(context, this.handles, this.snapshots);
		this.restores = new Restore(context, this.handles, scanner, this.snapshots);
		this.forks = new Forks(context, this.handles, this.snapshots);
		this.merges = new MergeRun(context, this.handles, this.snapshots);
		this.maintenance = new Maintenance(context);
	}
	/** Binds a directory to a session branch and takes its first snapshot. */
	attach(input) {
		return this.workspaces.attach(input);
	}
	getWorkspace(id) {
		return this.workspaces.getWorkspace(id);
	}
	listWorkspaces() {
		return this.workspaces.listWorkspaces();
	}
	/** The workspace attached at a directory on this host (or, when the directory lies inside one, a hint naming it). */
	findWorkspace(dir) {
		return this.workspaces.findWorkspace(dir);
	}
	listSnapshots(workspace) {
		return this.workspaces.listSnapshots(workspace);
	}
	getSnapshot(id) {
		return this.workspaces.getSnapshot(id);
	}
	/**
	* Stops tracking a workspace. A fork's directory can be discarded with it
	* (an overlay fork is unmounted and its upper layer deleted); a directly
	* attached directory is never deleted.
	*/
	detach(workspace, options = {}) {
		return this.workspaces.detach(workspace, options);
	}
	/** Whether this desk may discard a workspace's directory: on this host, and created by this desk (created.ts). */
	holds(workspace) {
		return this.workspaces.holds(workspace);
	}
	/**
	* Opens a workspace and brings its model in line with the disk without
	* recording anything, for a long-lived desk (`watch: true`, as in
	* `cairn watch`): from then on a checkpoint looks only at what the watcher
	* saw. What the scan stored and found rides with the next snapshot; if
	* none follows, GC takes the packs it stored after its grace.
	*/
	prepare(workspace) {
		return this.snapshots.prepare(workspace);
	}
	/** Snapshots the workspace directory if anything changed since its head snapshot. */
	checkpoint(workspace, options = {}) {
		return this.snapshots.checkpoint(workspace, options);
	}
	/**
	* Lists what restoring a snapshot would change: files added, changed and
	* removed, the log events after it, and credentials it would not write.
	*/
	previewRestore(workspace, snapshot, options = {}) {
		return this.restores.previewRestore(workspace, snapshot, options);
	}
	/**
	* Restores a snapshot into the workspace directory: checkpoints the current
	* state first (so the restore can be undone), then rewrites only the
	* entries that differ. Never writes a credential path.
	*/
	restore(workspace, snapshot, options = {}) {
		return this.restores.restore(workspace, snapshot, options);
	}
	/**
	* Differences between two snapshots, or between a snapshot and the live
	* directory of a workspace (`to` omitted): paths, unified patches for text,
	* sizes for binaries.
	*/
	diff(input) {
		return this.restores.diff(input);
	}
	/**
	* Forks a workspace: checkpoints it, starts a new log branch at that
	* checkpoint, and gives the branch its own directory. The driver is chosen
	* by capability (overlay where this process may mount, else copy) unless
	* named. Writes in either directory never show in the other.
	*/
	fork(workspace, input) {
		return this.forks.fork(workspace, input);
	}
	/**
	* Three-way merge of one workspace into another, base = the fork snapshot.
	* Clean changes are written; conflicts are written with markers and
	* returned with the base, ours and theirs texts. The target is then
	* checkpointed (kind `merge`).
	*/
	merge(input) {
		return this.merges.merge(input);
	}
	/** Walks every tree from every snapshot root, re-hashing each object once; stops at the first problem. */
	verify() {
		return this.maintenance.verify();
	}
	/**
	* Retention, then mark and sweep (see gc.ts), then this host's overlay
	* lower layers no attached fork uses.
	*/
	gc(options = {}) {
		return this.maintenance.gc(options);
	}
	/** Writes stat caches so the next process need not re-read unchanged files, and stops watchers. */
	async close() {
		await this.handles.close();
		this.context.mounter.close();
		await this.guard.close();
	}
};
export { Desk as t };
