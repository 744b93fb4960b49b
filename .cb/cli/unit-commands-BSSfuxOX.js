import { A as invalidArgument, M as notFound, j as isCairnError, m as EXIT } from "./front-BpLyP2oj.js";
import { n as startProxy } from "./proxy-DKF1bBki.js";
import { t as UNIT_CONTRACT } from "./contract-Dlok8_sM.js";
import { t as execInWorkspace } from "./exec-Dy_fe4K6.js";
import { a as defaultForkRoot, i as Units, o as keysOverFabric, s as refuseOtherWorkspace } from "./unit-0eTMutQs.js";
import { a as jsonFlag, d as stringFlag, o as listFlag, p as wholeNumberFlag } from "./args-Br0IqddQ.js";
import { n as tableInput } from "./derived-0u4ipQJF.js";
import { localOnly, withDesk, workspaceOf } from "./desk-commands-DbZvD6FU.js";
import { n as masterKeyOf, t as MASTER_KEY_FLAG } from "./master-key-2kLtwb5Y.js";
import { resolve } from "node:path";
// dist/cli/unit-commands.js
/**
* The unit of work on a local store: `cairn checkpoint|restore|fork|exec|
* status` and `cairn step ls|resolve`. The unit is the workspace named by
* `--ws` (default: the current directory) with its session branch.
*/
const WS_FLAG = {
	name: "ws",
	type: "string",
	value: "WS",
	help: "workspace id or attached directory (default: the current directory)"
};
async function withUnit(place, call, fn) {
	return withDesk(place, call, async (ctx) => {
		const ws = await workspaceOf(ctx.desk, call);
		return fn({
			...ctx,
			units: await unitsOf(ctx, call),
			ws
		});
	});
}
/**
* The unit over the desk, the fabric and the keys (a checkpoint records the
* branch's grants, a fork may hand grants on): the store's own keys on a
* local store, the server's through the fabric otherwise.
*/
async function unitsOf(ctx, call) {
	const keys = ctx.local ? ctx.local.store.keys(ctx.local.who, { masterKey: masterKeyOf(call) }) : await keysOverFabric(ctx.fabric);
	return new Units(ctx.fabric, ctx.desk, keys);
}
/**
* The unit of a command that names a checkpoint: the workspace of `--ws`,
* else the one attached at the current directory — never the checkpoint's
* own by default, so a command run in the wrong place changes nothing
* there. It refuses when the checkpoint is of another workspace, naming both.
*/
async function withCheckpointUnit(place, call, fn) {
	return withDesk(place, call, async (ctx) => {
		const { desk } = ctx;
		const units = await unitsOf(ctx, call);
		const checkpoint = await units.get(call.positionals[0]);
		const ws = await workspaceOf(desk, call).catch(async (error) => {
			if (stringFlag(call.values, "ws") !== void 0 || !isCairnError(error, "NOT_FOUND")) throw error;
			const own = await desk.getWorkspace(checkpoint.workspace).catch(() => void 0);
			throw notFound(`no workspace is attached at ${call.cwd}, and a checkpoint acts on the workspace where you are: run it in ${own?.dir ?? "its workspace directory"} or pass --ws ${checkpoint.workspace}`, {
				checkpoint: checkpoint.id,
				workspace: checkpoint.workspace
			});
		});
		if (ws.id !== checkpoint.workspace) await refuseOtherWorkspace(desk, checkpoint, ws, (w) => `pass --ws ${w}`);
		return fn({
			...ctx,
			units,
			ws,
			checkpoint
		});
	});
}
/**
* `--grant BRANCH:CREDENTIAL:MODE[:each-write]`: one grant for one named
* branch of a fork, narrowing the forked branch's grant on the credential.
*/
function forkGrants(call, names) {
	const out = names.map(() => []);
	for (const text of listFlag(call.values, "grant")) {
		const [branch, credential, mode, approval, ...extra] = text.split(":");
		const index = names.indexOf(branch ?? "");
		if (!credential || !mode || extra.length > 0 || approval !== void 0 && approval !== "each-write" && approval !== "none") throw invalidArgument(`--grant ${text}: write BRANCH:CREDENTIAL:MODE[:each-write]`, { grant: text });
		if (index < 0) throw invalidArgument(`--grant ${text}: branch ${branch} is not one of the --name branches`, { grant: text });
		out[index]?.push({
			credential,
			mode,
			...approval ? { approval } : {}
		});
	}
	return out;
}
function checkpointLines(c) {
	return [
		`checkpoint ${c.id}${c.label ? ` "${c.label}"` : ""}: ${c.accepted ? "accepted" : "NOT accepted"} — snapshot ${c.snapshot}, log head ${c.head || "(empty)"}`,
		...c.evidence.git ? [`git ${c.evidence.git.revision} on ${c.evidence.git.branch ?? "(detached HEAD)"}${c.evidence.git.dirty ? " (dirty)" : ""}`] : [],
		...c.evidence.checks.flatMap((k) => [`check ${k.passed ? "passed" : "FAILED"} (exit ${k.exit}, ${k.durationMs} ms): ${k.command}`, ...k.outputTail ? k.outputTail.split("\n").map((line) => `  | ${line}`) : []]),
		...c.inDoubt.map((s) => `step ${s.position} "${s.name}" is in doubt`)
	];
}
/** The attached workspace of a branch on this host; with --ws, of that workspace's session. */
async function branchWorkspace(desk, call, branch) {
	const session = stringFlag(call.values, "ws") === void 0 ? void 0 : (await workspaceOf(desk, call)).session;
	const found = (await desk.listWorkspaces()).filter((w) => w.state === "attached" && w.branch === branch && (session === void 0 || w.session === session));
	if (found.length === 1) return found[0];
	if (found.length === 0) throw notFound(`no workspace on this host is attached to a branch named ${branch}: fork one with \`cairn fork CP --name ${branch}\``, { branch });
	throw invalidArgument(`${found.length} workspaces are attached to branches named ${branch}: pass --ws to pick the session`, { branch });
}
const checkpoint = {
	target: "desk",
	createsStore: false,
	names: ["checkpoint"],
	example: "cairn checkpoint --label \"tests pass\" --check \"npm test\"",
	args: [],
	flags: [
		WS_FLAG,
		{
			name: "label",
			type: "string",
			value: "L",
			help: "a label for people"
		},
		{
			name: "check",
			type: "string",
			value: "CMD",
			multiple: true,
			help: "a shell command whose success accepts the checkpoint (repeatable)"
		}
	],
	summary: "checkpoint the unit: log head, workspace snapshot, steps in doubt, evidence (git revision, checks)",
	check: (call) => {
		checkpointInput(call);
	},
	async run(place, call) {
		const input = checkpointInput(call);
		return withUnit(place, call, async ({ units, ws }) => {
			const c = await units.checkpoint({
				workspace: ws.id,
				label: input.label,
				checks: input.checks
			});
			call.out.result(c, checkpointLines(c));
			return c.accepted ? EXIT.ok : EXIT.checkFailed;
		});
	}
};
function checkpointInput(call) {
	return tableInput(UNIT_CONTRACT.checkpoint, () => ({
		label: stringFlag(call.values, "label"),
		checks: listFlag(call.values, "check")
	}));
}
const UNIT_COMMANDS = [
	checkpoint,
	{
		target: "desk",
		createsStore: false,
		names: ["restore"],
		example: "cairn restore ev_… --preview",
		args: ["CHECKPOINT"],
		flags: [
			WS_FLAG,
			{
				name: "preview",
				type: "boolean",
				help: "list events, files and steps after the checkpoint; change nothing"
			},
			{
				name: "allow-unaccepted",
				type: "boolean",
				help: "restore a checkpoint whose checks failed"
			}
		],
		summary: "restore the unit to any checkpoint of its session (checkpoints first; the log head moves there and the workspace follows, as a new operation that prints its undo)",
		async run(place, call) {
			return withCheckpointUnit(place, call, async ({ units, ws }) => {
				const id = call.positionals[0];
				const options = {
					workspace: ws.id,
					allowUnaccepted: call.values["allow-unaccepted"] === true
				};
				const previewOnly = call.values.preview === true;
				const done = previewOnly ? void 0 : await units.restore(id, options);
				const preview = done?.preview ?? await units.previewRestore(id, options);
				const s = preview.steps;
				const back = preview.eventsBack.length > 0 ? `, ${preview.eventsBack.length} events back on it` : "";
				call.out.result(done ? {
					...preview,
					before: done.before,
					undo: done.undo
				} : preview, [
					`${previewOnly ? "restoring" : "restored"} ${id} in ${preview.dir} (${preview.workspace}): ${preview.files.length} paths, ${preview.eventsAfter.length} events off the branch's path${back}`,
					...preview.files.map((f) => `  ${f.change} ${f.path}`),
					...s.undone.map((e) => `  step ${e.position} ${e.name}: undone (local only)`),
					...s.compensation.map((e) => `  step ${e.position} ${e.name}: compensation available (${e.compensate?.name})`),
					...s.cannotUndo.map((e) => `  step ${e.position} ${e.name}: cannot be undone (external effect)`),
					...done ? [`undo: cairn restore ${done.undo}`] : []
				]);
				return EXIT.ok;
			});
		}
	},
	{
		target: "desk",
		createsStore: false,
		names: ["fork"],
		example: "cairn fork ev_… --branches 3",
		args: ["CHECKPOINT"],
		flags: [
			WS_FLAG,
			{
				name: "branches",
				type: "string",
				value: "N",
				help: "how many branches (default 1)"
			},
			{
				name: "name",
				type: "string",
				value: "B",
				multiple: true,
				help: "name a branch (repeatable; instead of --branches)"
			},
			{
				name: "dir",
				type: "string",
				value: "DIR",
				help: "where the branches’ workspaces go (default: beside the workspace)"
			},
			{
				name: "driver",
				type: "string",
				value: "D",
				help: "copy or overlay (default: by capability)"
			},
			{
				name: "allow-unaccepted",
				type: "boolean",
				help: "fork a checkpoint whose checks failed"
			},
			{
				name: "grant",
				type: "string",
				value: "B:CRED:MODE[:each-write]",
				multiple: true,
				help: "give named branch B a grant narrowing this branch’s grant on CRED (repeatable); none by default"
			}
		],
		summary: "fork the unit at a checkpoint into branches, each with its own log branch, workspace and stated grants (none unless --grant)",
		async run(place, call) {
			const driver = stringFlag(call.values, "driver");
			if (driver !== void 0 && driver !== "copy" && driver !== "overlay") throw invalidArgument(`--driver must be copy or overlay, not "${driver}"`, { flag: "driver" });
			return withCheckpointUnit(place, call, async ({ units, ws }) => {
				const names = listFlag(call.values, "name");
				const result = await units.fork(call.positionals[0], {
					branches: names.length > 0 ? names : wholeNumberFlag(call.values, "branches") ?? 1,
					dirRoot: resolve(call.cwd, stringFlag(call.values, "dir") ?? defaultForkRoot(ws)),
					driver,
					allowUnaccepted: call.values["allow-unaccepted"] === true,
					grants: forkGrants(call, names)
				});
				call.out.result(result, result.branches.map((b) => `branch ${b.branch}: workspace ${b.workspace.id} at ${b.workspace.dir} (${b.workspace.driver}), grants: ${b.grants.length === 0 ? "none" : b.grants.map((g) => `${g.credential} ${g.mode}${g.approval === "each-write" ? "+each-write" : ""} (${g.id})`).join(", ")}`));
				return EXIT.ok;
			});
		}
	},
	{
		target: "desk",
		createsStore: false,
		names: ["exec"],
		example: "cairn exec -- npm test",
		args: [],
		rest: "CMD…",
		flags: [
			WS_FLAG,
			{
				name: "branch",
				type: "string",
				value: "B",
				help: "run in branch B’s workspace with CAIRN_PROXY_URL and CAIRN_HANDLE set (a proxy runs for the command)"
			},
			{
				name: "env-cred",
				type: "string",
				value: "NAME",
				multiple: true,
				help: "inject env credential NAME into this one command (needs --branch and a grant on it)"
			},
			{
				name: "proxy",
				type: "string",
				value: "URL",
				help: "use a running `cairn proxy` instead of starting one"
			},
			MASTER_KEY_FLAG
		],
		summary: "run a command in the workspace as a recorded step, then checkpoint if it changed anything",
		async run(place, call) {
			const branch = stringFlag(call.values, "branch");
			const envCredentials = listFlag(call.values, "env-cred");
			if (branch === void 0 && (envCredentials.length > 0 || call.values.proxy !== void 0)) throw invalidArgument("--env-cred and --proxy need --branch B");
			return withDesk(place, call, async (ctx) => {
				const { desk, fabric } = ctx;
				const ws = branch === void 0 ? await workspaceOf(desk, call) : await branchWorkspace(desk, call, branch);
				const local = branch === void 0 ? void 0 : localOnly(ctx, "exec --branch");
				const keys = local?.store.keys(local.who, { masterKey: masterKeyOf(call) });
				const who = local?.who;
				let running;
				const proxyUrl = stringFlag(call.values, "proxy");
				if (branch !== void 0 && proxyUrl === void 0) running = await startProxy({
					keysFor: (tenant) => tenant === who?.tenant ? keys : void 0,
					auditRefusalsIn: keys,
					log: (line) => call.out.problem(line)
				});
				const stopping = new AbortController();
				const stop = () => stopping.abort();
				const signals = [
					"SIGTERM",
					"SIGINT",
					"SIGHUP"
				];
				for (const s of signals) process.on(s, stop);
				const result = await execInWorkspace(fabric, desk, {
					workspace: ws.id,
					command: call.positionals,
					env: call.env,
					signal: stopping.signal,
					...branch === void 0 ? {} : { keys: {
						keys,
						proxyUrl: proxyUrl ?? running.url,
						envCredentials
					} }
				}).finally(() => {
					for (const s of signals) process.off(s, stop);
					return running?.close();
				});
				const { stdout, stderr, ...recorded } = result;
				if (!call.out.json) call.out.raw(stdout, stderr);
				call.out.result({
					...recorded,
					stdout: stdout.toString("utf8"),
					stderr: stderr.toString("utf8")
				}, `step ${result.position}: exit ${result.exit} in ${result.durationMs} ms${result.checkpoint.created ? `, snapshot ${result.checkpoint.snapshot.id}` : ", workspace unchanged"}`);
				return result.exit === 0 ? EXIT.ok : Math.min(result.exit, 125);
			});
		}
	},
	{
		target: "desk",
		createsStore: false,
		names: ["step", "ls"],
		example: "cairn step ls",
		args: [],
		flags: [WS_FLAG],
		summary: "list the recorded steps of the workspace’s branch",
		async run(place, call) {
			return withUnit(place, call, async ({ fabric, ws }) => {
				const { steps } = await fabric.listSteps({
					session: ws.session,
					branch: ws.branch
				});
				call.out.result({ steps }, steps.map((s) => `${s.position}  ${s.state}${s.settledBy ? ` (by ${s.settledBy})` : ""}  ${s.name}  ${s.key}`));
				return EXIT.ok;
			});
		}
	},
	{
		target: "desk",
		createsStore: false,
		names: ["step", "resolve"],
		example: "cairn step resolve 4 --result '{\"sent\":true}'",
		args: ["POSITION"],
		flags: [
			WS_FLAG,
			{
				name: "result",
				type: "string",
				value: "JSON",
				help: "the step happened, with this result"
			},
			{
				name: "error",
				type: "string",
				value: "MSG",
				help: "the step failed"
			},
			{
				name: "rerun",
				type: "boolean",
				help: "run it again with the same key"
			}
		],
		summary: "resolve a step in doubt (escalate policy): it happened, it failed, or run it again",
		async run(place, call) {
			const position = Number(call.positionals[0]);
			const decision = {
				...call.values.result !== void 0 ? { result: jsonFlag(call.values, "result") } : {},
				...call.values.error !== void 0 ? { error: String(call.values.error) } : {},
				...call.values.rerun === true ? { rerun: true } : {}
			};
			return withUnit(place, call, async ({ fabric, ws }) => {
				const record = await fabric.resolveStep({
					session: ws.session,
					branch: ws.branch,
					position,
					...decision
				});
				call.out.result(record, `step ${position} "${record.name}": ${record.state}`);
				return EXIT.ok;
			});
		}
	},
	{
		target: "desk",
		createsStore: false,
		names: ["status"],
		example: "cairn status",
		args: [],
		flags: [WS_FLAG],
		summary: "where the layers disagree: workspace changes outside any recorded step, steps in doubt, grants that ended",
		async run(place, call) {
			return withUnit(place, call, async ({ units, ws }) => {
				const report = await units.status(ws.id);
				call.out.result(report, [
					`workspace ${ws.id} on ${ws.session}/${ws.branch}: ${report.clean ? "the layers agree" : "drift"}`,
					...report.unrecordedChanges.map((d) => `  changed outside any step: ${d.change} ${d.path}`),
					...report.inDoubt.map((s) => `  step ${s.position} "${s.name}" is in doubt`),
					...report.endedGrants.map((g) => `  grant ${g.id} (${g.credential}, ${g.mode}) is ${g.state}, but the branch relied on it`)
				]);
				return report.clean ? EXIT.ok : EXIT.checkFailed;
			});
		}
	},
	{
		target: "desk",
		createsStore: false,
		names: ["keep"],
		example: "cairn keep try-b",
		args: ["BRANCH"],
		flags: [WS_FLAG],
		summary: "mark a fork’s winner (of the session of --ws)",
		async run(place, call) {
			return withUnit(place, call, async ({ units, ws }) => {
				const event = await units.keep(ws.session, call.positionals[0]);
				call.out.result(event, `kept branch ${event.branch}`);
				return EXIT.ok;
			});
		}
	},
	{
		target: "desk",
		createsStore: false,
		names: ["abandon"],
		example: "cairn abandon try-c --ttl-ms 86400000",
		args: ["BRANCH"],
		flags: [WS_FLAG, {
			name: "ttl-ms",
			type: "string",
			value: "MS",
			help: "keep its workspace this long before gc reclaims it (default 7 days)"
		}],
		summary: "mark a fork abandoned: gc reclaims its workspace after the TTL",
		async run(place, call) {
			return withUnit(place, call, async ({ units, ws }) => {
				const event = await units.abandon(ws.session, call.positionals[0], wholeNumberFlag(call.values, "ttl-ms"));
				call.out.result(event, `abandoned branch ${event.branch}`);
				return EXIT.ok;
			});
		}
	}
];
export { UNIT_COMMANDS, unitsOf };
