import { i as CairnEvent } from "./shapes-CQYJa-Gm.js";
import { $ as object, J as _enum, Q as number, Y as array, o as Bytes, tt as string } from "./schema-akKHYQxY.js";
import { a as idOf, i as at } from "./shapes-CMxeFoql.js";
// dist/desk/shapes.js
/** What the desk's operations answer, as zod schemas: workspaces, snapshots, and the remote desk's packs and objects. */
const Workspace = object({
	id: idOf(),
	dir: string().describe("the directory, on its host"),
	host: string(),
	session: idOf(),
	branch: string(),
	driver: _enum([
		"plain",
		"copy",
		"overlay"
	]),
	state: _enum(["attached", "detached"]),
	baseSnapshot: idOf().describe("the snapshot it started from (its fork point, or its first checkpoint)"),
	headSnapshot: idOf(),
	forkedFrom: idOf().describe("the workspace it was forked from; '' when attached directly"),
	createdAt: at
});
const WorkspaceList = object({ items: array(Workspace) });
const Snapshot = object({
	id: idOf(),
	workspace: idOf(),
	kind: _enum([
		"checkpoint",
		"restore",
		"merge"
	]),
	root: string().describe("digest of the root tree"),
	parent: idOf().describe("the snapshot it followed; '' for a workspace's first"),
	event: idOf().describe("the log event that records it on the workspace's branch"),
	files: number().int(),
	bytes: number().int(),
	addedBytes: number().int().describe("bytes of new objects it stored"),
	createdAt: at
});
const SnapshotList = object({ items: array(Snapshot) });
const WorkspaceHead = object({
	workspace: Workspace,
	head: Snapshot
});
const DeskCommitted = object({
	snapshot: Snapshot,
	workspace: Workspace,
	appended: CairnEvent.optional()
});
const MissingObjects = object({ missing: array(string()) });
const StoredPack = object({
	pack: string(),
	objects: number().int()
});
const ObjectBytes = array(Bytes);
export { SnapshotList as a, WorkspaceHead as c, Snapshot as i, WorkspaceList as l, MissingObjects as n, StoredPack as o, ObjectBytes as r, Workspace as s, DeskCommitted as t };
