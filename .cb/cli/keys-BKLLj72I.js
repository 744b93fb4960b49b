import { A as invalidArgument, D as forbidden, F as unavailable, M as notFound, T as corrupt, w as conflict } from "./front-BpLyP2oj.js";
import { F as RetryTransaction, N as sha256Hex, O as appendAudit, R as placeholders, z as authorize } from "./store-folder-D53airw-.js";
import { a as newId, o as newSecret, t as parseInput } from "./validate-Dzwxqk5b.js";
import { s as branchOwner } from "./session-log-CJJ_c6sf.js";
import { n as grantState, r as narrowedGrant, t as decide } from "./grants-R8pMwGKE.js";
import { a as BranchName, u as CredentialName } from "./schema-akKHYQxY.js";
import { i as seal, n as newDataKey, r as open } from "./crypto-EPtFFJHI.js";
import { timingSafeEqual } from "node:crypto";
// dist/keys/rows.js
const GRANT_COLUMNS = "id, parent, session, branch, credential, mode, approval, allow, expires_at, max_uses, uses, on_behalf_of, created_by, created_at, revoked_at, revoked_by, revoke_reason";
const CREDENTIAL_COLUMNS = "id, name, kind, header, upstream, sandbox_upstream, master_key_id, wrapped_key, live_sealed, sandbox_sealed, version, created_by, created_at, rotated_at, proxy_options";
const APPROVAL_COLUMNS = "id, grant_id, session, branch, credential, method, url, body_digest, body_bytes, preview, state, requested_by, requested_at, expires_at, decided_by, decided_at, used_at";
const num = (v) => Number(v);
const numOrNull = (v) => v === null || v === void 0 ? null : Number(v);
function toGrant(r) {
	return {
		id: r.id,
		parent: r.parent,
		session: r.session,
		branch: r.branch,
		credential: r.credential,
		mode: r.mode,
		approval: r.approval,
		allow: JSON.parse(r.allow),
		expiresAt: numOrNull(r.expires_at),
		maxUses: numOrNull(r.max_uses),
		uses: num(r.uses),
		onBehalfOf: r.on_behalf_of,
		createdBy: r.created_by,
		createdAt: num(r.created_at),
		revokedAt: numOrNull(r.revoked_at),
		revokedBy: r.revoked_by,
		revokeReason: r.revoke_reason
	};
}
function proxyOptionsOf(r) {
	const parsed = JSON.parse(r.proxy_options || "{}");
	return {
		allowHeaders: parsed.allowHeaders ?? [],
		maxBodyBytes: parsed.maxBodyBytes ?? null
	};
}
function toCredential(r) {
	return {
		...proxyOptionsOf(r),
		id: r.id,
		name: r.name,
		kind: r.kind,
		header: r.header,
		upstream: r.upstream,
		sandboxUpstream: r.sandbox_upstream,
		version: num(r.version),
		masterKeyId: r.master_key_id,
		createdBy: r.created_by,
		createdAt: num(r.created_at),
		rotatedAt: num(r.rotated_at)
	};
}
function toApproval(r) {
	return {
		id: r.id,
		grant: r.grant_id,
		session: r.session,
		branch: r.branch,
		credential: r.credential,
		method: r.method,
		url: r.url,
		bodyDigest: r.body_digest,
		bodyBytes: num(r.body_bytes),
		preview: r.preview,
		state: r.state,
		requestedBy: r.requested_by,
		requestedAt: num(r.requested_at),
		expiresAt: num(r.expires_at),
		decidedBy: r.decided_by,
		decidedAt: numOrNull(r.decided_at),
		usedAt: numOrNull(r.used_at)
	};
}
// dist/keys/approvals.js
const DEFAULT_APPROVAL_TIMEOUT_MS = 3e5;
/**
* Approvals of single requests: a write held for a person's decision is
* recorded pending, decided once (approve or deny), and an approved one is
* used by exactly the request it was given for, once.
*/
var Approvals = class {
	context;
	grants;
	constructor(context, grants) {
		this.context = context;
		this.grants = grants;
	}
	/** Records a pending approval for a held request; `preview` is already redacted. */
	async requestApproval(tx, grant, agent, input) {
		const at = this.context.now();
		const row = {
			id: newId("approval", at),
			grant_id: grant.id,
			session: grant.session,
			branch: grant.branch,
			credential: grant.credential,
			method: input.method,
			url: input.url,
			body_digest: input.body.digest,
			body_bytes: input.body.bytes,
			preview: input.preview,
			state: "pending",
			requested_by: agent,
			requested_at: at,
			expires_at: at + input.timeoutMs,
			decided_by: "",
			decided_at: null,
			used_at: null
		};
		await tx.run(`INSERT INTO key_approvals (tenant, ${APPROVAL_COLUMNS}) VALUES (${placeholders(18)})`, [
			this.context.tenant,
			row.id,
			row.grant_id,
			row.session,
			row.branch,
			row.credential,
			row.method,
			row.url,
			row.body_digest,
			row.body_bytes,
			row.preview,
			row.state,
			row.requested_by,
			row.requested_at,
			row.expires_at,
			"",
			null,
			null
		]);
		await this.context.audit(tx, "keys.approval.request", "approval", row.id, {
			...this.context.attribution(grant, agent),
			grant: grant.id,
			method: row.method,
			url: row.url,
			bodyDigest: row.body_digest
		}, agent);
		return toApproval(row);
	}
	/** Marks an approved approval used for exactly this request; a reason string when it cannot be. */
	async consumeApproval(tx, id, grant, method, url, bodyDigest, at) {
		const row = await tx.get(`SELECT ${APPROVAL_COLUMNS} FROM key_approvals WHERE tenant = ? AND id = ?`, [this.context.tenant, id]);
		if (!row) return `approval ${id} is unknown`;
		if (row.state === "used") return `approval ${id} was already used: an approval is good for one request`;
		if (row.state !== "approved") return `approval ${id} is ${row.state}, not approved`;
		if (num(row.expires_at) <= at) return `approval ${id} expired`;
		if (row.grant_id !== grant || row.method !== method || row.url !== url || row.body_digest !== bodyDigest) return `approval ${id} was given for another request (method, URL and body must match exactly)`;
		if (await tx.run("UPDATE key_approvals SET state = 'used', used_at = ? WHERE tenant = ? AND id = ? AND state = 'approved'", [
			at,
			this.context.tenant,
			id
		]) !== 1) throw new RetryTransaction(`approval ${id} was used meanwhile`);
	}
	async getApproval(id) {
		authorize(this.context.who, "keys.read");
		const row = await this.context.engine.read(this.context.tenant, (tx) => tx.get(`SELECT ${APPROVAL_COLUMNS} FROM key_approvals WHERE tenant = ? AND id = ?`, [this.context.tenant, id]));
		if (!row) throw notFound("approval", id);
		return toApproval(row);
	}
	/** Approvals, pending ones by default; a pending approval past its time is shown as expired. */
	async listApprovals(filter = {}) {
		authorize(this.context.who, "keys.read");
		const state = filter.state ?? "pending";
		const now = this.context.now();
		const [where, params] = state === "all" ? ["", []] : state === "pending" ? [" AND state = 'pending' AND expires_at > ?", [now]] : state === "expired" ? [" AND (state = 'expired' OR (state = 'pending' AND expires_at <= ?))", [now]] : [" AND state = ?", [state]];
		return (await this.context.engine.read(this.context.tenant, (tx) => tx.all(`SELECT ${APPROVAL_COLUMNS} FROM key_approvals WHERE tenant = ?${where} ORDER BY id`, [this.context.tenant, ...params]))).map(toApproval).map((a) => a.state === "pending" && a.expiresAt <= now ? {
			...a,
			state: "expired"
		} : a);
	}
	/**
	* A person's decision on a pending approval. Deciding twice, or after the
	* approval expired, is CONFLICT: an approval is single-use and never replayed.
	*/
	async decide(id, verdict, note = "") {
		const { who, tenant } = this.context;
		authorize(who, "keys.approve");
		return this.context.engine.write(tenant, async (tx) => {
			const row = await tx.get(`SELECT ${APPROVAL_COLUMNS} FROM key_approvals WHERE tenant = ? AND id = ? ${tx.lockRows}`, [tenant, id]);
			if (!row) throw notFound("approval", id);
			const at = this.context.now();
			const state = row.state === "pending" && num(row.expires_at) <= at ? "expired" : row.state;
			if (state !== "pending") throw conflict(`approval ${id} is ${state}: only a pending approval can be decided, once`, {
				approval: id,
				state
			});
			const next = verdict === "approve" ? "approved" : "denied";
			if (await tx.run("UPDATE key_approvals SET state = ?, decided_by = ?, decided_at = ? WHERE tenant = ? AND id = ? AND state = 'pending'", [
				next,
				who.principal,
				at,
				tenant,
				id
			]) !== 1) throw new RetryTransaction(`approval ${id} was decided meanwhile`);
			const grant = await this.grants.grantRow(tx, row.grant_id);
			await this.context.audit(tx, `keys.approval.${verdict}`, "approval", id, {
				...grant ? this.context.attribution(grant, row.requested_by) : {},
				approver: who.principal,
				method: row.method,
				url: row.url,
				bodyDigest: row.body_digest,
				note
			});
			return toApproval({
				...row,
				state: next,
				decided_by: who.principal,
				decided_at: at
			});
		});
	}
	/** Marks a pending approval expired (the proxy stopped holding its request); a no-op once decided. */
	async expireApproval(id) {
		await this.context.engine.write(this.context.tenant, async (tx) => {
			if (await tx.run("UPDATE key_approvals SET state = 'expired', decided_at = ? WHERE tenant = ? AND id = ? AND state = 'pending'", [
				this.context.now(),
				this.context.tenant,
				id
			]) > 0) await this.context.audit(tx, "keys.approval.expire", "approval", id, {});
		});
	}
};
// dist/keys/context.js
/**
* What every module of the keys layer shares: the engine, the caller, the
* clock, and the rules that hold across them — every change and use is an
* audit entry in the caller's transaction, and a member acts only on the
* keys of branches it owns.
*/
var KeysContext = class {
	engine;
	who;
	now;
	constructor(options) {
		this.engine = options.engine;
		this.who = options.who;
		this.now = options.now;
	}
	get tenant() {
		return this.who.tenant;
	}
	audit(tx, action, resourceType, resourceId, payload, actor = this.who.principal) {
		return appendAudit(tx, {
			tenant: this.tenant,
			actor,
			action,
			resourceType,
			resourceId,
			payload,
			at: this.now()
		});
	}
	/**
	* The branch must exist; and a member acts on the keys of branches it
	* owns only: it may narrow a grant of its branch into another of its
	* branches, take a handle for, or revoke a grant of, a branch it owns. An
	* admin (the person) acts on any.
	*/
	async requireBranch(tx, session, branch, what) {
		const owner = await branchOwner(tx, this.tenant, session, branch);
		if (owner === null) throw notFound("branch", `${session}/${branch}`);
		if (this.who.role !== "admin" && owner !== this.who.principal) throw forbidden(`principal ${this.who.principal} does not own branch ${branch}: only its owner or an admin may ${what}`, {
			branch,
			principal: this.who.principal
		});
	}
	/** Who an audit entry about a grant's use names: user → agent → branch, and the credential. */
	attribution(grant, agent = this.who.principal) {
		return {
			user: grant.onBehalfOf,
			agent,
			session: grant.session,
			branch: grant.branch,
			credential: grant.credential
		};
	}
};
// dist/keys/env-injection.js
/**
* Environment injection: an `env` credential's value handed to one child
* process of a branch (`cairn exec --env-cred`), where no proxy stands
* between the process and the secret.
*/
var EnvInjection = class {
	context;
	vault;
	grants;
	constructor(context, vault, grants) {
		this.context = context;
		this.vault = vault;
		this.grants = grants;
	}
	/**
	* The value of an `env` credential for one child process of a branch,
	* allowed only by an active grant of that branch on it; the use is audited.
	*/
	async envForChild(input) {
		authorize(this.context.who, "keys.handle");
		return this.context.engine.write(this.context.tenant, async (tx) => {
			const at = this.context.now();
			await this.context.requireBranch(tx, input.session, input.branch, "inject its credentials");
			const cred = await this.vault.credentialRow(tx, input.credential);
			if (!cred) throw notFound("credential", input.credential);
			if (cred.kind !== "env") throw invalidArgument(`credential ${cred.name} is a ${cred.kind} credential: it is used through the proxy, never put in an environment`);
			const grants = await this.grants.branchGrants(tx, input.session, input.branch, cred.name);
			for (const grant of grants) {
				const chain = await this.grants.chain(tx, grant);
				if (grant.mode === "read" || grant.approval === "each-write") continue;
				if (chain.some((g) => grantState(g, at) !== "active")) continue;
				await this.grants.countUse(tx, chain);
				await this.context.audit(tx, "keys.use", "grant", grant.id, {
					...this.context.attribution(grant),
					grant: grant.id,
					mode: grant.mode,
					injected: cred.header
				});
				const values = this.vault.openRow(cred);
				const value = grant.mode === "sandbox" ? values.sandbox : values.live;
				if (value === "") throw corrupt(`credential ${cred.name} has no sandbox value to inject`);
				return {
					variable: cred.header,
					value,
					grant: grant.id
				};
			}
			throw forbidden(`branch ${input.branch} holds no active sandbox or live grant without each-write on ${cred.name}: grant one before injecting it`, {
				credential: cred.name,
				branch: input.branch
			});
		});
	}
};
// dist/keys/grant-store.js
/**
* Grants as stored: issuing (root or narrowed), revoking down the chain,
* reading, and counting uses. What a grant allows is decided by the pure
* functions of `grants.ts`.
*/
var GrantStore = class {
	context;
	vault;
	constructor(context, vault) {
		this.context = context;
		this.vault = vault;
	}
	/** A branch's grants on one credential, oldest first. */
	async branchGrants(tx, session, branch, credential) {
		return (await tx.all(`SELECT ${GRANT_COLUMNS} FROM key_grants WHERE tenant = ? AND session = ? AND branch = ? AND credential = ? ORDER BY id`, [
			this.context.tenant,
			session,
			branch,
			credential
		])).map(toGrant);
	}
	async grantRow(tx, id) {
		const row = await tx.get(`SELECT ${GRANT_COLUMNS} FROM key_grants WHERE tenant = ? AND id = ?`, [this.context.tenant, id]);
		return row ? toGrant(row) : void 0;
	}
	/** The grant and its ancestors, leaf first. */
	async chain(tx, grant) {
		const chain = [grant];
		let at = grant;
		while (at.parent !== "") {
			const parent = await this.grantRow(tx, at.parent);
			if (!parent) throw corrupt(`grant ${at.id} names a missing parent ${at.parent}`);
			chain.push(parent);
			at = parent;
		}
		return chain;
	}
	/**
	* Everything a grant must satisfy besides its target branch existing: the
	* credential exists and can serve the mode; the parent (if any) is on the
	* same credential and session, is active with all its ancestors, belongs
	* to a branch the caller may narrow from, and the grant only narrows it.
	* Returns the grant's shape; writes nothing.
	*/
	async planGrant(tx, input, at) {
		const cred = await this.vault.credentialRow(tx, input.credential);
		if (!cred) throw notFound("credential", input.credential);
		let parent = null;
		if (input.parent) {
			parent = await this.grantRow(tx, input.parent) ?? null;
			if (!parent) throw notFound("grant", input.parent);
			await this.context.requireBranch(tx, parent.session, parent.branch, "narrow its grants");
			if (parent.credential !== input.credential) throw invalidArgument(`grant ${parent.id} is for credential ${parent.credential}, not ${input.credential}`);
			if (parent.session !== input.session) throw invalidArgument(`grant ${parent.id} belongs to another session`, { parent: parent.id });
			const ended = (await this.chain(tx, parent)).find((g) => grantState(g, at) !== "active");
			if (ended) throw forbidden(`grant ${ended.id} is ${grantState(ended, at)}: it cannot be narrowed`, { grant: ended.id });
		}
		if (input.mode === "sandbox" && cred.sandbox_sealed === null) throw invalidArgument(`credential ${cred.name} has no sandbox variant: add one before a sandbox grant`);
		if (cred.kind === "env" && input.approval === "each-write") throw invalidArgument(`credential ${cred.name} goes into a process's environment, where no single write can be held for approval: grant it without each-write, or use an HTTP credential through the proxy`);
		const hosts = [cred.upstream, cred.sandbox_upstream].filter((u) => u !== "").map((u) => new URL(u).host);
		return {
			cred,
			parent,
			shape: narrowedGrant(parent, input, hosts.length > 0 ? hosts : ["localhost"], at)
		};
	}
	/**
	* Checks a grant that a branch still to be made would get (a fork checks
	* every grant before it makes anything): throws as `grant` would; writes nothing.
	*/
	async checkGrant(input) {
		authorize(this.context.who, input.parent ? "keys.grant.narrow" : "keys.grant.root");
		await this.context.engine.read(this.context.tenant, (tx) => this.planGrant(tx, input, this.context.now()));
	}
	/**
	* Issues a grant to a branch. With `parent`, it narrows that grant (which
	* must be active, on the same credential, and belong to the same session);
	* without, it is a root grant, for an admin: the person the branch acts for.
	*/
	async grant(input) {
		const { who, tenant } = this.context;
		authorize(who, input.parent ? "keys.grant.narrow" : "keys.grant.root");
		parseInput(BranchName, input.branch, "grant");
		return this.context.engine.write(tenant, async (tx) => {
			const at = this.context.now();
			await this.context.requireBranch(tx, input.session, input.branch, "be given a grant by a member");
			const { cred, parent, shape } = await this.planGrant(tx, input, at);
			const grant = {
				id: newId("grant", at),
				parent: parent?.id ?? "",
				session: input.session,
				branch: input.branch,
				credential: cred.name,
				...shape,
				uses: 0,
				onBehalfOf: parent?.onBehalfOf ?? who.principal,
				createdBy: who.principal,
				createdAt: at,
				revokedAt: null,
				revokedBy: "",
				revokeReason: ""
			};
			await tx.run(`INSERT INTO key_grants (tenant, ${GRANT_COLUMNS}) VALUES (${placeholders(18)})`, [
				tenant,
				grant.id,
				grant.parent,
				grant.session,
				grant.branch,
				grant.credential,
				grant.mode,
				grant.approval,
				JSON.stringify(grant.allow),
				grant.expiresAt,
				grant.maxUses,
				0,
				grant.onBehalfOf,
				grant.createdBy,
				grant.createdAt,
				null,
				"",
				""
			]);
			await this.context.audit(tx, "keys.grant.create", "grant", grant.id, {
				...this.context.attribution(grant),
				parent: grant.parent,
				mode: grant.mode,
				approval: grant.approval,
				allow: grant.allow,
				expiresAt: grant.expiresAt,
				maxUses: grant.maxUses
			});
			return grant;
		});
	}
	/** Revokes a grant and every grant narrowed from it, at any depth, in one transaction. */
	async revoke(id, reason = "") {
		const { who, tenant } = this.context;
		authorize(who, "keys.grant.narrow");
		return this.context.engine.write(tenant, async (tx) => {
			const grant = await this.grantRow(tx, id);
			if (!grant) throw notFound("grant", id);
			await this.context.requireBranch(tx, grant.session, grant.branch, "revoke its grants");
			const at = this.context.now();
			const revoked = [];
			const queue = [grant.id];
			while (queue.length > 0) {
				const next = queue.shift();
				if (await tx.run("UPDATE key_grants SET revoked_at = ?, revoked_by = ?, revoke_reason = ? WHERE tenant = ? AND id = ? AND revoked_at IS NULL", [
					at,
					who.principal,
					next === id ? reason : `parent ${id} revoked`,
					tenant,
					next
				]) > 0) revoked.push(next);
				const children = await tx.all("SELECT id FROM key_grants WHERE tenant = ? AND parent = ?", [tenant, next]);
				queue.push(...children.map((c) => c.id));
			}
			await this.context.audit(tx, "keys.grant.revoke", "grant", id, {
				...this.context.attribution(grant),
				reason,
				revoked
			});
			return { revoked };
		});
	}
	async getGrant(id) {
		authorize(this.context.who, "keys.read");
		const grant = await this.context.engine.read(this.context.tenant, (tx) => this.grantRow(tx, id));
		if (!grant) throw notFound("grant", id);
		return grant;
	}
	async listGrants(filter = {}) {
		authorize(this.context.who, "keys.read");
		const tenant = this.context.tenant;
		const where = [
			"tenant = ?",
			...filter.session === void 0 ? [] : ["session = ?"],
			...filter.branch === void 0 ? [] : ["branch = ?"]
		];
		const params = [tenant, ...[filter.session, filter.branch].filter((v) => v !== void 0)];
		const rows = await this.context.engine.read(tenant, (tx) => tx.all(`SELECT ${GRANT_COLUMNS} FROM key_grants WHERE ${where.join(" AND ")} ORDER BY id`, params));
		const now = this.context.now();
		return rows.map(toGrant).map((g) => ({
			...g,
			state: grantState(g, now)
		}));
	}
	/**
	* Counts one use on every grant of the chain, each only while it is still
	* active. Another transaction may have used up or revoked one since it was
	* read (PostgreSQL runs writers concurrently): then the whole decision is
	* taken again, and this time refused.
	*/
	async countUse(tx, chain) {
		for (const g of chain) if (await tx.run("UPDATE key_grants SET uses = uses + 1 WHERE tenant = ? AND id = ? AND revoked_at IS NULL AND (max_uses IS NULL OR uses < max_uses)", [this.context.tenant, g.id]) !== 1) throw new RetryTransaction(`grant ${g.id} changed while a use was counted`);
	}
};
// dist/keys/handles.js
/** `cbh.<tenant>.<handle id>.<secret>`: only the secret's hash is stored. */
const HANDLE_PATTERN = /^cbh\.(tn_[0-9a-z]{26})\.(hd_[0-9a-z]{26})\.([0-9a-z]{52})$/;
/** The tenant a handle names (the proxy serves every tenant of its store). */
function handleTenant(handle) {
	return HANDLE_PATTERN.exec(handle)?.[1];
}
/** Branch handles: issuing and revoking them, and resolving the one a request presents. */
var Handles = class {
	context;
	constructor(context) {
		this.context = context;
	}
	/**
	* A branch handle: what a branch's process presents to the proxy. It is
	* returned once; only its hash is stored. It gives exactly what the
	* branch's grants give, and nothing after they end or it is revoked.
	*/
	async issueHandle(input) {
		const { who, tenant } = this.context;
		authorize(who, "keys.handle");
		if (input.ttlMs !== void 0 && (!Number.isSafeInteger(input.ttlMs) || input.ttlMs < 1)) throw invalidArgument("a handle ttl is a whole number of milliseconds ≥ 1");
		const at = this.context.now();
		const id = newId("handle", at);
		const secret = newSecret();
		const expiresAt = input.ttlMs === void 0 ? null : at + input.ttlMs;
		await this.context.engine.write(tenant, async (tx) => {
			await this.context.requireBranch(tx, input.session, input.branch, "take a handle for it");
			await tx.run("INSERT INTO key_handles (tenant, id, session, branch, principal, secret_hash, created_at, expires_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL)", [
				tenant,
				id,
				input.session,
				input.branch,
				who.principal,
				sha256Hex(secret),
				at,
				expiresAt
			]);
			await this.context.audit(tx, "keys.handle.issue", "handle", id, {
				agent: who.principal,
				session: input.session,
				branch: input.branch,
				expiresAt
			});
		});
		return {
			handle: `cbh.${tenant}.${id}.${secret}`,
			id,
			session: input.session,
			branch: input.branch,
			principal: who.principal,
			createdAt: at,
			expiresAt,
			revokedAt: null
		};
	}
	async revokeHandle(id) {
		const { who, tenant } = this.context;
		authorize(who, "keys.handle");
		await this.context.engine.write(tenant, async (tx) => {
			if (await tx.run(`UPDATE key_handles SET revoked_at = ? WHERE tenant = ? AND id = ? AND revoked_at IS NULL${who.role === "admin" ? "" : " AND principal = ?"}`, [
				this.context.now(),
				tenant,
				id,
				...who.role === "admin" ? [] : [who.principal]
			]) === 0) throw notFound("handle", id);
			await this.context.audit(tx, "keys.handle.revoke", "handle", id, {});
		});
	}
	/** The handle a presented string names if it is valid at `at`; else why not, as a sentence. */
	async resolveHandle(tx, handle, at) {
		const tenant = this.context.tenant;
		const match = HANDLE_PATTERN.exec(handle);
		if (!match || match[1] !== tenant) return "the branch handle is missing or malformed";
		const row = await tx.get("SELECT id, session, branch, principal, secret_hash, created_at, expires_at, revoked_at FROM key_handles WHERE tenant = ? AND id = ?", [tenant, match[2]]);
		if (!row) return "the branch handle is unknown";
		const expected = Buffer.from(row.secret_hash, "hex");
		if (!timingSafeEqual(expected, Buffer.from(sha256Hex(match[3]), "hex"))) return "the branch handle is unknown";
		if (row.revoked_at !== null) return `branch handle ${row.id} was revoked`;
		if (row.expires_at !== null && num(row.expires_at) <= at) return `branch handle ${row.id} expired`;
		return {
			id: row.id,
			session: row.session,
			branch: row.branch,
			principal: row.principal,
			createdAt: num(row.created_at),
			expiresAt: numOrNull(row.expires_at),
			revokedAt: null
		};
	}
};
// dist/keys/proxy/paths.js
/** Characters some server, runtime or filesystem folds to `.`. */
const DOT_LOOKALIKES = /* @__PURE__ */ new Set([
	"․",
	"‥",
	"…",
	"﹒",
	"．",
	"。",
	"｡",
	"։",
	"۔",
	"܁",
	"܂",
	"ꓸ",
	"꘎",
	"⸼",
	"·",
	"∙"
]);
/** Characters some server folds to `/` or `\`. */
const SEPARATOR_LOOKALIKES = /* @__PURE__ */ new Set([
	"／",
	"∕",
	"⁄",
	"⧸",
	"＼",
	"∖",
	"﹨",
	"⧹"
]);
/** Control, format (zero-width, bidi), separator and whitespace characters, and backslash. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Z}\s\\]/u;
const ESCAPE = /%[0-9a-fA-F]{2}/;
/** `.`, `..`, `...`, each also with `;params` (`..;x` is `..` to Tomcat and Spring). */
const DOT_SEGMENT = /^\.+(;.*)?$/;
function describe(c) {
	const code = c.codePointAt(0) ?? 0;
	return code === 0 ? "NUL" : `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
}
/** Why a form of the path is ambiguous, or undefined when it is plain. */
function ambiguity(form) {
	const invisible = INVISIBLE.exec(form);
	if (invisible) return invisible[0] === "\\" ? "a backslash" : `a control or whitespace character (${describe(invisible[0])})`;
	for (const c of form) {
		if (c.charCodeAt(0) < 128) continue;
		if (DOT_LOOKALIKES.has(c) || SEPARATOR_LOOKALIKES.has(c)) return `a look-alike of . or / (${describe(c)})`;
		if (/[./\\%]/.test(c.normalize("NFKC"))) return `a character that folds to . / \\ or % (${describe(c)})`;
	}
	if (form.split("/").some((s) => DOT_SEGMENT.test(s))) return "a . or .. segment";
}
/**
* Judges a request path (without query) before it is matched against a
* grant: it must start with `/`, be printable ASCII as sent, decode to valid
* UTF-8 (an overlong form such as `%C0%AE` is not), hold no double encoding,
* and — as sent and decoded — no dot segment, control character,
* whitespace, backslash or look-alike of `.` or `/`.
*/
function judgePath(rawPath) {
	const refuse = (why) => ({
		ok: false,
		reason: `path ${truncatePath(rawPath)} holds ${why}: give a plain path under the credential's upstream (no . or .. segments, no encoded separators or controls)`
	});
	if (!rawPath.startsWith("/")) return refuse("no leading /");
	if (!/^[\x21-\x7e]*$/.test(rawPath)) return refuse("a byte that is not printable ASCII (percent-encode it)");
	const sent = ambiguity(rawPath);
	if (sent) return refuse(sent);
	let decoded;
	try {
		decoded = decodeURIComponent(rawPath);
	} catch {
		return refuse("percent-encoding that is not valid UTF-8 (an overlong or cut sequence)");
	}
	const once = ambiguity(decoded);
	if (once) return refuse(`${once} once percent-decoded`);
	if (ESCAPE.test(decoded)) return refuse("double percent-encoding");
	const folded = decoded.normalize("NFKC");
	if (folded !== decoded) {
		const again = ambiguity(folded);
		if (again) return refuse(`${again} after Unicode folding`);
	}
	return {
		ok: true,
		decoded
	};
}
/** A path cut for messages and audit entries: a refused path may be as long as a header allows. */
function truncatePath(path, max = 128) {
	return path.length <= max ? path : `${path.slice(0, max)}…(${path.length} chars)`;
}
// dist/keys/request-decision.js
const PREVIEW_HEAD_BYTES = 8192;
const PREVIEW_BYTES = 2048;
function bodyRefOf(body) {
	return Buffer.isBuffer(body) ? {
		bytes: body.length,
		digest: sha256Hex(body),
		head: body.subarray(0, PREVIEW_HEAD_BYTES)
	} : body;
}
const SECRET_FIELD = /pass|secret|token|key|auth|card|cvv|iban|ssn|cookie|session/i;
/**
* A body preview a person can read without seeing secrets: JSON values under
* secret-looking keys are replaced, and so is every vault value the caller
* names; the text is cut at PREVIEW_BYTES.
*/
function redactPreview(body, secrets) {
	let text = body.subarray(0, PREVIEW_BYTES * 4).toString("utf8");
	try {
		const redact = (v) => {
			if (Array.isArray(v)) return v.map(redact);
			if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, SECRET_FIELD.test(k) ? "[redacted]" : redact(x)]));
			return v;
		};
		text = JSON.stringify(redact(JSON.parse(text)));
	} catch {}
	for (const s of secrets) if (s.length >= 4) text = text.split(s).join("[redacted]");
	return text.length > PREVIEW_BYTES ? `${text.slice(0, PREVIEW_BYTES)}…` : text;
}
/**
* The upstream URL for a path, refused when the path is ambiguous to an
* upstream (`judgePath`) or would leave the upstream's base path.
*/
function targetUrl(upstream, pathAndQuery) {
	const [rawPath = "/", query] = pathAndQuery.split(/\?(.*)/s, 2);
	const verdict = judgePath(rawPath);
	if (!verdict.ok) return {
		reason: verdict.reason,
		rule: "path_not_plain"
	};
	const base = upstream.pathname.endsWith("/") ? upstream.pathname : `${upstream.pathname}/`;
	const url = new URL(upstream.href);
	url.pathname = base + rawPath.slice(1);
	url.search = query ? `?${query}` : "";
	if (url.origin !== upstream.origin || !url.pathname.startsWith(base)) return {
		reason: `path ${truncatePath(rawPath)} leaves the credential's upstream`,
		rule: "path_leaves_upstream"
	};
	return {
		url,
		path: `/${url.pathname.slice(base.length)}`,
		decodedPath: verdict.decoded
	};
}
/**
* The proxy's side of the keys layer: the decision on one proxied request
* (forward with the secret injected, hold for approval, or refuse), the
* check before a body is read, and the audit entries of what the proxy
* refused or cut on its own.
*/
var RequestDecision = class {
	context;
	vault;
	grants;
	handles;
	approvals;
	constructor(context, parts) {
		this.context = context;
		this.vault = parts.vault;
		this.grants = parts.grants;
		this.handles = parts.handles;
		this.approvals = parts.approvals;
	}
	/**
	* Decides one proxied request, in one transaction: resolves the handle,
	* the credential and the branch's grants on it, applies the mode and
	* allow-list, counts the use and audits it — or audits the denial. A
	* write that needs approval is recorded as a pending approval and held;
	* with `approval` set, that approval is consumed if it matches exactly.
	*/
	async authorizeRequest(request, options = {}) {
		const method = request.method.toUpperCase();
		const body = bodyRefOf(request.body);
		const bodyDigest = body.digest;
		const hasBody = request.hasBody ?? body.bytes > 0;
		const dropped = request.droppedHeaders?.length ? { droppedHeaders: request.droppedHeaders } : {};
		return this.context.engine.write(this.context.tenant, async (tx) => {
			const at = this.context.now();
			const handle = await this.handles.resolveHandle(tx, request.handle, at);
			const deny = async (message, rule, extra, status = 403) => {
				const refusal = {
					outcome: "deny",
					status,
					code: status === 404 ? "NOT_FOUND" : "FORBIDDEN",
					message,
					rule
				};
				if (rule === "handle" && options.auditHandleRefusals === false) return refusal;
				if (rule !== "handle" && options.auditDenial && !options.auditDenial(rule, message)) return refusal;
				await this.context.audit(tx, "keys.deny", "credential", request.credential, {
					...typeof handle === "string" ? { agent: "" } : {
						agent: handle.principal,
						session: handle.session,
						branch: handle.branch
					},
					credential: request.credential,
					method,
					path: truncatePath(request.pathAndQuery.split("?")[0] ?? ""),
					...options.bodyUnread ? { bodyUnread: true } : { bodyDigest },
					bodyBytes: body.bytes,
					reason: message,
					rule,
					...dropped,
					...extra
				}, typeof handle === "string" ? this.context.who.principal : handle.principal);
				return refusal;
			};
			if (typeof handle === "string") return deny(`${handle}: pass the handle from \`cairn exec --branch\` as x-cairn-handle`, "handle", {});
			const cred = await this.vault.credentialRow(tx, request.credential);
			if (!cred) return deny(`credential ${request.credential} is unknown: see \`cairn cred ls\``, "credential_unknown", {}, 404);
			if (cred.kind === "env") return deny(`credential ${cred.name} is an environment credential: it is injected by \`cairn exec --env-cred\`, not proxied`, "credential_env", {});
			const grants = await this.grants.branchGrants(tx, handle.session, handle.branch, cred.name);
			if (grants.length === 0) return deny(`branch ${handle.branch} holds no grant on credential ${cred.name}: a fork never copies a grant`, "no_grant", {});
			let reason = "";
			let reasonRule = "no_grant";
			for (const grant of grants) {
				const routed = targetUrl(new URL(grant.mode === "sandbox" ? cred.sandbox_upstream : cred.upstream), request.pathAndQuery);
				if ("reason" in routed) return deny(routed.reason, routed.rule, { grant: grant.id });
				const { url: target, path, decodedPath } = routed;
				const chain = await this.grants.chain(tx, grant);
				const shape = {
					method,
					host: target.host,
					path,
					decodedPath,
					hasBody
				};
				const decision = decide(chain, shape, at);
				if (!decision.allowed) {
					if (!reason) {
						reason = decision.reason;
						reasonRule = decision.rule;
					}
					continue;
				}
				if (options.bodyUnread) return { outcome: "read_body" };
				const who = this.context.attribution(grant, handle.principal);
				const described = {
					...who,
					grant: grant.id,
					mode: grant.mode,
					method,
					url: target.href,
					bodyDigest,
					...hasBody ? { bodyBytes: body.bytes } : {},
					...dropped
				};
				let approvalId;
				if (decision.needsApproval) {
					if (request.approval === void 0) {
						const values = this.vault.openRow(cred);
						return {
							outcome: "hold",
							approval: await this.approvals.requestApproval(tx, grant, handle.principal, {
								method,
								url: target.href,
								body,
								preview: redactPreview(body.head, [values.live, values.sandbox]),
								timeoutMs: options.approvalTimeoutMs ?? 3e5
							}),
							grant: grant.id
						};
					}
					const problem = await this.approvals.consumeApproval(tx, request.approval, grant.id, method, target.href, bodyDigest, at);
					if (problem) return deny(problem, "approval", {
						grant: grant.id,
						approval: request.approval
					});
					approvalId = request.approval;
				}
				await this.grants.countUse(tx, chain);
				await this.context.audit(tx, "keys.use", "grant", grant.id, {
					...described,
					...approvalId ? { approval: approvalId } : {}
				}, handle.principal);
				return {
					outcome: "forward",
					url: target.href,
					inject: this.inject(cred, grant.mode),
					grant: grant.id,
					...approvalId ? { approval: approvalId } : {},
					options: proxyOptionsOf(cred),
					attribution: {
						...who,
						grant: grant.id,
						mode: grant.mode
					}
				};
			}
			return deny(reason, reasonRule, { grants: grants.map((g) => g.id) });
		});
	}
	/**
	* What the proxy checks before it reads a body, in one read: the handle is
	* valid (else the reason, for a bounded audit by the caller), the
	* credential's proxy options (its body limit), and whether the body can
	* change the answer at all — false when the request is refused whatever
	* it carries (unknown credential, a path no grant allows, a grant that can
	* never write: `read`). Writes nothing; the refusal itself is decided and
	* audited by `authorizeRequest` with `bodyUnread`.
	*/
	async proxyPreflight(handle, credential, request) {
		return this.context.engine.read(this.context.tenant, async (tx) => {
			const at = this.context.now();
			const resolved = await this.handles.resolveHandle(tx, handle, at);
			if (typeof resolved === "string") return { handle: resolved };
			const cred = await this.vault.credentialRow(tx, credential);
			if (!cred) return {
				handle: "ok",
				options: null,
				bodyMatters: false
			};
			const options = proxyOptionsOf(cred);
			if (!request) return {
				handle: "ok",
				options,
				bodyMatters: true
			};
			let bodyMatters = false;
			if (cred.kind !== "env") for (const grant of await this.grants.branchGrants(tx, resolved.session, resolved.branch, cred.name)) {
				const routed = targetUrl(new URL(grant.mode === "sandbox" ? cred.sandbox_upstream : cred.upstream), request.pathAndQuery);
				if ("reason" in routed) break;
				const shape = {
					method: request.method.toUpperCase(),
					host: routed.url.host,
					path: routed.path,
					decodedPath: routed.decodedPath,
					hasBody: true
				};
				if (decide(await this.grants.chain(tx, grant), shape, at).allowed) {
					bodyMatters = true;
					break;
				}
			}
			return {
				handle: "ok",
				options,
				bodyMatters
			};
		});
	}
	/** Audits refusals of requests without a valid handle, one or a window's count (the proxy's RefusalLimiter). */
	async recordHandleRefusal(record) {
		await this.context.engine.write(this.context.tenant, async (tx) => {
			await this.context.audit(tx, "keys.deny", "credential", record.credential.slice(0, 64), {
				agent: "",
				rule: "handle",
				...record,
				credential: record.credential.slice(0, 64)
			});
		});
	}
	/**
	* Audits what the proxy refused or cut after (or without) a decision: a
	* body over the limit (`keys.deny`), an upstream answer that echoed the
	* secret (`keys.leak`). Attributed to the handle's branch when it is valid.
	*/
	async recordProxyEvent(action, request, details) {
		await this.context.engine.write(this.context.tenant, async (tx) => {
			const handle = await this.handles.resolveHandle(tx, request.handle, this.context.now());
			const who = typeof handle === "string" ? { agent: "" } : {
				agent: handle.principal,
				session: handle.session,
				branch: handle.branch
			};
			await this.context.audit(tx, action, "credential", request.credential, {
				...who,
				credential: request.credential,
				method: request.method.toUpperCase(),
				path: truncatePath(request.pathAndQuery.split("?")[0] ?? ""),
				...details
			}, typeof handle === "string" ? this.context.who.principal : handle.principal);
		});
	}
	/** The headers that carry a credential's secret for a grant's mode. */
	inject(cred, mode) {
		const values = this.vault.openRow(cred);
		const secret = mode === "sandbox" ? values.sandbox : values.live;
		switch (cred.kind) {
			case "bearer": return { authorization: `Bearer ${secret}` };
			case "basic": return { authorization: `Basic ${Buffer.from(secret).toString("base64")}` };
			default: return { [cred.header]: secret };
		}
	}
};
// dist/keys/proxy/headers.js
/**
* Headers cross the proxy by allow-list, both ways. A request header the
* agent sends reaches the upstream only if a client API needs it end to end
* (content type, accept*, user agent, idempotency keys, request ids,
* conditionals) or the credential lists it; routing overrides never pass,
* listed or not: to a server behind a gateway, `X-Original-URL` or
* `X-HTTP-Method-Override` is another request than the one the grant allowed.
*/
const DEFAULT_REQUEST_HEADERS = /* @__PURE__ */ new Set([
	"accept",
	"accept-charset",
	"accept-language",
	"cache-control",
	"content-encoding",
	"content-language",
	"content-type",
	"idempotency-key",
	"if-match",
	"if-modified-since",
	"if-none-match",
	"if-range",
	"if-unmodified-since",
	"range",
	"request-id",
	"traceparent",
	"tracestate",
	"user-agent",
	"x-correlation-id",
	"x-idempotency-key",
	"x-request-id"
]);
/** Response headers an agent's client needs; everything else (cookies first) stays at the proxy. */
const DEFAULT_RESPONSE_HEADERS = /* @__PURE__ */ new Set([
	"accept-ranges",
	"age",
	"cache-control",
	"content-disposition",
	"content-language",
	"content-length",
	"content-range",
	"content-type",
	"date",
	"etag",
	"expires",
	"last-modified",
	"link",
	"location",
	"ratelimit",
	"ratelimit-limit",
	"ratelimit-policy",
	"ratelimit-remaining",
	"ratelimit-reset",
	"request-id",
	"retry-after",
	"vary",
	"x-correlation-id",
	"x-ratelimit-limit",
	"x-ratelimit-remaining",
	"x-ratelimit-reset",
	"x-request-id"
]);
/**
* Never forwarded in either direction, whatever a credential lists: routing
* and method overrides, client-address claims, hop-by-hop headers, anything
* that carries a credential, cookies, and Cairn's own headers.
*/
const NEVER = /* @__PURE__ */ new Set([
	"authorization",
	"connection",
	"content-length",
	"cookie",
	"cookie2",
	"forwarded",
	"host",
	"keep-alive",
	"set-cookie",
	"set-cookie2",
	"te",
	"trailer",
	"transfer-encoding",
	"upgrade",
	"via",
	"x-client-ip",
	"x-cluster-client-ip",
	"x-host",
	"x-http-method",
	"x-http-method-override",
	"x-method-override",
	"x-override-url",
	"true-client-ip",
	"accept-encoding"
]);
const NEVER_PREFIXES = [
	"x-forwarded-",
	"x-original-",
	"x-rewrite-",
	"x-real-",
	"x-cairn-",
	"proxy-",
	"x-envoy-",
	"cf-"
];
/** Why a header may never cross the proxy, or undefined when a credential may list it. */
function neverForwarded(name) {
	if (NEVER.has(name) || NEVER_PREFIXES.some((p) => name.startsWith(p))) return `${name} is a routing override, hop-by-hop, credential-bearing or Cairn header`;
}
/** A credential's extra header names, checked where they are given: lower-cased, deduplicated. */
function credentialHeaders(names, ownHeader) {
	const out = /* @__PURE__ */ new Set();
	for (const raw of names) {
		const name = raw.trim().toLowerCase();
		if (!/^[a-z0-9][a-z0-9-]{0,63}$/.test(name)) throw invalidArgument(`header name "${raw}" is not a token: give letters, digits and -`, { header: raw });
		const why = neverForwarded(name);
		if (why) throw invalidArgument(`header ${name} cannot be allowed through the proxy: ${why}`, { header: name });
		if (name === ownHeader) throw invalidArgument(`header ${name} carries the credential itself: the proxy injects it`, { header: name });
		out.add(name);
	}
	if (out.size > 32) throw invalidArgument("a credential may allow at most 32 extra headers");
	return [...out].sort();
}
/**
* The request headers to send upstream: allowed ones the agent sent (minus
* any it names in Connection, which are hop-by-hop there), then the
* injected credential. Returns the names it dropped, for the audit entry.
*/
function upstreamRequestHeaders(incoming, extra, inject) {
	const named = String(incoming.connection ?? "").split(",").map((h) => h.trim().toLowerCase());
	const headers = {};
	const dropped = [];
	for (const [name, value] of Object.entries(incoming)) {
		if (value === void 0) continue;
		if ((DEFAULT_REQUEST_HEADERS.has(name) || extra.has(name)) && !named.includes(name) && !(name in inject) && neverForwarded(name) === void 0) headers[name] = value;
		else if (name !== "host" && name !== "connection" && name !== "content-length" && !name.startsWith("x-cairn-")) dropped.push(name);
	}
	Object.assign(headers, inject);
	headers["accept-encoding"] = "identity";
	return {
		headers,
		dropped: dropped.slice(0, 32)
	};
}
/** Is this upstream response header passed to the agent (before its value is scanned)? */
function responseHeaderAllowed(name, extra) {
	return (DEFAULT_RESPONSE_HEADERS.has(name) || extra.has(name)) && (name === "content-length" || neverForwarded(name) === void 0);
}
// dist/keys/vault.js
/** The largest body limit a credential may set. */
const MAX_BODY_LIMIT = 1073741824;
/** An upstream base URL: http(s), no credentials, no query or fragment. */
function parseUpstream(text, what) {
	let url;
	try {
		url = new URL(text);
	} catch {
		throw invalidArgument(`${what} "${text}" is not a URL: give e.g. https://api.example.com/v1`, { [what]: text });
	}
	if (url.protocol !== "http:" && url.protocol !== "https:" || url.username || url.password || url.search || url.hash) throw invalidArgument(`${what} must be an http(s) base URL without credentials, query or fragment`, { [what]: url.origin });
	return url;
}
/** Associated data binding a sealed value to its tenant, credential, version and field. */
function aad(tenant, credential, version, field) {
	return `cairn.vault.v1|${tenant}|${credential}|${version}|${field}`;
}
function headerFor(kind, name, header) {
	if (kind === "header") {
		if (!header || !/^[A-Za-z0-9-]+$/.test(header)) throw invalidArgument("a header credential needs --header NAME (letters, digits, -)", { header });
		return header.toLowerCase();
	}
	if (kind === "env") {
		const variable = header ?? name.toUpperCase().replace(/[^A-Z0-9_]/g, "_");
		if (!/^[A-Z_][A-Z0-9_]*$/.test(variable) || variable.startsWith("CAIRN_")) throw invalidArgument(`environment variable name ${variable} must be [A-Z_][A-Z0-9_]* and not start with CAIRN_`, { variable });
		return variable;
	}
	return "authorization";
}
function checkValue(kind, value) {
	const text = value.toString("utf8");
	if (value.length === 0 || text.trim() === "") throw invalidArgument("the credential value is empty: pipe it on stdin, e.g. `cairn cred add NAME … < secret.txt`");
	if (/[\r\n\0]/.test(text)) throw invalidArgument("the credential value holds a line break or NUL: give one line");
	if (kind !== "env" && !/^[\x20-\x7e]+$/.test(text)) throw invalidArgument("the credential value holds a character an HTTP header cannot carry: give printable ASCII");
	if (kind === "basic" && !text.includes(":")) throw invalidArgument("a basic credential is user:password");
}
/**
* The vault: credentials sealed under the operator's master key (AES-256-GCM
* envelope: a fresh data key per version, wrapped by the master key). Values
* are opened only for one outgoing request or one child process, and cached
* per credential version so opening is per rotation, not per request.
*/
var Vault = class {
	context;
	masterKey;
	/** Opened values by credential id and version: opening is per rotation, not per request. */
	opened = /* @__PURE__ */ new Map();
	constructor(context, masterKey) {
		this.context = context;
		this.masterKey = masterKey;
	}
	requireMasterKey() {
		if (!this.masterKey) throw unavailable("the vault is locked: no master key was given. Pass --master-key-file FILE or set CAIRN_MASTER_KEY (64 hex digits; `cairn cred keygen` makes one)");
		return this.masterKey;
	}
	/** A credential by name, unless deleted. */
	async credentialRow(tx, name) {
		return tx.get(`SELECT ${CREDENTIAL_COLUMNS} FROM key_credentials WHERE tenant = ? AND name = ? AND deleted_at IS NULL`, [this.context.tenant, name]);
	}
	sealValues(id, version, live, sandbox) {
		const master = this.requireMasterKey();
		const tenant = this.context.tenant;
		const dataKey = newDataKey();
		try {
			return {
				masterKeyId: master.id,
				wrapped: master.wrap(dataKey, aad(tenant, id, version, "key")),
				live: seal(dataKey, live, aad(tenant, id, version, "live")),
				sandbox: sandbox ? seal(dataKey, sandbox, aad(tenant, id, version, "sandbox")) : null
			};
		} finally {
			dataKey.fill(0);
		}
	}
	/**
	* Adds a credential. The values come as bytes the caller read from stdin
	* or a file, never from a command line; they are sealed before the
	* transaction and only the sealed forms are stored.
	*/
	async addCredential(input) {
		const who = this.context.who;
		authorize(who, "keys.credential");
		const name = parseInput(CredentialName, input.name, "credential add");
		if (![
			"bearer",
			"basic",
			"header",
			"env"
		].includes(input.kind)) throw invalidArgument(`kind must be bearer, basic, header or env, not ${String(input.kind)}`);
		const header = headerFor(input.kind, name, input.header);
		const upstream = input.kind === "env" ? "" : parseUpstream(input.upstream, "upstream").href;
		const sandboxUpstream = input.sandbox ? input.kind === "env" ? "" : parseUpstream(input.sandbox.upstream, "sandbox upstream").href : "";
		checkValue(input.kind, input.value);
		if (input.sandbox) checkValue(input.kind, input.sandbox.value);
		const allowHeaders = credentialHeaders(input.allowHeaders ?? [], header);
		if (input.maxBodyBytes !== void 0 && (!Number.isSafeInteger(input.maxBodyBytes) || input.maxBodyBytes < 0 || input.maxBodyBytes > MAX_BODY_LIMIT)) throw invalidArgument(`a body limit is a whole number of bytes from 0 to ${MAX_BODY_LIMIT}`, { maxBodyBytes: input.maxBodyBytes });
		const options = {
			allowHeaders,
			maxBodyBytes: input.maxBodyBytes ?? null
		};
		const id = newId("credential", this.context.now());
		const sealed = this.sealValues(id, 1, input.value, input.sandbox?.value ?? null);
		const at = this.context.now();
		return this.context.engine.write(this.context.tenant, async (tx) => {
			if (await this.credentialRow(tx, name)) throw conflict(`credential ${name} exists: rotate it with \`cairn cred rotate ${name}\``, { credential: name });
			await tx.run(`INSERT INTO key_credentials (tenant, ${CREDENTIAL_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?)`, [
				this.context.tenant,
				id,
				name,
				input.kind,
				header,
				upstream,
				sandboxUpstream,
				sealed.masterKeyId,
				sealed.wrapped,
				sealed.live,
				sealed.sandbox,
				who.principal,
				at,
				at,
				JSON.stringify(options)
			]);
			await this.context.audit(tx, "keys.credential.add", "credential", id, {
				name,
				kind: input.kind,
				upstream,
				sandboxUpstream,
				masterKeyId: sealed.masterKeyId,
				...options
			});
			return {
				id,
				name,
				kind: input.kind,
				header,
				upstream,
				sandboxUpstream,
				version: 1,
				masterKeyId: sealed.masterKeyId,
				createdBy: who.principal,
				createdAt: at,
				rotatedAt: at,
				...options
			};
		});
	}
	/** Replaces a credential's values (live, sandbox or both) under a fresh data key. Grants stay. */
	async rotateCredential(name, input) {
		authorize(this.context.who, "keys.credential");
		if (!input.value && !input.sandbox) throw invalidArgument("rotate needs a new live value, a new sandbox value, or both");
		return this.context.engine.write(this.context.tenant, async (tx) => {
			const row = await this.credentialRow(tx, name);
			if (!row) throw notFound("credential", name);
			if (input.value) checkValue(row.kind, input.value);
			if (input.sandbox) {
				checkValue(row.kind, input.sandbox);
				if (row.sandbox_sealed === null) throw invalidArgument(`credential ${name} has no sandbox variant to rotate`);
			}
			const current = this.openRow(row);
			const version = num(row.version) + 1;
			const sealed = this.sealValues(row.id, version, input.value ?? Buffer.from(current.live), input.sandbox ?? (current.sandbox === "" ? null : Buffer.from(current.sandbox)));
			const at = this.context.now();
			await tx.run("UPDATE key_credentials SET master_key_id = ?, wrapped_key = ?, live_sealed = ?, sandbox_sealed = ?, version = ?, rotated_at = ? WHERE tenant = ? AND id = ?", [
				sealed.masterKeyId,
				sealed.wrapped,
				sealed.live,
				sealed.sandbox,
				version,
				at,
				this.context.tenant,
				row.id
			]);
			await this.context.audit(tx, "keys.credential.rotate", "credential", row.id, {
				name,
				version,
				rotated: [...input.value ? ["live"] : [], ...input.sandbox ? ["sandbox"] : []]
			});
			this.opened.delete(row.id);
			return toCredential({
				...row,
				version,
				rotated_at: at,
				master_key_id: sealed.masterKeyId
			});
		});
	}
	/** Deletes a credential: its sealed values are erased and every grant on it is revoked. */
	async deleteCredential(name) {
		const { who, tenant } = this.context;
		authorize(who, "keys.credential");
		return this.context.engine.write(tenant, async (tx) => {
			const row = await this.credentialRow(tx, name);
			if (!row) throw notFound("credential", name);
			const at = this.context.now();
			await tx.run("UPDATE key_credentials SET wrapped_key = NULL, live_sealed = NULL, sandbox_sealed = NULL, deleted_at = ? WHERE tenant = ? AND id = ?", [
				at,
				tenant,
				row.id
			]);
			const revoked = (await tx.all("SELECT id FROM key_grants WHERE tenant = ? AND credential = ? AND revoked_at IS NULL", [tenant, name])).map((g) => g.id);
			await tx.run("UPDATE key_grants SET revoked_at = ?, revoked_by = ?, revoke_reason = ? WHERE tenant = ? AND credential = ? AND revoked_at IS NULL", [
				at,
				who.principal,
				"credential deleted",
				tenant,
				name
			]);
			await this.context.audit(tx, "keys.credential.delete", "credential", row.id, {
				name,
				revokedGrants: revoked
			});
			this.opened.delete(row.id);
			return {
				credential: name,
				revokedGrants: revoked
			};
		});
	}
	async listCredentials() {
		authorize(this.context.who, "keys.read");
		return (await this.context.engine.read(this.context.tenant, (tx) => tx.all(`SELECT ${CREDENTIAL_COLUMNS} FROM key_credentials WHERE tenant = ? AND deleted_at IS NULL ORDER BY name`, [this.context.tenant]))).map(toCredential);
	}
	/** Opens a credential's values with the master key (cached per version). */
	openRow(row) {
		const cached = this.opened.get(row.id);
		const version = num(row.version);
		if (cached && cached.version === version) return cached;
		const master = this.requireMasterKey();
		if (row.master_key_id !== master.id) throw unavailable(`credential ${row.name} is sealed under master key ${row.master_key_id}, but the key given is ${master.id}: give the key the vault was made with`, {
			credential: row.name,
			sealedUnder: row.master_key_id,
			given: master.id
		});
		if (!row.wrapped_key || !row.live_sealed) throw corrupt(`credential ${row.name} has no sealed value: the vault row is damaged`);
		const tenant = this.context.tenant;
		const dataKey = master.unwrap(row.wrapped_key, aad(tenant, row.id, version, "key"));
		try {
			const values = {
				version,
				live: open(dataKey, row.live_sealed, aad(tenant, row.id, version, "live")).toString("utf8"),
				sandbox: row.sandbox_sealed ? open(dataKey, row.sandbox_sealed, aad(tenant, row.id, version, "sandbox")).toString("utf8") : ""
			};
			this.opened.set(row.id, values);
			return values;
		} finally {
			dataKey.fill(0);
		}
	}
};
// dist/keys/keys.js
/**
* The keys layer (DESIGN §6): a vault of credentials sealed under the
* operator's master key, grants bound to one branch each, branch handles,
* and approvals of single requests. Every change and every use is an audit
* entry in the same transaction, attributed user → agent → branch.
*
* A credential's values are opened only to inject them into one outgoing
* request (`authorizeRequest`) or one child process (`envForChild`); they
* never enter an event, an audit payload, an error or a return value meant
* for display.
*
* `Keys` is the facade: each concern lives in its own module (`vault.ts`,
* `grant-store.ts`, `handles.ts`, `request-decision.ts`, `approvals.ts`,
* `env-injection.ts`), sharing one `KeysContext` (engine, caller, clock, audit).
*/
var Keys = class {
	who;
	vault;
	grants;
	handles;
	approvals;
	requests;
	env;
	constructor(options) {
		this.who = options.who;
		const context = new KeysContext({
			engine: options.engine,
			who: options.who,
			now: options.now ?? Date.now
		});
		this.vault = new Vault(context, options.masterKey);
		this.grants = new GrantStore(context, this.vault);
		this.handles = new Handles(context);
		this.approvals = new Approvals(context, this.grants);
		this.requests = new RequestDecision(context, {
			vault: this.vault,
			grants: this.grants,
			handles: this.handles,
			approvals: this.approvals
		});
		this.env = new EnvInjection(context, this.vault, this.grants);
	}
	/** Adds a credential; its values are sealed before the transaction and only the sealed forms are stored. */
	addCredential(input) {
		return this.vault.addCredential(input);
	}
	/** Replaces a credential's values (live, sandbox or both) under a fresh data key. Grants stay. */
	rotateCredential(name, input) {
		return this.vault.rotateCredential(name, input);
	}
	/** Deletes a credential: its sealed values are erased and every grant on it is revoked. */
	deleteCredential(name) {
		return this.vault.deleteCredential(name);
	}
	listCredentials() {
		return this.vault.listCredentials();
	}
	/** Checks a grant that a branch still to be made would get: throws as `grant` would; writes nothing. */
	checkGrant(input) {
		return this.grants.checkGrant(input);
	}
	/** Issues a grant to a branch: narrowed from `parent`, or a root grant (admin only). */
	grant(input) {
		return this.grants.grant(input);
	}
	/** Revokes a grant and every grant narrowed from it, at any depth, in one transaction. */
	revoke(id, reason) {
		return this.grants.revoke(id, reason);
	}
	getGrant(id) {
		return this.grants.getGrant(id);
	}
	listGrants(filter) {
		return this.grants.listGrants(filter);
	}
	/** A branch handle for the proxy, returned once (only its hash is stored). */
	issueHandle(input) {
		return this.handles.issueHandle(input);
	}
	revokeHandle(id) {
		return this.handles.revokeHandle(id);
	}
	/** The tenant a handle names (the proxy serves every tenant of its store). */
	static handleTenant(handle) {
		return handleTenant(handle);
	}
	/** Decides one proxied request in one transaction: forward (secret injected), hold for approval, or deny. */
	authorizeRequest(request, options) {
		return this.requests.authorizeRequest(request, options);
	}
	/** What the proxy checks before it reads a body: the handle, the credential's options, whether the body matters. */
	proxyPreflight(handle, credential, request) {
		return this.requests.proxyPreflight(handle, credential, request);
	}
	/** Audits refusals of requests without a valid handle, one or a window's count. */
	recordHandleRefusal(record) {
		return this.requests.recordHandleRefusal(record);
	}
	/** Audits what the proxy refused or cut after (or without) a decision: `keys.deny` or `keys.leak`. */
	recordProxyEvent(action, request, details) {
		return this.requests.recordProxyEvent(action, request, details);
	}
	getApproval(id) {
		return this.approvals.getApproval(id);
	}
	/** Approvals, pending ones by default; a pending approval past its time is shown as expired. */
	listApprovals(filter) {
		return this.approvals.listApprovals(filter);
	}
	/** A person's decision on a pending approval, once; deciding twice or after expiry is CONFLICT. */
	decide(id, verdict, note) {
		return this.approvals.decide(id, verdict, note);
	}
	/** Marks a pending approval expired (the proxy stopped holding its request); a no-op once decided. */
	expireApproval(id) {
		return this.approvals.expireApproval(id);
	}
	/** The value of an `env` credential for one child process of a branch, allowed by an active grant. */
	envForChild(input) {
		return this.env.envForChild(input);
	}
};
export { truncatePath as a, upstreamRequestHeaders as i, neverForwarded as n, DEFAULT_APPROVAL_TIMEOUT_MS as o, responseHeaderAllowed as r, Keys as t };
