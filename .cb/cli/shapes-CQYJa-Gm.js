import { $ as object, J as _enum, Q as number, X as boolean, Y as array, et as record, rt as unknown, tt as string } from "./schema-akKHYQxY.js";
import { a as idOf, i as at } from "./shapes-CMxeFoql.js";
// dist/log/shapes.js
/** What the session log's operations answer, as zod schemas (the shared nouns: ../shapes.ts). */
const Session = object({
	id: idOf(),
	tenant: string(),
	owner: string(),
	title: string(),
	meta: record(string(), unknown()),
	createdAt: at
});
const SessionPage = object({
	sessions: array(Session),
	next: string().nullable().describe("cursor to pass as `after` for the next page; null on the last page")
});
const Branch = object({
	id: string(),
	session: idOf(),
	name: string(),
	owner: string(),
	head: idOf().describe("id of the head event; '' while the branch is empty"),
	headSeq: number().int().describe("sequence number of the head event (its depth from the root); 0 while empty"),
	forkedFrom: idOf().describe("event the branch was forked at; '' for a session's first branch"),
	createdAt: at,
	updatedAt: at
});
const BranchList = array(Branch);
const CairnEvent = object({
	id: idOf(),
	session: idOf(),
	branch: string().describe("name of the branch the event was appended on"),
	parent: idOf().describe("id of the previous event on its path; '' for a root event"),
	seq: number().int().describe("position on its path from the root, starting at 1"),
	kind: string(),
	payload: unknown(),
	actor: string(),
	owner: string(),
	at,
	idempotencyKey: string().nullable()
});
const AppendResult = CairnEvent.extend({ deduplicated: boolean().describe("true when an earlier append with the same idempotency key answered") });
const EventPage = object({
	events: array(CairnEvent),
	next: number().int().nullable().describe("sequence number to pass as `from` for the next page; null after the head"),
	head: idOf(),
	headSeq: number().int()
});
const RefLogEntry = object({
	branch: string(),
	op: _enum([
		"create",
		"fork",
		"rewind",
		"move"
	]),
	headBefore: string(),
	headAfter: string(),
	by: string(),
	at
});
const RefLog = array(RefLogEntry);
export { EventPage as a, SessionPage as c, CairnEvent as i, Branch as n, RefLog as o, BranchList as r, Session as s, AppendResult as t };
