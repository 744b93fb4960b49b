import { L as __exportAll } from "./front-BpLyP2oj.js";
import { r as spec } from "./spec-2aais7-z.js";
import { i as CairnEvent, t as AppendResult } from "./shapes-CQYJa-Gm.js";
import { $ as object, H as SessionId, J as _enum, K as WorkspaceId, Q as number, U as SnapshotId, X as boolean, Y as array, Z as literal, a as BranchName, et as record, nt as union, rt as unknown, tt as string, x as EventId } from "./schema-akKHYQxY.js";
import { i as Snapshot, s as Workspace } from "./shapes-zR3KRW9H.js";
import { a as idOf, i as at } from "./shapes-CMxeFoql.js";
// dist/unit/shapes.js
/**
* What the unit's operations answer, as zod schemas (the contract's outputs,
* OpenAPI's and MCP's descriptions); the unit's TypeScript types are
* inferred from these, so each noun is declared once.
*/
const GitEvidence = object({
	revision: string().describe("the HEAD commit"),
	branch: string().nullable().describe("the checked-out branch; null when HEAD is detached"),
	dirty: boolean().describe("uncommitted changes or untracked files")
});
const CheckResult = object({
	command: string(),
	exit: number().int(),
	outputDigest: string().describe("sha256 of stdout followed by stderr"),
	durationMs: number(),
	passed: boolean(),
	outputTail: string().optional().describe("the last lines of a failed check's output (at most 4 KiB): returned, never recorded")
});
const GrantRef = object({
	id: string(),
	credential: string(),
	mode: string(),
	approval: string()
});
const StepAt = object({
	position: number().int(),
	name: string(),
	key: string()
});
const UnitCheckpoint = object({
	id: idOf().describe("the checkpoint's event id"),
	session: idOf(),
	branch: string(),
	label: string(),
	head: idOf().describe("the log head the checkpoint covers (the event before it)"),
	workspace: idOf(),
	snapshot: idOf(),
	root: string(),
	inDoubt: array(StepAt),
	evidence: object({
		git: GitEvidence.optional(),
		checks: array(CheckResult)
	}),
	accepted: boolean().describe("every check passed"),
	grants: array(GrantRef).optional().describe("the branch's active grants when the checkpoint was taken (absent when the unit has no keys)"),
	createdAt: at
});
const StepEffect = StepAt.extend({
	state: _enum([
		"done",
		"failed",
		"in-doubt"
	]),
	compensate: object({
		name: string(),
		args: unknown().optional()
	}).optional()
});
const PathChange = object({
	path: string(),
	change: _enum([
		"added",
		"changed",
		"removed"
	]),
	kind: _enum([
		"file",
		"dir",
		"symlink"
	])
});
const UnitRestorePreview = object({
	checkpoint: UnitCheckpoint,
	workspace: idOf().describe("the workspace the restore changes"),
	dir: string().describe("the workspace's directory"),
	head: idOf().describe("the branch head the restore moves from"),
	eventsAfter: array(CairnEvent).describe("events the restore takes off the branch's path: they stay in the log, readable and restorable"),
	eventsBack: array(CairnEvent).describe("events the restore puts back on the branch's path (a redo)"),
	files: array(PathChange),
	grants: array(GrantRef.extend({ state: string() })).describe("the grants the checkpoint recorded, with their state now: a restore never re-issues one that ended"),
	steps: object({
		undone: array(StepEffect).describe("local-only steps: the restore puts back what they changed"),
		compensation: array(StepEffect).describe("external effects with a registered compensation (listed, never run)"),
		cannotUndo: array(StepEffect).describe("external effects nothing undoes: an email sent stays sent")
	})
});
const UnitRestored = UnitRestorePreview.extend({
	before: UnitCheckpoint.describe("the checkpoint taken first: restoring it undoes this restore"),
	undo: string().describe("the command that undoes this restore")
});
const UnitRestoreAnswer = union([UnitRestored, UnitRestorePreview]);
const UnitForked = object({
	checkpoint: UnitCheckpoint,
	branches: array(object({
		branch: string(),
		workspace: Workspace,
		grants: array(GrantRef)
	}))
});
const UnitStatus = object({
	workspace: string(),
	session: string(),
	branch: string(),
	unrecordedChanges: array(object({
		path: string(),
		change: string()
	})),
	inDoubt: array(StepAt),
	contradicted: array(StepAt.extend({
		recorded: _enum(["done", "failed"]),
		happened: boolean()
	})),
	endedGrants: array(object({
		id: string(),
		credential: string(),
		mode: string(),
		state: string()
	})).describe("grants the branch relied on that were revoked, expired or used up"),
	clean: boolean()
});
/** One checkpoint as a listing shows it: where it is, and what it holds. */
const CheckpointEntry = object({
	id: idOf().describe("the checkpoint's id (ev_…): what a restore or a fork takes"),
	label: string(),
	createdAt: at,
	session: idOf(),
	branch: string().describe("the branch it was taken on"),
	workspace: idOf().describe("the workspace whose files it holds: it is restored there"),
	onBranchPath: boolean().describe("whether its branch's path holds it now: false once a restore went back before it (restoring it goes forward again)"),
	accepted: boolean().describe("every check passed"),
	head: idOf().describe("the log head it covers (the event before it)"),
	snapshot: idOf(),
	files: number().int().describe("files in its snapshot"),
	bytes: number().int().describe("the bytes of those files"),
	inDoubt: number().int().describe("steps in doubt when it was taken"),
	checks: array(object({
		command: string(),
		passed: boolean()
	})),
	git: GitEvidence.optional()
});
const CheckpointList = object({
	items: array(CheckpointEntry).describe("newest first"),
	next: idOf().nullable().describe("older checkpoints exist: pass this as `before` for them; null when there are none")
});
/** A credential the desk's guard found in a directory: where, by which rule, and what it did about it. */
const SecretFinding = object({
	path: string(),
	line: number().int().describe("1-based; 0 for a finding on the path alone"),
	rule: string(),
	confidence: _enum(["high", "low"]),
	action: _enum([
		"withheld",
		"redacted",
		"kept"
	]).describe("withheld: left out of the snapshot; redacted: stored with the secret x'd out; kept: low confidence, stored as is")
});
const UnitAttached = object({
	workspace: Workspace,
	snapshot: Snapshot.describe("its first snapshot"),
	findings: array(SecretFinding).describe("credentials found in its files (the files on disk are untouched)"),
	unsupported: array(string()).describe("entries a snapshot cannot hold (sockets, FIFOs, devices), left out")
});
// dist/unit/contract.js
/**
* The unit of work's operations. Those that act on a workspace directory
* (attach, checkpoint, restore, fork, status) run where it is (`runs:
* 'caller'`) — in the library with a desk, the CLI, or `cairn mcp`, the
* store local or a server's — and are never routed over HTTP (a server
* cannot reach the caller's directory). Listing checkpoints reads the log
* only, so it runs anywhere; where the caller is, a workspace named by its
* directory (or none) is settled there first. Where no workspace is named,
* the workspace is the caller's (for `cairn mcp`, the directory it started
* in).
*/
var contract_exports = /* @__PURE__ */ __exportAll({ UNIT_CONTRACT: () => UNIT_CONTRACT });
const WorkspaceRef = string().min(1).max(4096).optional().describe("a workspace id (ws_…) or directory; default: the caller's workspace");
/** What the unit's answers hold is described in docs/design/steps-and-units.md; structured, not fixed here yet. */
const UnitBranch = object({
	session: SessionId,
	branch: BranchName
}).strict();
/** A unit checkpoint's payload, as Units writes it (unit.ts `UnitCheckpoint` without its event's fields). */
const CheckpointPayload = object({
	label: string().max(200),
	head: union([EventId, literal("")]),
	workspace: WorkspaceId,
	snapshot: SnapshotId,
	root: string().max(128),
	inDoubt: array(object({
		position: number().int().min(1),
		name: string(),
		key: string()
	}).strict()).max(1e5),
	evidence: record(string(), unknown()).describe("git state and each check: exit code, output digest"),
	accepted: boolean(),
	grants: array(object({
		id: string(),
		credential: string(),
		mode: string(),
		approval: string()
	}).strict()).max(1e4).optional()
}).strict();
const UNIT_CONTRACT = {
	recordCheckpoint: spec({
		name: "recordCheckpoint",
		summary: "Record a unit checkpoint of a branch whose workspace did not change (a changed one's rides with its snapshot)",
		effect: "write",
		callers: "any",
		access: "log.append",
		runs: "anywhere",
		input: UnitBranch.extend({ payload: CheckpointPayload }).strict(),
		output: AppendResult,
		http: {
			method: "POST",
			path: "/v1/sessions/{session}/branches/{branch}/unit/checkpoints",
			status: 201
		}
	}),
	keepBranch: spec({
		name: "keepBranch",
		summary: "Mark a fork's branch the one kept: its workspace stays (what it remembered is carried separately)",
		effect: "write",
		callers: "any",
		access: "log.append",
		runs: "anywhere",
		input: UnitBranch.extend({ workspace: WorkspaceId }).strict(),
		output: AppendResult,
		http: {
			method: "POST",
			path: "/v1/sessions/{session}/branches/{branch}/unit/keep",
			status: 201
		}
	}),
	abandonBranch: spec({
		name: "abandonBranch",
		summary: "Mark a fork's branch abandoned: after expiresAt its workspace may be reclaimed by its own host's desk",
		effect: "write",
		callers: "any",
		access: "log.append",
		runs: "anywhere",
		input: UnitBranch.extend({
			workspace: WorkspaceId,
			expiresAt: number().int().min(0).max(Number.MAX_SAFE_INTEGER).describe("ms since the epoch")
		}).strict(),
		output: AppendResult,
		http: {
			method: "POST",
			path: "/v1/sessions/{session}/branches/{branch}/unit/abandon",
			status: 201
		}
	}),
	attachWorkspace: spec({
		name: "attachWorkspace",
		mcp: {
			name: "workspace_attach",
			description: "Attach a directory on this machine (the one the Cairn MCP server runs on) as your workspace: it is bound to a session branch (a new session unless you name one) and its files are snapshotted, so workspace_checkpoint, workspace_restore, workspace_fork and workspace_status can act on it. Returns the workspace (pass its id as workspace to those tools, unless the directory is the one the server started in) and its first snapshot. Attaching changes no file, and credential files are left out of the snapshot. It cannot be undone: the copy of the files stays in the store, and a later workspace_restore rewrites files in this directory. A directory already attached is refused."
		},
		summary: "Attach a directory of the caller's host to a session branch (a new session unless named) and take its first snapshot",
		effect: "write",
		callers: "any",
		access: "desk.write",
		runs: "caller",
		input: object({
			dir: string().min(1).max(4096).describe("the directory to attach, on the machine this server runs on: an absolute path, or one relative to the directory the server started in"),
			session: SessionId.optional().describe("the session (ss_…) to bind it to, e.g. the one you are working in; default: a new session"),
			branch: BranchName.optional().describe("a branch of that session to bind it to, one that exists (session_fork makes one); default main")
		}).strict(),
		output: UnitAttached
	}),
	listCheckpoints: spec({
		name: "listCheckpoints",
		mcp: {
			name: "workspace_checkpoints",
			description: "List the checkpoints of your workspace (or of a whole session), newest first: each one's id, label, time, branch, whether its checks passed, and what it holds (files and bytes of its snapshot, steps in doubt, checks, git revision). Checkpoints a restore went back before are listed too (onBranchPath false): restore one of them to go forward again. Use it to find the id workspace_restore or workspace_fork takes. Read-only."
		},
		summary: "A workspace's or a session's unit checkpoints, newest first, with what each holds (those a restore went back before included)",
		effect: "read",
		callers: "any",
		access: "log.read",
		runs: "anywhere",
		input: object({
			workspace: WorkspaceRef.describe("the workspace whose checkpoints to list: its id (ws_…), or its directory where the server runs on the workspace's machine; default: yours, unless a session is named"),
			session: SessionId.optional().describe("list the checkpoints of every workspace of this session (ss_…) instead of one workspace's"),
			branch: BranchName.optional().describe("only the checkpoints taken on this branch"),
			before: EventId.optional().describe("only checkpoints older than this one: the next of an earlier answer, for the page after it"),
			limit: number().int().min(1).max(100).default(20).describe("how many at most")
		}).strict(),
		output: CheckpointList,
		http: {
			method: "GET",
			path: "/v1/checkpoints"
		}
	}),
	checkpoint: spec({
		name: "checkpoint",
		mcp: {
			name: "workspace_checkpoint",
			description: "Checkpoint your unit of work: the session branch's head, a snapshot of the workspace's files, the steps in doubt, and the outcome of the checks you name (shell commands; it is accepted when all pass). A failed check makes this call a tool error (the checkpoint is kept, not accepted). A snapshot holds files, not running processes. Go back to it with workspace_restore."
		},
		summary: "Checkpoint the unit: log head, workspace snapshot, steps in doubt, evidence; accepted when every check passes",
		effect: "write",
		callers: "any",
		access: "desk.write",
		runs: "caller",
		input: object({
			workspace: WorkspaceRef,
			label: string().max(200).optional().describe("a few words to find it by later"),
			checks: array(string().min(1).max(4e3)).max(20).optional().describe("shell commands whose success accepts it")
		}).strict(),
		output: UnitCheckpoint,
		failureOf: (cp) => cp.accepted ? void 0 : `checkpoint ${cp.id} is recorded but not accepted: ${cp.evidence.checks.filter((c) => !c.passed).map((c) => `\`${c.command}\` exited ${c.exit}${c.outputTail ? `: ${c.outputTail.trim().split("\n").slice(-3).join(" / ")}` : ""}`).join("; ")}; fix what the check says, then checkpoint again`
	}),
	restore: spec({
		name: "restore",
		mcp: {
			name: "workspace_restore",
			description: "Put the unit back at a checkpoint: the branch head moves there and the workspace's files follow; a checkpoint of the state before is taken first, so this can itself be undone. It cannot undo effects outside the workspace (an email sent, a payment made): it lists them. Run with preview=true first to see which files and events change."
		},
		summary: "Restore the unit to a checkpoint of its session (the log head moves there, the workspace follows; prints its undo), or preview what would change",
		effect: "write",
		callers: "any",
		access: "desk.write",
		runs: "caller",
		input: object({
			checkpoint: EventId.describe("the checkpoint's id (ev_…), from workspace_checkpoint"),
			preview: boolean().default(false).describe("list what would change; change nothing"),
			workspace: WorkspaceRef,
			allowUnaccepted: boolean().default(false).describe("restore a checkpoint whose checks failed")
		}).strict(),
		output: UnitRestoreAnswer
	}),
	forkUnit: spec({
		name: "forkUnit",
		mcp: {
			name: "workspace_fork",
			description: "Fork the unit at a checkpoint into new branches, each with its own log branch and its own copy of the workspace beside the original, to try alternatives side by side. The new branches get no credentials of their own. Returns each branch with its workspace directory."
		},
		summary: "Fork the unit at a checkpoint into branches, each with its own log branch and workspace beside the forked one, and no grants",
		effect: "write",
		callers: "any",
		access: "desk.write",
		runs: "caller",
		input: object({
			checkpoint: EventId.describe("the checkpoint's id (ev_…) to fork at"),
			branches: number().int().min(1).max(16).optional().describe("how many branches (default 1)"),
			names: array(BranchName).min(1).max(16).optional().describe("the branches, by name (instead of branches)"),
			driver: _enum(["copy", "overlay"]).optional().describe("how the workspaces are made (default: overlay where it works)"),
			allowUnaccepted: boolean().default(false).describe("fork a checkpoint whose checks failed")
		}).strict().refine((v) => v.branches === void 0 || v.names === void 0, {
			message: "pass either branches (a number) or names, not both",
			path: ["names"]
		}),
		output: UnitForked
	}),
	status: spec({
		name: "status",
		mcp: {
			name: "workspace_status",
			description: "What the unit holds that no checkpoint does: files changed since the last checkpoint, steps in doubt, grants that ended. Call it before checkpointing or restoring. Read-only."
		},
		summary: "What the unit holds that no checkpoint does: unrecorded file changes, steps in doubt, grants that ended",
		effect: "read",
		callers: "any",
		access: "desk.read",
		runs: "caller",
		input: object({ workspace: WorkspaceRef }).strict(),
		output: UnitStatus
	})
};
export { contract_exports as n, UNIT_CONTRACT as t };
