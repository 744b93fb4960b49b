import { n as runsAtCaller } from "./spec-2aais7-z.js";
import { t as deskStoreOf } from "./store-side--GAU6LHX.js";
import { A as invalidArgument } from "./front-BpLyP2oj.js";
import { c as branchPath, f as eventsOfKind, r as appendOwnEvent, u as encodePayload } from "./session-log-CJJ_c6sf.js";
import { a as defaultForkRoot, n as UNIT_CHECKPOINT_EVENT, r as UNIT_KEEP_EVENT, t as UNIT_ABANDON_EVENT } from "./unit-0eTMutQs.js";
// dist/unit/checkpoints.js
/** Events read per query while a workspace's checkpoints are picked out of its branch's. */
const BATCH = 200;
/** The checkpoints a query names, newest first, and whether older ones exist. */
async function listCheckpoints(ctx, query) {
	const { session, branch, workspace } = await target(ctx, query);
	const placed = await ctx.read(async (tx) => {
		const found = [];
		let before = query.before;
		for (;;) {
			const batch = await eventsOfKind(tx, ctx.who, {
				session,
				kind: UNIT_CHECKPOINT_EVENT,
				branch,
				before,
				limit: workspace === void 0 ? query.limit + 1 : BATCH
			});
			for (const p of batch) if (workspace === void 0 || p.event.payload.workspace === workspace) found.push(p);
			if (workspace === void 0 || found.length > query.limit || batch.length < BATCH) break;
			before = batch[batch.length - 1]?.event.id;
		}
		const page = found.slice(0, query.limit);
		const paths = /* @__PURE__ */ new Map();
		for (const name of new Set(page.map((p) => p.event.branch))) paths.set(name, await branchPath(tx, ctx.who, session, name));
		return {
			page: page.map((p) => ({
				...p,
				onPath: (paths.get(p.event.branch) ?? []).some((s) => s.line === p.line && Number(s.lo) <= p.event.seq && p.event.seq <= Number(s.hi))
			})),
			more: found.length > query.limit
		};
	});
	const snapshots = new Map((await deskStoreOf(ctx).snapshots(placed.page.map((p) => p.event.payload.snapshot ?? "").filter((s) => s !== ""))).map((s) => [s.id, s]));
	const items = placed.page.map(({ event, onPath }) => {
		const recorded = event.payload;
		const snapshot = recorded.snapshot ? snapshots.get(recorded.snapshot) : void 0;
		return {
			id: event.id,
			label: recorded.label ?? "",
			createdAt: event.at,
			session: event.session,
			branch: event.branch,
			workspace: recorded.workspace ?? "",
			onBranchPath: onPath,
			accepted: recorded.accepted === true,
			head: recorded.head ?? "",
			snapshot: recorded.snapshot ?? "",
			files: snapshot?.files ?? 0,
			bytes: snapshot?.bytes ?? 0,
			inDoubt: recorded.inDoubt?.length ?? 0,
			checks: (recorded.evidence?.checks ?? []).map((c) => ({
				command: c.command,
				passed: c.passed
			})),
			...recorded.evidence?.git ? { git: recorded.evidence.git } : {}
		};
	});
	const last = items[items.length - 1];
	return {
		items,
		next: placed.more && last ? last.id : null
	};
}
/** The session (and branch, workspace) a query reads: a workspace's own, or the session named. */
async function target(ctx, query) {
	if (query.workspace === void 0) {
		if (query.session === void 0) throw invalidArgument("name the workspace (ws_…) or the session (ss_…) whose checkpoints to list", { field: "workspace" });
		return {
			session: query.session,
			branch: query.branch
		};
	}
	if (!query.workspace.startsWith("ws_")) throw invalidArgument(`workspace "${query.workspace.slice(0, 200)}" is not a workspace id: here a workspace is named by its id (ws_…); a directory names one only on the machine that holds it`, { field: "workspace" });
	const ws = await deskStoreOf(ctx).workspace(query.workspace);
	if (query.session !== void 0 && query.session !== ws.session) throw invalidArgument(`workspace ${ws.id} is of session ${ws.session}, not ${query.session}: name one of them`, {
		field: "session",
		workspace: ws.id
	});
	return {
		session: ws.session,
		branch: query.branch ?? ws.branch,
		workspace: ws.id
	};
}
// dist/unit/handlers.js
/** The handlers of the unit's operations (the contract: ./contract.ts): they act through the caller's side. */
/** The caller's side of a context, or the error that says where the operation runs. */
function callerOf(ctx, command) {
	if (ctx.caller) return ctx.caller;
	throw runsAtCaller(command);
}
/**
* Appends one of the unit's events for `workspace` on a branch, after
* checking the store binds that workspace to that session branch.
*/
async function unitEvent(ctx, input, kind, payload) {
	const ws = await deskStoreOf(ctx).workspace(input.workspace);
	if (ws.session !== input.session || ws.branch !== input.branch) throw invalidArgument(`workspace ${ws.id} is bound to branch ${ws.branch} of session ${ws.session}, not ${input.branch} of ${input.session}: name the workspace of that branch`, { workspace: ws.id });
	const who = ctx.who;
	return ctx.write((tx, now) => appendOwnEvent(tx, who, {
		session: input.session,
		branch: input.branch,
		kind,
		payload: null
	}, encodePayload(payload), now));
}
const UNIT_HANDLERS = {
	recordCheckpoint: (ctx, input) => unitEvent(ctx, {
		...input,
		workspace: input.payload.workspace
	}, UNIT_CHECKPOINT_EVENT, input.payload),
	keepBranch: (ctx, input) => unitEvent(ctx, input, UNIT_KEEP_EVENT, { workspace: input.workspace }),
	abandonBranch: (ctx, input) => unitEvent(ctx, input, UNIT_ABANDON_EVENT, {
		workspace: input.workspace,
		expiresAt: input.expiresAt
	}),
	attachWorkspace: async (ctx, input) => {
		const { workspace, checkpoint } = await callerOf(ctx, "ws attach").attach(input);
		return {
			workspace,
			snapshot: checkpoint.snapshot,
			findings: checkpoint.findings.map(({ path, line, rule, confidence, action }) => ({
				path,
				line,
				rule,
				confidence,
				action
			})),
			unsupported: checkpoint.unsupported
		};
	},
	listCheckpoints: (ctx, input) => listCheckpoints(ctx, input),
	checkpoint: async (ctx, input) => {
		const caller = callerOf(ctx, "checkpoint");
		const ws = await caller.workspace(input.workspace);
		return caller.units.checkpoint({
			workspace: ws.id,
			label: input.label,
			checks: input.checks
		});
	},
	restore: async (ctx, input) => {
		const caller = callerOf(ctx, "restore");
		const options = {
			workspace: (await caller.workspace(input.workspace)).id,
			allowUnaccepted: input.allowUnaccepted
		};
		if (input.preview) return caller.units.previewRestore(input.checkpoint, options);
		const done = await caller.units.restore(input.checkpoint, options);
		return {
			...done.preview,
			before: done.before,
			undo: done.undo
		};
	},
	forkUnit: async (ctx, input) => {
		const caller = callerOf(ctx, "fork");
		const checkpoint = await caller.units.get(input.checkpoint);
		const ws = await caller.workspace(checkpoint.workspace);
		return caller.units.fork(input.checkpoint, {
			branches: input.names ?? input.branches ?? 1,
			dirRoot: defaultForkRoot(ws),
			driver: input.driver,
			allowUnaccepted: input.allowUnaccepted
		});
	},
	status: async (ctx, input) => {
		const caller = callerOf(ctx, "status");
		const ws = await caller.workspace(input.workspace);
		return caller.units.status(ws.id);
	}
};
export { UNIT_HANDLERS };
