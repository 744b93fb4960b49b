import { A as invalidArgument, D as forbidden, M as notFound, w as conflict } from "./front-BpLyP2oj.js";
import { l as randomHex, t as parseInput } from "./validate-Dzwxqk5b.js";
import { n as grantState } from "./grants-R8pMwGKE.js";
import { n as pathChange, r as readAll } from "./pages-Dke7rruH.js";
import { a as BranchName } from "./schema-akKHYQxY.js";
import { t as Journal } from "./journal-DzztJ9UP.js";
import { N as sha256Hex } from "./store-folder-D53airw-.js";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
// dist/unit/evidence.js
/** How much of a failed check's output comes back: its last 4 KiB, at most 40 lines. */
const TAIL_BYTES = 4096;
function outputTail(output) {
	return output.subarray(Math.max(0, output.length - TAIL_BYTES)).toString("utf8").replace(/\s+$/, "").split("\n").slice(-40).join("\n");
}
/** Runs one check command in the workspace: exit code and output digest, never the output itself. */
function runCheck(command, cwd) {
	const started = performance.now();
	const run = spawnSync("sh", ["-c", command], {
		cwd,
		encoding: "buffer",
		maxBuffer: 67108864
	});
	const exit = run.status ?? 128;
	const output = Buffer.concat([run.stdout ?? Buffer.alloc(0), run.stderr ?? Buffer.alloc(0)]);
	return {
		command,
		exit,
		outputDigest: sha256Hex(output),
		durationMs: Math.round(performance.now() - started),
		passed: exit === 0,
		...exit === 0 ? {} : { outputTail: outputTail(output) }
	};
}
function gitEvidence(dir) {
	if (!existsSync(join(dir, ".git"))) return void 0;
	const rev = spawnSync("git", [
		"-C",
		dir,
		"rev-parse",
		"HEAD"
	], { encoding: "utf8" });
	if (rev.status !== 0) return void 0;
	const branch = spawnSync("git", [
		"-C",
		dir,
		"symbolic-ref",
		"--short",
		"-q",
		"HEAD"
	], { encoding: "utf8" });
	const status = spawnSync("git", [
		"-C",
		dir,
		"status",
		"--porcelain"
	], { encoding: "utf8" });
	return {
		revision: rev.stdout.trim(),
		branch: branch.status === 0 ? branch.stdout.trim() : null,
		dirty: status.stdout.trim() !== ""
	};
}
// dist/unit/unit.js
/**
* The unit of work: a session branch (the mind), the workspace bound to it
* (the desk) and its grants (the keys), checkpointed, forked and restored
* together (DESIGN §2, §6, §7).
*
* A unit checkpoint is one event (`cairn.unit.checkpoint`) on the branch. It
* names the log head before it, the workspace snapshot taken with it, the
* steps in doubt at that moment and the acceptance evidence: the git
* revision when the workspace is a git repository, and each check
* command's exit code and output digest. It is accepted when every check
* passed. It lists the branch's grants active at that moment — as a record
* of what the branch relied on, never as something a restore re-issues.
*/
const UNIT_CHECKPOINT_EVENT = "cairn.unit.checkpoint";
/** The snapshot fields of a checkpoint's payload before its commit: the store fills them in. */
const UNSET = "";
const UNIT_KEEP_EVENT = "cairn.unit.keep";
const UNIT_ABANDON_EVENT = "cairn.unit.abandon";
/** How long an abandoned branch's workspace is kept before `reclaim` discards it, by default. */
const DEFAULT_ABANDON_TTL_MS = 6048e5;
/** The unit's keys through a fabric (a server's): each call one operation of the table. */
async function keysOverFabric(fabric) {
	return {
		who: await fabric.whoami(),
		listGrants: async (filter = {}) => (await fabric.listGrants(filter)).grants,
		getGrant: (id) => fabric.getGrant({ grant: id }),
		checkGrant: async (input) => {
			await fabric.checkGrant(input);
		},
		grant: (input) => fabric.addGrant(input)
	};
}
/** Where a fork's branch workspaces go unless the caller says: beside the forked workspace. */
function defaultForkRoot(ws) {
	return `${ws.dir}.forks`;
}
var Units = class {
	fabric;
	desk;
	keys;
	constructor(fabric, desk, keys) {
		this.fabric = fabric;
		this.desk = desk;
		this.keys = keys;
	}
	/** The branch's active grants, as a checkpoint records them. */
	async activeGrants(session, branch) {
		if (!this.keys) return void 0;
		return (await this.keys.listGrants({
			session,
			branch
		})).filter((g) => g.state === "active").map((g) => ({
			id: g.id,
			credential: g.credential,
			mode: g.mode,
			approval: g.approval
		}));
	}
	/** Checkpoints the unit of a workspace: its snapshot, its branch's log head, steps in doubt, evidence. */
	async checkpoint(input) {
		return this.checkpointWith(input);
	}
	/**
	* A unit checkpoint; with `then`, the one a restore takes first: its
	* snapshot, its event and the head move to the restored checkpoint are
	* one transaction, which commits only while the branch head is still
	* `then.ifHead` — so a restore that loses a race records nothing.
	*/
	async checkpointWith(input, then) {
		const ws = await this.desk.getWorkspace(input.workspace);
		for (const check of input.checks ?? []) if (typeof check !== "string" || check.trim() === "") throw invalidArgument("a check is a non-empty shell command");
		const journal = await Journal.open(this.fabric, {
			session: ws.session,
			branch: ws.branch
		});
		const checks = (input.checks ?? []).map((c) => runCheck(c, ws.dir));
		const git = gitEvidence(ws.dir);
		const grants = await this.activeGrants(ws.session, ws.branch);
		const recorded = checks.map(({ outputTail: _tail, ...kept }) => kept);
		const payloadFor = (snapshot, head) => ({
			label: input.label ?? "",
			head,
			workspace: ws.id,
			snapshot: snapshot.id,
			root: snapshot.root,
			inDoubt: journal.inDoubt().map((s) => ({
				position: s.position,
				name: s.name,
				key: s.key
			})),
			evidence: {
				...git ? { git } : {},
				checks: recorded
			},
			accepted: checks.every((c) => c.passed),
			...grants ? { grants } : {}
		});
		const taken = await this.desk.checkpoint(ws.id, {
			also: {
				kind: UNIT_CHECKPOINT_EVENT,
				payload: payloadFor({
					id: UNSET,
					root: ""
				}, "")
			},
			...then ? {
				force: true,
				ifHead: then.ifHead,
				ifMoves: then.ifMoves,
				moveHeadTo: then.moveHeadTo
			} : {}
		});
		let payload;
		let event;
		if (taken.appended) {
			event = taken.appended;
			payload = event.payload;
		} else {
			const head = (await this.fabric.readBranch({
				session: ws.session,
				branch: ws.branch,
				limit: 1
			})).head;
			payload = payloadFor(taken.snapshot, head);
			event = await this.fabric.recordCheckpoint({
				session: ws.session,
				branch: ws.branch,
				payload
			});
		}
		return {
			id: event.id,
			session: ws.session,
			branch: ws.branch,
			...payload,
			evidence: {
				...payload.evidence,
				checks
			},
			createdAt: event.at
		};
	}
	async get(id) {
		const event = await this.fabric.getEvent({ event: id });
		if (event.kind !== "cairn.unit.checkpoint") throw notFound(`${id} is not a unit checkpoint (it is a ${event.kind} event)`, { id });
		return {
			id: event.id,
			session: event.session,
			branch: event.branch,
			...event.payload,
			createdAt: event.at
		};
	}
	/** The workspace a checkpoint's unit is restored into or forked from, checked to be of the same session. */
	async workspaceFor(checkpoint, workspace) {
		const ws = await this.desk.getWorkspace(workspace ?? checkpoint.workspace);
		if (ws.session !== checkpoint.session) throw invalidArgument(`checkpoint ${checkpoint.id} belongs to session ${checkpoint.session}, not to workspace ${ws.id}'s session ${ws.session}`, {
			checkpoint: checkpoint.id,
			workspace: ws.id
		});
		return ws;
	}
	/** How moving the workspace branch's head to the checkpoint changes its path. */
	async pathChange(checkpoint, ws) {
		const { head, off, back } = await pathChange((from) => this.fabric.readBranch({
			session: ws.session,
			branch: ws.branch,
			from,
			limit: 1e3
		}), (from) => this.fabric.readPath({
			to: checkpoint.id,
			from,
			limit: 1e3
		}), await this.fabric.getEvent({ event: checkpoint.id }));
		return {
			head,
			eventsAfter: off,
			eventsBack: back
		};
	}
	/**
	* What restoring a unit checkpoint would do: how the branch's path
	* changes, files, and the steps it takes off the path grouped by what
	* undoes them. It refuses exactly what `restore` refuses, so a preview
	* never promises a restore that is then refused.
	*/
	async previewRestore(id, options = {}) {
		return (await this.planRestore(id, options)).preview;
	}
	async planRestore(id, options) {
		const checkpoint = await this.get(id);
		const ws = await this.workspaceFor(checkpoint, options.workspace);
		if (ws.id !== checkpoint.workspace) await refuseOtherWorkspace(this.desk, checkpoint, ws);
		if (!checkpoint.accepted && !options.allowUnaccepted) throw conflict(`checkpoint ${id} is not accepted (a check failed): pass allowUnaccepted (--allow-unaccepted) to restore it anyway`, { checkpoint: id });
		const moves = (await this.fabric.branchHistory({
			session: ws.session,
			branch: ws.branch
		})).length;
		const { head, eventsAfter, eventsBack } = await this.pathChange(checkpoint, ws);
		const files = (await this.desk.previewRestore(ws.id, checkpoint.snapshot)).changes;
		const journal = await Journal.open(this.fabric, {
			session: ws.session,
			branch: ws.branch
		});
		const records = new Map(journal.steps().map((s) => [s.position, s]));
		const steps = {
			undone: [],
			compensation: [],
			cannotUndo: []
		};
		for (const event of eventsAfter) {
			if (event.kind !== "cairn.step") continue;
			const intent = event.payload.intent;
			if (!intent) continue;
			const record = records.get(intent.position);
			const effect = {
				position: intent.position,
				name: intent.name,
				key: intent.key,
				state: record?.state ?? "in-doubt",
				...intent.compensate ? { compensate: intent.compensate } : {}
			};
			if (intent.effect === "local") steps.undone.push(effect);
			else if (intent.compensate) steps.compensation.push(effect);
			else steps.cannotUndo.push(effect);
		}
		const now = Date.now();
		const grants = [];
		for (const ref of checkpoint.grants ?? []) {
			const grant = this.keys ? await this.keys.getGrant(ref.id).catch(() => void 0) : void 0;
			grants.push({
				...ref,
				state: grant ? grantState(grant, now) : "unknown"
			});
		}
		return {
			preview: {
				checkpoint,
				workspace: ws.id,
				dir: ws.dir,
				head,
				eventsAfter,
				eventsBack,
				files,
				grants,
				steps
			},
			ws,
			moves
		};
	}
	/**
	* Restores a unit checkpoint as a new operation: checkpoints the unit
	* first ("before restore", so the restore can be undone), moves the
	* branch head to the checkpoint wherever it sits in the session's tree
	* (back, or forward again after an earlier restore) and restores the
	* workspace to its snapshot. Everything a restore refuses is refused
	* before anything is recorded. Refused from a checkpoint whose checks
	* failed unless `allowUnaccepted`.
	*/
	async restore(id, options = {}) {
		const { preview, ws, moves } = await this.planRestore(id, options);
		const { checkpoint } = preview;
		const before = await this.checkpointWith({
			workspace: ws.id,
			label: `before restore of ${id}`
		}, {
			ifHead: preview.head,
			ifMoves: moves,
			moveHeadTo: checkpoint.id
		});
		await this.desk.restore(ws.id, checkpoint.snapshot);
		return {
			before,
			preview,
			undo: before.id
		};
	}
	/**
	* Forks the unit at a checkpoint into N branches (or the named ones), each
	* with its own log branch and its own workspace in `<dirRoot>/<branch>`.
	* A fork never copies a grant: `grants[i]` states the i-th branch's grants,
	* each narrowing a grant of the forked branch (checked before anything is
	* made); a branch given none has none.
	*/
	async fork(id, input) {
		const names = Array.isArray(input.branches) ? input.branches : null;
		const count = names ? names.length : input.branches;
		for (const name of names ?? []) parseInput(BranchName, name, "fork");
		if (names && new Set(names).size !== names.length) throw invalidArgument("branch names of one fork must differ", { names });
		if (!Number.isSafeInteger(count) || count < 1 || count > 64) throw invalidArgument(`a fork makes 1 to 64 branches, not ${String(count)}`, { branches: count });
		const checkpoint = await this.get(id);
		if (!checkpoint.accepted && !input.allowUnaccepted) throw conflict(`checkpoint ${id} is not accepted (a check failed): pass allowUnaccepted to fork it anyway`, { checkpoint: id });
		const ws = await this.workspaceFor(checkpoint);
		const plans = await this.planGrants(checkpoint, input.grants ?? [], count);
		const out = [];
		for (let i = 0; i < count; i++) {
			const name = names?.[i] ?? `${checkpoint.branch}-try-${i + 1}-${randomHex(3)}`;
			const forked = await this.desk.fork(ws.id, {
				dir: join(input.dirRoot, name),
				branch: name,
				driver: input.driver,
				at: {
					snapshot: checkpoint.snapshot,
					event: checkpoint.id
				}
			});
			const grants = [];
			for (const plan of plans[i] ?? []) {
				const g = await this.keys.grant({
					session: checkpoint.session,
					branch: name,
					...plan
				});
				grants.push({
					id: g.id,
					credential: g.credential,
					mode: g.mode,
					approval: g.approval
				});
			}
			out.push({
				branch: forked.workspace.branch,
				workspace: forked.workspace,
				grants
			});
		}
		return {
			checkpoint,
			branches: out
		};
	}
	/**
	* Resolves each fork grant's parent (default: the forked branch's one
	* active grant on the credential) and checks it narrows that parent,
	* before any branch is made.
	*/
	async planGrants(checkpoint, grants, count) {
		if (grants.length > count) throw invalidArgument(`grants are stated for ${grants.length} branches, but the fork makes ${count}`);
		if (grants.every((g) => g.length === 0)) return grants;
		const keys = this.keys;
		if (!keys) throw invalidArgument("this Units has no keys: it cannot issue grants to forks");
		if (keys.who.role !== "admin") {
			if ((await this.fabric.listBranches({ session: checkpoint.session })).find((b) => b.name === checkpoint.branch)?.owner !== keys.who.principal) throw forbidden(`principal ${keys.who.principal} does not own branch ${checkpoint.branch}: only its owner or an admin may hand its grants to forks`, { branch: checkpoint.branch });
		}
		const held = await keys.listGrants({
			session: checkpoint.session,
			branch: checkpoint.branch
		});
		return Promise.all(grants.map((specs) => Promise.all(specs.map(async (spec) => {
			const candidates = spec.parent ? [await keys.getGrant(spec.parent)] : held.filter((g) => g.credential === spec.credential && g.state === "active");
			if (candidates.length > 1) throw invalidArgument(`branch ${checkpoint.branch} holds ${candidates.length} active grants on ${spec.credential}: name the parent`, { grants: candidates.map((g) => g.id) });
			const parent = candidates[0];
			if (!parent) {
				if (keys.who.role !== "admin") throw forbidden(`branch ${checkpoint.branch} holds no grant on ${spec.credential} to narrow: ask an admin to grant it`, { credential: spec.credential });
				await keys.checkGrant({
					...spec,
					session: checkpoint.session
				});
				return spec;
			}
			const planned = {
				...spec,
				parent: parent.id
			};
			await keys.checkGrant({
				...planned,
				session: checkpoint.session
			});
			return planned;
		}))));
	}
	/** The workspace bound to a branch of a session on this host. */
	async branchWorkspace(session, branch) {
		const ws = (await this.desk.listWorkspaces()).find((w) => w.session === session && w.branch === branch && w.state === "attached");
		if (!ws) throw notFound(`branch ${branch} of session ${session} has no attached workspace`, { branch });
		return ws;
	}
	/**
	* Marks a fork's winner: an event on the branch; its workspace stays. What
	* the branch remembered becomes its parent's (the branch of the workspace
	* it was forked from), from a new event on the parent.
	*/
	async keep(session, branch) {
		const ws = await this.branchWorkspace(session, branch);
		const kept = await this.fabric.keepBranch({
			session,
			branch,
			workspace: ws.id
		});
		if (ws.forkedFrom !== "") {
			const parent = await this.desk.getWorkspace(ws.forkedFrom);
			if (parent.session === session && parent.branch !== branch) await this.fabric.carryMemory({
				session,
				from: branch,
				to: parent.branch
			});
		}
		return kept;
	}
	/**
	* Marks a branch abandoned: after `ttlMs` its workspace may be reclaimed
	* (`reclaim`, run by `cairn gc`). The log branch stays readable.
	*/
	async abandon(session, branch, ttlMs = DEFAULT_ABANDON_TTL_MS, now = Date.now()) {
		if (!Number.isSafeInteger(ttlMs) || ttlMs < 0) throw invalidArgument(`ttl must be a whole number of milliseconds, not ${ttlMs}`);
		const ws = await this.branchWorkspace(session, branch);
		return this.fabric.abandonBranch({
			session,
			branch,
			workspace: ws.id,
			expiresAt: now + ttlMs
		});
	}
	/** Discards the workspaces of abandoned fork branches whose time ran out; returns their ids. */
	async reclaim(now = Date.now()) {
		const reclaimed = [];
		const leftAlone = [];
		for (const ws of await this.desk.listWorkspaces()) {
			if (ws.state !== "attached" || ws.forkedFrom === "") continue;
			let last;
			const { events } = await readAll((from) => this.fabric.readBranch({
				session: ws.session,
				branch: ws.branch,
				from,
				limit: 1e4
			}));
			for (const e of events) if (e.branch === ws.branch && e.payload?.workspace === ws.id && (e.kind === "cairn.unit.abandon" || e.kind === "cairn.unit.keep")) last = e;
			if (last?.kind !== "cairn.unit.abandon") continue;
			if (last.payload.expiresAt > now) continue;
			const held = this.desk.holds(ws);
			if (!held.ok) {
				leftAlone.push({
					workspace: ws.id,
					host: ws.host,
					dir: ws.dir,
					reason: held.reason
				});
				continue;
			}
			await this.desk.detach(ws.id, { discard: true });
			const gone = new Set((await this.desk.listWorkspaces()).filter((w) => w.session === ws.session && w.state === "detached").map((w) => w.branch));
			const keepFor = (await this.fabric.listBranches({ session: ws.session })).map((b) => b.name).filter((name) => !gone.has(name));
			await this.fabric.dropBranchMemory({
				session: ws.session,
				branch: ws.branch,
				keepFor
			});
			reclaimed.push(ws.id);
		}
		return {
			reclaimed,
			leftAlone
		};
	}
	/**
	* Where the layers disagree (drift): files changed since the workspace's
	* last snapshot outside any recorded step (found without recording
	* anything), steps in doubt, and — given probes by step name — recorded
	* steps the world contradicts.
	*/
	async status(workspace, probes = {}) {
		const ws = await this.desk.getWorkspace(workspace);
		const journal = await Journal.open(this.fabric, {
			session: ws.session,
			branch: ws.branch
		});
		const drift = await this.desk.diff({
			from: ws.headSnapshot,
			workspace: ws.id,
			patches: false,
			record: false
		});
		const inDoubt = journal.inDoubt().map((s) => ({
			position: s.position,
			name: s.name,
			key: s.key
		}));
		const contradicted = await journal.contradictions(probes);
		const unrecordedChanges = drift.map((d) => ({
			path: d.path,
			change: d.change
		}));
		const endedGrants = this.keys ? await this.endedGrants(ws) : [];
		return {
			workspace: ws.id,
			session: ws.session,
			branch: ws.branch,
			unrecordedChanges,
			inDoubt,
			contradicted,
			endedGrants,
			clean: unrecordedChanges.length === 0 && inDoubt.length === 0 && contradicted.length === 0 && endedGrants.length === 0
		};
	}
	/**
	* Ended grants of a workspace's branch that a checkpoint on its path
	* recorded, or that it used. The log is read only when an ended grant was
	* never used (then only a checkpoint can show the branch relied on it).
	*/
	async endedGrants(ws) {
		const ended = (await this.keys.listGrants({
			session: ws.session,
			branch: ws.branch
		})).filter((g) => g.state !== "active");
		const recorded = /* @__PURE__ */ new Set();
		if (ended.some((g) => g.uses === 0)) {
			const { events } = await readAll((from) => this.fabric.readBranch({
				session: ws.session,
				branch: ws.branch,
				from,
				limit: 1e4
			}));
			for (const e of events) {
				if (e.kind !== "cairn.unit.checkpoint") continue;
				for (const g of e.payload.grants ?? []) recorded.add(g.id);
			}
		}
		return ended.filter((g) => g.uses > 0 || recorded.has(g.id)).map((g) => ({
			id: g.id,
			credential: g.credential,
			mode: g.mode,
			state: g.state
		}));
	}
};
/**
* A checkpoint is restored (or forked, from the CLI) only from its own
* workspace: the caller's is another, so the refusal names both.
*/
async function refuseOtherWorkspace(desk, checkpoint, ws, nameIt = (w) => `name its workspace (${w})`) {
	const own = await desk.getWorkspace(checkpoint.workspace).catch(() => void 0);
	throw invalidArgument(`checkpoint ${checkpoint.id} is of workspace ${checkpoint.workspace}${own ? ` (${own.dir})` : ""}, not of ${ws.id} (${ws.dir}) where you are: run it in ${own?.dir ?? "its directory"}, or ${nameIt(checkpoint.workspace)}`, {
		checkpoint: checkpoint.id,
		workspace: ws.id,
		checkpointWorkspace: checkpoint.workspace
	});
}
export { defaultForkRoot as a, Units as i, UNIT_CHECKPOINT_EVENT as n, keysOverFabric as o, UNIT_KEEP_EVENT as r, refuseOtherWorkspace as s, UNIT_ABANDON_EVENT as t };
