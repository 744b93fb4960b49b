import { L as __exportAll } from "./front-BpLyP2oj.js";
import { r as spec } from "./spec-2aais7-z.js";
import { $ as object, F as NoInput, l as CreateTokenInput, tt as string, z as RevokeTokenInput } from "./schema-akKHYQxY.js";
import { i as at, r as Identity } from "./shapes-CMxeFoql.js";
// dist/identity/shapes.js
/** What identity's operations answer, as zod schemas. */
const CreatedToken = object({
	id: string(),
	token: string().describe("the secret bearer token, shown once: Cairn keeps only its hash"),
	tenant: string(),
	principal: string(),
	label: string()
});
const RevokedToken = object({
	id: string(),
	principal: string(),
	revokedAt: at.describe("when it was revoked (the first revocation, if it was revoked before)")
});
// dist/identity/contract.js
/**
* Identity's operations (contract/spec.ts): who the caller is, and its
* tokens. Who may mint a person's token is decided in the handler, from the
* caller's principal (handlers.ts).
*/
var contract_exports = /* @__PURE__ */ __exportAll({ IDENTITY_CONTRACT: () => IDENTITY_CONTRACT });
const IDENTITY_CONTRACT = {
	whoami: spec({
		name: "whoami",
		mcp: {
			name: "whoami",
			description: "Who you are acting as: your tenant, principal, kind (agent or user) and role, all from your token. Call it when unsure which identity your calls carry. Read-only."
		},
		summary: "The identity the caller acts as",
		effect: "read",
		callers: "any",
		access: "identity.read",
		runs: "anywhere",
		input: NoInput,
		output: Identity,
		cli: {
			command: ["whoami"],
			summary: "show the tenant and principal the command acts as",
			example: "cairn whoami --url http://127.0.0.1:7411 --token-file ~/.cairn-token"
		},
		http: {
			method: "GET",
			path: "/v1/whoami"
		}
	}),
	createToken: spec({
		name: "createToken",
		summary: "Create an API token (shown once), for a new principal or an existing one",
		effect: "write",
		callers: "any",
		access: "token.create.self",
		runs: "anywhere",
		input: CreateTokenInput,
		output: CreatedToken,
		cli: {
			command: ["token", "create"],
			summary: "mint a bearer token (printed once: Cairn keeps only its hash)",
			example: "cairn token create --kind agent --name worker --label ci"
		},
		http: {
			method: "POST",
			path: "/v1/tokens",
			status: 201
		}
	}),
	revokeToken: spec({
		name: "revokeToken",
		summary: "Revoke an API token at once (members their own, admins any in the tenant)",
		effect: "write",
		callers: "any",
		access: "token.revoke.self",
		runs: "anywhere",
		input: RevokeTokenInput,
		output: RevokedToken,
		invalidatesAuth: true,
		cli: {
			command: ["token", "revoke"],
			args: ["token"],
			summary: "revoke a token at once (members: their own; admins: any in the tenant)",
			example: "cairn token revoke tk_…"
		},
		http: {
			method: "POST",
			path: "/v1/tokens/{token}/revoke"
		}
	})
};
export { contract_exports as n, IDENTITY_CONTRACT as t };
