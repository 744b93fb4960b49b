import { L as __exportAll } from "./front-BpLyP2oj.js";
import { r as spec } from "./spec-2aais7-z.js";
import { t as AppendResult } from "./shapes-CQYJa-Gm.js";
import { $ as object, D as IdempotencyKey, H as SessionId, J as _enum, Q as number, X as boolean, Y as array, Z as literal, a as BranchName, rt as unknown, tt as string } from "./schema-akKHYQxY.js";
import { a as idOf } from "./shapes-CMxeFoql.js";
// dist/steps/shapes.js
/** What the step journal's operations answer, as zod schemas. */
const StepRecord = object({
	position: number().int().describe("its place among the branch’s steps, from 1"),
	name: string(),
	key: string().describe("the idempotency key the step’s effect was given"),
	argsDigest: string(),
	policy: _enum([
		"retry-same-key",
		"probe",
		"escalate"
	]),
	compensate: object({
		name: string(),
		args: unknown().optional()
	}).optional(),
	effect: _enum(["local", "external"]),
	event: idOf().describe("the event of its intent"),
	state: _enum([
		"done",
		"failed",
		"in-doubt"
	]),
	result: unknown().optional(),
	error: object({
		message: string(),
		name: string().optional()
	}).optional(),
	settledBy: _enum([
		"retry-same-key",
		"probe",
		"person"
	]).optional(),
	resolvedBy: string().optional().describe("the principal (a person) whose resolveStep settled it, or allowed its rerun")
});
// dist/steps/contract.js
/**
* Durable steps' operations: a branch's journal read, the journal's own
* records (a step's intent, result or probe), and a person's decision on a
* step in doubt. The journal is events of Cairn's own kinds on the branch:
* `recordStep` writes `cairn.step` (never a resolution) and `resolveStep`,
* a person's only, writes `cairn.step.resolve` naming who resolved it; the
* log's generic `append` refuses both kinds.
*/
/**
* Durable steps' operations: a branch's journal read, the journal's own
* records (a step's intent, result or probe), and a person's decision on a
* step in doubt. The journal is events of Cairn's own kinds on the branch:
* `recordStep` writes `cairn.step` (never a resolution) and `resolveStep`,
* a person's only, writes `cairn.step.resolve` naming who resolved it; the
* log's generic `append` refuses both kinds.
*/
var contract_exports = /* @__PURE__ */ __exportAll({ STEP_CONTRACT: () => STEP_CONTRACT });
const BranchRef = object({
	session: SessionId,
	branch: BranchName.default("main").describe("the branch; main unless you forked")
}).strict();
const Position = number().int().min(1).max(1e9);
const Policy = _enum([
	"retry-same-key",
	"probe",
	"escalate"
]);
/** What a journal records of a step, as journal.ts writes it: an intent, a result, a probe's answer. */
const StepRecordPayload = object({
	intent: object({
		position: Position,
		name: string().min(1).max(200),
		key: string().min(1).max(200),
		args: string().max(128).describe("digest of the step's arguments"),
		policy: Policy,
		compensate: object({
			name: string().min(1).max(200),
			args: unknown().optional()
		}).strict().optional(),
		effect: literal("local").optional()
	}).strict().optional(),
	done: object({
		position: Position,
		ok: boolean(),
		result: unknown().optional(),
		error: object({
			message: string(),
			name: string().optional()
		}).strict().optional(),
		via: _enum([
			"retry-same-key",
			"probe",
			"person"
		]).optional()
	}).strict().optional(),
	probe: object({
		position: Position,
		happened: boolean()
	}).strict().optional()
}).strict().refine((p) => p.intent ?? p.done ?? p.probe, "record an intent, a result (done) or a probe");
const STEP_CONTRACT = {
	listSteps: spec({
		name: "listSteps",
		mcp: {
			name: "step_list",
			description: "The durable tool steps recorded on a branch: each step's name, key, result, and whether it is in doubt (started and never finished: nobody knows whether its effect happened, and only a person can settle it). Read-only."
		},
		summary: "The recorded steps of a branch: each one's position, name, key, state (done, failed, in-doubt) and result",
		effect: "read",
		callers: "any",
		access: "log.read",
		runs: "anywhere",
		input: BranchRef,
		output: object({ steps: array(StepRecord) }),
		http: {
			method: "GET",
			path: "/v1/sessions/{session}/branches/{branch}/steps"
		}
	}),
	recordStep: spec({
		name: "recordStep",
		summary: "Record a step of the branch's journal: its intent, its result or a probe's answer (never a resolution: that is resolveStep's)",
		effect: "write",
		callers: "any",
		access: "log.append",
		runs: "anywhere",
		input: BranchRef.extend({
			payload: StepRecordPayload,
			idempotencyKey: IdempotencyKey.optional()
		}).strict(),
		output: AppendResult,
		http: {
			method: "POST",
			path: "/v1/sessions/{session}/branches/{branch}/steps",
			status: 201
		},
		statusOf: (event) => event.deduplicated ? 200 : 201
	}),
	resolveStep: spec({
		name: "resolveStep",
		summary: "Resolve a step in doubt: it happened (with this result), it failed (with this error), or run it again with the same key (a person only)",
		effect: "write",
		callers: "person",
		access: "log.append",
		runs: "anywhere",
		input: BranchRef.extend({
			position: Position,
			result: unknown().optional().describe("the step happened, with this result"),
			error: string().min(1).max(2e3).optional().describe("the step failed, with this message"),
			rerun: literal(true).optional().describe("run it again with the same key")
		}).strict().refine((i) => [
			i.result !== void 0,
			i.error !== void 0,
			i.rerun !== void 0
		].filter(Boolean).length === 1, "pass exactly one of result, error or rerun"),
		output: StepRecord,
		http: {
			method: "POST",
			path: "/v1/sessions/{session}/branches/{branch}/steps/resolve"
		}
	})
};
export { contract_exports as n, STEP_CONTRACT as t };
