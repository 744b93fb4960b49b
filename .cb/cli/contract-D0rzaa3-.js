import { L as __exportAll } from "./front-BpLyP2oj.js";
import { r as spec } from "./spec-2aais7-z.js";
import { F as NoInput, W as SnapshotInput, _ as DeskForkInput, b as DeskRefusedInput, g as DeskDiscardInput, h as DeskDigestsInput, m as DeskCommitInput, p as DeskAttachedInput, q as WorkspaceInput, v as DeskPutPackInput, y as DeskReadObjectsInput } from "./schema-akKHYQxY.js";
import { t as Done } from "./shapes-CMxeFoql.js";
import { t as MAX_PACK_BYTES } from "./pack-limits-oElBX9PA.js";
import { a as SnapshotList, c as WorkspaceHead, i as Snapshot, l as WorkspaceList, n as MissingObjects, o as StoredPack, r as ObjectBytes, s as Workspace, t as DeskCommitted } from "./shapes-zR3KRW9H.js";
// dist/desk/contract.js
/**
* The desk's contract over the table (see desk/desk-store.ts): what a desk on
* another host — where the directory is — asks of the store. A remote desk
* (`RemoteDeskStore`) calls these; `cairn serve` runs them over its own
* store. They are the store side only: attaching a directory, scanning it
* and writing files stay on the caller's host.
*
* What comes in over the network is checked here, at the edge, before the
* store acts: every pack hashes to its name and every object in it to its
* digest (so a client cannot plant bytes under another digest that other
* workspaces of the tenant would then reuse).
*/
var contract_exports = /* @__PURE__ */ __exportAll({ DESK_CONTRACT: () => DESK_CONTRACT });
/** A pack's largest size: a full pack of the smallest objects, with its index. */
const DESK_CONTRACT = {
	deskMissing: spec({
		name: "deskMissing",
		summary: "Which of these desk objects the store does not hold",
		effect: "read",
		callers: "any",
		access: "desk.read",
		runs: "anywhere",
		input: DeskDigestsInput,
		output: MissingObjects,
		http: {
			method: "POST",
			path: "/v1/desk/objects/missing"
		}
	}),
	deskReadObjects: spec({
		name: "deskReadObjects",
		summary: "The bytes of desk objects, in the order asked (the caller re-hashes them)",
		effect: "read",
		callers: "any",
		access: "desk.read",
		runs: "anywhere",
		input: DeskReadObjectsInput,
		output: ObjectBytes,
		http: {
			method: "POST",
			path: "/v1/desk/objects/read",
			answer: "bytes"
		}
	}),
	deskPutPack: spec({
		name: "deskPutPack",
		summary: "Store a pack of desk objects ahead of the snapshot that names it (again: a no-op)",
		effect: "write",
		callers: "any",
		access: "desk.write",
		runs: "anywhere",
		input: DeskPutPackInput,
		output: StoredPack,
		http: {
			method: "PUT",
			path: "/v1/desk/packs/{digest}",
			body: "bytes",
			maxBodyBytes: MAX_PACK_BYTES
		}
	}),
	deskDiscardPacks: spec({
		name: "deskDiscardPacks",
		summary: "Delete packs stored for a checkpoint that failed before its commit",
		effect: "write",
		callers: "any",
		access: "desk.write",
		runs: "anywhere",
		input: DeskDiscardInput,
		output: Done,
		http: {
			method: "POST",
			path: "/v1/desk/packs/discard"
		}
	}),
	deskCommit: spec({
		name: "deskCommit",
		summary: "Record a snapshot: compare-and-swap on the workspace head, its objects made reachable, its log events",
		effect: "write",
		callers: "any",
		access: "desk.write",
		runs: "anywhere",
		input: DeskCommitInput,
		output: DeskCommitted,
		http: {
			method: "POST",
			path: "/v1/desk/snapshots",
			status: 201,
			maxBodyBytes: 25165824
		}
	}),
	getWorkspace: spec({
		name: "getWorkspace",
		summary: "Get a workspace",
		effect: "read",
		callers: "any",
		access: "desk.read",
		runs: "anywhere",
		input: WorkspaceInput,
		output: Workspace,
		http: {
			method: "GET",
			path: "/v1/workspaces/{workspace}"
		}
	}),
	workspaceHead: spec({
		name: "workspaceHead",
		summary: "A workspace with its head snapshot",
		effect: "read",
		callers: "any",
		access: "desk.read",
		runs: "anywhere",
		input: WorkspaceInput,
		output: WorkspaceHead,
		http: {
			method: "GET",
			path: "/v1/workspaces/{workspace}/head"
		}
	}),
	listWorkspaces: spec({
		name: "listWorkspaces",
		summary: "List the tenant's workspaces, on every host",
		effect: "read",
		callers: "any",
		access: "desk.read",
		runs: "anywhere",
		input: NoInput,
		output: WorkspaceList,
		http: {
			method: "GET",
			path: "/v1/workspaces"
		}
	}),
	attachedAt: spec({
		name: "attachedAt",
		summary: "The workspaces attached on a host at any of these directories",
		effect: "read",
		callers: "any",
		access: "desk.read",
		runs: "anywhere",
		input: DeskAttachedInput,
		output: WorkspaceList,
		http: {
			method: "POST",
			path: "/v1/desk/workspaces/attached"
		}
	}),
	listSnapshots: spec({
		name: "listSnapshots",
		summary: "A workspace's snapshots, oldest first",
		effect: "read",
		callers: "any",
		access: "desk.read",
		runs: "anywhere",
		input: WorkspaceInput,
		output: SnapshotList,
		http: {
			method: "GET",
			path: "/v1/workspaces/{workspace}/snapshots"
		}
	}),
	getSnapshot: spec({
		name: "getSnapshot",
		summary: "Get a snapshot",
		effect: "read",
		callers: "any",
		access: "desk.read",
		runs: "anywhere",
		input: SnapshotInput,
		output: Snapshot,
		http: {
			method: "GET",
			path: "/v1/snapshots/{snapshot}"
		}
	}),
	deskFork: spec({
		name: "deskFork",
		summary: "Record a fork's workspace and start its log branch, in one transaction",
		effect: "write",
		callers: "any",
		access: "desk.write",
		runs: "anywhere",
		input: DeskForkInput,
		output: Workspace,
		http: {
			method: "POST",
			path: "/v1/desk/forks",
			status: 201
		}
	}),
	detachWorkspace: spec({
		name: "detachWorkspace",
		summary: "Mark a workspace detached (its directory is left to the host)",
		effect: "write",
		callers: "any",
		access: "desk.write",
		runs: "anywhere",
		input: WorkspaceInput,
		output: Workspace,
		http: {
			method: "POST",
			path: "/v1/workspaces/{workspace}/detach"
		}
	}),
	deskRefused: spec({
		name: "deskRefused",
		summary: "Audit a desk's refusal of destructive work on a workspace's directory (not its host's, or not one it created)",
		effect: "write",
		callers: "any",
		access: "desk.write",
		runs: "anywhere",
		input: DeskRefusedInput,
		output: Done,
		http: {
			method: "POST",
			path: "/v1/workspaces/{workspace}/refusals"
		}
	})
};
export { contract_exports as n, DESK_CONTRACT as t };
