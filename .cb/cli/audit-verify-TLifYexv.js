import { E as GENESIS_HASH, R as placeholders, j as payloadCommitment, k as entryHash } from "./store-folder-D53airw-.js";
import { i as eventDigest, n as EVENT_COLUMNS } from "./rows-p2pakGFV.js";
// dist/log/audit-witness.js
/** Collects what the chain claims of the log's rows, entry by entry, then checks the rows. */
var LogWitness = class {
	tx;
	tenant;
	claims = {
		branches: /* @__PURE__ */ new Map(),
		sessions: /* @__PURE__ */ new Map()
	};
	seen = /* @__PURE__ */ new Set();
	events = /* @__PURE__ */ new Map();
	constructor(tx, tenant) {
		this.tx = tx;
		this.tenant = tenant;
	}
	/** Events the chain has accounted for so far. */
	get eventCount() {
		return this.seen.size;
	}
	/** Loads, in bulk, the events a page of entries appended (before each is witnessed). */
	async load(entries) {
		const ids = entries.filter((e) => e.action === "event.append").map((e) => e.resource_id);
		this.events = await eventsById(this.tx, this.tenant, ids);
	}
	/** What is wrong with the log's side of one verified entry, or null; notes what it claims of rows. */
	witness(entry) {
		const payload = JSON.parse(entry.payload);
		if (entry.action === "event.append") {
			const event = this.events.get(entry.resource_id);
			if (!event) return `event ${entry.resource_id} recorded by entry ${entry.seq} is missing`;
			if (eventDigest(event) !== payload.digest) return `event ${entry.resource_id} was altered after entry ${entry.seq}`;
			this.seen.add(entry.resource_id);
		}
		recordClaims(this.claims, entry, payload);
		return null;
	}
	/** After the whole chain (`last` its final entry): the first row no entry accounts for, or that differs. */
	async finish(last) {
		const all = await this.tx.all("SELECT id FROM events WHERE tenant = ? ORDER BY id", [this.tenant]);
		for (const { id } of all) if (!this.seen.has(id)) return {
			seq: last,
			reason: `event ${id} has no audit entry`
		};
		return await checkSessions(this.tx, this.tenant, this.claims.sessions, last) ?? await checkBranches(this.tx, this.tenant, this.claims.branches, last) ?? await checkLines(this.tx, this.tenant, last);
	}
};
/** Notes what a verified entry says its session or branch row must hold; later entries override moves. */
function recordClaims(claims, row, p) {
	if (row.action === "session.create") claims.sessions.set(row.resource_id, {
		seq: row.seq,
		owner: row.actor,
		title: p.title,
		meta: p.meta,
		at: row.at
	});
	if (typeof p.branch !== "string" || typeof p.head !== "string") return;
	const created = row.action === "branch.create" || row.action === "branch.fork" ? {
		seq: row.seq,
		session: p.session,
		name: p.name,
		owner: row.actor,
		forkedFrom: row.action === "branch.fork" ? p.head : "",
		at: row.at
	} : claims.branches.get(p.branch)?.created ?? null;
	const moved = {
		seq: row.seq,
		action: row.action,
		head: p.head,
		headSeq: p.headSeq,
		at: row.at
	};
	claims.branches.set(p.branch, {
		created,
		moved
	});
}
/** The first field where the row differs from what the audit trail claims (claims are unchecked JSON). */
function mismatch(row, expected) {
	return Object.keys(expected).find((k) => row[k] !== expected[k]);
}
async function checkSessions(tx, tenant, claims, last) {
	const rows = await tx.all("SELECT id, owner, title, meta, created_at FROM sessions WHERE tenant = ? ORDER BY id", [tenant]);
	for (const row of rows) {
		const claim = claims.get(row.id);
		if (!claim) return {
			seq: last,
			reason: `session ${row.id} has no audit entry`
		};
		const wrong = mismatch(row, {
			owner: claim.owner,
			title: claim.title,
			meta: claim.meta,
			created_at: claim.at
		});
		if (wrong) return {
			seq: claim.seq,
			reason: `${wrong} of session ${row.id} differs from entry ${claim.seq}`
		};
	}
	const present = new Set(rows.map((r) => r.id));
	for (const [id, claim] of claims) if (!present.has(id)) return {
		seq: claim.seq,
		reason: `session ${id} created by entry ${claim.seq} is missing`
	};
	return null;
}
async function checkBranches(tx, tenant, claims, last) {
	const rows = await tx.all(`SELECT b.id, b.session, b.name, b.owner, b.head, b.head_seq, b.head_line, b.own_line, b.forked_from,
            b.created_at, b.updated_at, e.seq AS event_seq, e.line AS event_line
     FROM branches b LEFT JOIN events e ON e.tenant = b.tenant AND e.id = b.head
     WHERE b.tenant = ? ORDER BY b.id`, [tenant]);
	for (const row of rows) {
		const claim = claims.get(row.id);
		if (!claim) return {
			seq: last,
			reason: `branch ${row.id} has no audit entry`
		};
		const { created, moved } = claim;
		if (!created) return {
			seq: moved.seq,
			reason: `branch ${row.id} has no branch.create or branch.fork entry`
		};
		if (moved.head !== row.head) return {
			seq: moved.seq,
			reason: `head of branch ${row.id} was moved outside the log`
		};
		if (row.head !== "" && row.event_seq === null) return {
			seq: moved.seq,
			reason: `head event ${row.head} of branch ${row.id} is missing`
		};
		const headLine = row.event_line ?? "";
		const ofHead = mismatch(row, {
			head_seq: row.event_seq ?? 0,
			head_line: headLine
		});
		if (ofHead) return {
			seq: moved.seq,
			reason: `${ofHead} of branch ${row.id} does not match its head event`
		};
		const ofMove = mismatch(row, {
			head_seq: moved.headSeq,
			own_line: moved.action === "event.append" ? headLine : "",
			updated_at: moved.at
		});
		if (ofMove) return {
			seq: moved.seq,
			reason: `${ofMove} of branch ${row.id} differs from its last move, entry ${moved.seq}`
		};
		const ofCreation = mismatch(row, {
			session: created.session,
			name: created.name,
			owner: created.owner,
			forked_from: created.forkedFrom,
			created_at: created.at
		});
		if (ofCreation) return {
			seq: created.seq,
			reason: `${ofCreation} of branch ${row.id} differs from its creating entry ${created.seq}`
		};
	}
	const present = new Set(rows.map((r) => r.id));
	for (const [id, { created }] of claims) if (created && !present.has(id)) return {
		seq: created.seq,
		reason: `branch ${id} created by entry ${created.seq} is missing`
	};
	return null;
}
/**
* Every line starts right after its base event: its first event has seq
* base_seq + 1 and the base event as parent (a root line: base ('', 0) and
* parent ''). Events are audited, so this pins base_line and base_seq. And
* every event's line has a row.
*/
async function checkLines(tx, tenant, last) {
	const rows = await tx.all(`SELECT l.id, l.session, l.base_line, l.base_seq, f.id AS first_id, f.seq AS first_seq,
            f.parent AS first_parent, f.session AS first_session, b.id AS base_id
     FROM lines l
     LEFT JOIN (SELECT line, MIN(seq) AS seq FROM events WHERE tenant = ? GROUP BY line) m ON m.line = l.id
     LEFT JOIN events f ON f.tenant = l.tenant AND f.line = l.id AND f.seq = m.seq
     LEFT JOIN events b ON b.tenant = l.tenant AND b.line = l.base_line AND b.seq = l.base_seq
     WHERE l.tenant = ? ORDER BY l.id`, [tenant, tenant]);
	for (const row of rows) {
		const at = (reason) => ({
			seq: last,
			reason: `line ${row.id} ${reason}`
		});
		if (row.first_id === null) return at("has no events");
		if (row.first_session !== row.session) return at(`is not in the session of its first event ${row.first_id}`);
		if (row.first_seq !== row.base_seq + 1) return at(`has base_seq ${row.base_seq} but its first event ${row.first_id} has seq ${row.first_seq}`);
		if (row.base_line === "" && row.base_seq !== 0) return at(`has no base line but base_seq ${row.base_seq}`);
		const parent = row.base_line === "" ? "" : row.base_id;
		if (row.first_parent !== parent) return at(`has base (${row.base_line || "''"}, ${row.base_seq}) but its first event ${row.first_id} follows ${row.first_parent || "nothing"}`);
	}
	const orphan = await tx.get(`SELECT e.id, e.line FROM events e
     WHERE e.tenant = ? AND NOT EXISTS (SELECT 1 FROM lines l WHERE l.tenant = e.tenant AND l.id = e.line)
     ORDER BY e.id LIMIT 1`, [tenant]);
	if (orphan) return {
		seq: last,
		reason: `line ${orphan.line} of event ${orphan.id} is missing`
	};
	return null;
}
async function eventsById(tx, tenant, ids) {
	const found = /* @__PURE__ */ new Map();
	for (let i = 0; i < ids.length; i += 500) {
		const chunk = ids.slice(i, i + 500);
		const rows = await tx.all(`SELECT ${EVENT_COLUMNS} FROM events WHERE tenant = ? AND id IN (${placeholders(chunk.length)})`, [tenant, ...chunk]);
		for (const row of rows) found.set(row.id, row);
	}
	return found;
}
// dist/audit/audit-verify.js
const PAGE = 2e3;
/**
* Walks a tenant's chain from genesis and checks, in order: numbering, links,
* entry hashes, payload commitments, that every appended event still hashes
* to what its entry committed to, that no event lacks an entry, that the
* chain head matches the last entry; then that every session row is what its
* `session.create` entry recorded, that every branch row is what its creating
* entry and last audited move left (head, head_seq, head_line, own_line), and
* that every line starts right after its base event. Reports the first break
* found.
*/
async function verifyAuditChain(engine, tenant) {
	return engine.read(tenant, (tx) => verifyIn(tx, tenant), { consistent: true });
}
async function verifyIn(tx, tenant) {
	const report = (entries, events, firstBreak) => ({
		tenant,
		ok: firstBreak === null,
		entries,
		events,
		firstBreak
	});
	let prev = GENESIS_HASH;
	let expected = 1;
	const log = new LogWitness(tx, tenant);
	for (;;) {
		const rows = await tx.all(`SELECT a.tenant, a.seq, a.at, a.actor, a.action, a.resource_type, a.resource_id, a.commitment, a.prev_hash, a.hash,
              p.salt, p.payload
       FROM audit_entries a LEFT JOIN audit_payloads p ON p.tenant = a.tenant AND p.seq = a.seq
       WHERE a.tenant = ? AND a.seq >= ? ORDER BY a.seq LIMIT ?`, [
			tenant,
			expected,
			PAGE
		]);
		if (rows.length === 0) break;
		await log.load(rows.flatMap((r) => r.payload === null ? [] : [{
			...r,
			payload: r.payload
		}]));
		for (const row of rows) {
			const at = (reason) => report(expected - 1, log.eventCount, {
				seq: row.seq,
				reason
			});
			if (row.seq !== expected) return at(`entry ${expected} is missing`);
			if (row.prev_hash !== prev) return at(`entry ${row.seq} does not link to entry ${row.seq - 1}`);
			if (entryHash(row) !== row.hash) return at(`entry ${row.seq} was altered (its hash does not match its fields)`);
			if (row.salt === null || row.payload === null) return at(`payload of entry ${row.seq} is missing`);
			if (payloadCommitment(row.salt, row.payload) !== row.commitment) return at(`payload of entry ${row.seq} was altered`);
			const broken = log.witness({
				...row,
				payload: row.payload
			});
			if (broken !== null) return at(broken);
			prev = row.hash;
			expected++;
		}
	}
	const last = expected - 1;
	const done = (reason, seq = last) => report(last, log.eventCount, {
		seq,
		reason
	});
	const head = await tx.get("SELECT seq, hash FROM audit_heads WHERE tenant = ?", [tenant]);
	if (!head || head.seq !== last || head.hash !== prev) return done(`the chain head names entry ${head?.seq ?? "(none)"} but the chain ends at entry ${last}`);
	const firstBreak = await log.finish(last);
	return report(last, log.eventCount, firstBreak);
}
export { verifyAuditChain as t };
