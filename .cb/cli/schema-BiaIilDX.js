import { $ as object, H as SessionId, J as _enum, N as MemoryId, Q as number, X as boolean, Y as array, a as BranchName, et as record, rt as unknown, tt as string } from "./schema-akKHYQxY.js";
// dist/memory/schema.js
/**
* Memory's inputs and answers, as zod schemas: the operations validate with
* them (once, at the edge) and the OpenAPI document and MCP tools are made
* from them. The semantics are in docs/design/memory.md.
*/
const MEMORY_KINDS = [
	"fact",
	"episode",
	"procedure",
	"pinned"
];
const MEMORY_SOURCES = [
	"person",
	"agent",
	"tool",
	"import"
];
/** The sources an agent or a service may name: `person` is a user's alone. */
const AGENT_SOURCES = [
	"agent",
	"tool",
	"import"
];
/** Trust tiers, most trusted first: `minTrust` keeps a tier and those above it. */
const TRUST_TIERS = [
	"trusted",
	"untrusted",
	"quarantined"
];
const RECALL_MODES = [
	"auto",
	"text",
	"vector",
	"hybrid"
];
const MAX_TEXT = 16384;
/** A scope value names a user, an agent or a project inside the caller's tenant: validated, never rewritten. */
const ScopeName = string().regex(/^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$/, "letters, digits and \"._@-\", at most 128, starting with a letter or digit (a name inside your tenant)");
const Scope = object({
	user: ScopeName.optional().describe("the person it is about or for"),
	agent: ScopeName.optional().describe("the agent it belongs to"),
	project: ScopeName.optional().describe("the project it belongs to"),
	session: SessionId.optional().describe("a session (ss_…): seen only on that session’s branches")
}).strict().refine((s) => Object.values(s).some((v) => v !== void 0), "a scope names at least one of user, agent, project, session").describe("where it belongs: at least one of user, agent, project, session");
const Text = string().min(1, "a memory needs text").max(MAX_TEXT, `at most ${MAX_TEXT} characters: keep large content as an artifact and remember a summary`).refine((s) => s.isWellFormed() && !s.includes("\0") && s.trim() !== "", "must be well-formed Unicode text, not blank, without NUL characters");
const Tag = string().regex(/^[a-z0-9][a-z0-9._:-]{0,63}$/, "lowercase letters, digits and \"._:-\", at most 64");
const DerivedRef = string().regex(/^(mr|ev)_[0-9a-z]{26}$/, "a memory record (mr_…) or a log event (ev_…) it was made from");
const Millis = number().int().min(0).max(864e13);
const RememberInput = object({
	scope: Scope,
	text: Text.describe("what to remember, in a sentence or a paragraph (no credentials)"),
	kind: _enum(MEMORY_KINDS).default("fact").describe("fact, episode (what happened), procedure (how to do something) or pinned (always relevant)"),
	data: record(string(), unknown()).default({}).describe("structured detail, any JSON; not searched"),
	tags: array(Tag).max(32).default([]).describe("labels to filter recall by"),
	source: _enum(MEMORY_SOURCES).default("agent").describe("where the text came from"),
	derivedFrom: array(DerivedRef).max(64).default([]).describe("records (mr_…) or log events (ev_…) it was made from: its trust is no higher than theirs"),
	branch: BranchName.default("main").describe("the session's branch it is written on (with a session scope)"),
	validFrom: Millis.optional().describe("when it became true in the world; default now"),
	validTo: Millis.optional().describe("when it stopped being true in the world (ms since the epoch)"),
	supersedes: MemoryId.optional().describe("a record this one replaces: a new version of it")
}).strict();
/** `remember` as an agent's tool offers it (MCP): only the sources an agent may name. */
const AgentRememberInput = RememberInput.extend({ source: _enum(AGENT_SOURCES).default("agent").describe("where the text came from: you, a tool, an import") });
/** The most records one `rememberMany` writes. */
const MAX_BATCH = 1e3;
/**
* The most text (and JSON `data`) one `rememberMany` writes, in characters:
* a batch is one transaction, and its commit (writing its pages to the WAL,
* and the full-text index's flush) is work the event loop cannot interrupt:
* ≈ 20–25 ms a MiB here (docs/design/memory.md).
*/
const MAX_BATCH_CHARS = 1048576;
const RememberManyInput = object({ records: array(RememberInput).min(1, "give at least one record").max(MAX_BATCH, `at most ${MAX_BATCH} records a call: split the rest into further calls`) }).strict().superRefine((input, ctx) => {
	let chars = 0;
	for (const record of input.records) chars += record.text.length + JSON.stringify(record.data).length;
	if (chars > 1048576) ctx.addIssue({
		code: "custom",
		path: ["records"],
		message: `at most ${MAX_BATCH_CHARS} characters of text and data a call (this one has ${chars}): split it into further calls`
	});
});
/** The lowest tier a read returns: quarantined records only when asked for, in recall and list alike. */
const MinTrust = _enum(TRUST_TIERS).default("untrusted").describe("the lowest trust tier returned: quarantined records only when asked for");
const RecallInput = object({
	query: string().min(1).max(1e3).describe("words to look for (or a question, with vectors on)"),
	scope: Scope,
	branch: BranchName.default("main").describe("with a session scope: the branch whose view to search"),
	k: number().int().min(1).max(100).default(10).describe("how many records at most"),
	kinds: array(_enum(MEMORY_KINDS)).max(4).optional().describe("only records of these kinds"),
	tags: array(Tag).max(32).optional().describe("only records with all of these tags"),
	asOf: Millis.optional().describe("what was recorded by then (record time)"),
	minTrust: MinTrust,
	mode: _enum(RECALL_MODES).default("auto").describe("text (full text), vector, hybrid (both, fused by rank), auto: hybrid where vectors are on, else text")
}).strict();
const RecordInput = object({ record: MemoryId }).strict();
const HistoryInput = RecordInput;
const ForgetInput = object({
	record: MemoryId.describe("the record to forget (mr_…)"),
	derived: boolean().default(false).describe("also everything made from it, transitively"),
	preview: boolean().default(false).describe("list what would go; remove nothing")
}).strict();
const ListInput = object({
	scope: Scope,
	branch: BranchName.default("main").describe("with a session scope: the branch whose view to list"),
	limit: number().int().min(1).max(1e3).default(100).describe("how many records at most"),
	minTrust: MinTrust
}).strict();
const CarryInput = object({
	session: SessionId,
	from: BranchName,
	to: BranchName.describe("the branch that takes them (a kept fork’s parent)")
}).strict();
const CarryAnswer = object({
	records: array(string()).describe("the records carried"),
	event: string().describe("the event on `to` that anchors them; '' when there was nothing to carry")
});
const DropBranchInput = object({
	session: SessionId,
	branch: BranchName,
	keepFor: array(BranchName).max(1e4).describe("the branches whose view stays: what they see is kept")
}).strict();
const ReindexInput = object({ limit: number().int().min(1).max(1e3).default(200).describe("how many records to embed in this call") }).strict();
const ReindexAnswer = object({
	model: string(),
	indexed: number().int(),
	remaining: number().int().describe("records still without a vector in this model’s index")
});
const Provenance = object({
	principal: string().describe("who wrote it"),
	source: _enum(MEMORY_SOURCES),
	trust: _enum(TRUST_TIERS),
	session: string().describe("the session it was written in; '' outside one"),
	branch: string(),
	event: string().describe("the log event that records the write; '' outside a session"),
	derivedFrom: array(string())
});
const MemoryRecord = object({
	id: string(),
	version: number().int(),
	kind: _enum(MEMORY_KINDS),
	text: string(),
	data: record(string(), unknown()),
	tags: array(string()),
	scope: object({
		user: string().optional(),
		agent: string().optional(),
		project: string().optional(),
		session: string().optional()
	}),
	provenance: Provenance,
	validFrom: number().int(),
	validTo: number().int().nullable(),
	recordedAt: number().int()
});
const RecallItem = MemoryRecord.extend({ score: number().describe("higher is better") });
const RecallAnswer = object({ items: array(RecallItem) });
const MemoryList = object({ items: array(MemoryRecord) });
const ForgetAnswer = object({
	preview: boolean(),
	records: array(string()).describe("every record that goes (all its versions)"),
	versions: number().int(),
	indexEntries: number().int().describe("full-text entries removed with them"),
	vectorEntries: number().int().describe("vector index entries removed with them"),
	anchors: number().int()
});
export { ReindexInput as _, DropBranchInput as a, TRUST_TIERS as b, HistoryInput as c, MemoryList as d, MemoryRecord as f, ReindexAnswer as g, RecordInput as h, CarryInput as i, ListInput as l, RecallInput as m, AgentRememberInput as n, ForgetAnswer as o, RecallAnswer as p, CarryAnswer as r, ForgetInput as s, AGENT_SOURCES as t, MEMORY_SOURCES as u, RememberInput as v, RememberManyInput as y };
