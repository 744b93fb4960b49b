import { L as __exportAll } from "./front-BpLyP2oj.js";
import { r as spec } from "./spec-2aais7-z.js";
import { _ as ReindexInput, a as DropBranchInput, c as HistoryInput, d as MemoryList, f as MemoryRecord, g as ReindexAnswer, h as RecordInput, i as CarryInput, l as ListInput, m as RecallInput, n as AgentRememberInput, o as ForgetAnswer, p as RecallAnswer, r as CarryAnswer, s as ForgetInput, v as RememberInput, y as RememberManyInput } from "./schema-BiaIilDX.js";
// dist/memory/contract.js
/**
* Memory's operations (docs/design/memory.md). Recall is a tool the agent
* calls — nothing is put into its context unasked. A record's text is
* checked by the desk's secret guard before anything is written: a
* credential never enters memory.
*/
var contract_exports = /* @__PURE__ */ __exportAll({ MEMORY_CONTRACT: () => MEMORY_CONTRACT });
const MEMORY_CONTRACT = {
	remember: spec({
		name: "remember",
		mcp: {
			name: "memory_remember",
			description: "Remember one thing for later — a fact, an episode, a procedure — in a scope (user, agent, project or session). It is stored as yours (untrusted until a person promotes it), with where it came from. Credentials are refused: keep them in the vault. To correct a record, remember a new version with `supersedes`."
		},
		summary: "Remember a record in a scope (user, agent, project, session), with its kind, source and what it was made from; credentials are refused",
		effect: "write",
		callers: "any",
		access: "memory.write",
		runs: "anywhere",
		input: RememberInput,
		mcpInput: AgentRememberInput,
		output: MemoryRecord,
		cli: {
			command: ["memory", "add"],
			args: ["text"],
			flags: { tags: "tag" },
			summary: "remember TEXT in a scope; credentials are refused",
			example: "cairn memory add \"the build needs Node 20\" --scope project:cairn --tag build"
		},
		http: {
			method: "POST",
			path: "/v1/memory",
			status: 201
		}
	}),
	rememberMany: spec({
		name: "rememberMany",
		summary: "Remember up to 1,000 records (1 Mi characters of text and data) in one write, all or none, each checked as remember checks it (one audit entry lists them)",
		effect: "write",
		callers: "any",
		access: "memory.write",
		runs: "anywhere",
		input: RememberManyInput,
		output: MemoryList,
		http: {
			method: "POST",
			path: "/v1/memory/batch",
			status: 201,
			maxBodyBytes: 2097152
		}
	}),
	recall: spec({
		name: "recall",
		mcp: {
			name: "memory_recall",
			description: "Search what was remembered in a scope, by words (or by meaning where vectors are set up): the best matches with score, source and trust. Quarantined records are left out unless you ask for them. Read-only."
		},
		summary: "Recall records of a scope ranked by how well they match the query, with score and provenance; quarantined ones only with minTrust quarantined",
		effect: "read",
		callers: "any",
		access: "memory.read",
		runs: "anywhere",
		input: RecallInput,
		output: RecallAnswer,
		cli: {
			command: ["memory", "recall"],
			args: ["query"],
			flags: {
				kinds: "kind",
				tags: "tag"
			},
			summary: "recall records of a scope ranked by how well they match QUERY",
			example: "cairn memory recall \"which Node version\" --scope project:cairn --k 3"
		},
		http: {
			method: "POST",
			path: "/v1/memory/recall"
		}
	}),
	listMemory: spec({
		name: "listMemory",
		summary: "The current records of a scope, newest first; quarantined ones only with minTrust quarantined",
		effect: "read",
		callers: "any",
		access: "memory.read",
		runs: "anywhere",
		input: ListInput,
		output: MemoryList,
		cli: {
			command: ["memory", "ls"],
			summary: "the current records of a scope, newest first",
			example: "cairn memory ls --scope user:alice --limit 20"
		},
		http: {
			method: "POST",
			path: "/v1/memory/list"
		}
	}),
	getMemory: spec({
		name: "getMemory",
		summary: "A record’s newest version, with its provenance",
		effect: "read",
		callers: "any",
		access: "memory.read",
		runs: "anywhere",
		input: RecordInput,
		output: MemoryRecord,
		cli: {
			command: ["memory", "get"],
			args: ["record"],
			summary: "show a record’s newest version and its provenance",
			example: "cairn memory get mr_…"
		},
		http: {
			method: "GET",
			path: "/v1/memory/{record}"
		}
	}),
	memoryHistory: spec({
		name: "memoryHistory",
		summary: "Every version of a record, oldest first (record time and world time each)",
		effect: "read",
		callers: "any",
		access: "memory.read",
		runs: "anywhere",
		input: HistoryInput,
		output: MemoryList,
		cli: {
			command: ["memory", "history"],
			args: ["record"],
			summary: "every version of a record, oldest first",
			example: "cairn memory history mr_…"
		},
		http: {
			method: "GET",
			path: "/v1/memory/{record}/history"
		}
	}),
	quarantineMemory: spec({
		name: "quarantineMemory",
		summary: "Quarantine a record: recall leaves it out unless asked for quarantined records",
		effect: "write",
		callers: "any",
		access: "memory.write",
		runs: "anywhere",
		input: RecordInput,
		output: MemoryRecord,
		cli: {
			command: ["memory", "quarantine"],
			args: ["record"],
			summary: "hide a record from recall (unless asked for quarantined ones)",
			example: "cairn memory quarantine mr_…"
		},
		http: {
			method: "POST",
			path: "/v1/memory/{record}/quarantine"
		}
	}),
	promoteMemory: spec({
		name: "promoteMemory",
		summary: "Mark a record trusted (a person only: a user principal)",
		effect: "write",
		callers: "person",
		access: "memory.write",
		runs: "anywhere",
		input: RecordInput,
		output: MemoryRecord,
		cli: {
			command: ["memory", "promote"],
			args: ["record"],
			summary: "mark a record trusted (a person: a user principal)",
			example: "cairn memory promote mr_…"
		},
		http: {
			method: "POST",
			path: "/v1/memory/{record}/promote"
		}
	}),
	carryMemory: spec({
		name: "carryMemory",
		summary: "Carry a branch's memory to another branch of its session (a kept fork's records become its parent's, from a new event on it)",
		effect: "write",
		callers: "any",
		access: "memory.write",
		runs: "anywhere",
		input: CarryInput,
		output: CarryAnswer,
		http: {
			method: "POST",
			path: "/v1/sessions/{session}/branches/{from}/memory/carry"
		}
	}),
	dropBranchMemory: spec({
		name: "dropBranchMemory",
		summary: "Forget what an abandoned branch remembered: every record of the session seen on it and on none of keepFor",
		effect: "write",
		callers: "any",
		access: "memory.write",
		runs: "anywhere",
		input: DropBranchInput,
		output: ForgetAnswer,
		http: {
			method: "POST",
			path: "/v1/sessions/{session}/branches/{branch}/memory/drop"
		}
	}),
	reindexMemory: spec({
		name: "reindexMemory",
		summary: "Embed up to `limit` records that have no vector in the current model's index (after a model change); run until remaining is 0, the old model's index answering meanwhile",
		effect: "write",
		callers: "any",
		access: "memory.write",
		runs: "anywhere",
		input: ReindexInput,
		output: ReindexAnswer,
		cli: {
			command: ["memory", "reindex"],
			summary: "embed records that have no vector yet (with the store’s embedding function)",
			example: "cairn memory reindex --limit 500"
		},
		http: {
			method: "POST",
			path: "/v1/memory/reindex"
		}
	}),
	forgetMemory: spec({
		name: "forgetMemory",
		mcp: {
			name: "memory_forget",
			description: "Forget a record: every version, its index entries and anchors, and with derived=true everything made from it. It cannot be undone: run with preview=true first to see what would go."
		},
		summary: "Forget a record — every version, its index entries — and with derived everything made from it; preview lists what would go",
		effect: "write",
		callers: "any",
		access: "memory.write",
		runs: "anywhere",
		input: ForgetInput,
		output: ForgetAnswer,
		cli: {
			command: ["memory", "forget"],
			args: ["record"],
			summary: "forget a record — every version and index entry — and with --derived what was made from it",
			example: "cairn memory forget mr_… --derived --preview"
		},
		http: {
			method: "POST",
			path: "/v1/memory/{record}/forget"
		}
	})
};
export { contract_exports as n, MEMORY_CONTRACT as t };
