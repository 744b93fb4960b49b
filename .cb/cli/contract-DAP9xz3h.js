import { L as __exportAll } from "./front-BpLyP2oj.js";
import { r as spec } from "./spec-2aais7-z.js";
import { B as RewindInput, E as GetSessionInput, I as ReadBranchInput, L as ReadPathInput, M as ListSessionsInput, P as MoveHeadInput, S as ForkInput, c as CreateSessionInput, i as BranchHistoryInput, k as ListBranchesInput, r as AppendInput, w as GetEventInput } from "./schema-akKHYQxY.js";
import { a as EventPage, c as SessionPage, i as CairnEvent, n as Branch, o as RefLog, r as BranchList, s as Session, t as AppendResult } from "./shapes-CQYJa-Gm.js";
// dist/log/contract.js
/**
* The session log's operations (contract/spec.ts): sessions, events,
* branches and paths; each is its route, its OpenAPI entry, its remote and
* embedded method and, where it has one, its MCP tool.
*/
var contract_exports = /* @__PURE__ */ __exportAll({ LOG_CONTRACT: () => LOG_CONTRACT });
const LOG_CONTRACT = {
	createSession: spec({
		name: "createSession",
		mcp: {
			name: "session_create",
			description: "Start a new session: the log of what you were asked, said, tried and learned, kept as a tree of branches (main first). Returns the session and its id (ss_…); add to it with event_append."
		},
		summary: "Create a session",
		effect: "write",
		callers: "any",
		access: "session.create",
		runs: "anywhere",
		input: CreateSessionInput,
		output: Session,
		cli: {
			command: ["session", "new"],
			summary: "create a session (with an empty main branch)",
			example: "cairn session new --title \"fix the flaky test\" --meta '{\"ticket\":\"CX-12\"}'"
		},
		http: {
			method: "POST",
			path: "/v1/sessions",
			status: 201
		}
	}),
	listSessions: spec({
		name: "listSessions",
		mcp: {
			name: "session_list",
			description: "List your tenant's sessions, newest first, a page at a time (pass the last id as `after` for the next page). Read-only."
		},
		summary: "List sessions, paged",
		effect: "read",
		callers: "any",
		access: "session.read",
		runs: "anywhere",
		input: ListSessionsInput,
		output: SessionPage,
		cli: {
			command: ["session", "ls"],
			summary: "list sessions, oldest first",
			example: "cairn session ls --limit 20"
		},
		http: {
			method: "GET",
			path: "/v1/sessions"
		}
	}),
	getSession: spec({
		name: "getSession",
		summary: "Get a session",
		effect: "read",
		callers: "any",
		access: "session.read",
		runs: "anywhere",
		input: GetSessionInput,
		output: Session,
		http: {
			method: "GET",
			path: "/v1/sessions/{session}"
		}
	}),
	append: spec({
		name: "append",
		mcp: {
			name: "event_append",
			description: "Append one event of your own kind (e.g. message, tool.call, note) to a session branch; it is durable once answered. Pass an idempotencyKey so a retry cannot add it twice. Kinds under cairn. are Cairn's own and refused. An event cannot be edited or deleted later; moving a branch back keeps it in the log."
		},
		summary: "Append an event to a branch head; durable when answered (200 when deduplicated by idempotency key)",
		effect: "write",
		callers: "any",
		access: "log.append",
		runs: "anywhere",
		input: AppendInput,
		output: AppendResult,
		http: {
			method: "POST",
			path: "/v1/sessions/{session}/events",
			status: 201
		},
		statusOf: (event) => event.deduplicated ? 200 : 201
	}),
	readBranch: spec({
		name: "readBranch",
		mcp: {
			name: "branch_read",
			description: "Read a session branch's events from its root to its head, oldest first, a page at a time (`from`: the next sequence number). Read-only."
		},
		summary: "Read a branch root to head, paged by sequence number",
		effect: "read",
		callers: "any",
		access: "log.read",
		runs: "anywhere",
		input: ReadBranchInput,
		output: EventPage,
		cli: {
			command: ["log", "show"],
			args: ["session"],
			summary: "show the events of a branch, root to head: seq, id, kind, actor, payload",
			example: "cairn log show ss_… --branch main --from 1 --limit 50"
		},
		http: {
			method: "GET",
			path: "/v1/sessions/{session}/branches/{branch}/events"
		}
	}),
	getEvent: spec({
		name: "getEvent",
		mcp: {
			name: "event_get",
			description: "One event by its id (ev_…), wherever it is in the session's tree. Read-only."
		},
		summary: "Get one event",
		effect: "read",
		callers: "any",
		access: "log.read",
		runs: "anywhere",
		input: GetEventInput,
		output: CairnEvent,
		cli: {
			command: ["event", "show"],
			args: ["event"],
			summary: "show one event: session, branch, seq, kind, actor, payload",
			example: "cairn event show ev_…"
		},
		http: {
			method: "GET",
			path: "/v1/events/{event}"
		}
	}),
	fork: spec({
		name: "fork",
		mcp: {
			name: "session_fork",
			description: "Start a new branch of a session's log at an event (or at a branch's head): what came before is shared, what follows is the branch's own. Only the log forks; to fork the files with it use workspace_fork. Returns the new branch."
		},
		summary: "Start a branch at an event (or another branch's head); nothing is copied",
		effect: "write",
		callers: "any",
		access: "branch.fork",
		runs: "anywhere",
		input: ForkInput,
		output: Branch,
		cli: {
			command: ["branch", "fork"],
			args: ["session"],
			summary: "start a new branch at an event; nothing is copied",
			example: "cairn branch fork ss_… --at ev_… --name try-b"
		},
		http: {
			method: "POST",
			path: "/v1/sessions/{session}/branches",
			status: 201
		}
	}),
	rewind: spec({
		name: "rewind",
		summary: "Move a branch head back to an event on its path; the old head stays readable",
		effect: "write",
		callers: "any",
		access: "branch.rewind",
		runs: "anywhere",
		input: RewindInput,
		output: Branch,
		cli: {
			command: ["branch", "rewind"],
			args: ["session", "branch"],
			summary: "move a branch head back to an event on its path (the old head stays readable)",
			example: "cairn branch rewind ss_… main --to ev_…"
		},
		http: {
			method: "POST",
			path: "/v1/sessions/{session}/branches/{branch}/rewind"
		}
	}),
	moveHead: spec({
		name: "moveHead",
		summary: "Move a branch head to any event of its session, recorded in its history (ifHead: compare-and-swap)",
		effect: "write",
		callers: "any",
		access: "branch.move",
		runs: "anywhere",
		input: MoveHeadInput,
		output: Branch,
		cli: {
			command: ["branch", "move"],
			args: ["session", "branch"],
			summary: "move a branch head to any event of its session: back, forward or onto another line (recorded)",
			example: "cairn branch move ss_… main --to ev_… --if-head ev_…"
		},
		http: {
			method: "POST",
			path: "/v1/sessions/{session}/branches/{branch}/move"
		}
	}),
	readPath: spec({
		name: "readPath",
		mcp: {
			name: "event_path",
			description: "The events from a session's root to one event (the path that led there), oldest first, paged. Read-only."
		},
		summary: "Read the path root to an event, paged by sequence number, whatever branch heads point at",
		effect: "read",
		callers: "any",
		access: "log.read",
		runs: "anywhere",
		input: ReadPathInput,
		output: EventPage,
		cli: {
			command: ["log", "path"],
			args: ["to"],
			flags: { to: "event" },
			summary: "show the path from the root to an event, whatever branch heads point at",
			example: "cairn log path ev_… --limit 50"
		},
		http: {
			method: "GET",
			path: "/v1/events/{to}/path"
		}
	}),
	listBranches: spec({
		name: "listBranches",
		mcp: {
			name: "branch_list",
			description: "A session's branches, each with its head (the last event on it). Read-only."
		},
		summary: "List the branches of a session with their heads",
		effect: "read",
		callers: "any",
		access: "branch.read",
		runs: "anywhere",
		input: ListBranchesInput,
		output: BranchList,
		cli: {
			command: ["branch", "ls"],
			args: ["session"],
			summary: "list the branches of a session: name, head seq, head event, fork point",
			example: "cairn branch ls ss_…"
		},
		http: {
			method: "GET",
			path: "/v1/sessions/{session}/branches"
		}
	}),
	branchHistory: spec({
		name: "branchHistory",
		mcp: {
			name: "branch_history",
			description: "Where a branch's head has been (appends aside: its forks, rewinds, restores), newest first: how to find a head to go back to. Read-only."
		},
		summary: "Head moves of a branch (create, fork, rewind, move)",
		effect: "read",
		callers: "any",
		access: "branch.read",
		runs: "anywhere",
		input: BranchHistoryInput,
		output: RefLog,
		cli: {
			command: ["branch", "history"],
			args: ["session", "branch"],
			summary: "show how a branch head moved (create, fork, rewind, move), oldest first",
			example: "cairn branch history ss_… main"
		},
		http: {
			method: "GET",
			path: "/v1/sessions/{session}/branches/{branch}/history"
		}
	})
};
export { contract_exports as n, LOG_CONTRACT as t };
