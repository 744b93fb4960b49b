import { C as lockTenant, I as inBatches, O as appendAudit, R as placeholders, z as authorize } from "./store-folder-D53airw-.js";
import { A as invalidArgument, M as notFound, w as conflict } from "./front-BpLyP2oj.js";
import { b as readBranch, h as getSession, i as branchHead, l as createSession, m as getEvent, n as appendEvent, o as branchMoves, p as forkBranch, u as encodePayload, y as moveHead } from "./session-log-CJJ_c6sf.js";
import { i as digestOf } from "./chunker-BmGAprKG.js";
import { i as readPackIndex, r as packIndexOf, t as indexEntries } from "./pack-format-C6_KpTR7.js";
// dist/desk/rows.js
const WORKSPACE_COLUMNS = "tenant, id, host, path, session, branch, driver, state, base_snapshot, head_snapshot, forked_from, created_at";
const SNAPSHOT_COLUMNS = "tenant, id, workspace, kind, root, parent, event, files, bytes, added_bytes, created_at";
function toWorkspace(r) {
	return {
		id: r.id,
		dir: r.path,
		host: r.host,
		session: r.session,
		branch: r.branch,
		driver: r.driver,
		state: r.state,
		baseSnapshot: r.base_snapshot,
		headSnapshot: r.head_snapshot,
		forkedFrom: r.forked_from,
		createdAt: Number(r.created_at)
	};
}
function toSnapshot(r) {
	return {
		id: r.id,
		workspace: r.workspace,
		kind: r.kind,
		root: r.root,
		parent: r.parent,
		event: r.event,
		files: Number(r.files),
		bytes: Number(r.bytes),
		addedBytes: Number(r.added_bytes),
		createdAt: Number(r.created_at)
	};
}
function normalise(r) {
	const out = {
		...r,
		created_at: Number(r.created_at)
	};
	for (const key of [
		"files",
		"bytes",
		"added_bytes"
	]) if (key in r) out[key] = Number(r[key]);
	return out;
}
async function workspaceRow(tx, tenant, id, lock = "") {
	const row = await tx.get(`SELECT ${WORKSPACE_COLUMNS} FROM desk_workspaces WHERE tenant = ? AND id = ? ${lock}`, [tenant, id]);
	if (!row) throw notFound("workspace", id);
	return normalise(row);
}
async function snapshotRow(tx, tenant, id) {
	const row = await tx.get(`SELECT ${SNAPSHOT_COLUMNS} FROM desk_snapshots WHERE tenant = ? AND id = ?`, [tenant, id]);
	if (!row) throw notFound("snapshot", id);
	return normalise(row);
}
/** A primary-key clash: the id the caller proposed is taken (SQLite, or PostgreSQL's `…_pkey`). */
function idTaken(error) {
	const e = error;
	return e.code === "SQLITE_CONSTRAINT_PRIMARYKEY" || e.code === "23505" && (e.constraint ?? "").endsWith("_pkey");
}
function taken(what, id) {
	return conflict(`${what} id ${id} is taken: propose another (a fresh random id)`, { id });
}
async function insertSnapshot(tx, r) {
	try {
		await insertSnapshotRow(tx, r);
	} catch (error) {
		if (idTaken(error)) throw taken("snapshot", r.id);
		throw error;
	}
}
async function insertSnapshotRow(tx, r) {
	await tx.run(`INSERT INTO desk_snapshots (${SNAPSHOT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
		r.tenant,
		r.id,
		r.workspace,
		r.kind,
		r.root,
		r.parent,
		r.event,
		r.files,
		r.bytes,
		r.added_bytes,
		r.created_at
	]);
}
async function insertWorkspace(tx, r) {
	try {
		await tx.run(`INSERT INTO desk_workspaces (${WORKSPACE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
			r.tenant,
			r.id,
			r.host,
			r.path,
			r.session,
			r.branch,
			r.driver,
			r.state,
			r.base_snapshot,
			r.head_snapshot,
			r.forked_from,
			r.created_at
		]);
	} catch (error) {
		if (idTaken(error)) throw taken("workspace", r.id);
		const code = error.code;
		if (code === "23505" || code === "SQLITE_CONSTRAINT_UNIQUE") throw alreadyAttached(r.path);
		throw error;
	}
}
function alreadyAttached(path, id) {
	return conflict(`${path} is already attached${id ? ` as workspace ${id}` : ""}: use that workspace, or detach it first`, {
		path,
		...id ? { workspace: id } : {}
	});
}
/**
* Serialises the transactions that decide what the desk references: a
* snapshot commit (which checks its reused objects still exist) and a GC
* sweep or retention pass (which decides they are garbage). On PostgreSQL
* they would otherwise each see the other's work uncommitted and both
* commit; on SQLite writers are serial already and this is a plain read.
*/
async function lockDesk(tx, tenant) {
	await lockTenant(tx, tenant);
}
// dist/desk/desk-store.js
/**
* The data of a commit the caller should retry from a fresh head: another
* process moved the workspace head, or GC took an object it meant to reuse.
*/
const RETRY = "retry";
// dist/desk/local-store.js
async function findObjects(tx, tenant, digests) {
	const found = /* @__PURE__ */ new Map();
	await inBatches(digests, async (slice) => {
		const rows = await tx.all(`SELECT o.digest, o.kind, o.pack, o.off, o.len, p.inline FROM desk_objects o
       JOIN desk_packs p ON p.tenant = o.tenant AND p.digest = o.pack
       WHERE o.tenant = ? AND o.digest IN (${placeholders(slice.length)})`, [tenant, ...slice]);
		for (const row of rows) found.set(row.digest, {
			...row,
			off: Number(row.off),
			len: Number(row.len),
			inline: Number(row.inline)
		});
	});
	return found;
}
/** Indexes a pack's objects (an object already indexed keeps its place). */
async function insertObjects(tx, tenant, pack, entries) {
	await inBatches(entries, async (slice) => {
		await tx.run(`INSERT INTO desk_objects (tenant, digest, kind, pack, off, len) VALUES ${slice.map(() => "(?, ?, ?, ?, ?, ?)").join(", ")}
       ON CONFLICT (tenant, digest) DO NOTHING`, slice.flatMap((e) => [
			tenant,
			e.digest,
			e.kind,
			pack,
			e.off,
			e.len
		]));
	});
}
/** The most bytes one `getObjects` call reads and answers with (one object of any size is always served). */
const READ_LIMIT = 67108864;
function retry(why, data = {}) {
	return conflict(`the workspace changed under this checkpoint (${why}): take it again`, {
		[RETRY]: why,
		...data
	});
}
/**
* The store side of the desk over the store's own database and blobs: what
* an embedded desk uses directly and `cairn serve` runs for remote ones.
*
* Write order (content first, pointer last): a pack is announced (its row
* `writing`, its objects staged) and stored; only the transaction that
* records a snapshot naming it moves its objects into the index and marks it
* `live`. A crash anywhere before leaves an unreferenced pack GC removes.
*/
var LocalDeskStore = class {
	engine;
	blobs;
	who;
	now;
	/** Where objects were last found (GC may move them: a miss looks again). */
	located = /* @__PURE__ */ new Map();
	constructor(engine, blobs, who, now = Date.now) {
		this.engine = engine;
		this.blobs = blobs;
		this.who = who;
		this.now = now;
	}
	get tenant() {
		return this.who.tenant;
	}
	read(action, fn) {
		authorize(this.who, action);
		return this.engine.read(this.tenant, fn);
	}
	write(action, fn) {
		authorize(this.who, action);
		return this.engine.write(this.tenant, fn);
	}
	async missing(digests) {
		const found = await this.read("desk.read", (tx) => findObjects(tx, this.tenant, digests));
		return digests.filter((d) => !found.has(d));
	}
	async getObjects(digests) {
		authorize(this.who, "desk.read");
		const unknown = digests.filter((d) => !this.located.has(d));
		if (unknown.length > 0) {
			const found = await this.engine.read(this.tenant, (tx) => findObjects(tx, this.tenant, unknown));
			if (this.located.size > 1e5) this.located.clear();
			for (const row of found.values()) this.located.set(row.digest, row);
		}
		const total = digests.reduce((sum, d) => sum + (this.located.get(d)?.len ?? 0), 0);
		if (digests.length > 1 && total > 67108864) throw invalidArgument(`these ${digests.length} objects hold ${total} bytes, over ${READ_LIMIT} in one read: ask for fewer at once`, {
			limit: READ_LIMIT,
			bytes: total
		});
		const out = [];
		for (const digest of digests) out.push(await this.objectBytes(digest));
		return out;
	}
	async objectBytes(digest, again = true) {
		const row = this.located.get(digest);
		if (!row) throw notFound(`desk object ${digest} is not in the store: the snapshot that names it is damaged`, { digest });
		try {
			return row.inline ? await this.inlineRange(row) : await this.blobs.getRange(this.tenant, row.pack, row.off, row.len);
		} catch (error) {
			this.located.delete(digest);
			if (error.code !== "NOT_FOUND" || !again) throw error;
			const now = (await this.engine.read(this.tenant, (tx) => findObjects(tx, this.tenant, [digest]))).get(digest);
			if (!now || now.pack === row.pack && now.off === row.off) throw error;
			this.located.set(digest, now);
			return this.objectBytes(digest, false);
		}
	}
	async inlineRange(row) {
		const found = await this.engine.read(this.tenant, (tx) => tx.get("SELECT substr(bytes, ?, ?) AS part FROM desk_packs WHERE tenant = ? AND digest = ?", [
			row.off + 1,
			row.len,
			this.tenant,
			row.pack
		]));
		if (!found?.part) throw notFound(`desk pack ${row.pack} is gone`, { pack: row.pack });
		return Buffer.from(found.part);
	}
	async putPack(digest, bytes) {
		readPackIndex(bytes);
		const index = Buffer.from(packIndexOf(bytes));
		await this.write("desk.write", async (tx) => {
			if (await tx.get("SELECT state FROM desk_packs WHERE tenant = ? AND digest = ?", [this.tenant, digest])) return;
			await tx.run(`INSERT INTO desk_packs (tenant, digest, state, size, created_at, inline) VALUES (?, ?, 'writing', ?, ?, 0)`, [
				this.tenant,
				digest,
				bytes.length,
				this.now()
			]);
			await tx.run("INSERT INTO desk_staged (tenant, pack, entries) VALUES (?, ?, ?) ON CONFLICT (tenant, pack) DO NOTHING", [
				this.tenant,
				digest,
				index
			]);
		});
		await this.blobs.put(this.tenant, bytes, digest);
	}
	async discardPacks(digests) {
		if (digests.length === 0) return;
		const doomed = await this.write("desk.write", async (tx) => {
			await lockDesk(tx, this.tenant);
			const out = [];
			await inBatches(digests, async (slice) => {
				const list = placeholders(slice.length);
				const known = await tx.all(`SELECT digest, state FROM desk_packs WHERE tenant = ? AND digest IN (${list})`, [this.tenant, ...slice]);
				const state = new Map(known.map((r) => [r.digest, r.state]));
				const writing = slice.filter((d) => state.get(d) === "writing");
				out.push(...slice.filter((d) => !state.has(d)), ...writing);
				if (writing.length === 0) return;
				const wl = placeholders(writing.length);
				await tx.run(`DELETE FROM desk_packs WHERE tenant = ? AND state = 'writing' AND digest IN (${wl})`, [this.tenant, ...writing]);
				await tx.run(`DELETE FROM desk_staged WHERE tenant = ? AND pack IN (${wl})`, [this.tenant, ...writing]);
			});
			return out;
		});
		for (const digest of doomed) await this.blobs.delete(this.tenant, digest).catch(() => void 0);
	}
	async commit(input) {
		authorize(this.who, "desk.write");
		if (input.moveHeadTo !== void 0) authorize(this.who, "branch.move");
		const inlineEntries = input.inline ? readPackIndex(input.inline) : [];
		const now = this.now();
		let appended;
		return {
			...await this.write("desk.write", async (tx) => {
				await lockDesk(tx, this.tenant);
				let ws;
				if (input.attach) {
					let session = input.attach.session;
					if (session === void 0) session = (await createSession(tx, this.who, {
						title: input.attach.path,
						meta: { workspace: input.workspace }
					}, now)).id;
					else await getSession(tx, this.who, session);
					ws = {
						tenant: this.tenant,
						id: input.workspace,
						host: input.attach.host,
						path: input.attach.path,
						session,
						branch: input.attach.branch,
						driver: "plain",
						state: "attached",
						base_snapshot: input.id,
						head_snapshot: input.id,
						forked_from: "",
						created_at: now
					};
					await insertWorkspace(tx, ws);
				} else {
					ws = await workspaceRow(tx, this.tenant, input.workspace, tx.lockRows);
					if (ws.head_snapshot !== input.expectHead) throw retry("head moved", { head: ws.head_snapshot });
				}
				const missing = await this.reachable(tx, input, inlineEntries);
				if (missing.length > 0) throw retry("objects collected", { missing: missing.slice(0, 20) });
				if (input.ifHead !== void 0) {
					const head = await branchHead(tx, this.who, ws.session, ws.branch);
					const moves = input.ifMoves === void 0 ? void 0 : await branchMoves(tx, this.who, ws.session, ws.branch);
					if (head !== input.ifHead || moves !== input.ifMoves) throw conflict(head !== input.ifHead ? `branch ${ws.branch} moved (its head is ${head || "(root)"}, not ${input.ifHead}) while this ran: look again, then retry` : `branch ${ws.branch} moved away and back to ${head || "(root)"} while this ran: look again, then retry`, {
						branch: ws.branch,
						head,
						expected: input.ifHead
					});
				}
				const row = {
					tenant: this.tenant,
					id: input.id,
					workspace: ws.id,
					kind: input.kind,
					root: input.root,
					parent: input.attach ? "" : input.expectHead,
					files: input.files,
					bytes: input.bytes,
					added_bytes: input.addedBytes,
					created_at: now
				};
				const event = await appendEvent(tx, this.who, {
					session: ws.session,
					branch: ws.branch,
					kind: `cairn.ws.${input.kind}`,
					payload: null
				}, encodePayload({
					...input.payload,
					workspace: ws.id,
					snapshot: row.id,
					root: row.root,
					parent: row.parent,
					files: row.files,
					bytes: row.bytes
				}), now);
				const recorded = {
					...row,
					event: event.id
				};
				if (input.also) appended = await appendEvent(tx, this.who, {
					session: ws.session,
					branch: ws.branch,
					kind: input.also.kind,
					payload: null
				}, encodePayload({
					...input.also.payload,
					snapshot: row.id,
					root: row.root,
					head: event.id
				}), now);
				if (input.moveHeadTo !== void 0) await moveHead(tx, this.who, {
					session: ws.session,
					branch: ws.branch,
					to: input.moveHeadTo,
					ifHead: (appended ?? event).id
				}, now);
				await insertSnapshot(tx, recorded);
				await tx.run("UPDATE desk_workspaces SET head_snapshot = ? WHERE tenant = ? AND id = ?", [
					row.id,
					this.tenant,
					ws.id
				]);
				return {
					snapshot: toSnapshot(recorded),
					workspace: toWorkspace({
						...ws,
						head_snapshot: row.id
					})
				};
			}),
			...appended ? { appended } : {}
		};
	}
	/**
	* Inside the commit: makes the snapshot's new objects reachable (the staged
	* objects of its packs, the objects of its inline pack) and checks that
	* every object it reuses is still held. Returns what is missing (a
	* concurrent GC took it, or a pack was never stored); the caller retries.
	*/
	async reachable(tx, input, inlineEntries) {
		const tenant = this.tenant;
		const fresh = new Set(inlineEntries.map((e) => e.digest));
		let live = 0;
		const packs = [...new Set(input.packs)];
		await inBatches(packs, async (slice) => {
			const list = placeholders(slice.length);
			live += await tx.run(`UPDATE desk_packs SET state = 'live' WHERE tenant = ? AND inline = 0 AND digest IN (${list})`, [tenant, ...slice]);
			for (const staged of await tx.all(`SELECT pack, entries FROM desk_staged WHERE tenant = ? AND pack IN (${list})`, [tenant, ...slice])) await insertObjects(tx, tenant, staged.pack, indexEntries(Buffer.from(staged.entries)));
			await tx.run(`DELETE FROM desk_staged WHERE tenant = ? AND pack IN (${list})`, [tenant, ...slice]);
		});
		if (live !== packs.length) return packs;
		if (input.inline) {
			const inline = input.inline;
			const digest = digestOf(inline);
			const known = await tx.get("SELECT inline FROM desk_packs WHERE tenant = ? AND digest = ?", [tenant, digest]);
			if (known && Number(known.inline) !== 1) throw invalidArgument(`pack ${digest} was stored with putPack: name it in \`packs\`, not as the inline pack`, { pack: digest });
			await tx.run(`INSERT INTO desk_packs (tenant, digest, state, size, created_at, inline, bytes) VALUES (?, ?, 'live', ?, ?, 1, ?)
         ON CONFLICT (tenant, digest) DO NOTHING`, [
				tenant,
				digest,
				inline.length,
				this.now(),
				inline
			]);
			await insertObjects(tx, tenant, digest, inlineEntries);
		}
		const expected = [.../* @__PURE__ */ new Set([...input.reused, input.root])].filter((d) => !fresh.has(d));
		const present = await findObjects(tx, tenant, expected);
		const rootKind = fresh.has(input.root) ? inlineEntries.find((e) => e.digest === input.root)?.kind : present.get(input.root)?.kind;
		if (rootKind !== void 0 && rootKind !== "tree") throw invalidArgument(`root ${input.root} is a file chunk, not a tree: name the root tree`, { root: input.root });
		return expected.filter((d) => !present.has(d));
	}
	async workspace(id) {
		return toWorkspace(await this.read("desk.read", (tx) => workspaceRow(tx, this.tenant, id)));
	}
	async head(id) {
		return this.read("desk.read", async (tx) => {
			const row = await workspaceRow(tx, this.tenant, id);
			return {
				workspace: toWorkspace(row),
				head: toSnapshot(await snapshotRow(tx, this.tenant, row.head_snapshot))
			};
		});
	}
	async listWorkspaces() {
		return (await this.read("desk.read", (tx) => tx.all(`SELECT ${WORKSPACE_COLUMNS} FROM desk_workspaces WHERE tenant = ? ORDER BY id`, [this.tenant]))).map(toWorkspace);
	}
	async attachedAt(host, paths) {
		if (paths.length === 0) return [];
		return (await this.read("desk.read", (tx) => tx.all(`SELECT ${WORKSPACE_COLUMNS} FROM desk_workspaces WHERE tenant = ? AND host = ? AND state = 'attached'
         AND path IN (${placeholders(paths.length)})`, [
			this.tenant,
			host,
			...paths
		]))).map(toWorkspace);
	}
	async listSnapshots(workspace) {
		return (await this.read("desk.read", async (tx) => {
			await workspaceRow(tx, this.tenant, workspace);
			return tx.all(`SELECT * FROM desk_snapshots WHERE tenant = ? AND workspace = ? ORDER BY created_at, id`, [this.tenant, workspace]);
		})).map(toSnapshot);
	}
	async snapshot(id) {
		return toSnapshot(await this.read("desk.read", (tx) => snapshotRow(tx, this.tenant, id)));
	}
	/** The snapshots of these ids the tenant holds, in no particular order (an id it does not hold is left out). */
	async snapshots(ids) {
		if (ids.length === 0) return [];
		return (await this.read("desk.read", async (tx) => {
			const found = [];
			await inBatches([...new Set(ids)], async (slice) => {
				found.push(...await tx.all(`SELECT ${SNAPSHOT_COLUMNS} FROM desk_snapshots WHERE tenant = ? AND id IN (${placeholders(slice.length)})`, [this.tenant, ...slice]));
			});
			return found;
		})).map(toSnapshot);
	}
	async fork(input) {
		authorize(this.who, "desk.write");
		authorize(this.who, "branch.fork");
		const now = this.now();
		return this.write("desk.write", async (tx) => {
			await lockDesk(tx, this.tenant);
			const from = await workspaceRow(tx, this.tenant, input.from);
			const base = await snapshotRow(tx, this.tenant, input.baseSnapshot);
			const owner = base.workspace === from.id ? from : await workspaceRow(tx, this.tenant, base.workspace);
			if (owner.session !== from.session) throw invalidArgument(`snapshot ${base.id} belongs to session ${owner.session}, not ${from.session}`, { snapshot: base.id });
			const branch = await forkBranch(tx, this.who, {
				session: from.session,
				...input.at !== void 0 ? { at: input.at } : { from: from.branch },
				name: input.branch
			}, now);
			const row = {
				tenant: this.tenant,
				id: input.id,
				host: input.host,
				path: input.path,
				session: from.session,
				branch: branch.name,
				driver: input.driver,
				state: "attached",
				base_snapshot: base.id,
				head_snapshot: base.id,
				forked_from: from.id,
				created_at: now
			};
			await insertWorkspace(tx, row);
			return toWorkspace(row);
		});
	}
	async detach(id) {
		return this.write("desk.write", async (tx) => {
			const row = await workspaceRow(tx, this.tenant, id);
			await tx.run(`UPDATE desk_workspaces SET state = 'detached' WHERE tenant = ? AND id = ?`, [this.tenant, id]);
			return toWorkspace({
				...row,
				state: "detached"
			});
		});
	}
	async refused(input) {
		const row = await this.workspace(input.workspace);
		await this.write("desk.write", async (tx) => {
			await appendAudit(tx, {
				tenant: this.tenant,
				actor: this.who.principal,
				action: "desk.refused",
				resourceType: "workspace",
				resourceId: row.id,
				payload: {
					action: input.action,
					reason: input.reason,
					host: input.host,
					dir: input.dir
				},
				at: this.now()
			});
		});
	}
	async checkSession(id) {
		await this.read("session.read", (tx) => getSession(tx, this.who, id));
	}
	getEvent(id) {
		return this.read("log.read", (tx) => getEvent(tx, this.who, id));
	}
	readBranch(input) {
		return this.read("log.read", (tx) => readBranch(tx, this.who, input));
	}
};
export { lockDesk as i, RETRY as n, alreadyAttached as r, LocalDeskStore as t };
