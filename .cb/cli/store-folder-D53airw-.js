import { A as invalidArgument, D as forbidden, F as unavailable, I as unsupportedFormat, L as __exportAll, M as notFound, P as unauthenticated, T as corrupt } from "./front-BpLyP2oj.js";
import { t as WIRE } from "./wire-Djji5uAq.js";
import { a as newId, l as randomHex, o as newSecret, t as parseInput } from "./validate-Dzwxqk5b.js";
import { t as opTitle } from "./spec-2aais7-z.js";
import { createRequire } from "node:module";
import { chmodSync, closeSync, constants, existsSync, fchmodSync, fdatasync, fdatasyncSync, fsyncSync, lstatSync, mkdirSync, openSync, promises, readSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import canonicalizeImport from "canonicalize";
import { setImmediate as setImmediate$1 } from "node:timers/promises";
import { Worker } from "node:worker_threads";
import Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
// dist/identity/access-gate.js
/**
* The one access gate. Every operation declares its action (`access`) and
* `runOp` checks it here before the handler runs; the library's facades
* (the keys, the desk store) check theirs too, for callers that reach them
* without the table. Tenant scoping itself happens below, in every query
* and, on PostgreSQL, in row-level security.
*/
/** Admin-only: operator and person-in-the-loop actions. Narrowing an existing grant or taking a handle is not. */
const ADMIN_ONLY = /* @__PURE__ */ new Set([
	"token.create.other",
	"token.revoke.other",
	"desk.gc",
	"keys.credential",
	"keys.grant.root",
	"keys.approve"
]);
function authorize(who, action) {
	if (ADMIN_ONLY.has(action) && who.role !== "admin") throw forbidden(`principal ${who.principal} may not ${action.replace(/\./g, " ")}: ask an admin of the tenant`, {
		action,
		principal: who.principal
	});
}
// dist/storage/engine.js
/** `n` portable placeholders, `?, ?, …`, for an IN list or a VALUES row. */
/**
* A join that keeps its left side as the outer loop: SQLite's `CROSS JOIN`
* (its planner never reorders one); PostgreSQL has no `CROSS JOIN … ON`,
* and its planner keeps a small left side outer by cost.
*/
function outerFirstJoin(dialect) {
	return dialect === "sqlite" ? "CROSS JOIN" : "JOIN";
}
function placeholders(n) {
	return new Array(n).fill("?").join(", ");
}
/**
* Thrown inside a write to ask the engine to run the whole transaction again
* (a compare-and-swap lost a race). Engines retry a bounded number of times.
*/
var RetryTransaction = class extends Error {
	constructor(reason) {
		super(reason);
		this.name = "RetryTransaction";
	}
};
/** Parameters per statement when a list is bound in slices (well under every engine's limit). */
const PARAMETER_BATCH = 400;
/** Bytes of bound text per statement when a slice says what each item weighs (see inBatches). */
const STATEMENT_BYTES = 262144;
/**
* Runs `fn` over `items` in slices small enough for one statement's
* parameters, each item binding `perItem` of them (a row of a multi-row
* INSERT binds one per column). With `weight` (an item's bytes), a slice
* also stays within STATEMENT_BYTES (or holds one item): one statement is
* work the event loop cannot interrupt, so a large text is never bound with
* a thousand others.
*/
async function inBatches(items, fn, perItem = 1, weight) {
	const size = Math.max(1, Math.floor(PARAMETER_BATCH / perItem));
	let slice = [];
	let bytes = 0;
	for (const item of items) {
		const w = weight ? weight(item) : 0;
		if (slice.length > 0 && (slice.length >= size || bytes + w > STATEMENT_BYTES)) {
			await fn(slice);
			slice = [];
			bytes = 0;
		}
		slice.push(item);
		bytes += w;
	}
	if (slice.length > 0) await fn(slice);
}
// dist/digest.js
const canonicalizeFn = canonicalizeImport;
/** RFC 8785 canonical JSON text of a value. */
function canonicalJson(value) {
	const text = canonicalizeFn(value);
	if (text === void 0) throw new TypeError("value has no JSON representation");
	return text;
}
function sha256Hex(data) {
	return createHash("sha256").update(data).digest("hex");
}
/**
* Digest of a fixed-shape record given as a tuple of strings, integers and
* nulls. For such an array `JSON.stringify` already produces the RFC 8785
* form (no keys to sort, ECMAScript number and string serialisation), so the
* hot path skips the general canonicaliser.
*/
function tupleDigest(values) {
	return sha256Hex(JSON.stringify(values));
}
// dist/audit/audit-chain.js
/**
* Audit chain, format 1. Per tenant, entries are numbered from 1; each entry's
* hash covers its fields and the previous entry's hash. The payload lives in
* its own table with a random salt; the entry keeps only the salted
* commitment, so a payload can later be erased while the chain still verifies.
* See docs/design/audit-chain.md.
*/
const GENESIS_HASH = "0".repeat(64);
function payloadCommitment(salt, payloadText) {
	return sha256Hex(`${salt}\n${payloadText}`);
}
/** An entry's values in AUDIT_COLUMNS order, without its hash: what is inserted is what is hashed. */
function entryValues(entry) {
	return [
		entry.tenant,
		entry.seq,
		entry.at,
		entry.actor,
		entry.action,
		entry.resource_type,
		entry.resource_id,
		entry.commitment,
		entry.prev_hash
	];
}
const AUDIT_COLUMNS = "tenant, seq, at, actor, action, resource_type, resource_id, commitment, prev_hash, hash";
function entryHash(entry) {
	return tupleDigest(["cairn.audit.v1", ...entryValues(entry)]);
}
/** Starts a tenant's chain; runs in the transaction that creates the tenant. */
async function startChain(tx, tenant) {
	await tx.run("INSERT INTO audit_heads (tenant, seq, hash) VALUES (?, 0, ?)", [tenant, GENESIS_HASH]);
}
/**
* Takes the tenant's chain head for the rest of the transaction (on
* PostgreSQL a row lock; SQLite has one writer): what is numbered after it,
* up to the entry that records it, cannot race another writer of the tenant.
*/
async function lockChain(tx, tenant) {
	if (!await tx.get(`SELECT seq FROM audit_heads WHERE tenant = ? ${tx.lockRows}`, [tenant])) throw new Error(`tenant ${tenant} has no audit chain`);
}
/** Appends one entry in the caller's transaction, so it commits with the mutation or not at all. */
/** How many entries of each action starting with `prefix` a tenant's chain holds. */
async function actionCounts(tx, tenant, prefix) {
	const rows = await tx.all("SELECT action, COUNT(*) AS n FROM audit_entries WHERE tenant = ? AND substr(action, 1, ?) = ? GROUP BY action ORDER BY action", [
		tenant,
		prefix.length,
		prefix
	]);
	return Object.fromEntries(rows.map((r) => [r.action, Number(r.n)]));
}
async function appendAudit(tx, input) {
	const head = await tx.get(`SELECT seq, hash FROM audit_heads WHERE tenant = ? ${tx.lockRows}`, [input.tenant]);
	if (!head) throw new Error(`tenant ${input.tenant} has no audit chain`);
	const salt = randomHex(16);
	const payloadText = canonicalJson(input.payload);
	const entry = {
		tenant: input.tenant,
		seq: head.seq + 1,
		at: input.at,
		actor: input.actor,
		action: input.action,
		resource_type: input.resourceType,
		resource_id: input.resourceId,
		commitment: payloadCommitment(salt, payloadText),
		prev_hash: head.hash
	};
	const hash = entryHash(entry);
	await tx.run(`INSERT INTO audit_entries (${AUDIT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [...entryValues(entry), hash]);
	await tx.run("INSERT INTO audit_payloads (tenant, seq, salt, payload) VALUES (?, ?, ?, ?)", [
		input.tenant,
		entry.seq,
		salt,
		payloadText
	]);
	await tx.run("UPDATE audit_heads SET seq = ?, hash = ? WHERE tenant = ?", [
		entry.seq,
		hash,
		input.tenant
	]);
	return entry.seq;
}
// dist/identity/identity-store.js
/**
* Tenants, principals and tokens. A token reads `cairn.<tenant>.<token id>.<secret>`:
* the tenant travels in the token so it can be looked up under that tenant's
* row-level security; only the secret's sha256 is stored.
*/
const TOKEN_PATTERN = /^cairn\.(tn_[0-9a-z]{26})\.(tk_[0-9a-z]{26})\.([0-9a-z]{52})$/;
async function insertPrincipal(tx, tenant, p, actor, now) {
	const id = newId("principal", now);
	await tx.run("INSERT INTO principals (tenant, id, kind, name, role, created_at) VALUES (?, ?, ?, ?, ?, ?)", [
		tenant,
		id,
		p.kind,
		p.name,
		p.role,
		now
	]);
	await appendAudit(tx, {
		tenant,
		actor: actor || id,
		action: "principal.create",
		resourceType: "principal",
		resourceId: id,
		payload: {
			kind: p.kind,
			name: p.name,
			role: p.role
		},
		at: now
	});
	return id;
}
async function insertToken(tx, tenant, principal, label, actor, now) {
	if (!await tx.get("SELECT id FROM principals WHERE tenant = ? AND id = ?", [tenant, principal])) throw notFound(`principal ${principal} not found in this tenant: check the id`, { id: principal });
	const id = newId("token", now);
	const secret = newSecret();
	await tx.run("INSERT INTO tokens (tenant, id, principal, secret_hash, label, created_at) VALUES (?, ?, ?, ?, ?, ?)", [
		tenant,
		id,
		principal,
		sha256Hex(secret),
		label,
		now
	]);
	await appendAudit(tx, {
		tenant,
		actor,
		action: "token.create",
		resourceType: "token",
		resourceId: id,
		payload: {
			principal,
			label
		},
		at: now
	});
	return {
		id,
		token: `cairn.${tenant}.${id}.${secret}`,
		tenant,
		principal,
		label
	};
}
/** Revokes a token for good; revoking it again changes nothing. */
async function revokeToken(tx, tenant, id, actor, mayRevoke, now) {
	const row = await tx.get(`SELECT principal, revoked_at FROM tokens WHERE tenant = ? AND id = ? ${tx.lockRows}`, [tenant, id]);
	if (!row) throw notFound(`token ${id} not found in this tenant: check the id`, { id });
	mayRevoke(row.principal);
	if (row.revoked_at !== null) return {
		id,
		principal: row.principal,
		revokedAt: row.revoked_at
	};
	await tx.run("UPDATE tokens SET revoked_at = ? WHERE tenant = ? AND id = ?", [
		now,
		tenant,
		id
	]);
	await appendAudit(tx, {
		tenant,
		actor,
		action: "token.revoke",
		resourceType: "token",
		resourceId: id,
		payload: { principal: row.principal },
		at: now
	});
	return {
		id,
		principal: row.principal,
		revokedAt: now
	};
}
/**
* Takes the tenant's row lock for the rest of the transaction (PostgreSQL
* `FOR UPDATE`; SQLite's writers are serial already): the one way another
* feature serialises its work per tenant.
*/
async function lockTenant(tx, tenant) {
	await tx.get(`SELECT id FROM tenants WHERE id = ? ${tx.lockRows}`, [tenant]);
}
/** Every tenant's id, for the store's operator (only where no row-level security confines the query). */
async function tenantIds(tx) {
	return (await tx.all("SELECT id FROM tenants ORDER BY id")).map((r) => r.id);
}
/** Creates a tenant with its audit chain and a first admin principal and token, in one transaction. */
async function createTenant(engine, input, extra) {
	const now = Date.now();
	const tenant = newId("tenant", now);
	return engine.write(tenant, async (tx) => {
		await tx.run("INSERT INTO tenants (id, name, created_at) VALUES (?, ?, ?)", [
			tenant,
			input.name,
			now
		]);
		await startChain(tx, tenant);
		const admin = input.admin ?? {
			kind: "user",
			name: "admin",
			role: "admin"
		};
		const principal = await insertPrincipal(tx, tenant, admin, "", now);
		const token = await insertToken(tx, tenant, principal, "first admin token", principal, now);
		const created = {
			tenant,
			principal,
			token
		};
		if (extra) await extra(tx, created);
		return created;
	});
}
async function loadIdentity(tx, tenant, principal) {
	const row = await tx.get("SELECT kind, role FROM principals WHERE tenant = ? AND id = ?", [tenant, principal]);
	return row ? {
		tenant,
		principal,
		kind: row.kind,
		role: row.role
	} : void 0;
}
function badToken() {
	return unauthenticated("the bearer token is missing, malformed, revoked or unknown: pass a token from `cairn token create` as \"Authorization: Bearer <token>\"");
}
/** Resolves a bearer token to the identity it acts as. */
async function authenticate(engine, token) {
	const match = TOKEN_PATTERN.exec(token);
	if (!match) throw badToken();
	const [, tenant, id, secret] = match;
	const identity = await engine.read(tenant, async (tx) => {
		const row = await tx.get("SELECT principal, secret_hash, revoked_at FROM tokens WHERE tenant = ? AND id = ?", [tenant, id]);
		if (!row || row.revoked_at !== null) return void 0;
		const expected = Buffer.from(row.secret_hash, "hex");
		const actual = Buffer.from(sha256Hex(secret), "hex");
		if (!timingSafeEqual(expected, actual)) return void 0;
		return loadIdentity(tx, tenant, row.principal);
	});
	if (!identity) throw badToken();
	return identity;
}
const LOCAL_IDENTITY_KEY = "local_identity";
/**
* The embedded default: one local tenant and principal per store, created on
* first use and remembered in the store's metadata (same transaction).
*/
async function localIdentity(engine) {
	const recorded = () => engine.read("", (tx) => tx.get("SELECT value FROM cairn_meta WHERE key = ?", [LOCAL_IDENTITY_KEY])).then((row) => row ? JSON.parse(row.value) : void 0);
	let ids = await recorded();
	if (!ids) try {
		const created = await createTenant(engine, {
			name: "local",
			admin: {
				kind: "user",
				name: "local",
				role: "admin"
			}
		}, (tx, c) => tx.run("INSERT INTO cairn_meta (key, value) VALUES (?, ?)", [LOCAL_IDENTITY_KEY, JSON.stringify({
			tenant: c.tenant,
			principal: c.principal
		})]).then(() => void 0));
		ids = {
			tenant: created.tenant,
			principal: created.principal
		};
	} catch (error) {
		ids = await recorded();
		if (!ids) throw error;
	}
	const identity = await engine.read(ids.tenant, (tx) => loadIdentity(tx, ids.tenant, ids.principal));
	if (!identity) throw corrupt("the store names a local principal that does not exist: the store is damaged");
	return identity;
}
// dist/ops/context.js
/** The context operations run in, for one identity over one engine. */
function opContext(engine, who, options = {}) {
	const { caller, masterKey, blobs, memoryPolicy, memoryEmbedding } = options;
	const made = /* @__PURE__ */ new Map();
	return {
		who,
		engine,
		caller,
		masterKey,
		blobs,
		memoryPolicy,
		memoryEmbedding,
		write: (fn) => engine.write(who.tenant, (tx) => fn(tx, Date.now())),
		read: (fn) => engine.read(who.tenant, fn),
		once: (key, make) => {
			if (!made.has(key)) made.set(key, make());
			return made.get(key);
		}
	};
}
// dist/ops/op.js
/**
* One operation of Cairn, declared once. Every surface derives from the
* declaration: the HTTP route (method, path, status; path fields from the
* path template, the rest from the query on GET and the JSON body on POST),
* the OpenAPI document (input, output and error schemas), the remote
* client's method, the embedded fabric's method, and the CLI's validation.
*
* `run` is the library call, made with the caller's identity after the input
* was validated against `input` — once, at whichever edge the call came in.
*/
/** Registers `handlers` (and the steps `atCaller` settles first) against `contract`, checked by the types. */
function withHandlers(contract, handlers, atCaller = {}) {
	let loading;
	const handlerOf = (name) => {
		if (typeof handlers !== "function") return handlers[name];
		return async (ctx, input) => {
			loading ??= handlers();
			return (await loading)[name](ctx, input);
		};
	};
	const bound = {};
	for (const [name, declared] of Object.entries(contract)) {
		const settle = atCaller[name];
		bound[name] = {
			...declared,
			run: handlerOf(name),
			...settle ? { atCaller: settle } : {}
		};
	}
	return bound;
}
const CALLERS_SAY = {
	person: "a person (a user principal; never an agent or a service)",
	admin: "an admin of the tenant",
	"person-admin": "a person who is an admin of the tenant (never an agent or a service)"
};
/** Whether `who` is among an operation's callers. */
function mayCall(callers, who) {
	if (callers === "any") return true;
	const person = who.kind === "user";
	const admin = who.role === "admin";
	return callers === "person" ? person : callers === "admin" ? admin : person && admin;
}
/**
* The gate of the table: refuses a caller the operation does not declare,
* with an audit entry of the refusal (the only thing it writes), and an
* action (`access`) the caller's role does not allow, before the input is read.
*/
async function gate(operation, ctx) {
	if (operation.callers === "any" || mayCall(operation.callers, ctx.who)) {
		if (operation.runs === "anywhere") authorize(ctx.who, operation.access);
		return;
	}
	const { who } = ctx;
	return refuseAudited(ctx, {
		action: "authority.refused",
		resourceType: "operation",
		resourceId: operation.name,
		payload: {
			operation: operation.name,
			callers: operation.callers,
			kind: who.kind,
			role: who.role
		}
	}, forbidden(`only ${CALLERS_SAY[operation.callers]} may ${opTitle(operation.name)}: principal ${who.principal} is ${who.kind === "agent" ? "an" : "a"} ${who.kind} with role ${who.role}; ask one to run it with their own token`, {
		operation: operation.name,
		callers: operation.callers,
		principal: who.principal
	}));
}
/**
* Refuses a call that concerns authority: records the refusal in the
* caller's audit chain (in a transaction that writes nothing else), then
* rejects with `error`.
*/
async function refuseAudited(ctx, entry, error) {
	const { who } = ctx;
	await ctx.engine.write(who.tenant, (tx) => appendAudit(tx, {
		tenant: who.tenant,
		actor: who.principal,
		...entry,
		at: Date.now()
	}));
	throw error;
}
/**
* Checks the caller against the operation's declared callers, validates
* `input` against its schema (the one validation of a call), lets the
* caller's side settle it where there is one, and runs it; a refusal or bad
* input rejects the promise, never throws.
*/
async function runOp(operation, ctx, input) {
	await gate(operation, ctx);
	let valid = parseInput(operation.input, input ?? {}, opTitle(operation.name));
	if (operation.atCaller && ctx.caller) valid = await operation.atCaller(ctx.caller, valid);
	return operation.run(ctx, valid);
}
/** The table's methods bound to one context: what the embedded fabric is. */
function bindOps(table, ctx) {
	const methods = {};
	for (const [name, operation] of Object.entries(table)) methods[name] = (input) => runOp(operation, ctx, input);
	return methods;
}
// dist/unit/at-caller.js
/**
* Where the caller is, a listing of "my workspace's checkpoints" names the
* workspace by its directory or not at all: the caller's side makes it an id
* the store knows. A session's listing needs nothing of the caller.
*/
const UNIT_AT_CALLER = { listCheckpoints: async (caller, input) => {
	if (input.workspace === void 0 && input.session !== void 0) return input;
	if (input.workspace?.startsWith("ws_")) return input;
	return {
		...input,
		workspace: (await caller.workspace(input.workspace)).id
	};
} };
// dist/ops/registry.js
const LOADERS = {
	identity: async () => withHandlers((await import("./contract-Tc_KeSFm.js").then((n) => n.n)).IDENTITY_CONTRACT, (await import("./handlers-DZOXr9bL.js")).IDENTITY_HANDLERS),
	log: async () => withHandlers((await import("./contract-DAP9xz3h.js").then((n) => n.n)).LOG_CONTRACT, (await import("./handlers-yI_W8Xuw.js")).LOG_HANDLERS),
	audit: async () => withHandlers((await import("./contract-G_wE-vUo.js").then((n) => n.n)).AUDIT_CONTRACT, (await import("./handlers-DxfxSSCL.js")).AUDIT_HANDLERS),
	keys: async () => withHandlers((await import("./contract-CPAwoohA.js").then((n) => n.n)).KEYS_CONTRACT, (await import("./handlers-DExTcWXp.js")).KEYS_HANDLERS),
	desk: async () => withHandlers((await import("./contract-D0rzaa3-.js").then((n) => n.n)).DESK_CONTRACT, (await import("./handlers-KUAS9Q3a.js")).DESK_HANDLERS),
	steps: async () => withHandlers((await import("./contract-C3VBVK57.js").then((n) => n.n)).STEP_CONTRACT, (await import("./handlers-u-s3b-JZ.js")).STEP_HANDLERS),
	memory: async () => withHandlers((await import("./contract-BYiYS3r2.js").then((n) => n.n)).MEMORY_CONTRACT, (await import("./handlers-BVg5qvz-.js").then((n) => n.n)).MEMORY_HANDLERS),
	unit: async () => withHandlers((await import("./contract-Dlok8_sM.js").then((n) => n.n)).UNIT_CONTRACT, (await import("./handlers-BKOgMiOM.js")).UNIT_HANDLERS, UNIT_AT_CALLER)
};
/** What a step the caller's side settles first is, per feature, known before the feature loads (ops/table.ts). */
const AT_CALLER = { unit: UNIT_AT_CALLER };
const loaded = /* @__PURE__ */ new Map();
/** A feature's operations, loaded once per process. */
function featureOperations(feature) {
	let table = loaded.get(feature);
	if (!table) {
		table = LOADERS[feature]();
		loaded.set(feature, table);
	}
	return table;
}
// dist/embedded-fabric.js
/**
* The table's methods bound to one context, each loading its feature's
* contract and handlers on its first call (the wire manifest names the
* operations and their features without loading any).
*/
function embeddedMethods(ctx) {
	const methods = {};
	for (const [name, { feature }] of Object.entries(WIRE)) methods[name] = async (input) => {
		const operation = (await featureOperations(feature))[name];
		if (!operation) throw new Error(`the ${feature} feature has no operation ${name}: run \`npm run wire\``);
		return runOp(operation, ctx, input);
	};
	return methods;
}
var EmbeddedFabric = class {
	#onClose;
	/**
	* `options.caller`, on the machine that holds the workspaces (a local store
	* with a desk), lets the operations that run there (attach, checkpoint,
	* restore, fork, status) run, and settles a workspace named by its
	* directory for those that take one (listCheckpoints); elsewhere they are
	* refused with where they run.
	* `options.masterKey` lets the credential operations seal values.
	*/
	constructor(engine, who, onClose = async () => {}, options = {}) {
		this.#onClose = onClose;
		Object.assign(this, embeddedMethods(opContext(engine, who, options)));
	}
	close() {
		return this.#onClose();
	}
};
// dist/storage/table-sql.js
/** Column types that differ between the engines; everything else is shared text. */
const TYPES = {
	sqlite: {
		bytes: "BLOB",
		bigint: "INTEGER",
		clustered: " WITHOUT ROWID"
	},
	postgres: {
		bytes: "BYTEA",
		bigint: "BIGINT",
		clustered: ""
	}
};
/** PostgreSQL: only rows of the transaction's tenant (`cairn.tenant`) are seen or written. */
function rowLevelSecurity(table, column = "tenant") {
	return `
ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY;
ALTER TABLE ${table} FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON ${table}
  USING (${column} = current_setting('cairn.tenant', true))
  WITH CHECK (${column} = current_setting('cairn.tenant', true));`;
}
/** {@link rowLevelSecurity} for each of `tables` (keyed by their `tenant` column). */
function rowLevelSecurityOf(tables) {
	return tables.map((table) => rowLevelSecurity(table)).join("\n");
}
// dist/memory/tables.js
/**
* Memory's tables per engine (formats 6, 7 and 8; docs/design/memory.md,
* docs/design/store-format.md): the records, their anchors and derivation
* edges, and on SQLite the narrow recall filter kept by triggers.
*/
/** `memory_records` and its indexes; `clustered` as format 6 made it (see migration 7). */
function recordsTable(d, name, clustered) {
	const t = TYPES[d];
	return `
CREATE TABLE ${name} (
  tenant TEXT NOT NULL,
  id TEXT NOT NULL,
  version INTEGER NOT NULL,
  n ${t.bigint} NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('fact', 'episode', 'procedure', 'pinned')),
  text TEXT NOT NULL,
  data TEXT NOT NULL,
  tags TEXT NOT NULL,
  scope_user TEXT NOT NULL,
  scope_agent TEXT NOT NULL,
  scope_project TEXT NOT NULL,
  scope_session TEXT NOT NULL,
  branch TEXT NOT NULL,
  event TEXT NOT NULL,
  principal TEXT NOT NULL,
  source TEXT NOT NULL CHECK (source IN ('person', 'agent', 'tool', 'import')),
  trust TEXT NOT NULL CHECK (trust IN ('trusted', 'untrusted', 'quarantined')),
  derived_from TEXT NOT NULL,
  valid_from ${t.bigint} NOT NULL,
  valid_to ${t.bigint},
  recorded_at ${t.bigint} NOT NULL,
  latest INTEGER NOT NULL,${d === "postgres" ? "\n  tsv TSVECTOR NOT NULL," : ""}
  PRIMARY KEY (tenant, id, version)
)${clustered};`;
}
/** The indexes of `memory_records` besides its key, but for format 6's covering one. */
const RECORDS_INDEXES = `
CREATE UNIQUE INDEX memory_records_by_n ON memory_records (tenant, n);
CREATE INDEX memory_records_by_user ON memory_records (tenant, scope_user, recorded_at);
CREATE INDEX memory_records_by_session ON memory_records (tenant, scope_session, recorded_at);`;
function memoryTables(d) {
	const t = TYPES[d];
	return `${recordsTable(d, "memory_records", t.clustered)}${RECORDS_INDEXES}
CREATE INDEX memory_records_recall ON memory_records (tenant, n, latest, trust, kind, scope_user, scope_agent, scope_project, scope_session, recorded_at, id, version);${d === "postgres" ? "\nCREATE INDEX memory_records_fts ON memory_records USING gin (tsv);" : ""}
CREATE TABLE memory_anchors (
  tenant TEXT NOT NULL,
  id TEXT NOT NULL,
  version INTEGER NOT NULL,
  event TEXT NOT NULL,
  line TEXT NOT NULL,
  seq ${t.bigint} NOT NULL,
  PRIMARY KEY (tenant, id, version, event)
)${t.clustered};
CREATE TABLE memory_derived (
  tenant TEXT NOT NULL,
  id TEXT NOT NULL,
  source TEXT NOT NULL,
  PRIMARY KEY (tenant, id, source)
)${t.clustered};
CREATE INDEX memory_derived_by_source ON memory_derived (tenant, source);`;
}
/**
* Migration 7 on SQLite: `memory_records` becomes a rowid table (format 6's
* WITHOUT ROWID rows, a few hundred bytes each, spilled to overflow pages on
* 1 KiB pages: twice the pages, and 18 against 11 µs an insert), and
* recall gets its filter: one narrow row per record version,
* keyed by an integer that leads with the tenant's number and ends with the
* version's `n` (its FTS5 rowid), so each full-text match is filtered by one
* rowid probe on small rows instead of a descent into the records' wide,
* tenant-string-keyed index. Kept by triggers on `memory_records`: no code
* path writes it, so it cannot disagree with the records.
*/
const RECALL_KEY_SPAN = 1099511627776;
const recallFilterSqlite = () => `
${recordsTable("sqlite", "memory_records_7", "")}
INSERT INTO memory_records_7 SELECT * FROM memory_records;
DROP TABLE memory_records;
ALTER TABLE memory_records_7 RENAME TO memory_records;${RECORDS_INDEXES}
CREATE TABLE memory_tenants (tenant TEXT PRIMARY KEY, no INTEGER NOT NULL UNIQUE) WITHOUT ROWID;
CREATE TABLE memory_recall (
  key INTEGER PRIMARY KEY,
  latest INTEGER NOT NULL,
  trust TEXT NOT NULL,
  kind TEXT NOT NULL,
  scope_user TEXT NOT NULL,
  scope_agent TEXT NOT NULL,
  scope_project TEXT NOT NULL,
  scope_session TEXT NOT NULL
);
INSERT INTO memory_tenants (tenant, no)
  SELECT tenant, ROW_NUMBER() OVER (ORDER BY tenant) FROM (SELECT DISTINCT tenant FROM memory_records);
INSERT INTO memory_recall
  SELECT t.no * ${RECALL_KEY_SPAN} + r.n, r.latest, r.trust, r.kind, r.scope_user, r.scope_agent, r.scope_project, r.scope_session
  FROM memory_records r JOIN memory_tenants t ON t.tenant = r.tenant;
CREATE TRIGGER memory_recall_insert AFTER INSERT ON memory_records BEGIN
  INSERT INTO memory_tenants (tenant, no)
    SELECT NEW.tenant, (SELECT COALESCE(MAX(no), 0) + 1 FROM memory_tenants)
    WHERE NOT EXISTS (SELECT 1 FROM memory_tenants WHERE tenant = NEW.tenant);
  INSERT INTO memory_recall
    SELECT no * ${RECALL_KEY_SPAN} + NEW.n, NEW.latest, NEW.trust, NEW.kind, NEW.scope_user, NEW.scope_agent, NEW.scope_project, NEW.scope_session
    FROM memory_tenants WHERE tenant = NEW.tenant;
END;
CREATE TRIGGER memory_recall_update AFTER UPDATE OF latest, trust ON memory_records BEGIN
  UPDATE memory_recall SET latest = NEW.latest, trust = NEW.trust
    WHERE key = (SELECT no FROM memory_tenants WHERE tenant = NEW.tenant) * ${RECALL_KEY_SPAN} + NEW.n;
END;
CREATE TRIGGER memory_recall_delete AFTER DELETE ON memory_records BEGIN
  DELETE FROM memory_recall
    WHERE key = (SELECT no FROM memory_tenants WHERE tenant = OLD.tenant) * ${RECALL_KEY_SPAN} + OLD.n;
END;`;
/**
* Migration 8: anchors by where they lie, so a reader joins its branch's
* path (rows of line and seq range) to the anchors on it, one index range a
* segment, however many segments the path has (docs/design/memory.md).
*/
const ANCHORS_BY_LINE = "CREATE INDEX memory_anchors_by_line ON memory_anchors (tenant, line, seq);";
/** Tenant tables of memory (format 6); on SQLite each tenant's full-text index is a table of its own. */
const MEMORY_SECURED = [
	"memory_records",
	"memory_anchors",
	"memory_derived"
];
const MEMORY_TABLES = {
	folder: "memory",
	tables: [
		...MEMORY_SECURED,
		"memory_recall",
		"memory_tenants"
	],
	rowSecured: MEMORY_SECURED,
	migrations: [
		{
			version: 6,
			name: "memory: records with provenance and versions, branch anchors, derivation edges, full-text",
			sqlite: memoryTables("sqlite"),
			postgres: `${memoryTables("postgres")}
${rowLevelSecurityOf(MEMORY_SECURED)}`
		},
		{
			version: 7,
			name: "memory: SQLite's records in a rowid table and a narrow recall filter kept by triggers, in place of the covering recall index",
			sqlite: recallFilterSqlite(),
			postgres: "DROP INDEX memory_records_recall;"
		},
		{
			version: 8,
			name: "memory: anchors by line and seq, so a branch's path is joined as rows",
			sqlite: ANCHORS_BY_LINE,
			postgres: ANCHORS_BY_LINE
		}
	]
};
/**
* Runs `work` on each item in order, yielding to the event loop (one
* setImmediate turn) whenever a slice has run `sliceMs` or longer, so CPU work
* over a large batch (a secret scan of 1,000 records) never holds the loop for
* more than a slice plus one item: health checks and other tenants' requests
* are answered in between. `sliceMs` 0 yields after every item.
*/
async function inSlices(items, work, sliceMs = 10) {
	let sliceStart = performance.now();
	let index = 0;
	for (const item of items) {
		await work(item, index++);
		if (performance.now() - sliceStart >= sliceMs) {
			await setImmediate$1();
			sliceStart = performance.now();
		}
	}
}
/** When work first asked in this turn of the event loop; undefined once the loop has turned. */
let turnStarted;
/**
* Yields to the event loop once the work that calls it has held the loop for
* `sliceMs` since the loop last turned (measured from the first call in this
* turn, whoever made it). For work that is a sequence of synchronous steps
* with no batch to hand to inSlices: the SQLite engine calls it before each
* statement, so one large transaction is served in turns.
*/
async function yieldIfDue(sliceMs = 10) {
	const now = performance.now();
	if (turnStarted === void 0) {
		turnStarted = now;
		setImmediate(() => {
			turnStarted = void 0;
		});
	}
	if (now - turnStarted >= sliceMs) await setImmediate$1();
}
// dist/blob/blob-store.js
const DIGEST = /^[0-9a-f]{64}$/;
const TENANT = /^[a-z]{2}_[0-9a-z]{26}$/;
function checkDigest(digest) {
	if (!DIGEST.test(digest)) throw invalidArgument(`"${digest.slice(0, 80)}" is not a blob digest: pass 64 lowercase hex characters (sha256)`, { field: "digest" });
}
function checkTenant(tenant) {
	if (!TENANT.test(tenant)) throw invalidArgument(`"${tenant.slice(0, 80)}" is not a tenant id: pass an id like tn_…`, { field: "tenant" });
}
/** Re-hashes bytes read back from an engine; a mismatch is reported, never repaired. */
function verifiedBlob(tenant, digest, bytes) {
	const actual = sha256Hex(bytes);
	if (actual !== digest) throw corrupt(`blob ${digest} of tenant ${tenant} is corrupt (its bytes hash to ${actual}): restore it from a backup`, {
		tenant,
		digest,
		actual
	});
	return bytes;
}
function rangeNotFound(digest, offset, length) {
	return notFound(`blob ${digest} has no bytes ${offset}..${offset + length}: the reference to it is wrong or the blob was truncated`, {
		digest,
		offset,
		length
	});
}
// dist/blob/fs/fs-blob-store.js
async function fsyncPath(path, flags) {
	const handle = await promises.open(path, flags);
	try {
		await handle.sync();
	} finally {
		await handle.close();
	}
}
/** ENOSPC and EDQUOT as a typed error saying what to do; anything else as it is. */
function diskFull(error, root) {
	const code = error.code;
	if (code !== "ENOSPC" && code !== "EDQUOT") return error;
	return unavailable(`no space left for blobs under ${root} (${code}): free space and retry`, { errno: code });
}
/**
* Blobs as files: `<root>/<tenant>/<2 hex>/<digest>`. A put writes a temporary
* file, fsyncs it, renames it into place and fsyncs the directory, so after a
* crash a blob is either whole under its name or absent. Folders are made
* 0700 and files 0600 (the umask can only take bits away): the owner's alone.
*/
var FsBlobStore = class {
	root;
	/** Open descriptors for range reads (desk packs are read a few objects at a time), oldest first. */
	readers = /* @__PURE__ */ new Map();
	constructor(root) {
		this.root = root;
	}
	reader(file, digest) {
		let fd = this.readers.get(file);
		if (fd !== void 0) return fd;
		try {
			fd = openSync(file, "r");
		} catch (error) {
			if (error.code === "ENOENT") throw notFound("blob", digest);
			throw error;
		}
		if (this.readers.size >= 32) this.forget(this.readers.keys().next().value);
		this.readers.set(file, fd);
		return fd;
	}
	forget(file) {
		const fd = this.readers.get(file);
		if (fd === void 0) return;
		this.readers.delete(file);
		closeSync(fd);
	}
	path(tenant, digest) {
		checkTenant(tenant);
		checkDigest(digest);
		const dir = join(this.root, tenant, digest.slice(0, 2));
		return {
			dir,
			file: join(dir, digest)
		};
	}
	async put(tenant, bytes, known) {
		const digest = known ?? sha256Hex(bytes);
		const { dir, file } = this.path(tenant, digest);
		if (await this.has(tenant, digest)) return digest;
		await this.makeDurableDir(dir);
		const temp = join(dir, `.tmp-${randomBytes(8).toString("hex")}`);
		const handle = await promises.open(temp, "wx", 384);
		try {
			await handle.writeFile(bytes);
			await handle.sync();
		} catch (error) {
			await handle.close();
			await promises.rm(temp, { force: true });
			throw diskFull(error, this.root);
		}
		await handle.close();
		await promises.rename(temp, file);
		await fsyncPath(dir, constants.O_RDONLY | constants.O_DIRECTORY);
		return digest;
	}
	/** Creates `dir` and any missing parents, fsyncing each new entry's parent so it survives power loss. */
	async makeDurableDir(dir) {
		const first = await promises.mkdir(dir, {
			recursive: true,
			mode: 448
		});
		if (first === void 0) return;
		for (let created = dir;; created = dirname(created)) {
			await fsyncPath(dirname(created), constants.O_RDONLY | constants.O_DIRECTORY);
			if (created === first) break;
		}
	}
	async get(tenant, digest) {
		const { file } = this.path(tenant, digest);
		try {
			return verifiedBlob(tenant, digest, await promises.readFile(file));
		} catch (error) {
			if (error.code === "ENOENT") throw notFound("blob", digest);
			throw error;
		}
	}
	async getRange(tenant, digest, offset, length) {
		const { file } = this.path(tenant, digest);
		const fd = this.reader(file, digest);
		const bytes = Buffer.allocUnsafe(length);
		let got = 0;
		while (got < length) {
			const n = readSync(fd, bytes, got, length - got, offset + got);
			if (n === 0) throw rangeNotFound(digest, offset, length);
			got += n;
		}
		return bytes;
	}
	async has(tenant, digest) {
		const { file } = this.path(tenant, digest);
		try {
			await promises.access(file);
			return true;
		} catch {
			return false;
		}
	}
	async delete(tenant, digest) {
		const { dir, file } = this.path(tenant, digest);
		this.forget(file);
		try {
			await promises.unlink(file);
			await fsyncPath(dir, constants.O_RDONLY | constants.O_DIRECTORY);
		} catch (error) {
			if (error.code !== "ENOENT") throw error;
		}
	}
	async close() {
		for (const file of [...this.readers.keys()]) this.forget(file);
	}
};
// dist/audit/tables.js
/** The audit chain's tables (format 1): entries, their salted payloads, and each tenant's chain head (docs/design/audit-chain.md). */
function auditTables(d) {
	const t = TYPES[d];
	return `
CREATE TABLE audit_entries (
  tenant TEXT NOT NULL,
  seq ${t.bigint} NOT NULL,
  at ${t.bigint} NOT NULL,
  actor TEXT NOT NULL,
  action TEXT NOT NULL,
  resource_type TEXT NOT NULL,
  resource_id TEXT NOT NULL,
  commitment TEXT NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL,
  PRIMARY KEY (tenant, seq)
)${t.clustered};
CREATE TABLE audit_payloads (
  tenant TEXT NOT NULL,
  seq ${t.bigint} NOT NULL,
  salt TEXT NOT NULL,
  payload TEXT NOT NULL,
  PRIMARY KEY (tenant, seq)
);
CREATE TABLE audit_heads (
  tenant TEXT PRIMARY KEY,
  seq ${t.bigint} NOT NULL,
  hash TEXT NOT NULL
)${t.clustered};`;
}
const AUDIT_OWN = [
	"audit_entries",
	"audit_payloads",
	"audit_heads"
];
const AUDIT_TABLES = {
	folder: "audit",
	tables: AUDIT_OWN,
	rowSecured: AUDIT_OWN,
	migrations: [{
		version: 1,
		name: "audit chain: entries, payloads, heads",
		sqlite: auditTables("sqlite"),
		postgres: `${auditTables("postgres")}
${rowLevelSecurityOf(AUDIT_OWN)}`
	}]
};
// dist/blob/tables.js
/** The blob store's table (format 1), used by the PostgreSQL blob store; the folder store keeps files. */
function blobTables(d) {
	const t = TYPES[d];
	return `
CREATE TABLE blobs (
  tenant TEXT NOT NULL,
  digest TEXT NOT NULL,
  size ${t.bigint} NOT NULL,
  bytes ${t.bytes} NOT NULL,
  PRIMARY KEY (tenant, digest)
);`;
}
const BLOB_OWN = ["blobs"];
const BLOB_TABLES = {
	folder: "blob",
	tables: BLOB_OWN,
	rowSecured: BLOB_OWN,
	migrations: [{
		version: 1,
		name: "blobs",
		sqlite: blobTables("sqlite"),
		postgres: `${blobTables("postgres")}
${rowLevelSecurityOf(BLOB_OWN)}`
	}]
};
// dist/desk/tables.js
/** The desk's staged objects (format 5): checked objects of packs stored but not yet committed. */
const DESK_STAGED_TABLE = "desk_staged";
const DESK_FORMAT_2 = [
	"desk_workspaces",
	"desk_snapshots",
	"desk_objects",
	"desk_packs"
];
/**
* The desk: workspaces bound to branches, snapshots (a root tree digest
* each), the object index (chunk or tree digest → pack range) and packs.
* docs/design/desk.md describes the objects themselves.
*/
function deskTables(d) {
	const t = TYPES[d];
	return `
CREATE TABLE desk_workspaces (
  tenant TEXT NOT NULL,
  id TEXT NOT NULL,
  host TEXT NOT NULL,
  path TEXT NOT NULL,
  session TEXT NOT NULL,
  branch TEXT NOT NULL,
  driver TEXT NOT NULL CHECK (driver IN ('plain', 'copy', 'overlay')),
  state TEXT NOT NULL CHECK (state IN ('attached', 'detached')),
  base_snapshot TEXT NOT NULL,
  head_snapshot TEXT NOT NULL,
  forked_from TEXT NOT NULL,
  created_at ${t.bigint} NOT NULL,
  PRIMARY KEY (tenant, id)
)${t.clustered};
CREATE UNIQUE INDEX desk_workspaces_attached ON desk_workspaces (host, path) WHERE state = 'attached';
CREATE TABLE desk_snapshots (
  tenant TEXT NOT NULL,
  id TEXT NOT NULL,
  workspace TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('checkpoint', 'restore', 'merge')),
  root TEXT NOT NULL,
  parent TEXT NOT NULL,
  event TEXT NOT NULL,
  files ${t.bigint} NOT NULL,
  bytes ${t.bigint} NOT NULL,
  added_bytes ${t.bigint} NOT NULL,
  created_at ${t.bigint} NOT NULL,
  PRIMARY KEY (tenant, id)
)${t.clustered};
CREATE INDEX desk_snapshots_by_workspace ON desk_snapshots (tenant, workspace, created_at);
CREATE TABLE desk_objects (
  tenant TEXT NOT NULL,
  digest TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('chunk', 'tree')),
  pack TEXT NOT NULL,
  off ${t.bigint} NOT NULL,
  len ${t.bigint} NOT NULL,
  PRIMARY KEY (tenant, digest)
)${t.clustered};
CREATE INDEX desk_objects_by_pack ON desk_objects (tenant, pack);
CREATE TABLE desk_packs (
  tenant TEXT NOT NULL,
  digest TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('writing', 'live')),
  size ${t.bigint} NOT NULL,
  created_at ${t.bigint} NOT NULL,
  inline INTEGER NOT NULL CHECK (inline IN (0, 1)),
  bytes ${t.bytes},
  PRIMARY KEY (tenant, digest)
);`;
}
/**
* A stored pack's index (the bytes that end the pack: see
* desk/pack-format.ts), one row per pack, written when the pack is announced
* (for a pack that came over the network, after its objects were checked
* against their digests). The snapshot commit that names the pack inserts
* its objects into desk_objects and deletes the row; GC drops the rows of
* packs abandoned mid-write.
*/
function stagedTable(d) {
	const t = TYPES[d];
	return `
CREATE TABLE ${DESK_STAGED_TABLE} (
  tenant TEXT NOT NULL,
  pack TEXT NOT NULL,
  entries ${t.bytes} NOT NULL,
  PRIMARY KEY (tenant, pack)
)${t.clustered};`;
}
/**
* Format 2 made a directory unique per host across all tenants, so one
* tenant could hold a host and path (host names come from the desk's side)
* and keep another from attaching it, learning that it was taken. Unique
* within a tenant instead.
*/
const ATTACHED_PER_TENANT = `
DROP INDEX desk_workspaces_attached;
CREATE UNIQUE INDEX desk_workspaces_attached ON desk_workspaces (tenant, host, path) WHERE state = 'attached';`;
const DESK_TABLES = {
	folder: "desk",
	tables: [...DESK_FORMAT_2, DESK_STAGED_TABLE],
	rowSecured: [...DESK_FORMAT_2, DESK_STAGED_TABLE],
	migrations: [{
		version: 2,
		name: "desk: workspaces, snapshots, object index, packs",
		sqlite: deskTables("sqlite"),
		postgres: `${deskTables("postgres")}
${rowLevelSecurityOf(DESK_FORMAT_2)}`
	}, {
		version: 5,
		name: "desk: staged packs; a directory attached once per host within a tenant",
		sqlite: `${stagedTable("sqlite")}
${ATTACHED_PER_TENANT}`,
		postgres: `${stagedTable("postgres")}
${rowLevelSecurity(DESK_STAGED_TABLE)}
${ATTACHED_PER_TENANT}`
	}]
};
// dist/identity/tables.js
/** Identity's tables (format 1): tenants, their principals, and tokens (only a hash of each secret). */
function identityTables(d) {
	const t = TYPES[d];
	return `
CREATE TABLE tenants (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  created_at ${t.bigint} NOT NULL
);
CREATE TABLE principals (
  tenant TEXT NOT NULL REFERENCES tenants(id),
  id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('user', 'agent', 'service')),
  name TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('admin', 'member')),
  created_at ${t.bigint} NOT NULL,
  PRIMARY KEY (tenant, id)
)${t.clustered};
CREATE TABLE tokens (
  tenant TEXT NOT NULL,
  id TEXT NOT NULL,
  principal TEXT NOT NULL,
  secret_hash TEXT NOT NULL,
  label TEXT NOT NULL,
  created_at ${t.bigint} NOT NULL,
  revoked_at ${t.bigint},
  PRIMARY KEY (tenant, id),
  FOREIGN KEY (tenant, principal) REFERENCES principals(tenant, id)
)${t.clustered};`;
}
const IDENTITY_TABLES = {
	folder: "identity",
	tables: [
		"tenants",
		"principals",
		"tokens"
	],
	rowSecured: [
		"tenants",
		"principals",
		"tokens"
	],
	migrations: [{
		version: 1,
		name: "identity: tenants, principals, tokens",
		sqlite: identityTables("sqlite"),
		postgres: `${identityTables("postgres")}
${rowLevelSecurity("tenants", "id")}
${rowLevelSecurityOf(["principals", "tokens"])}`
	}]
};
// dist/keys/tables.js
const KEYS_OWN = [
	"key_credentials",
	"key_grants",
	"key_handles",
	"key_approvals"
];
function keysTables(d) {
	const t = TYPES[d];
	return `
CREATE TABLE key_credentials (
  tenant TEXT NOT NULL,
  id TEXT NOT NULL,
  name TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('bearer', 'basic', 'header', 'env')),
  header TEXT NOT NULL,
  upstream TEXT NOT NULL,
  sandbox_upstream TEXT NOT NULL,
  master_key_id TEXT NOT NULL,
  wrapped_key ${t.bytes},
  live_sealed ${t.bytes},
  sandbox_sealed ${t.bytes},
  version INTEGER NOT NULL,
  created_by TEXT NOT NULL,
  created_at ${t.bigint} NOT NULL,
  rotated_at ${t.bigint} NOT NULL,
  deleted_at ${t.bigint},
  PRIMARY KEY (tenant, id)
)${t.clustered};
CREATE UNIQUE INDEX key_credentials_by_name ON key_credentials (tenant, name) WHERE deleted_at IS NULL;
CREATE TABLE key_grants (
  tenant TEXT NOT NULL,
  id TEXT NOT NULL,
  parent TEXT NOT NULL,
  session TEXT NOT NULL,
  branch TEXT NOT NULL,
  credential TEXT NOT NULL,
  mode TEXT NOT NULL CHECK (mode IN ('read', 'sandbox', 'live')),
  approval TEXT NOT NULL CHECK (approval IN ('none', 'each-write')),
  allow TEXT NOT NULL,
  expires_at ${t.bigint},
  max_uses ${t.bigint},
  uses ${t.bigint} NOT NULL,
  on_behalf_of TEXT NOT NULL,
  created_by TEXT NOT NULL,
  created_at ${t.bigint} NOT NULL,
  revoked_at ${t.bigint},
  revoked_by TEXT NOT NULL,
  revoke_reason TEXT NOT NULL,
  PRIMARY KEY (tenant, id)
)${t.clustered};
CREATE INDEX key_grants_by_branch ON key_grants (tenant, session, branch);
CREATE INDEX key_grants_by_parent ON key_grants (tenant, parent);
CREATE TABLE key_handles (
  tenant TEXT NOT NULL,
  id TEXT NOT NULL,
  session TEXT NOT NULL,
  branch TEXT NOT NULL,
  principal TEXT NOT NULL,
  secret_hash TEXT NOT NULL,
  created_at ${t.bigint} NOT NULL,
  expires_at ${t.bigint},
  revoked_at ${t.bigint},
  PRIMARY KEY (tenant, id)
)${t.clustered};
CREATE TABLE key_approvals (
  tenant TEXT NOT NULL,
  id TEXT NOT NULL,
  grant_id TEXT NOT NULL,
  session TEXT NOT NULL,
  branch TEXT NOT NULL,
  credential TEXT NOT NULL,
  method TEXT NOT NULL,
  url TEXT NOT NULL,
  body_digest TEXT NOT NULL,
  body_bytes ${t.bigint} NOT NULL,
  preview TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending', 'approved', 'denied', 'expired', 'used')),
  requested_by TEXT NOT NULL,
  requested_at ${t.bigint} NOT NULL,
  expires_at ${t.bigint} NOT NULL,
  decided_by TEXT NOT NULL,
  decided_at ${t.bigint},
  used_at ${t.bigint},
  PRIMARY KEY (tenant, id)
)${t.clustered};
CREATE INDEX key_approvals_by_state ON key_approvals (tenant, state);`;
}
const KEYS_TABLES = {
	folder: "keys",
	tables: KEYS_OWN,
	rowSecured: KEYS_OWN,
	migrations: [{
		version: 3,
		name: "keys: credentials, grants, branch handles, approvals",
		sqlite: keysTables("sqlite"),
		postgres: `${keysTables("postgres")}
${rowLevelSecurityOf(KEYS_OWN)}`
	}, {
		version: 4,
		name: "keys: per-credential proxy options (extra headers, body limit)",
		sqlite: "ALTER TABLE key_credentials ADD COLUMN proxy_options TEXT NOT NULL DEFAULT '{}';",
		postgres: "ALTER TABLE key_credentials ADD COLUMN proxy_options TEXT NOT NULL DEFAULT '{}';"
	}]
};
// dist/log/tables.js
/** The session log's tables (format 1): sessions, branches, lines of events, events, and each branch's ref log. */
function logTables(d) {
	const t = TYPES[d];
	return `
CREATE TABLE sessions (
  tenant TEXT NOT NULL,
  id TEXT NOT NULL,
  owner TEXT NOT NULL,
  title TEXT NOT NULL,
  meta TEXT NOT NULL,
  created_at ${t.bigint} NOT NULL,
  PRIMARY KEY (tenant, id)
)${t.clustered};
CREATE TABLE branches (
  tenant TEXT NOT NULL,
  id TEXT NOT NULL,
  session TEXT NOT NULL,
  name TEXT NOT NULL,
  owner TEXT NOT NULL,
  head TEXT NOT NULL,
  head_seq INTEGER NOT NULL,
  head_line TEXT NOT NULL,
  own_line TEXT NOT NULL,
  forked_from TEXT NOT NULL,
  created_at ${t.bigint} NOT NULL,
  updated_at ${t.bigint} NOT NULL,
  PRIMARY KEY (tenant, id),
  UNIQUE (tenant, session, name)
)${t.clustered};
CREATE TABLE lines (
  tenant TEXT NOT NULL,
  id TEXT NOT NULL,
  session TEXT NOT NULL,
  base_line TEXT NOT NULL,
  base_seq INTEGER NOT NULL,
  PRIMARY KEY (tenant, id)
)${t.clustered};
CREATE TABLE events (
  tenant TEXT NOT NULL,
  id TEXT NOT NULL,
  session TEXT NOT NULL,
  branch TEXT NOT NULL,
  line TEXT NOT NULL,
  seq INTEGER NOT NULL,
  parent TEXT NOT NULL,
  kind TEXT NOT NULL,
  payload TEXT NOT NULL,
  actor TEXT NOT NULL,
  owner TEXT NOT NULL,
  at ${t.bigint} NOT NULL,
  idem_key TEXT,
  PRIMARY KEY (tenant, id),
  UNIQUE (tenant, line, seq)
);
CREATE UNIQUE INDEX events_idempotency ON events (tenant, session, idem_key) WHERE idem_key IS NOT NULL;
CREATE TABLE ref_log (
  tenant TEXT NOT NULL,
  branch TEXT NOT NULL,
  at ${t.bigint} NOT NULL,
  audit_seq ${t.bigint} NOT NULL,
  op TEXT NOT NULL,
  head_before TEXT NOT NULL,
  head_after TEXT NOT NULL,
  by_principal TEXT NOT NULL,
  PRIMARY KEY (tenant, branch, audit_seq)
)${t.clustered};`;
}
const LOG_OWN = [
	"sessions",
	"branches",
	"lines",
	"events",
	"ref_log"
];
// dist/features.js
/**
* The features whose tables make a store, in the order their shares of a
* migration are applied (a table may reference only those made before it).
* A new feature with tables is its folder's `tables.ts` and one line here;
* docs/design/features.md gives the steps.
*/
const FEATURE_TABLES = [
	IDENTITY_TABLES,
	{
		folder: "log",
		tables: LOG_OWN,
		rowSecured: LOG_OWN,
		migrations: [{
			version: 1,
			name: "session log: sessions, branches, lines, events, ref log",
			sqlite: logTables("sqlite"),
			postgres: `${logTables("postgres")}
${rowLevelSecurityOf(LOG_OWN)}`
		}]
	},
	AUDIT_TABLES,
	BLOB_TABLES,
	DESK_TABLES,
	KEYS_TABLES,
	MEMORY_TABLES
];
// dist/storage/migrations.js
/** The features' shares grouped by version, in registry order within one; versions must run 1, 2, 3, … */
function assembleMigrations(features) {
	const byVersion = /* @__PURE__ */ new Map();
	for (const feature of features) for (const part of feature.migrations) {
		const made = byVersion.get(part.version);
		if (!made) byVersion.set(part.version, { ...part });
		else {
			made.name = `${made.name}; ${part.name}`;
			made.sqlite = `${made.sqlite}\n${part.sqlite}`;
			made.postgres = `${made.postgres}\n${part.postgres}`;
		}
	}
	const migrations = [...byVersion.values()].sort((a, b) => a.version - b.version);
	migrations.forEach((m, i) => {
		if (m.version !== i + 1) throw new Error(`migration ${i + 1} is missing: the features' tables skip a version`);
	});
	return migrations;
}
const MIGRATIONS = assembleMigrations(FEATURE_TABLES);
const CURRENT_FORMAT_VERSION = MIGRATIONS.length;
/**
* Brings a store up to this build's format version. Refuses a store written
* by a newer Cairn rather than guessing at its layout.
*/
async function migrate(target, where) {
	const version = await target.formatVersion();
	if (version > CURRENT_FORMAT_VERSION) throw unsupportedFormat(`store at ${where} has format version ${version}, newer than this Cairn understands (${CURRENT_FORMAT_VERSION}): upgrade Cairn to open it`, {
		storeVersion: version,
		supportedVersion: CURRENT_FORMAT_VERSION
	});
	for (const migration of MIGRATIONS) if (migration.version > version) await target.apply(migration);
	return CURRENT_FORMAT_VERSION;
}
// dist/storage/sqlite/checkpointer.js
/**
* Copies the WAL back into the database on a worker thread, with a
* connection of its own, so a long-running process (`cairn serve`,
* `cairn watch`) never checkpoints on its event loop. SQLite's automatic
* checkpoint runs inside the commit that crosses its threshold: it copies
* every page written since the last one and fsyncs the database file, on
* the thread that answers requests (≈ 30 ms after a 1 MiB memory batch
* here, more on a busy disk). A PASSIVE checkpoint never blocks the writer
* or the readers, and one after another with nothing new to copy costs
* next to nothing, so the worker is asked after every commit and runs one
* at a time.
*
* If the worker fails, the writer gets its automatic checkpoints back
* (`onFailure`): the WAL never grows without bound because a thread died.
*/
var Checkpointer = class {
	worker;
	running = false;
	again = false;
	closing;
	failed = false;
	exited = false;
	constructor(path, onFailure) {
		const driver = createRequire(import.meta.url).resolve("better-sqlite3");
		this.worker = new Worker(WORKER_SOURCE, {
			eval: true,
			workerData: {
				path,
				driver
			}
		});
		this.worker.unref();
		const fail = (reason) => {
			if (this.failed) return;
			this.failed = true;
			onFailure(reason);
		};
		this.worker.on("message", (error) => {
			this.running = false;
			if (error !== null) fail(error);
			else if (this.again) this.poke();
		});
		this.worker.on("error", (error) => fail(error.message));
		this.worker.on("exit", () => {
			this.exited = true;
			if (this.closing === void 0) fail("the checkpoint thread exited");
		});
	}
	/** A commit happened: checkpoint now, or once the one running ends. */
	poke() {
		if (this.failed || this.closing !== void 0) return;
		if (this.running) {
			this.again = true;
			return;
		}
		this.running = true;
		this.again = false;
		this.worker.postMessage("checkpoint");
	}
	/** Stops the thread (after the checkpoint in flight) and closes its connection. */
	close() {
		this.closing ??= new Promise((resolve) => {
			if (this.exited) return resolve();
			this.worker.ref();
			this.worker.once("exit", () => resolve());
			this.worker.postMessage("close");
		});
		return this.closing;
	}
};
/** The worker: one connection, one PASSIVE checkpoint per message; answers null or the error's message. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 10000');
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage(null);
  } catch (error) {
    parentPort.postMessage(String((error && error.message) || error));
  }
});
`;
// dist/storage/sqlite/wal-sync.js
/**
* Makes committed SQLite transactions durable off the event loop.
*
* The writer runs with `synchronous=NORMAL` in WAL mode: a COMMIT writes its
* WAL frames but does not fsync, and SQLite itself syncs around checkpoints.
* After each COMMIT the engine registers its callers here; one `fdatasync` of
* the WAL on libuv's thread pool then covers every commit made before it
* started, and only then are those callers answered. While one sync is in
* flight, later commits queue for the next one (group commit), and the event
* loop keeps running the next batch. If a sync ever fails the engine stops
* accepting writes: whether the data reached the disk is unknown.
*
* A lone commit (one caller, nothing in flight, and the sync before it had
* one caller too) is synced on the event loop instead: handing one
* fdatasync to the thread pool and back costs about 0.2 ms on our test VM,
* more than the loop loses by waiting — there is no next batch to run
* meanwhile. As soon as commits overlap, syncs go back to the thread pool
* and group commit; a batch of one right after a busy one stays there too
* (under load, the next requests are already on their way: blocking the
* loop on the sync kept a server from reading them).
*/
/**
* Whether the next sync runs on the event loop: one caller waiting, and the
* sync before it had at most one too (see WalSync).
*/
function syncsOnLoop(callers, callersBefore) {
	return callers === 1 && callersBefore <= 1;
}
var WalSync = class {
	walPath;
	fd = null;
	inFlight = false;
	waiting = [];
	/** Callers waiting on the queued syncs, and on the last one started. */
	waitingCallers = 0;
	lastCallers = 0;
	failure = null;
	constructor(walPath) {
		this.walPath = walPath;
	}
	/** Opens the WAL (it exists once the first write committed) and makes its directory entry durable. */
	open() {
		this.fd = openSync(this.walPath, constants.O_RDONLY);
		const dir = openSync(dirname(this.walPath), constants.O_RDONLY | constants.O_DIRECTORY);
		try {
			fsyncSync(dir);
		} finally {
			closeSync(dir);
		}
	}
	get failed() {
		return this.failure;
	}
	/** Calls `done` once everything committed so far is on disk; `callers` is how many writes it answers. */
	afterDurable(done, callers = 1) {
		if (this.failure) {
			done(this.failure);
			return;
		}
		this.waiting.push(done);
		this.waitingCallers += callers;
		if (!this.inFlight) this.start();
	}
	/** True while some commit is not yet known to be durable. */
	get pending() {
		return this.inFlight || this.waiting.length > 0;
	}
	start() {
		const group = this.waiting;
		const lone = syncsOnLoop(this.waitingCallers, this.lastCallers);
		this.lastCallers = this.waitingCallers;
		this.waiting = [];
		this.waitingCallers = 0;
		this.inFlight = true;
		(lone ? (done) => {
			let failure = null;
			try {
				fdatasyncSync(this.fd);
			} catch (error) {
				failure = error;
			}
			queueMicrotask(() => done(failure));
		} : (done) => fdatasync(this.fd, done))((error) => {
			this.inFlight = false;
			if (error) this.failure = unavailable(`the store could not make its log durable (${error.message}): stop, check the disk, then reopen the store`, { errno: error.code ?? null }, { cause: error });
			for (const done of group) done(this.failure);
			if (this.waiting.length > 0) {
				if (this.failure) for (const done of this.waiting.splice(0)) done(this.failure);
				else this.start();
			}
		});
	}
	close() {
		if (this.fd !== null) closeSync(this.fd);
		this.fd = null;
	}
};
// dist/storage/sqlite/sqlite-engine.js
var StatementCache = class {
	db;
	statements = /* @__PURE__ */ new Map();
	constructor(db) {
		this.db = db;
	}
	get(sql) {
		let statement = this.statements.get(sql);
		if (!statement) {
			statement = this.db.prepare(sql);
			this.statements.set(sql, statement);
		}
		return statement;
	}
};
/**
* A new store is its owner's alone, whatever the umask: the folder 0700 and
* the database made empty at 0600 before SQLite opens it (SQLite gives its
* -wal and -shm the database's mode).
*/
function createPrivately(dir, path) {
	mkdirSync(dir, {
		recursive: true,
		mode: 448
	});
	chmodSync(dir, 448);
	let fd;
	try {
		fd = openSync(path, "wx", 384);
	} catch (error) {
		if (error.code === "EEXIST") return;
		throw error;
	}
	try {
		fchmodSync(fd, 384);
	} finally {
		closeSync(fd);
	}
}
/** How much of the database file the reader maps (address space, not memory: pages load on use). */
const READER_MMAP_BYTES = 1073741824;
/**
* Loads sqlite-vec (memory's vector index) into a connection. Without its
* binary for this platform the store still opens; memory then answers a
* vector recall with UNAVAILABLE.
*/
function withVectors(db) {
	try {
		sqliteVec.load(db);
		return true;
	} catch {
		return false;
	}
}
/** Runs one statement; SQLite's own corruption reports become CORRUPT, never a bare driver error. */
function guarded(dir, statement) {
	try {
		return statement();
	} catch (error) {
		throw translate(error, dir);
	}
}
/**
* How long a group commit keeps taking queued writes before it commits: its
* commit writes what they wrote in one uninterruptible step, so a flood of
* writes is committed in several transactions rather than one large one.
*/
const TRANSACTION_MS = 50;
/**
* Statements of a connection. better-sqlite3 is synchronous, so each waits
* for the event loop's next turn once statements have held it for a slice
* (yieldIfDue): one large transaction (a memory batch) is served in turns,
* and `/healthz` and other tenants are answered between them. Safe inside a
* write transaction: only the flush loop, which is the one waiting, uses the
* writer connection; reads use the reader, which sees committed data only.
*/
function executor(cache, dir) {
	return {
		lockRows: "",
		async all(sql, params = []) {
			await yieldIfDue();
			return guarded(dir, () => cache.get(sql).all(...params));
		},
		async get(sql, params = []) {
			await yieldIfDue();
			return guarded(dir, () => cache.get(sql).get(...params));
		},
		async run(sql, params = []) {
			await yieldIfDue();
			return guarded(dir, () => cache.get(sql).run(...params).changes);
		}
	};
}
/**
* The embedded engine: one SQLite database in WAL mode. A write is answered
* only after the WAL holding its commit is fsynced (see WalSync). Writes from this process
* are queued and folded into one transaction per flush (group commit): each
* caller's work runs inside its own savepoint, so one caller's failure rolls
* back only its own writes, and every caller is answered after the shared
* commit is durable. Reads use a second connection that sees committed data only.
*/
var SqliteEngine = class SqliteEngine {
	dialect = "sqlite";
	capabilities;
	path;
	dir;
	writer;
	reader;
	writerTx;
	readerTx;
	maxBatch;
	walSync;
	checkpointer;
	queue = [];
	flushing = false;
	closed = false;
	constructor(options) {
		this.dir = options.dir;
		this.path = join(options.dir, "cairn.db");
		if (!existsSync(this.path)) createPrivately(options.dir, this.path);
		this.maxBatch = options.maxBatch ?? 512;
		this.writer = new Database(this.path);
		this.writer.pragma(`page_size = ${options.pageSize ?? 1024}`);
		this.writer.pragma("journal_mode = WAL");
		this.writer.pragma("synchronous = NORMAL");
		this.writer.pragma("busy_timeout = 10000");
		this.writer.pragma("foreign_keys = ON");
		this.writer.pragma("temp_store = MEMORY");
		this.reader = new Database(this.path);
		this.reader.pragma("busy_timeout = 10000");
		this.reader.pragma(`mmap_size = ${READER_MMAP_BYTES}`);
		const vectors = withVectors(this.writer) && withVectors(this.reader);
		this.capabilities = {
			groupCommit: true,
			rowLevelSecurity: false,
			vectors
		};
		this.writerTx = executor(new StatementCache(this.writer), options.dir);
		this.walSync = new WalSync(`${this.path}-wal`);
		this.readerTx = executor(new StatementCache(this.reader), options.dir);
	}
	static async open(options) {
		let engine;
		try {
			engine = new SqliteEngine(options);
		} catch (error) {
			throw translate(error, options.dir);
		}
		try {
			await migrate({
				dialect: "sqlite",
				formatVersion: async () => engine.formatVersion(),
				apply: async (migration) => engine.applyMigration(migration)
			}, options.dir);
			const check = options.integrityCheck === false ? "ok" : engine.writer.pragma("quick_check", { simple: true });
			if (check !== "ok") throw corrupt(`store at ${options.dir} failed SQLite's integrity check (${check}): restore it from a backup`, { detail: String(check) });
			engine.walSync.open();
			if (options.checkpoints === "background") engine.checkpointInBackground();
		} catch (error) {
			engine.writer.close();
			engine.reader.close();
			throw translate(error, options.dir);
		}
		return engine;
	}
	/** Where WAL checkpoints run now: `inline` again if the background thread failed. */
	get checkpoints() {
		return this.checkpointer === void 0 ? "inline" : "background";
	}
	checkpointInBackground() {
		this.checkpointer = new Checkpointer(this.path, () => {
			this.checkpointer = void 0;
			if (!this.closed) this.writer.pragma("wal_autocheckpoint = 1000");
		});
		this.writer.pragma("wal_autocheckpoint = 0");
	}
	formatVersion() {
		this.writer.exec("CREATE TABLE IF NOT EXISTS cairn_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
		const row = this.writer.prepare("SELECT value FROM cairn_meta WHERE key = 'format_version'").get();
		return row ? Number(row.value) : 0;
	}
	applyMigration(migration) {
		this.writer.transaction(() => {
			this.writer.exec(migration.sqlite);
			this.writer.prepare("INSERT INTO cairn_meta (key, value) VALUES ('format_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(String(migration.version));
		}).immediate();
	}
	write(_tenant, fn) {
		if (this.closed) return Promise.reject(unavailable("the store is closed: open it again"));
		if (this.walSync.failed) return Promise.reject(this.walSync.failed);
		return new Promise((resolve, reject) => {
			this.enqueue({
				fn,
				resolve,
				reject,
				attempts: 0
			});
		});
	}
	enqueue(job) {
		this.queue.push(job);
		if (!this.flushing) {
			this.flushing = true;
			setImmediate(() => void this.flush());
		}
	}
	async read(_tenant, fn, options) {
		if (this.closed) throw unavailable("the store is closed: open it again");
		if (this.walSync.pending) await new Promise((done) => this.walSync.afterDurable(() => done(), 0));
		if (!options?.consistent) return fn(this.readerTx);
		const db = new Database(this.path, { readonly: true });
		if (this.capabilities.vectors) withVectors(db);
		try {
			db.pragma("busy_timeout = 10000");
			db.exec("BEGIN");
			return await fn(executor(new StatementCache(db), this.dir));
		} finally {
			db.close();
		}
	}
	async flush() {
		while (this.queue.length > 0) {
			const batch = this.queue.splice(0, this.maxBatch);
			const outcomes = [];
			try {
				this.writer.exec("BEGIN IMMEDIATE");
			} catch (error) {
				for (const job of batch) job.reject(busy(error));
				continue;
			}
			const started = performance.now();
			for (const [i, job] of batch.entries()) {
				if (i > 0 && performance.now() - started >= TRANSACTION_MS) {
					this.queue.unshift(...batch.splice(i));
					break;
				}
				this.writer.exec("SAVEPOINT job");
				try {
					const value = await job.fn(this.writerTx);
					this.writer.exec("RELEASE job");
					outcomes.push({
						ok: true,
						value
					});
				} catch (error) {
					this.writer.exec("ROLLBACK TO job");
					this.writer.exec("RELEASE job");
					outcomes.push({
						ok: false,
						error,
						retry: error instanceof RetryTransaction
					});
				}
			}
			try {
				this.writer.exec("COMMIT");
			} catch (error) {
				if (this.writer.inTransaction) this.writer.exec("ROLLBACK");
				for (const job of batch) job.reject(busy(error));
				continue;
			}
			this.checkpointer?.poke();
			this.walSync.afterDurable((syncError) => {
				batch.forEach((job, i) => {
					const outcome = outcomes[i];
					if (syncError) job.reject(syncError);
					else if (outcome.ok) job.resolve(outcome.value);
					else if (!outcome.retry) job.reject(outcome.error);
					else if (++job.attempts < 20) this.enqueue(job);
					else job.reject(busy(outcome.error));
				});
			}, batch.length);
		}
		this.flushing = false;
	}
	async close() {
		if (this.closed) return;
		while (this.flushing || this.queue.length > 0 || this.walSync.pending) await new Promise((r) => setImmediate(r));
		this.closed = true;
		await this.checkpointer?.close();
		this.walSync.close();
		this.reader.close();
		this.writer.close();
	}
};
/** SQLite's own failures, as Cairn's typed errors; anything else passes through. */
function translate(error, dir) {
	const code = error.code ?? "";
	if (code.startsWith("SQLITE_CORRUPT") || code === "SQLITE_NOTADB") return corrupt(`store at ${dir} is not a readable Cairn database (${code}): restore it from a backup`, { sqlite: code });
	if (code.startsWith("SQLITE_FULL")) return unavailable(`the disk holding the store at ${dir} is full (${code}): free space and retry`, { sqlite: code });
	if (code.startsWith("SQLITE_CANTOPEN") || code.startsWith("SQLITE_READONLY") || code.startsWith("SQLITE_IOERR")) return unavailable(`store at ${dir} cannot be opened for writing (${code}): check the path and its permissions`, { sqlite: code });
	return error;
}
function busy(error) {
	return unavailable(`the store could not commit (${error instanceof Error ? error.message : String(error)}): nothing was written, retry`, {}, { cause: error });
}
// dist/store-folder.js
/**
* A store folder, the embedded default: `<dir>/cairn.db` (SQLite),
* `<dir>/blobs/` and `<dir>/desk/`, made for the owner alone (folders 0700,
* files 0600). Opening one and its fabric loads only the engine and the
* fabric (each feature's handlers load on their first call), so a command
* line that runs one operation pays for that one; `Store` (store.ts) is the
* whole library's handle on it.
*/
var store_folder_exports = /* @__PURE__ */ __exportAll({ storeExposure: () => storeExposure });
/**
* Opens (making it on first use) the store in `dir`. `onWarning` hears of a
* store folder other users may enter.
*/
async function openStoreFolder(dir, options = {}) {
	const engine = await SqliteEngine.open({
		dir,
		integrityCheck: options.integrityCheck,
		checkpoints: options.checkpoints
	});
	const deskDir = join(dir, "desk");
	try {
		mkdirSync(deskDir, { mode: 448 });
		chmodSync(deskDir, 448);
	} catch (error) {
		if (error.code !== "EEXIST") {
			await engine.close();
			throw error;
		}
	}
	const warning = storeExposure(dir);
	if (warning !== void 0) options.onWarning?.(warning);
	return {
		engine,
		blobs: new FsBlobStore(join(dir, "blobs")),
		deskDir
	};
}
/**
* Opens the embedded fabric in a folder, acting as the store's local
* principal. Closing the fabric closes the store.
*/
async function openFabric(options) {
	const { engine, blobs } = await openStoreFolder(options.dir, { integrityCheck: options.integrityCheck });
	const close = async () => {
		await blobs.close();
		await engine.close();
	};
	try {
		return new EmbeddedFabric(engine, await localIdentity(engine), close, {
			masterKey: options.masterKey,
			blobs,
			memoryPolicy: options.memoryPolicy ?? {}
		});
	} catch (error) {
		await close();
		throw error;
	}
}
/** What a store folder holds at its top; the folder's 0700 is what keeps everything below private. */
const STORE_ENTRIES = [
	"cairn.db",
	"cairn.db-wal",
	"cairn.db-shm",
	"cairn.db-journal",
	"blobs",
	"desk",
	"config.json",
	"watch.sock"
];
const octal = (mode) => (mode & 4095).toString(8).padStart(4, "0");
function storePaths(dir) {
	const found = [];
	for (const path of [dir, ...STORE_ENTRIES.map((name) => join(dir, name))]) try {
		const st = path === dir ? statSync(path) : lstatSync(path);
		if (!st.isSymbolicLink()) found.push({
			path,
			mode: st.mode,
			isDir: st.isDirectory()
		});
	} catch (error) {
		if (error.code !== "ENOENT") throw error;
	}
	return found;
}
/** The store folder and the entries at its top that grant anything to group or others. */
function exposedStorePaths(dir) {
	return storePaths(dir).filter((p) => (p.mode & 63) !== 0).map((p) => ({
		path: p.path,
		mode: octal(p.mode)
	}));
}
/** Takes group's and others' access away (folders 0700, files 0600); what it changed, with the modes it found. */
function restrictStorePaths(dir) {
	const changed = [];
	for (const p of storePaths(dir)) {
		if ((p.mode & 63) === 0) continue;
		chmodSync(p.path, p.isDir ? 448 : 384);
		changed.push({
			path: p.path,
			mode: octal(p.mode)
		});
	}
	return changed;
}
/** A warning when other OS users may enter the store folder (and so read what it holds), else undefined (also for no store). */
function storeExposure(dir) {
	let mode;
	try {
		mode = statSync(dir).mode;
		statSync(join(dir, "cairn.db"));
	} catch {
		return;
	}
	if ((mode & 63) === 0) return void 0;
	return `warning: the store ${dir} is open to other users (mode ${octal(mode)}): they may read its memory and workspace files; run \`cairn doctor --fix --store ${dir}\``;
}
export { lockChain as A, lockTenant as C, actionCounts as D, GENESIS_HASH as E, RetryTransaction as F, inBatches as I, outerFirstJoin as L, canonicalJson as M, sha256Hex as N, appendAudit as O, tupleDigest as P, placeholders as R, localIdentity as S, tenantIds as T, authenticate as _, storeExposure as a, insertToken as b, RECALL_KEY_SPAN as c, featureOperations as d, bindOps as f, opContext as g, withHandlers as h, restrictStorePaths as i, payloadCommitment as j, entryHash as k, EmbeddedFabric as l, runOp as m, openFabric as n, store_folder_exports as o, refuseAudited as p, openStoreFolder as r, inSlices as s, exposedStorePaths as t, AT_CALLER as u, createTenant as v, revokeToken as w, loadIdentity as x, insertPrincipal as y, authorize as z };
