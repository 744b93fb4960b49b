import { P as tupleDigest } from "./store-folder-D53airw-.js";
// dist/log/rows.js
const EVENT_COLUMNS = "tenant, id, session, branch, line, seq, parent, kind, payload, actor, owner, at, idem_key";
const BRANCH_COLUMNS = "tenant, id, session, name, owner, head, head_seq, head_line, own_line, forked_from, created_at, updated_at";
/** Columns a branch read needs; the rest are known from the request. */
const PATH_COLUMNS = "id, branch, seq, parent, kind, payload, actor, owner, at, idem_key";
/** Maps a page of rows, parsing all payloads in one JSON.parse call (the hot part of a read). */
function toEvents(rows, session) {
	if (rows.length === 0) return [];
	const payloads = JSON.parse(`[${rows.map((r) => r.payload).join(",")}]`);
	return rows.map((row, i) => ({
		id: row.id,
		session,
		branch: row.branch,
		parent: row.parent,
		seq: row.seq,
		kind: row.kind,
		payload: payloads[i],
		actor: row.actor,
		owner: row.owner,
		at: row.at,
		idempotencyKey: row.idem_key
	}));
}
function toEvent(row) {
	return {
		id: row.id,
		session: row.session,
		branch: row.branch,
		parent: row.parent,
		seq: row.seq,
		kind: row.kind,
		payload: JSON.parse(row.payload),
		actor: row.actor,
		owner: row.owner,
		at: row.at,
		idempotencyKey: row.idem_key
	};
}
function toBranch(row) {
	return {
		id: row.id,
		session: row.session,
		name: row.name,
		owner: row.owner,
		head: row.head,
		headSeq: row.head_seq,
		forkedFrom: row.forked_from,
		createdAt: row.created_at,
		updatedAt: row.updated_at
	};
}
function toSession(row) {
	return {
		id: row.id,
		tenant: row.tenant,
		owner: row.owner,
		title: row.title,
		meta: JSON.parse(row.meta),
		createdAt: row.created_at
	};
}
/**
* Digest of an event row as stored, payload text included byte for byte. The
* audit entry of the append commits to it, so an edited event is detected.
*/
function eventDigest(row) {
	return tupleDigest(eventValues(row));
}
/** An event row's values in EVENT_COLUMNS order: what is inserted is what is hashed. */
function eventValues(row) {
	return [
		row.tenant,
		row.id,
		row.session,
		row.branch,
		row.line,
		row.seq,
		row.parent,
		row.kind,
		row.payload,
		row.actor,
		row.owner,
		row.at,
		row.idem_key
	];
}
export { eventValues as a, toEvents as c, eventDigest as i, toSession as l, EVENT_COLUMNS as n, toBranch as o, PATH_COLUMNS as r, toEvent as s, BRANCH_COLUMNS as t };
