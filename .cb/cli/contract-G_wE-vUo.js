import { L as __exportAll } from "./front-BpLyP2oj.js";
import { r as spec } from "./spec-2aais7-z.js";
import { $ as object, F as NoInput, Q as number, X as boolean, tt as string } from "./schema-akKHYQxY.js";
// dist/audit/shapes.js
/** What the audit chain's operations answer, as zod schemas. */
const AuditBreak = object({
	seq: number().int(),
	reason: string()
});
const AuditReport = object({
	tenant: string(),
	ok: boolean(),
	entries: number().int(),
	events: number().int(),
	firstBreak: AuditBreak.nullable().describe("the first broken link, when `ok` is false")
});
// dist/audit/contract.js
/** The audit chain's operations (contract/spec.ts). */
var contract_exports = /* @__PURE__ */ __exportAll({ AUDIT_CONTRACT: () => AUDIT_CONTRACT });
const AUDIT_CONTRACT = { verifyAudit: spec({
	name: "verifyAudit",
	summary: "Verify the tenant's audit chain",
	effect: "read",
	callers: "any",
	access: "audit.verify",
	runs: "anywhere",
	input: NoInput,
	output: AuditReport,
	http: {
		method: "GET",
		path: "/v1/audit/verify"
	}
}) };
export { contract_exports as n, AUDIT_CONTRACT as t };
