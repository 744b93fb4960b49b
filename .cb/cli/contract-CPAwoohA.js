import { L as __exportAll } from "./front-BpLyP2oj.js";
import { r as spec } from "./spec-2aais7-z.js";
import { $ as object, A as ListCredentialsInput, C as GetApprovalInput, J as _enum, O as ListApprovalsInput, Q as number, R as RevokeGrantInput, T as GetGrantInput, V as RotateCredentialInput, Y as array, d as DecisionInput, f as DeleteCredentialInput, j as ListGrantsInput, n as AddGrantInput, s as CheckGrantInput, t as AddCredentialInput, tt as string } from "./schema-akKHYQxY.js";
import { i as at, t as Done } from "./shapes-CMxeFoql.js";
// dist/keys/shapes.js
/** What the keys' operations answer, as zod schemas: credentials (never values), grants, approvals. */
const Approval = object({
	id: string(),
	grant: string(),
	session: string(),
	branch: string(),
	credential: string(),
	method: string(),
	url: string(),
	bodyDigest: string(),
	bodyBytes: number().int(),
	preview: string().describe("the body with every value that looks secret (and every vault value) replaced"),
	state: _enum([
		"pending",
		"approved",
		"denied",
		"expired",
		"used"
	]),
	requestedBy: string(),
	requestedAt: at,
	expiresAt: at,
	decidedBy: string(),
	decidedAt: at.nullable(),
	usedAt: at.nullable()
});
const ApprovalList = object({ approvals: array(Approval) });
const Grant = object({
	id: string(),
	parent: string().describe("the grant this one narrows; '' for a root grant"),
	session: string(),
	branch: string(),
	credential: string(),
	mode: _enum([
		"read",
		"sandbox",
		"live"
	]),
	approval: _enum(["none", "each-write"]),
	allow: object({
		hosts: array(string()),
		methods: array(string()),
		pathPrefixes: array(string())
	}),
	expiresAt: at.nullable(),
	maxUses: number().int().nullable(),
	uses: number().int(),
	onBehalfOf: string().describe("the person the branch acts for (the principal who issued the root grant)"),
	createdBy: string(),
	createdAt: at,
	revokedAt: at.nullable(),
	revokedBy: string(),
	revokeReason: string()
});
const GrantWithState = Grant.extend({ state: _enum([
	"active",
	"revoked",
	"expired",
	"exhausted"
]) });
const GrantList = object({ grants: array(GrantWithState) });
const RevokedGrants = object({ revoked: array(string()).describe("the grant and every grant narrowed from it") });
const Credential = object({
	id: string(),
	name: string(),
	kind: _enum([
		"bearer",
		"basic",
		"header",
		"env"
	]),
	header: string().describe("header name (kind header) or variable name (kind env)"),
	upstream: string(),
	sandboxUpstream: string().describe("'' when the credential has no sandbox (test account) variant"),
	version: number().int(),
	masterKeyId: string(),
	createdBy: string(),
	createdAt: at,
	rotatedAt: at,
	allowHeaders: array(string()),
	maxBodyBytes: number().int().nullable()
});
const CredentialList = object({ credentials: array(Credential) });
const DeletedCredential = object({
	credential: string(),
	revokedGrants: array(string()).describe("every grant on it, revoked")
});
// dist/keys/contract.js
/**
* The keys' operations that need no master key: approvals (a person's
* decision on a held request) and grants (what each branch may do).
*/
var contract_exports = /* @__PURE__ */ __exportAll({ KEYS_CONTRACT: () => KEYS_CONTRACT });
const KEYS_CONTRACT = {
	listCredentials: spec({
		name: "listCredentials",
		summary: "Credentials of the vault: names, kinds, upstreams, versions — never values",
		effect: "read",
		callers: "any",
		access: "keys.read",
		runs: "anywhere",
		input: ListCredentialsInput,
		output: CredentialList,
		cli: {
			command: ["cred", "ls"],
			summary: "list credentials (names, kinds, upstreams; never values)",
			example: "cairn cred ls"
		},
		http: {
			method: "GET",
			path: "/v1/credentials"
		}
	}),
	addCredential: spec({
		name: "addCredential",
		summary: "Seal a credential into the vault (admin; the value only in the body; needs the server's master key)",
		effect: "write",
		callers: "admin",
		access: "keys.credential",
		runs: "anywhere",
		input: AddCredentialInput,
		output: Credential,
		http: {
			method: "POST",
			path: "/v1/credentials",
			status: 201
		}
	}),
	rotateCredential: spec({
		name: "rotateCredential",
		summary: "Replace a credential’s live or sandbox value under a fresh data key; grants stay (admin)",
		effect: "write",
		callers: "admin",
		access: "keys.credential",
		runs: "anywhere",
		input: RotateCredentialInput,
		output: Credential,
		http: {
			method: "POST",
			path: "/v1/credentials/{name}/rotate"
		}
	}),
	deleteCredential: spec({
		name: "deleteCredential",
		summary: "Delete a credential: its sealed values are erased and every grant on it revoked (admin)",
		effect: "write",
		callers: "admin",
		access: "keys.credential",
		runs: "anywhere",
		input: DeleteCredentialInput,
		output: DeletedCredential,
		cli: {
			command: ["cred", "rm"],
			args: ["name"],
			summary: "delete a credential: its sealed values are erased and every grant on it revoked",
			example: "cairn cred rm github"
		},
		http: {
			method: "POST",
			path: "/v1/credentials/{name}/delete"
		}
	}),
	addGrant: spec({
		name: "addGrant",
		summary: "Grant a branch use of a credential: a root grant (admin), or one narrowing `parent`; a fork never copies one",
		effect: "write",
		callers: "any",
		access: "keys.grant.narrow",
		runs: "anywhere",
		input: AddGrantInput,
		output: Grant,
		http: {
			method: "POST",
			path: "/v1/grants",
			status: 201
		}
	}),
	listApprovals: spec({
		name: "listApprovals",
		summary: "Requests held for a person (branch, credential, method, URL, redacted body preview)",
		effect: "read",
		callers: "any",
		access: "keys.read",
		runs: "anywhere",
		input: ListApprovalsInput,
		output: ApprovalList,
		cli: {
			command: ["approvals", "ls"],
			summary: "writes waiting for a person: branch, credential, method, URL, redacted body preview",
			example: "cairn approvals ls --state all"
		},
		http: {
			method: "GET",
			path: "/v1/approvals"
		}
	}),
	getApproval: spec({
		name: "getApproval",
		summary: "Get one approval",
		effect: "read",
		callers: "any",
		access: "keys.read",
		runs: "anywhere",
		input: GetApprovalInput,
		output: Approval,
		cli: {
			command: ["approvals", "show"],
			args: ["approval"],
			summary: "show one held write: method, URL, body digest and redacted preview",
			example: "cairn approvals show ap_…"
		},
		http: {
			method: "GET",
			path: "/v1/approvals/{approval}"
		}
	}),
	approve: spec({
		name: "approve",
		summary: "Approve exactly one held request (admin; once)",
		effect: "write",
		callers: "person-admin",
		access: "keys.approve",
		runs: "anywhere",
		input: DecisionInput,
		output: Approval,
		cli: {
			command: ["approve"],
			args: ["approval"],
			summary: "let exactly one held write through (once; the proxy sends it)",
			example: "cairn approve ap_… --note \"checked the amount\""
		},
		http: {
			method: "POST",
			path: "/v1/approvals/{approval}/approve"
		}
	}),
	deny: spec({
		name: "deny",
		summary: "Deny one held request: the agent gets 403, nothing is sent (admin; once)",
		effect: "write",
		callers: "person-admin",
		access: "keys.approve",
		runs: "anywhere",
		input: DecisionInput,
		output: Approval,
		cli: {
			command: ["deny"],
			args: ["approval"],
			summary: "refuse one held write: the agent gets 403, nothing is sent",
			example: "cairn deny ap_… --note \"wrong customer\""
		},
		http: {
			method: "POST",
			path: "/v1/approvals/{approval}/deny"
		}
	}),
	getGrant: spec({
		name: "getGrant",
		summary: "Get one grant",
		effect: "read",
		callers: "any",
		access: "keys.read",
		runs: "anywhere",
		input: GetGrantInput,
		output: Grant,
		cli: {
			command: ["grant", "show"],
			args: ["grant"],
			summary: "show a grant: what it allows, on whose behalf, until when",
			example: "cairn grant show gr_…"
		},
		http: {
			method: "GET",
			path: "/v1/grants/{grant}"
		}
	}),
	checkGrant: spec({
		name: "checkGrant",
		summary: "Check a grant a branch still to be made would get: refused as addGrant would refuse it; issues nothing",
		effect: "read",
		callers: "any",
		access: "keys.read",
		runs: "anywhere",
		input: CheckGrantInput,
		output: Done,
		http: {
			method: "POST",
			path: "/v1/grants/check"
		}
	}),
	listGrants: spec({
		name: "listGrants",
		summary: "Grants with their state, optionally of one session branch",
		effect: "read",
		callers: "any",
		access: "keys.read",
		runs: "anywhere",
		input: ListGrantsInput,
		output: GrantList,
		cli: {
			command: ["grant", "ls"],
			summary: "list grants with their state (active, revoked, expired, exhausted)",
			example: "cairn grant ls --session ss_… --branch main"
		},
		http: {
			method: "GET",
			path: "/v1/grants"
		}
	}),
	revokeGrant: spec({
		name: "revokeGrant",
		summary: "Revoke a grant and every grant narrowed from it",
		effect: "write",
		callers: "any",
		access: "keys.grant.narrow",
		runs: "anywhere",
		input: RevokeGrantInput,
		output: RevokedGrants,
		cli: {
			command: ["grant", "revoke"],
			args: ["grant"],
			summary: "revoke a grant and every grant narrowed from it",
			example: "cairn grant revoke gr_… --reason \"task done\""
		},
		http: {
			method: "POST",
			path: "/v1/grants/{grant}/revoke"
		}
	})
};
export { contract_exports as n, KEYS_CONTRACT as t };
