import "./guard-BHiFyyvg.js";
import { A as invalidArgument, D as forbidden, F as unavailable, L as __exportAll, M as notFound, T as corrupt, k as internal } from "./front-BpLyP2oj.js";
import { d as eventPosition, m as getEvent, n as appendEvent, u as encodePayload } from "./session-log-CJJ_c6sf.js";
import { A as lockChain, I as inBatches, L as outerFirstJoin, N as sha256Hex, O as appendAudit, R as placeholders, c as RECALL_KEY_SPAN, p as refuseAudited, s as inSlices } from "./store-folder-D53airw-.js";
import { a as newId, i as idPattern } from "./validate-Dzwxqk5b.js";
import { n as scanText } from "./text-CFBKie39.js";
import { b as TRUST_TIERS, t as AGENT_SOURCES, u as MEMORY_SOURCES } from "./schema-BiaIilDX.js";
// dist/memory/rows.js
const COLUMNS = "r.tenant, r.id, r.version, r.n, r.kind, r.text, r.data, r.tags, r.scope_user, r.scope_agent, r.scope_project, r.scope_session, r.branch, r.event, r.principal, r.source, r.trust, r.derived_from, r.valid_from, r.valid_to, r.recorded_at, r.latest";
function toRecord(r) {
	const scope = {};
	if (r.scope_user !== "") scope.user = r.scope_user;
	if (r.scope_agent !== "") scope.agent = r.scope_agent;
	if (r.scope_project !== "") scope.project = r.scope_project;
	if (r.scope_session !== "") scope.session = r.scope_session;
	return {
		id: r.id,
		version: Number(r.version),
		kind: r.kind,
		text: r.text,
		data: JSON.parse(r.data),
		tags: JSON.parse(r.tags),
		scope,
		provenance: {
			principal: r.principal,
			source: r.source,
			trust: r.trust,
			session: r.scope_session,
			branch: r.branch,
			event: r.event,
			derivedFrom: JSON.parse(r.derived_from)
		},
		validFrom: Number(r.valid_from),
		validTo: r.valid_to === null ? null : Number(r.valid_to),
		recordedAt: Number(r.recorded_at)
	};
}
/**
* The records `r`, to be read by their numbers: on SQLite through the
* `(tenant, n)` index by name — left to itself, with filters on other
* columns, the planner walks every record of the tenant instead.
*/
function recordsByNumber(dialect) {
	return dialect === "sqlite" ? "memory_records r INDEXED BY memory_records_by_n" : "memory_records r";
}
async function latest(tx, tenant, id) {
	return tx.get(`SELECT ${COLUMNS} FROM memory_records r WHERE r.tenant = ? AND r.id = ? ORDER BY r.version DESC LIMIT 1`, [tenant, id]);
}
function audit(tx, who, action, id, payload, now) {
	return appendAudit(tx, {
		tenant: who.tenant,
		actor: who.principal,
		action,
		resourceType: "memory",
		resourceId: id,
		payload,
		at: now
	});
}
// dist/memory/tenant-tables.js
/**
* Memory's per-tenant SQLite tables (full-text and vector indexes): their
* names carry the tenant id, so it is checked before it becomes part of an
* identifier; and whether one exists yet (a tenant's first record makes it).
*/
const TENANT = idPattern("tn");
/** `<prefix>_<tenant>`, the tenant's own table of that kind. */
function tenantTable(prefix, tenant) {
	if (!TENANT.test(tenant)) throw internal(`not a tenant id: ${tenant}`);
	return `${prefix}_${tenant}`;
}
async function tableExists(tx, name) {
	return await tx.get("SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = ?", [name]) !== void 0;
}
// dist/memory/fulltext.js
/**
* Memory's full-text index, per engine. On SQLite every tenant has an FTS5
* table of its own (`memfts_<tenant>`): a tenant's index holds only its own
* texts, so a query never reads another tenant's postings and bm25's
* document frequencies — which shape every score — count only its own
* records. On PostgreSQL a `tsvector` column of the records with a GIN index,
* under the same row-level security as the rows (ts_rank reads one row's
* vector, no shared statistics).
*/
/** The SQLite FTS5 table of a tenant. */
const ftsTable = (tenant) => tenantTable("memfts", tenant);
/** What the index holds of a record version: its text and its tags. */
function indexedText(text, tags) {
	return tags.length === 0 ? text : `${text}\n${tags.join(" ")}`;
}
/** Adds index entries for record versions (by their number), several to a statement. */
async function indexRecords(tx, dialect, tenant, entries) {
	if (dialect === "postgres" || entries.length === 0) return;
	const table = ftsTable(tenant);
	await tx.run(`CREATE VIRTUAL TABLE IF NOT EXISTS ${table} USING fts5(body, tokenize = 'unicode61 remove_diacritics 2')`);
	await inBatches(entries, async (slice) => {
		await tx.run(`INSERT INTO ${table} (rowid, body) VALUES ${slice.map(() => "(?, ?)").join(", ")}`, slice.flatMap((e) => [e.n, indexedText(e.text, e.tags)]));
	}, 2, (e) => e.text.length);
}
/** The column list and value placeholder of the tsvector on PostgreSQL; nothing on SQLite. */
function vectorColumn(dialect) {
	return dialect === "postgres" ? {
		column: ", tsv",
		value: ", to_tsvector('simple', ?)"
	} : {
		column: "",
		value: ""
	};
}
function vectorValue(dialect, text, tags) {
	return dialect === "postgres" ? [indexedText(text, tags)] : [];
}
/** Removes index entries (record versions by their number); returns how many went. */
async function unindex(tx, dialect, tenant, numbers) {
	if (numbers.length === 0) return 0;
	if (dialect === "postgres") return numbers.length;
	const table = ftsTable(tenant);
	if (!await tableExists(tx, table)) return 0;
	let removed = 0;
	await inBatches(numbers, async (slice) => {
		removed += await tx.run(`DELETE FROM ${table} WHERE rowid IN (${placeholders(slice.length)})`, slice);
	});
	return removed;
}
/** The words of a query, lowercased: a query is words to look for, never the index's own syntax. */
function queryWords(query) {
	const words = [...new Set((query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, 32))];
	if (words.length === 0) throw invalidArgument("the query has no words to look for: give a word or two", { field: "query" });
	return words;
}
/** The match of `words` in a tenant's index; null when the tenant has no index yet (nothing remembered). */
async function matchClause(tx, dialect, tenant, words) {
	if (dialect === "postgres") {
		const query = words.join(" | ");
		return {
			score: "ts_rank_cd(r.tsv, to_tsquery('simple', ?))",
			scoreParams: [query],
			from: "memory_records r",
			where: "r.tenant = ? AND r.tsv @@ to_tsquery('simple', ?)",
			whereParams: [tenant, query],
			n: "r.n",
			reach: (on) => on === "r.n" ? {
				joins: "",
				params: [],
				alias: "r"
			} : {
				joins: ` JOIN memory_records r ON r.tenant = ? AND r.n = ${on}`,
				params: [tenant],
				alias: "r"
			}
		};
	}
	const table = ftsTable(tenant);
	if (!await tableExists(tx, table)) return null;
	return {
		score: `-bm25(${table})`,
		scoreParams: [],
		from: `${table} f`,
		where: `${table} MATCH ?`,
		whereParams: [words.map((w) => `"${w}"`).join(" OR ")],
		n: "f.rowid",
		reach: (on, withRecords) => ({
			joins: ` CROSS JOIN memory_recall s ON s.key = (SELECT no FROM memory_tenants WHERE tenant = ?) * ${RECALL_KEY_SPAN} + ${on}` + (withRecords ? ` CROSS JOIN ${recordsByNumber(dialect)} ON r.tenant = ? AND r.n = ${on}` : ""),
			params: withRecords ? [tenant, tenant] : [tenant],
			alias: "s"
		})
	};
}
// dist/memory/vectors.js
/**
* Memory's vector index (SQLite, sqlite-vec): one `vec0` table per tenant
* and embedding model, `memvec_<tenant>_<model digest>`, rows keyed by the
* record version's number. The embedding function is the caller's (no model
* ships with Cairn); a model of another name or size gets an index of its
* own, so vectors of two models never mix. PostgreSQL here has no pgvector:
* there recall is full text only (see docs/design/memory.md).
*/
const MAX_DIMENSIONS = 4096;
function vectorTable(tenant, embedding) {
	return `${tenantTable("memvec", tenant)}_${sha256Hex(`${embedding.model}\n${embedding.dimensions}`).slice(0, 12)}`;
}
/** Whether vectors can be used here: an embedding function given, and an engine with the index. */
function vectorsOn(embedding, dialect, capabilities) {
	return embedding !== void 0 && dialect === "sqlite" && capabilities.vectors;
}
/** Refuses a vector recall where there is no vector index, saying why. */
function noVectors(embedding) {
	return unavailable(embedding === void 0 ? "a vector recall needs an embedding function: open memory with one (store.memory(who, {embedding}))" : "this store's engine has no vector index (PostgreSQL here has no pgvector; SQLite needs sqlite-vec's binary): recall with mode text", { mode: "vector" });
}
/** Texts' vectors from the user's function, one call for all of them, each checked: the model's size, finite numbers. */
async function embedTexts(embedding, texts) {
	if (texts.length === 0) return [];
	const vectors = await embedding.embed([...texts]);
	if (vectors.length !== texts.length) throw invalidArgument(`the embedding function of ${embedding.model} returned ${vectors.length} vectors for ${texts.length} texts`, { model: embedding.model });
	return vectors.map((vector) => {
		if (!vector || vector.length !== embedding.dimensions) throw invalidArgument(`the embedding function of ${embedding.model} returned ${vector?.length ?? "no"} numbers, not ${embedding.dimensions}`, { model: embedding.model });
		const floats = Float32Array.from(vector);
		if (!floats.every(Number.isFinite)) throw invalidArgument(`the embedding function of ${embedding.model} returned a number that is not finite`, { model: embedding.model });
		return Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength);
	});
}
async function indexVector(tx, tenant, embedding, n, vector) {
	if (!Number.isSafeInteger(embedding.dimensions) || embedding.dimensions < 1 || embedding.dimensions > MAX_DIMENSIONS) throw invalidArgument(`an embedding has 1 to ${MAX_DIMENSIONS} dimensions, not ${embedding.dimensions}`, { model: embedding.model });
	const table = vectorTable(tenant, embedding);
	await tx.run(`CREATE VIRTUAL TABLE IF NOT EXISTS ${table} USING vec0(embedding float[${embedding.dimensions}] distance_metric=cosine)`);
	await tx.run(`INSERT INTO ${table} (rowid, embedding) VALUES (?, ?)`, [BigInt(n), vector]);
}
/** The tenant's vector tables (one per model it has used). */
async function vectorTables(tx, tenant) {
	const prefix = `${tenantTable("memvec", tenant)}_`;
	return (await tx.all("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE ? AND sql LIKE 'CREATE VIRTUAL TABLE%'", [`${prefix}%`])).map((r) => r.name).filter((name) => name.startsWith(prefix) && /^[0-9a-f]{12}$/.test(name.slice(prefix.length)));
}
/**
* Runs `each` for every model's index of the tenant and every version number
* (vec0 takes its rowid one at a time) and adds up what it returns.
*/
async function overVectors(tx, dialect, tenant, numbers, each) {
	if (dialect !== "sqlite" || numbers.length === 0) return 0;
	let total = 0;
	for (const table of await vectorTables(tx, tenant)) for (const n of numbers) total += await each(table, BigInt(n));
	return total;
}
/** Removes the vectors of record versions (by number) from every model's index; how many went. */
function unindexVectors(tx, dialect, tenant, numbers) {
	return overVectors(tx, dialect, tenant, numbers, (table, rowid) => tx.run(`DELETE FROM ${table} WHERE rowid = ?`, [rowid]));
}
/** How many vectors the versions have, over every model's index (for a forget's preview). */
function countVectors(tx, dialect, tenant, numbers) {
	return overVectors(tx, dialect, tenant, numbers, async (table, rowid) => await tx.get(`SELECT 1 AS found FROM ${table} WHERE rowid = ?`, [rowid]) ? 1 : 0);
}
/** The nearest `k` record versions to a vector, nearest first (cosine distance). */
async function nearest(tx, tenant, embedding, vector, k) {
	const table = vectorTable(tenant, embedding);
	if (!await tableExists(tx, table)) return [];
	return (await tx.all(`SELECT rowid AS n, distance FROM ${table} WHERE embedding MATCH ? AND k = ? ORDER BY distance`, [vector, k])).map((r) => ({
		n: Number(r.n),
		distance: Number(r.distance)
	}));
}
/**
* Up to `limit` record versions of the tenant with no vector in this model's
* index, oldest first: what a reindex embeds next, and how many remain.
*/
async function unindexed(tx, tenant, embedding, limit) {
	const table = vectorTable(tenant, embedding);
	const missing = await tableExists(tx, table) ? `NOT EXISTS (SELECT 1 FROM ${table} v WHERE v.rowid = r.n)` : "1 = 1";
	const batch = await tx.all(`SELECT r.n, r.text FROM memory_records r WHERE r.tenant = ? AND ${missing} ORDER BY r.n LIMIT ?`, [tenant, limit]);
	const count = await tx.get(`SELECT COUNT(*) AS count FROM memory_records r WHERE r.tenant = ? AND ${missing}`, [tenant]);
	return {
		batch: batch.map((b) => ({
			n: Number(b.n),
			text: b.text
		})),
		remaining: Number(count?.count ?? 0)
	};
}
/** Indexes a version's vector unless the version is gone or already indexed (a reindex racing writers); true when it did. */
async function indexMissing(tx, tenant, embedding, n, vector) {
	if (!await tx.get("SELECT 1 AS found FROM memory_records WHERE tenant = ? AND n = ?", [tenant, n])) return false;
	const table = vectorTable(tenant, embedding);
	if (await tableExists(tx, table) && await tx.get(`SELECT 1 AS found FROM ${table} WHERE rowid = ?`, [BigInt(n)])) return false;
	await indexVector(tx, tenant, embedding, n, vector);
	return true;
}
// dist/memory/memory.js
const DEFAULT_TRUST = {
	person: "trusted",
	agent: "untrusted",
	tool: "untrusted",
	import: "untrusted"
};
/**
* The sources a principal of each kind may name (its token says its kind,
* never the request): a person's word is a user's alone, so only a person's
* record arrives trusted by source.
*/
const SOURCES_OF = {
	user: MEMORY_SOURCES,
	agent: AGENT_SOURCES,
	service: AGENT_SOURCES
};
/** The refusal of a source the writer may not name, or undefined. */
function claimRefusal(who, input) {
	const may = SOURCES_OF[who.kind];
	if (may.includes(input.source)) return void 0;
	return forbidden(`source ${input.source} is not yours to claim: ${who.principal} is ${who.kind === "agent" ? "an" : "a"} ${who.kind} and may remember with source ${may.join(", ")} (a person's record is written with a person's own token)`, {
		field: "source",
		source: input.source,
		principal: who.principal,
		kind: who.kind
	});
}
/** The log event a record written in a session leaves on its branch (no text: forgetting removes that). */
const MEMORY_EVENT = "cairn.memory.remember";
/** The lower of two trust tiers: what is made from an untrusted record is no more trusted than it. */
function lowest(a, b) {
	return TRUST_TIERS.indexOf(a) >= TRUST_TIERS.indexOf(b) ? a : b;
}
/** Writes a record (or, with `supersedes`, a new version of one). The caller's secret check ran before. */
async function remember(tx, dialect, who, input, now, policy = {}, vector) {
	if (namesRecords(input)) await lockChain(tx, who.tenant);
	const planned = await plan(tx, who, input, now, policy, vector, async (id, version, trust) => {
		await audit(tx, who, "memory.remember", id, {
			version,
			kind: input.kind,
			source: input.source,
			trust
		}, now);
		return await highestNumber(tx, who.tenant) + 1;
	});
	await store(tx, dialect, who.tenant, [planned]);
	return toRecord(planned.row);
}
/**
* Writes records in order, all or none, as one audit entry listing them
* (the chain's head is locked first, so their numbering cannot race).
* Each is checked as `remember` checks it; two records of a batch that
* supersede the same record make two versions, in order. Rows are written
* several to a statement.
*/
async function rememberMany(tx, dialect, who, inputs, now, policy = {}, vectors = []) {
	await lockChain(tx, who.tenant);
	let n = await highestNumber(tx, who.tenant);
	const pending = [];
	const records = [];
	for (const [i, input] of inputs.entries()) {
		if (namesRecords(input)) await store(tx, dialect, who.tenant, pending.splice(0));
		const planned = await plan(tx, who, input, now, policy, vectors[i], async () => ++n);
		pending.push(planned);
		records.push(toRecord(planned.row));
	}
	await store(tx, dialect, who.tenant, pending);
	const first = records[0];
	if (first) await audit(tx, who, "memory.remember", first.id, { records: records.map((r) => ({
		id: r.id,
		version: r.version,
		kind: r.kind,
		source: r.provenance.source,
		trust: r.provenance.trust
	})) }, now);
	return records;
}
/** Whether a record's trust follows other records' (what it supersedes or was made from). */
function namesRecords(input) {
	return input.supersedes !== void 0 || input.derivedFrom.some((ref) => !ref.startsWith("ev_"));
}
async function highestNumber(tx, tenant) {
	const row = await tx.get("SELECT MAX(n) AS n FROM memory_records WHERE tenant = ?", [tenant]);
	return Number(row?.n ?? 0);
}
/**
* Checks a record against what it names (what it was made from, what it
* supersedes), sets its trust, appends its log event when it is written in a
* session, and numbers it (`number` is called once its id and trust are
* known, and takes the tenant's write lock when the caller has not).
*/
async function plan(tx, who, input, now, policy, vector, number) {
	const tenant = who.tenant;
	const refused = claimRefusal(who, input);
	if (refused) throw refused;
	let trust = policy[input.source] ?? DEFAULT_TRUST[input.source];
	for (const ref of input.derivedFrom) {
		if (ref.startsWith("ev_")) {
			await getEvent(tx, who, ref);
			continue;
		}
		const made = await latest(tx, tenant, ref);
		if (!made) throw notFound("memory record", ref);
		trust = lowest(trust, made.trust);
	}
	let id = newId("memory", now);
	let version = 1;
	if (input.supersedes !== void 0) {
		const before = await latest(tx, tenant, input.supersedes);
		if (!before) throw notFound("memory record", input.supersedes);
		const same = (a, b) => a === (b ?? "");
		const { scope } = input;
		if (!same(before.scope_user, scope.user) || !same(before.scope_agent, scope.agent) || !same(before.scope_project, scope.project) || !same(before.scope_session, scope.session)) throw invalidArgument(`a new version of ${input.supersedes} keeps its scope: remember under another scope as a new record`, { record: input.supersedes });
		id = before.id;
		version = Number(before.version) + 1;
		trust = lowest(trust, before.trust === "quarantined" ? "quarantined" : trust);
	}
	const session = input.scope.session ?? "";
	let anchor = null;
	if (session !== "") {
		const event = await appendEvent(tx, who, {
			session: input.scope.session,
			branch: input.branch,
			kind: MEMORY_EVENT,
			payload: null
		}, encodePayload({
			record: id,
			version,
			kind: input.kind,
			source: input.source,
			trust
		}), now);
		anchor = {
			event: event.id,
			...await eventPosition(tx, who, event.id)
		};
	}
	const n = await number(id, version, trust);
	return {
		row: {
			tenant,
			id,
			version,
			n,
			kind: input.kind,
			text: input.text,
			data: JSON.stringify(input.data),
			tags: JSON.stringify(input.tags),
			scope_user: input.scope.user ?? "",
			scope_agent: input.scope.agent ?? "",
			scope_project: input.scope.project ?? "",
			scope_session: session,
			branch: session === "" ? "" : input.branch,
			event: anchor?.event ?? "",
			principal: who.principal,
			source: input.source,
			trust,
			derived_from: JSON.stringify(input.derivedFrom),
			valid_from: input.validFrom ?? now,
			valid_to: input.validTo ?? null,
			recorded_at: now,
			latest: 1
		},
		input,
		vector,
		anchor
	};
}
/** Writes planned versions: rows several to a statement, then what goes with each (index, vector, anchor, edges). */
async function store(tx, dialect, tenant, planned) {
	if (planned.length === 0) return;
	const tsv = vectorColumn(dialect);
	const columns = COLUMNS.replace(/r\./g, "");
	const perRow = Object.keys(planned[0].row).length;
	const values = `(${placeholders(perRow)}${tsv.value})`;
	await inBatches(planned, async (slice) => {
		await tx.run(`INSERT INTO memory_records (${columns}${tsv.column}) VALUES ${slice.map(() => values).join(", ")}`, slice.flatMap((p) => [...Object.values(p.row), ...vectorValue(dialect, p.input.text, p.input.tags)]));
	}, perRow + (tsv.column === "" ? 0 : 1), (p) => p.row.text.length + p.row.data.length);
	for (const { row } of planned) if (row.version > 1) await tx.run("UPDATE memory_records SET latest = 0 WHERE tenant = ? AND id = ? AND version < ?", [
		tenant,
		row.id,
		row.version
	]);
	await indexRecords(tx, dialect, tenant, planned.map((p) => ({
		n: p.row.n,
		text: p.input.text,
		tags: p.input.tags
	})));
	for (const { row, input, vector, anchor } of planned) {
		if (vector) await indexVector(tx, tenant, vector.embedding, row.n, vector.bytes);
		if (anchor) await tx.run("INSERT INTO memory_anchors (tenant, id, version, event, line, seq) VALUES (?, ?, ?, ?, ?, ?)", [
			tenant,
			row.id,
			row.version,
			anchor.event,
			anchor.line,
			anchor.seq
		]);
		for (const ref of new Set(input.derivedFrom)) await tx.run("INSERT INTO memory_derived (tenant, id, source) VALUES (?, ?, ?) ON CONFLICT DO NOTHING", [
			tenant,
			row.id,
			ref
		]);
	}
}
/** The newest version of a record, whatever branch wrote it. */
async function getRecord(tx, who, id) {
	const row = await latest(tx, who.tenant, id);
	if (!row) throw notFound("memory record", id);
	return toRecord(row);
}
/** Every version of a record, oldest first. */
async function history(tx, who, id) {
	const rows = await tx.all(`SELECT ${COLUMNS} FROM memory_records r WHERE r.tenant = ? AND r.id = ? ORDER BY r.version`, [who.tenant, id]);
	if (rows.length === 0) throw notFound("memory record", id);
	return rows.map(toRecord);
}
/**
* Quarantine a record (hidden from recall unless asked for) with everything
* made from it, transitively; or promote it (trusted: a person's call — the
* records made from it keep their own tier).
*/
async function setTrust(tx, who, id, trust, now) {
	if (trust === "trusted" && who.kind !== "user") throw forbidden(`promoting ${id} to trusted is a person's decision: ${who.principal} is an ${who.kind}; ask a user of the tenant`, {
		action: "memory.promote",
		principal: who.principal
	});
	await lockChain(tx, who.tenant);
	if (!await latest(tx, who.tenant, id)) throw notFound("memory record", id);
	const records = trust === "quarantined" ? await closure(tx, who.tenant, id, true) : [id];
	await tx.run(`UPDATE memory_records SET trust = ? WHERE tenant = ? AND id IN (${records.map(() => "?").join(", ")})`, [
		trust,
		who.tenant,
		...records
	]);
	await audit(tx, who, trust === "trusted" ? "memory.promote" : "memory.quarantine", id, {
		trust,
		records
	}, now);
	return getRecord(tx, who, id);
}
/** The record and, with `derived`, every record made from it, transitively (ids). */
async function closure(tx, tenant, id, derived) {
	const found = /* @__PURE__ */ new Set([id]);
	let frontier = [id];
	while (derived && frontier.length > 0) {
		frontier = (await tx.all(`SELECT id FROM memory_derived WHERE tenant = ? AND source IN (${frontier.map(() => "?").join(", ")})`, [tenant, ...frontier])).map((r) => r.id).filter((r) => !found.has(r));
		for (const r of frontier) found.add(r);
	}
	return [...found];
}
/** What removing these records takes with them: versions, index entries, vectors, anchors. */
async function removal(tx, dialect, tenant, records, preview) {
	const marks = records.map(() => "?").join(", ");
	const versions = records.length === 0 ? [] : await tx.all(`SELECT n FROM memory_records WHERE tenant = ? AND id IN (${marks})`, [tenant, ...records]);
	const anchors = records.length === 0 ? 0 : Number((await tx.get(`SELECT COUNT(*) AS count FROM memory_anchors WHERE tenant = ? AND id IN (${marks})`, [tenant, ...records]))?.count ?? 0);
	const numbers = versions.map((v) => Number(v.n));
	const answer = {
		preview,
		records,
		versions: versions.length,
		indexEntries: versions.length,
		vectorEntries: await countVectors(tx, dialect, tenant, numbers),
		anchors
	};
	if (preview || records.length === 0) return answer;
	const indexEntries = await unindex(tx, dialect, tenant, numbers);
	const vectorEntries = await unindexVectors(tx, dialect, tenant, numbers);
	for (const table of [
		"memory_records",
		"memory_anchors",
		"memory_derived"
	]) await tx.run(`DELETE FROM ${table} WHERE tenant = ? AND id IN (${marks})`, [tenant, ...records]);
	return {
		...answer,
		indexEntries,
		vectorEntries
	};
}
/**
* Forgets a record — every version, its index entries and anchors — and
* with `derived` everything made from it; `preview` lists what would go and
* removes nothing. The log keeps its write events (they hold no text).
*/
async function forget(tx, dialect, who, input, now) {
	if (!await latest(tx, who.tenant, input.record)) throw notFound("memory record", input.record);
	const records = await closure(tx, who.tenant, input.record, input.derived);
	const answer = await removal(tx, dialect, who.tenant, records, input.preview);
	if (!input.preview) await audit(tx, who, "memory.forget", input.record, {
		records,
		versions: answer.versions
	}, now);
	return answer;
}
// dist/log/path-query.js
/**
* Branch paths as data, for modules that join them (memory's visibility)
* instead of building one SQL expression per segment: a path thousands of
* forks or rewinds deep is a list of rows, never an expression tree.
*/
/**
* The union of the paths root → head of `branches` (of one session of the
* caller's tenant): at most one segment per line, since every path through a
* line starts it at the same event (`lo`); its `hi` is the furthest any of
* them reaches. An empty list of branches has an empty union.
*/
async function pathsUnion(tx, who, session, branches) {
	if (!await tx.get("SELECT 1 FROM sessions WHERE tenant = ? AND id = ?", [who.tenant, session])) throw notFound("session", session);
	const names = [...new Set(branches)];
	const heads = /* @__PURE__ */ new Map();
	await inBatches(names, async (slice) => {
		const rows = await tx.all(`SELECT name, head_line, head_seq FROM branches WHERE tenant = ? AND session = ? AND name IN (${placeholders(slice.length)})`, [
			who.tenant,
			session,
			...slice
		]);
		for (const row of rows) heads.set(row.name, {
			line: row.head_line,
			seq: Number(row.head_seq)
		});
	});
	const missing = names.find((name) => !heads.has(name));
	if (missing !== void 0) throw notFound("branch", `${missing} of session ${session}`);
	const lines = await ancestry(tx, who.tenant, [...heads.values()].map((h) => h.line).filter((line) => line !== ""));
	const reach = /* @__PURE__ */ new Map();
	for (const head of heads.values()) {
		let line = head.line;
		let hi = head.seq;
		while (line !== "") {
			const base = lines.get(line);
			if (!base) throw corrupt(`line ${line} of session ${session} is missing: the store is damaged`, { line });
			const before = reach.get(line);
			reach.set(line, Math.max(before ?? hi, hi));
			if (before !== void 0) break;
			line = base.line;
			hi = base.seq;
		}
	}
	const segments = [];
	for (const [line, hi] of reach) {
		const lo = (lines.get(line)?.seq ?? 0) + 1;
		if (lo <= hi) segments.push({
			line,
			lo,
			hi
		});
	}
	return segments;
}
/**
* Every line from `heads` up to the root, with its base: one recursive query a
* batch of heads. UNION, not UNION ALL: shared ancestry is read once, and a
* damaged store's cycle of lines ends the walk instead of looping.
*/
async function ancestry(tx, tenant, heads) {
	const lines = /* @__PURE__ */ new Map();
	await inBatches([...new Set(heads)], async (slice) => {
		const rows = await tx.all(`WITH RECURSIVE chain (id, base_line, base_seq) AS (
         SELECT id, base_line, base_seq FROM lines WHERE tenant = ? AND id IN (${placeholders(slice.length)})
         UNION
         SELECT l.id, l.base_line, l.base_seq FROM lines l JOIN chain c ON l.tenant = ? AND l.id = c.base_line
       )
       SELECT id, base_line, base_seq FROM chain`, [
			tenant,
			...slice,
			tenant
		]);
		for (const row of rows) lines.set(row.id, {
			line: row.base_line,
			seq: Number(row.base_seq)
		});
	});
	return lines;
}
// dist/memory/visibility.js
/** The scope's user, agent and project, each to equal its column of `alias` (what it leaves out matches any). */
function scopeColumns(scope, alias) {
	const parts = [];
	const params = [];
	for (const [field, column] of [
		["user", "scope_user"],
		["agent", "scope_agent"],
		["project", "scope_project"]
	]) {
		const value = scope[field];
		if (value !== void 0) {
			parts.push(`${alias}.${column} = ?`);
			params.push(value);
		}
	}
	return {
		parts,
		params
	};
}
/**
* The part of a recall's filter that SQLite's narrow recall table `s` holds
* (see migration 7): the scope's names, outside sessions or not, trust and
* kinds, and — when `current` — the newest version only. With a session in
* the scope or an as-of time, what is current also needs the branch's
* anchors: the caller adds `currentFilter` on the records.
*/
function narrowFilter(scope, minTrust, kinds, current, alias) {
	const named = scopeColumns(scope, alias);
	const parts = [...named.parts];
	const params = [...named.params];
	if (scope.session === void 0) parts.push(`${alias}.scope_session = ''`);
	if (current) parts.push(`${alias}.latest = 1`);
	const trust = trustFilter(minTrust, alias);
	parts.push(trust.sql);
	params.push(...trust.params);
	if (kinds && kinds.length > 0) {
		parts.push(`${alias}.kind IN (${placeholders(kinds.length)})`);
		params.push(...kinds);
	}
	return {
		sql: parts.join(" AND "),
		params
	};
}
/** Whether the newest version is the current one for this reader: outside sessions and without an as-of time. */
function currentIsLatest(scope, asOf) {
	return scope.session === void 0 && asOf === void 0;
}
/**
* A path as rows `p(line, lo, hi)` from one JSON parameter: joined, not one
* expression per segment, so a path thousands of segments long stays one
* small statement (an expression per segment failed SQLite past ~450).
*/
function pathRows(dialect) {
	return dialect === "sqlite" ? "(SELECT value->>'line' AS line, value->>'lo' AS lo, value->>'hi' AS hi FROM json_each(?)) p" : "jsonb_to_recordset(?::jsonb) AS p(line text, lo bigint, hi bigint)";
}
/**
* Which record versions `r` a reader in `scope` (on any of `branches`) may
* see: the scope's user, agent and project must match; a version written in
* a session is seen only with that session in the scope and its anchor on
* one of the branches' paths. Outside any session (no session in the scope)
* only records outside sessions are seen.
*/
async function visibility(tx, dialect, who, scope, branches, alias) {
	return seenOn(dialect, who, scope, await pathOf(tx, who, scope, branches), alias);
}
/** The union of the branches' paths in the scope's session (none outside a session). */
async function pathOf(tx, who, scope, branches) {
	return scope.session === void 0 ? [] : pathsUnion(tx, who, scope.session, branches);
}
/** `visibility` over a path already read. */
function seenOn(dialect, who, scope, path, alias) {
	const named = scopeColumns(scope, alias);
	const parts = [`${alias}.tenant = ?`, ...named.parts];
	const params = [who.tenant, ...named.params];
	if (scope.session === void 0) parts.push(`${alias}.scope_session = ''`);
	else {
		const onPath = `(${alias}.id, ${alias}.version) IN (SELECT a.id, a.version FROM ${pathRows(dialect)} JOIN memory_anchors a ON a.tenant = ? AND a.line = p.line AND a.seq BETWEEN p.lo AND p.hi)`;
		const onlySession = scope.user === void 0 && scope.agent === void 0 && scope.project === void 0;
		parts.push(onlySession ? `(${alias}.scope_session = ? AND ${onPath})` : `(${alias}.scope_session = '' OR (${alias}.scope_session = ? AND ${onPath}))`);
		params.push(scope.session, JSON.stringify(path), who.tenant);
	}
	return {
		sql: parts.join(" AND "),
		params
	};
}
/** Versions recorded by `asOf` (record time); every version when it is left out. */
function recordedBy(alias, asOf) {
	return asOf === void 0 ? {
		sql: "1 = 1",
		params: []
	} : {
		sql: `${alias}.recorded_at <= ?`,
		params: [asOf]
	};
}
/** The current version of each record the reader sees: no newer version of it is visible to them. */
async function currentFilter(tx, dialect, who, scope, branch, asOf) {
	const path = await pathOf(tx, who, scope, [branch]);
	const seen = seenOn(dialect, who, scope, path, "r");
	if (currentIsLatest(scope, asOf)) return {
		sql: `${seen.sql} AND r.latest = 1`,
		params: seen.params
	};
	const newer = seenOn(dialect, who, scope, path, "n2");
	const by = recordedBy("r", asOf);
	const newerBy = recordedBy("n2", asOf);
	return {
		sql: `${seen.sql} AND ${by.sql} AND NOT EXISTS (SELECT 1 FROM memory_records n2 WHERE n2.id = r.id AND n2.version > r.version AND ${newer.sql} AND ${newerBy.sql})`,
		params: [
			...seen.params,
			...by.params,
			...newer.params,
			...newerBy.params
		]
	};
}
/** Tiers from trusted down to `minTrust`. */
function trustFilter(minTrust, alias) {
	const tiers = TRUST_TIERS.slice(0, TRUST_TIERS.indexOf(minTrust) + 1);
	return {
		sql: `${alias}.trust IN (${placeholders(tiers.length)})`,
		params: tiers
	};
}
// dist/memory/branches.js
/**
* An abandoned branch's memory goes with it: every record of the session
* seen on `branch` and on none of `keepFor` (the session's branches still in
* use) is forgotten.
*/
async function dropBranch(tx, dialect, who, input, now) {
	const scope = { session: input.session };
	const on = await visibility(tx, dialect, who, scope, [input.branch], "r");
	const kept = await visibility(tx, dialect, who, scope, input.keepFor, "r");
	const rows = await tx.all(`SELECT DISTINCT r.id FROM memory_records r WHERE ${on.sql} AND NOT (${kept.sql})`, [...on.params, ...kept.params]);
	const answer = await removal(tx, dialect, who.tenant, rows.map((r) => r.id), false);
	if (answer.records.length > 0) await audit(tx, who, "memory.drop-branch", input.session, {
		branch: input.branch,
		records: answer.records
	}, now);
	return answer;
}
/** The log event that carries a kept branch's records to its parent (ids counted, no text). */
const MEMORY_CARRY_EVENT = "cairn.memory.carry";
/**
* What a kept branch remembered becomes its parent's: every version of the
* session seen on `from` and not on `to` is anchored, from now, at one new
* event on `to` (so a restore of `to` to before it hides them again).
*/
async function carry(tx, dialect, who, input, now) {
	if (input.from === input.to) throw invalidArgument("a branch carries its memory to another branch, not to itself", { branch: input.from });
	const seen = async (branch) => visibility(tx, dialect, who, { session: input.session }, [branch], "r");
	const onFrom = await seen(input.from);
	const onTo = await seen(input.to);
	const rows = await tx.all(`SELECT r.id, r.version FROM memory_records r WHERE ${onFrom.sql} AND NOT (${onTo.sql}) ORDER BY r.n`, [...onFrom.params, ...onTo.params]);
	if (rows.length === 0) return {
		records: [],
		event: ""
	};
	const records = [...new Set(rows.map((r) => r.id))];
	const event = await appendEvent(tx, who, {
		session: input.session,
		branch: input.to,
		kind: MEMORY_CARRY_EVENT,
		payload: null
	}, encodePayload({
		from: input.from,
		records: records.length,
		versions: rows.length
	}), now);
	const at = await eventPosition(tx, who, event.id);
	for (const row of rows) await tx.run("INSERT INTO memory_anchors (tenant, id, version, event, line, seq) VALUES (?, ?, ?, ?, ?, ?)", [
		who.tenant,
		row.id,
		row.version,
		event.id,
		at.line,
		at.seq
	]);
	await audit(tx, who, "memory.carry", event.id, {
		from: input.from,
		to: input.to,
		records
	}, now);
	return {
		records,
		event: event.id
	};
}
// dist/memory/recall.js
/** Reciprocal rank fusion's constant: a rank r adds 1 / (RRF_K + r). */
const RRF_K = 60;
/**
* Ranked records for a query, as the reader sees them: by full text, by
* vector (nearest by cosine), or both fused by reciprocal rank.
*/
async function recall(tx, dialect, who, input, vector) {
	const mode = input.mode === "auto" ? vector ? "hybrid" : "text" : input.mode;
	const fetch = input.tags && input.tags.length > 0 ? input.k * 8 : input.k;
	const lists = [];
	if (mode === "text" || mode === "hybrid") lists.push(await byText(tx, dialect, who, input, fetch));
	if (mode === "vector" || mode === "hybrid") {
		if (!vector) throw new Error("a vector recall needs the query vector");
		const current = await currentFilter(tx, dialect, who, input.scope, input.branch, input.asOf);
		const narrow = narrowFilter(input.scope, input.minTrust, input.kinds, false, "r");
		const where = [current.sql, narrow.sql];
		const params = [...current.params, ...narrow.params];
		const near = await nearest(tx, who.tenant, vector.embedding, vector.bytes, Math.min(4096, fetch * 8));
		const distance = new Map(near.map((v) => [v.n, v.distance]));
		const rows = near.length === 0 ? [] : await tx.all(`SELECT ${COLUMNS} FROM ${recordsByNumber(dialect)} WHERE ${where.join(" AND ")} AND r.n IN (${near.map(() => "?").join(", ")})`, [...params, ...near.map((v) => v.n)]);
		lists.push(rows.map((row) => ({
			...toRecord(row),
			score: 1 - (distance.get(Number(row.n)) ?? 1)
		})).sort((x, y) => y.score - x.score).slice(0, fetch));
	}
	const wanted = input.tags ?? [];
	const keep = (item) => wanted.every((t) => item.tags.includes(t));
	if (lists.length === 1) return (lists[0] ?? []).filter(keep).slice(0, input.k);
	const fused = /* @__PURE__ */ new Map();
	for (const list of lists) list.filter(keep).forEach((item, rank) => {
		const key = `${item.id}/${item.version}`;
		const seen = fused.get(key);
		fused.set(key, {
			...item,
			score: (seen?.score ?? 0) + 1 / (RRF_K + rank + 1)
		});
	});
	return [...fused.values()].sort((x, y) => y.score - x.score).slice(0, input.k);
}
/** How many of the best unfiltered matches a recall filters before it filters every match. */
const candidatesFor = (fetch) => Math.max(64, fetch * 4);
/**
* The full-text leg, one statement in the common case: the index ranks its
* matches unfiltered, the best few are filtered (scope, trust, kinds,
* current version) and the top `fetch` of those read whole. When the
* filters keep at least `fetch`, they are the filtered ranking's top too
* (whatever ranks below them is below all of them). When they keep fewer —
* a scope holding a small share of the matches, or fewer matches than
* `fetch` — every match is filtered (on SQLite through the narrow recall
* table), which costs a second ranking.
*/
async function byText(tx, dialect, who, input, fetch) {
	const latestIsCurrent = currentIsLatest(input.scope, input.asOf);
	const current = latestIsCurrent ? {
		sql: "1 = 1",
		params: []
	} : await currentFilter(tx, dialect, who, input.scope, input.branch, input.asOf);
	const match = await matchClause(tx, dialect, who.tenant, queryWords(input.query));
	if (!match) return [];
	/** The top `fetch` that the filters keep of the versions `source` yields (number `on`, score `score`), read whole. */
	const top = async (score, source, on, where) => {
		const reach = match.reach(on, !latestIsCurrent);
		const narrow = narrowFilter(input.scope, input.minTrust, input.kinds, latestIsCurrent, reach.alias);
		return (await tx.all(`SELECT ${COLUMNS}, top.score AS score FROM (SELECT ${on} AS n, ${score.sql} AS score FROM ${source.sql}${reach.joins} WHERE ${where.sql} AND ${narrow.sql} AND ${current.sql} ORDER BY score DESC, n DESC LIMIT ?) top ${outerFirstJoin(dialect)} memory_records r ON r.tenant = ? AND r.n = top.n ORDER BY top.score DESC, r.n DESC`, [
			...score.params,
			...source.params,
			...reach.params,
			...where.params,
			...narrow.params,
			...current.params,
			fetch,
			who.tenant
		])).map((row) => ({
			...toRecord(row),
			score: Number(row.score)
		}));
	};
	const none = {
		sql: "1 = 1",
		params: []
	};
	const best = await top({
		sql: "u.score",
		params: []
	}, {
		sql: `(SELECT ${match.n} AS n, ${match.score} AS score FROM ${match.from} WHERE ${match.where} ORDER BY score DESC, n DESC LIMIT ?) u`,
		params: [
			...match.scoreParams,
			...match.whereParams,
			candidatesFor(fetch)
		]
	}, "u.n", none);
	if (best.length >= fetch) return best;
	return top({
		sql: match.score,
		params: match.scoreParams
	}, {
		sql: match.from,
		params: []
	}, match.n, {
		sql: match.where,
		params: match.whereParams
	});
}
/** The current records of a scope down to `minTrust`, newest first (no ranking, no query). */
async function list(tx, dialect, who, input) {
	const current = await currentFilter(tx, dialect, who, input.scope, input.branch, void 0);
	const trust = trustFilter(input.minTrust, "r");
	return (await tx.all(`SELECT ${COLUMNS} FROM memory_records r WHERE ${current.sql} AND ${trust.sql} ORDER BY r.recorded_at DESC, r.n DESC LIMIT ?`, [
		...current.params,
		...trust.params,
		input.limit
	])).map(toRecord);
}
// dist/memory/handlers.js
/** The handlers of memory's operations (the contract: ./contract.ts). */
var handlers_exports = /* @__PURE__ */ __exportAll({ MEMORY_HANDLERS: () => MEMORY_HANDLERS });
/** Refuses text (or data) that holds what the secret guard takes for a credential; names rule and line only. */
async function refuseCredentials(text, data) {
	const findings = [...await scanText(text, "memory.txt"), ...Object.keys(data).length > 0 ? await scanText(JSON.stringify(data), "memory.json") : []];
	if (findings.length === 0) return;
	throw forbidden(`this memory holds what looks like a credential (${findings.slice(0, 3).map((f) => `${f.rule}, line ${f.line}`).join("; ")}): credentials never enter memory — keep them in the vault (\`cairn cred add\`) and remember where they are, not what they are`, { findings: findings.map((f) => ({
		rule: f.rule,
		line: f.line
	})) });
}
/** Refuses, audited, a record whose source its writer may not name (an agent's claim to be a person). */
async function refuseClaims(ctx, records) {
	for (const record of records) {
		const refused = claimRefusal(ctx.who, record);
		if (refused) await refuseAudited(ctx, {
			action: "memory.claim.refused",
			resourceType: "memory",
			resourceId: ctx.who.principal,
			payload: {
				source: record.source,
				kind: ctx.who.kind
			}
		}, refused);
	}
}
/** Memory as a caller holds it: one method per operation below, embedded (`store.memory(who)`) or remote. */
/** The vectors of texts when vectors are on here (embedded before the transaction, in one call), else undefined each. */
async function vectorsOf(ctx, texts) {
	const embedding = ctx.memoryEmbedding;
	if (!vectorsOn(embedding, ctx.engine.dialect, ctx.engine.capabilities)) return texts.map(() => void 0);
	return (await embedTexts(embedding, texts)).map((bytes) => ({
		embedding,
		bytes
	}));
}
const vectorOf = async (ctx, text) => (await vectorsOf(ctx, [text]))[0];
const MEMORY_HANDLERS = {
	remember: async (ctx, input) => {
		await refuseClaims(ctx, [input]);
		await refuseCredentials(input.text, input.data);
		const vector = await vectorOf(ctx, input.text);
		return ctx.write((tx, now) => remember(tx, ctx.engine.dialect, ctx.who, input, now, ctx.memoryPolicy, vector));
	},
	rememberMany: async (ctx, input) => {
		await refuseClaims(ctx, input.records);
		await inSlices(input.records, (record) => refuseCredentials(record.text, record.data));
		const vectors = await vectorsOf(ctx, input.records.map((r) => r.text));
		return { items: await ctx.write((tx, now) => rememberMany(tx, ctx.engine.dialect, ctx.who, input.records, now, ctx.memoryPolicy, vectors)) };
	},
	recall: async (ctx, input) => {
		const vector = input.mode === "text" ? void 0 : await vectorOf(ctx, input.query);
		if (!vector && (input.mode === "vector" || input.mode === "hybrid")) throw noVectors(ctx.memoryEmbedding);
		return { items: await ctx.read((tx) => recall(tx, ctx.engine.dialect, ctx.who, input, vector)) };
	},
	listMemory: async (ctx, input) => ({ items: await ctx.read((tx) => list(tx, ctx.engine.dialect, ctx.who, input)) }),
	getMemory: (ctx, input) => ctx.read((tx) => getRecord(tx, ctx.who, input.record)),
	memoryHistory: async (ctx, input) => ({ items: await ctx.read((tx) => history(tx, ctx.who, input.record)) }),
	quarantineMemory: (ctx, input) => ctx.write((tx, now) => setTrust(tx, ctx.who, input.record, "quarantined", now)),
	promoteMemory: (ctx, input) => ctx.write((tx, now) => setTrust(tx, ctx.who, input.record, "trusted", now)),
	carryMemory: (ctx, input) => ctx.write((tx, now) => carry(tx, ctx.engine.dialect, ctx.who, input, now)),
	dropBranchMemory: (ctx, input) => ctx.write((tx, now) => dropBranch(tx, ctx.engine.dialect, ctx.who, input, now)),
	reindexMemory: async (ctx, input) => {
		const embedding = ctx.memoryEmbedding;
		if (!vectorsOn(embedding, ctx.engine.dialect, ctx.engine.capabilities)) throw noVectors(embedding);
		const { batch } = await ctx.read((tx) => unindexed(tx, ctx.who.tenant, embedding, input.limit));
		const vectors = await embedTexts(embedding, batch.map((b) => b.text));
		return ctx.write(async (tx) => {
			let indexed = 0;
			for (const [i, b] of batch.entries()) if (await indexMissing(tx, ctx.who.tenant, embedding, b.n, vectors[i])) indexed++;
			const { remaining } = await unindexed(tx, ctx.who.tenant, embedding, 0);
			return {
				model: embedding.model,
				indexed,
				remaining
			};
		});
	},
	forgetMemory: (ctx, input) => input.preview ? ctx.read((tx) => forget(tx, ctx.engine.dialect, ctx.who, input, Date.now())) : ctx.write((tx, now) => forget(tx, ctx.engine.dialect, ctx.who, input, now))
};
export { handlers_exports as n, MEMORY_HANDLERS as t };
