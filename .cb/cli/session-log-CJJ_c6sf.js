import { F as RetryTransaction, O as appendAudit } from "./store-folder-D53airw-.js";
import { A as invalidArgument, M as notFound, N as payloadTooLarge, T as corrupt, w as conflict } from "./front-BpLyP2oj.js";
import { a as newId } from "./validate-Dzwxqk5b.js";
import { y as toJsonText } from "./args-Br0IqddQ.js";
import { a as eventValues, c as toEvents, i as eventDigest, l as toSession, n as EVENT_COLUMNS, o as toBranch, r as PATH_COLUMNS, s as toEvent, t as BRANCH_COLUMNS } from "./rows-p2pakGFV.js";
// dist/log/session-log.js
/**
* The session log: a tree of immutable events with movable branch heads.
*
* Events are stored in *lines*: a line is a run of consecutive events that one
* branch appended, starting after a base event (the fork or rewind point). A
* branch extends its own line while its head is that line's tip; after a fork
* or a rewind its next append starts a new line. So a path root → head is a
* short list of (line, seq range) segments, each one index range scan, and a
* fork or rewind writes one row whatever the branch length.
*/
const MAX_PAYLOAD_BYTES = 1048576;
/** A unique constraint lost to a concurrent transaction (PostgreSQL; SQLite writers never race). */
function isUniqueViolation(error) {
	return error.code === "23505";
}
async function requireSession(tx, tenant, session) {
	const row = await tx.get("SELECT tenant, id, owner, title, meta, created_at FROM sessions WHERE tenant = ? AND id = ?", [tenant, session]);
	if (!row) throw notFound("session", session);
	return row;
}
async function requireBranch(tx, tenant, session, name, lock = "") {
	const row = await tx.get(`SELECT ${BRANCH_COLUMNS} FROM branches WHERE tenant = ? AND session = ? AND name = ? ${lock}`, [
		tenant,
		session,
		name
	]);
	if (!row) {
		await requireSession(tx, tenant, session);
		throw notFound("branch", `${name} of session ${session}`);
	}
	return row;
}
async function requireEvent(tx, tenant, id) {
	const row = await tx.get(`SELECT ${EVENT_COLUMNS} FROM events WHERE tenant = ? AND id = ?`, [tenant, id]);
	if (!row) throw notFound("event", id);
	return row;
}
/** The path root → head as segments, root first. */
/**
* Bounds the walk, so a damaged store with a cycle of lines is reported, not looped on. A branch
* whose ancestry is more forks and rewinds deep than this is refused as CORRUPT (docs/design/store-format.md).
*/
const MAX_LINE_DEPTH = 1e5;
async function pathSegments(tx, tenant, branch) {
	if (branch.head_line === "") return [];
	const rows = await tx.all(`WITH RECURSIVE chain (id, base_line, base_seq, depth) AS (
       SELECT id, base_line, base_seq, 0 FROM lines WHERE tenant = ? AND id = ?
       UNION ALL
       SELECT l.id, l.base_line, l.base_seq, c.depth + 1
       FROM lines l JOIN chain c ON l.tenant = ? AND l.id = c.base_line
       WHERE c.depth < ${MAX_LINE_DEPTH}
     )
     SELECT id, base_line, base_seq, depth FROM chain ORDER BY depth`, [
		tenant,
		branch.head_line,
		tenant
	]);
	const segments = [];
	let expected = branch.head_line;
	let hi = branch.head_seq;
	for (const row of rows) {
		if (row.id !== expected) break;
		segments.push({
			line: row.id,
			lo: row.base_seq + 1,
			hi
		});
		expected = row.base_line;
		hi = row.base_seq;
	}
	if (expected !== "") throw corrupt(`line ${expected} on the path to ${branch.head || "the root"} is missing: the store is damaged`, { line: expected });
	return segments.reverse();
}
function onPath(segments, event) {
	return segments.some((s) => s.line === event.line && event.seq >= s.lo && event.seq <= s.hi);
}
async function recordRefMove(tx, who, branch, op, headBefore, headAfter, headSeq, at) {
	const auditSeq = await appendAudit(tx, {
		tenant: who.tenant,
		actor: who.principal,
		action: `branch.${op}`,
		resourceType: "branch",
		resourceId: branch.id,
		payload: {
			session: branch.session,
			name: branch.name,
			branch: branch.id,
			head: headAfter,
			headSeq,
			headBefore
		},
		at
	});
	await tx.run(`INSERT INTO ref_log (tenant, branch, at, audit_seq, op, head_before, head_after, by_principal)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, [
		who.tenant,
		branch.id,
		at,
		auditSeq,
		op,
		headBefore,
		headAfter,
		who.principal
	]);
}
async function insertBranch(tx, row) {
	await tx.run(`INSERT INTO branches (${BRANCH_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
		row.tenant,
		row.id,
		row.session,
		row.name,
		row.owner,
		row.head,
		row.head_seq,
		row.head_line,
		row.own_line,
		row.forked_from,
		row.created_at,
		row.updated_at
	]);
}
async function createSession(tx, who, input, now) {
	const row = {
		tenant: who.tenant,
		id: newId("session", now),
		owner: who.principal,
		title: input.title,
		meta: toJsonText(input.meta, "meta"),
		created_at: now
	};
	await tx.run("INSERT INTO sessions (tenant, id, owner, title, meta, created_at) VALUES (?, ?, ?, ?, ?, ?)", [
		row.tenant,
		row.id,
		row.owner,
		row.title,
		row.meta,
		row.created_at
	]);
	await appendAudit(tx, {
		tenant: who.tenant,
		actor: who.principal,
		action: "session.create",
		resourceType: "session",
		resourceId: row.id,
		payload: {
			title: row.title,
			meta: row.meta
		},
		at: now
	});
	const main = {
		tenant: who.tenant,
		id: newId("branch", now),
		session: row.id,
		name: "main",
		owner: who.principal,
		head: "",
		head_seq: 0,
		head_line: "",
		own_line: "",
		forked_from: "",
		created_at: now,
		updated_at: now
	};
	await insertBranch(tx, main);
	await recordRefMove(tx, who, main, "create", "", "", 0, now);
	return toSession(row);
}
async function getSession(tx, who, id) {
	return toSession(await requireSession(tx, who.tenant, id));
}
async function listSessions(tx, who, input) {
	const rows = await tx.all("SELECT tenant, id, owner, title, meta, created_at FROM sessions WHERE tenant = ? AND id > ? ORDER BY id LIMIT ?", [
		who.tenant,
		input.after ?? "",
		input.limit + 1
	]);
	const page = rows.slice(0, input.limit);
	return {
		sessions: page.map(toSession),
		next: rows.length > input.limit ? page[page.length - 1].id : null
	};
}
function sameAppend(row, input, payload, actor) {
	return row.branch === input.branch && row.kind === input.kind && row.payload === payload && row.actor === actor;
}
function encodePayload(payload) {
	const text = toJsonText(payload, "payload");
	if (Buffer.byteLength(text) > 1048576) throw payloadTooLarge(`event payload is ${Buffer.byteLength(text)} bytes, over the ${MAX_PAYLOAD_BYTES}-byte limit: store large content as a blob and reference its digest`, { limit: MAX_PAYLOAD_BYTES });
	return text;
}
/** Event kinds under this prefix are Cairn's own (steps, units, memory, the desk): no surface appends them. */
const RESERVED_KIND_PREFIX = "cairn.";
/**
* Whether a kind is Cairn's own. Kinds are ASCII (schema.EventKind) and stored
* as given; the test also folds case and compatibility forms, so no spelling
* that a store or a reader might normalise slips past it.
*/
function isReservedKind(kind) {
	return kind.normalize("NFKC").toLowerCase().trimStart().startsWith(RESERVED_KIND_PREFIX);
}
/**
* Appends one of Cairn's own events (a kind under `cairn.`): the path Cairn's
* operations write them by, inside the library; the table's `append` refuses
* such kinds, and this is not exported from the package.
*/
function appendOwnEvent(tx, who, input, payload, now) {
	if (!isReservedKind(input.kind)) throw new Error(`appendOwnEvent is for Cairn's own kinds, not ${input.kind}`);
	return appendEvent(tx, who, input, payload, now);
}
async function appendEvent(tx, who, input, payload, now, redacted = 0) {
	const actor = input.actor ?? who.principal;
	if (input.idempotencyKey !== void 0) {
		const earlier = await tx.get(`SELECT ${EVENT_COLUMNS} FROM events WHERE tenant = ? AND session = ? AND idem_key = ?`, [
			who.tenant,
			input.session,
			input.idempotencyKey
		]);
		if (earlier) {
			if (!sameAppend(earlier, input, payload, actor)) throw conflict(`idempotency key "${input.idempotencyKey}" was already used for a different append (event ${earlier.id}): use a new key for a new event`, { event: earlier.id });
			return {
				...toEvent(earlier),
				deduplicated: true
			};
		}
	}
	const branch = await requireBranch(tx, who.tenant, input.session, input.branch, tx.lockRows);
	let line = branch.own_line;
	if (line === "") {
		line = newId("line", now);
		await tx.run("INSERT INTO lines (tenant, id, session, base_line, base_seq) VALUES (?, ?, ?, ?, ?)", [
			who.tenant,
			line,
			input.session,
			branch.head_line,
			branch.head_seq
		]);
	}
	const row = {
		tenant: who.tenant,
		id: newId("event", now),
		session: input.session,
		branch: branch.name,
		line,
		seq: branch.head_seq + 1,
		parent: branch.head,
		kind: input.kind,
		payload,
		actor,
		owner: who.principal,
		at: now,
		idem_key: input.idempotencyKey ?? null
	};
	try {
		await tx.run(`INSERT INTO events (${EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, eventValues(row));
	} catch (error) {
		if (isUniqueViolation(error)) throw new RetryTransaction("idempotency key raced");
		throw error;
	}
	if (await tx.run(`UPDATE branches SET head = ?, head_seq = ?, head_line = ?, own_line = ?, updated_at = ?
     WHERE tenant = ? AND id = ? AND head = ?`, [
		row.id,
		row.seq,
		line,
		line,
		now,
		who.tenant,
		branch.id,
		branch.head
	]) !== 1) throw new RetryTransaction(`head of branch ${branch.id} moved`);
	await appendAudit(tx, {
		tenant: who.tenant,
		actor: who.principal,
		action: "event.append",
		resourceType: "event",
		resourceId: row.id,
		payload: {
			digest: eventDigest(row),
			branch: branch.id,
			head: row.id,
			headSeq: row.seq,
			...redacted > 0 ? { redacted } : {}
		},
		at: now
	});
	return {
		...toEvent(row),
		deduplicated: false
	};
}
async function readBranch(tx, who, input) {
	const branch = await requireBranch(tx, who.tenant, input.session, input.branch);
	return readPathPage(tx, who.tenant, input.session, branch, input);
}
/** The path root → an event, paged like a branch: what a branch whose head is that event would read. */
async function readPath(tx, who, input) {
	const event = await requireEvent(tx, who.tenant, input.to);
	return readPathPage(tx, who.tenant, event.session, {
		head: event.id,
		head_line: event.line,
		head_seq: event.seq
	}, input);
}
async function readPathPage(tx, tenant, session, head, page) {
	const last = Math.min(head.head_seq, page.from + page.limit - 1);
	const events = [];
	if (page.from <= last) for (const segment of await pathSegments(tx, tenant, head)) {
		const lo = Math.max(segment.lo, page.from);
		const hi = Math.min(segment.hi, last);
		if (lo > hi) continue;
		const rows = await tx.all(`SELECT ${PATH_COLUMNS} FROM events WHERE tenant = ? AND line = ? AND seq >= ? AND seq <= ? ORDER BY seq`, [
			tenant,
			segment.line,
			lo,
			hi
		]);
		for (const event of toEvents(rows, session)) events.push(event);
	}
	return {
		events,
		next: last < head.head_seq ? last + 1 : null,
		head: head.head,
		headSeq: head.head_seq
	};
}
/**
* Events of one kind in a session, newest first — by time, then by place on
* their line (exact within a branch; events of one millisecond on different
* lines in a fixed order) — on every branch, those no branch's path holds
* any more too (a restore or a rewind leaves them in the log); optionally
* only those a branch appended, or those after `before` in this order. It
* reads the session's lines and, per line, its events by the (line, seq)
* index: meant for kinds that are few and read rarely (unit checkpoints),
* not for a hot path.
*/
async function eventsOfKind(tx, who, input) {
	await requireSession(tx, who.tenant, input.session);
	const where = [
		"l.tenant = ?",
		"l.session = ?",
		"e.kind = ?"
	];
	const values = [
		who.tenant,
		input.session,
		input.kind
	];
	if (input.branch !== void 0) {
		where.push("e.branch = ?");
		values.push(input.branch);
	}
	if (input.before !== void 0) {
		const cursor = await requireEvent(tx, who.tenant, input.before);
		where.push("(e.at < ? OR (e.at = ? AND (e.seq < ? OR (e.seq = ? AND e.id < ?))))");
		const at = Number(cursor.at);
		const seq = Number(cursor.seq);
		values.push(at, at, seq, seq, cursor.id);
	}
	const columns = PATH_COLUMNS.split(", ").map((c) => `e.${c}`).join(", ");
	const rows = await tx.all(`SELECT ${columns}, e.line FROM lines l JOIN events e ON e.tenant = l.tenant AND e.line = l.id
     WHERE ${where.join(" AND ")} ORDER BY e.at DESC, e.seq DESC, e.id DESC LIMIT ?`, [...values, input.limit]);
	return toEvents(rows, input.session).map((event, i) => ({
		event,
		line: rows[i].line
	}));
}
async function getEvent(tx, who, id) {
	return toEvent(await requireEvent(tx, who.tenant, id));
}
async function eventInSession(tx, who, id, session) {
	const event = await requireEvent(tx, who.tenant, id);
	if (event.session !== session) throw invalidArgument(`event ${id} belongs to session ${event.session}, not ${session}: pass an event of the same session`, {
		event: id,
		session: event.session
	});
	return event;
}
async function freeForkName(tx, tenant, session) {
	const { n } = await tx.get("SELECT COUNT(*) AS n FROM branches WHERE tenant = ? AND session = ?", [tenant, session]);
	for (let i = Number(n);; i++) {
		const name = `fork-${i}`;
		if (!await tx.get("SELECT 1 AS taken FROM branches WHERE tenant = ? AND session = ? AND name = ?", [
			tenant,
			session,
			name
		])) return name;
	}
}
async function forkBranch(tx, who, input, now) {
	await requireSession(tx, who.tenant, input.session);
	let at;
	if (input.at !== void 0) at = await eventInSession(tx, who, input.at, input.session);
	else {
		const source = await requireBranch(tx, who.tenant, input.session, input.from ?? "main");
		at = {
			id: source.head,
			seq: source.head_seq,
			line: source.head_line
		};
	}
	const name = input.name ?? await freeForkName(tx, who.tenant, input.session);
	if (await tx.get("SELECT id FROM branches WHERE tenant = ? AND session = ? AND name = ?", [
		who.tenant,
		input.session,
		name
	])) {
		if (input.name === void 0) throw new RetryTransaction("generated branch name raced");
		throw conflict(`session ${input.session} already has a branch named "${name}": choose another name`, { name });
	}
	const row = {
		tenant: who.tenant,
		id: newId("branch", now),
		session: input.session,
		name,
		owner: who.principal,
		head: at.id,
		head_seq: at.seq,
		head_line: at.line,
		own_line: "",
		forked_from: at.id,
		created_at: now,
		updated_at: now
	};
	try {
		await insertBranch(tx, row);
	} catch (error) {
		if (isUniqueViolation(error)) throw new RetryTransaction("branch name raced");
		throw error;
	}
	await recordRefMove(tx, who, row, "fork", "", at.id, at.seq, now);
	return toBranch(row);
}
async function rewindBranch(tx, who, input, now) {
	const branch = await requireBranch(tx, who.tenant, input.session, input.branch, tx.lockRows);
	const target = await eventInSession(tx, who, input.to, input.session);
	if (!onPath(await pathSegments(tx, who.tenant, branch), target)) throw invalidArgument(`event ${input.to} is not on branch ${input.branch} (root → head): rewind moves a head back along its own path; use a head move (move) to go to any event of the session, or fork to start a new branch there`, {
		event: input.to,
		branch: input.branch
	});
	return setHead(tx, who, branch, target, "rewind", now);
}
/**
* Moves a branch head to any event of its session — back, forward, or onto
* another line — as a new operation: no event is written or removed, the
* old head stays readable, and `branchHistory` records the move. With
* `ifHead` the move happens only while the head is still that event.
*/
async function moveHead(tx, who, input, now) {
	const branch = await requireBranch(tx, who.tenant, input.session, input.branch, tx.lockRows);
	const target = await eventInSession(tx, who, input.to, input.session);
	if (input.ifHead !== void 0 && input.ifHead !== branch.head) throw conflict(`branch ${input.branch} is at ${branch.head || "(root)"}, not ${input.ifHead}: it moved since you read it; read it again and decide`, {
		branch: input.branch,
		head: branch.head,
		expected: input.ifHead
	});
	return setHead(tx, who, branch, target, "move", now);
}
/** Points a branch at an event by compare-and-swap on its head; a move to the head itself records nothing. */
async function setHead(tx, who, branch, target, op, now) {
	if (target.id === branch.head) return toBranch(branch);
	if (await tx.run(`UPDATE branches SET head = ?, head_seq = ?, head_line = ?, own_line = '', updated_at = ?
     WHERE tenant = ? AND id = ? AND head = ?`, [
		target.id,
		target.seq,
		target.line,
		now,
		who.tenant,
		branch.id,
		branch.head
	]) !== 1) throw new RetryTransaction(`head of branch ${branch.id} moved`);
	await recordRefMove(tx, who, branch, op, branch.head, target.id, target.seq, now);
	return toBranch({
		...branch,
		head: target.id,
		head_seq: target.seq,
		head_line: target.line,
		own_line: "",
		updated_at: now
	});
}
/**
* How many times a branch's head was set (its ref log: creation, fork,
* rewinds, moves), read inside the caller's transaction. With the head it
* tells a branch that moved away and back (A→B→A) from one that never moved.
*/
async function branchMoves(tx, who, session, branch) {
	const row = await requireBranch(tx, who.tenant, session, branch, tx.lockRows);
	const counted = await tx.get("SELECT COUNT(*) AS n FROM ref_log WHERE tenant = ? AND branch = ?", [who.tenant, row.id]);
	return Number(counted?.n ?? 0);
}
/** Who owns a branch (its principal), or null when the session has no branch of that name. */
async function branchOwner(tx, tenant, session, branch) {
	return (await tx.get("SELECT owner FROM branches WHERE tenant = ? AND session = ? AND name = ?", [
		tenant,
		session,
		branch
	]))?.owner ?? null;
}
/** A branch's head event id ('' at the root), read inside the caller's transaction. */
async function branchHead(tx, who, session, branch) {
	return (await requireBranch(tx, who.tenant, session, branch, tx.lockRows)).head;
}
async function listBranches(tx, who, session) {
	await requireSession(tx, who.tenant, session);
	return (await tx.all(`SELECT ${BRANCH_COLUMNS} FROM branches WHERE tenant = ? AND session = ? ORDER BY created_at, name`, [who.tenant, session])).map(toBranch);
}
async function branchHistory(tx, who, session, name) {
	const branch = await requireBranch(tx, who.tenant, session, name);
	return (await tx.all("SELECT op, head_before, head_after, by_principal, at FROM ref_log WHERE tenant = ? AND branch = ? ORDER BY audit_seq", [who.tenant, branch.id])).map((r) => ({
		branch: name,
		op: r.op,
		headBefore: r.head_before,
		headAfter: r.head_after,
		by: r.by_principal,
		at: r.at
	}));
}
/**
* The stretches of lines that make up a branch's path, root to head: an event
* is on the branch's path exactly when its (line, seq) lies in one of them.
* Memory uses it to tell what a branch may see (records anchored on its path).
*/
async function branchPath(tx, who, session, branch) {
	await requireSession(tx, who.tenant, session);
	return pathSegments(tx, who.tenant, await requireBranch(tx, who.tenant, session, branch));
}
/** Where an event of the caller's tenant lies: its line and sequence number. */
async function eventPosition(tx, who, id) {
	const row = await requireEvent(tx, who.tenant, id);
	return {
		line: row.line,
		seq: Number(row.seq)
	};
}
export { rewindBranch as S, listBranches as _, branchHistory as a, readBranch as b, branchPath as c, eventPosition as d, eventsOfKind as f, isReservedKind as g, getSession as h, branchHead as i, createSession as l, getEvent as m, appendEvent as n, branchMoves as o, forkBranch as p, appendOwnEvent as r, branchOwner as s, RESERVED_KIND_PREFIX as t, encodePayload as u, listSessions as v, readPath as x, moveHead as y };
