import { N as sha256Hex } from "./store-folder-D53airw-.js";
import { A as invalidArgument } from "./front-BpLyP2oj.js";
import { t as Journal } from "./journal-DzztJ9UP.js";
import { accessSync, constants } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { spawn } from "node:child_process";
import { constants as constants$1 } from "node:os";
// dist/unit/exec.js
/**
* Variables never passed to a child: the operator's keys to the vault, and
* the way to the store itself. This keeps them out of the child's own
* environment only: a child running as the same OS user can read its
* parent's /proc entries and any file that user can, and so act as the
* store's local admin; see GUARANTEES.md.
*/
const WITHHELD_VARIABLES = [
	"CAIRN_MASTER_KEY",
	"CAIRN_MASTER_KEY_FILE",
	"CAIRN_TOKEN",
	"CAIRN_URL",
	"CAIRN_STORE"
];
/** A child's handle expires after this long even if revoking it on exit never happens (a crash). */
const EXEC_HANDLE_TTL_MS = 864e5;
/** Finds a command on a PATH string (passed in: the library reads no environment). */
function findCommand(command, path, cwd) {
	const executable = (file) => {
		try {
			accessSync(file, constants.X_OK);
			return true;
		} catch {
			return false;
		}
	};
	if (command.includes("/")) {
		const file = isAbsolute(command) ? command : join(cwd, command);
		return executable(file) ? file : null;
	}
	for (const dir of path.split(delimiter)) if (dir !== "" && executable(join(dir, command))) return join(dir, command);
	return null;
}
const osSignals = constants$1.signals;
/** After asking a child to stop (SIGTERM), how long it has before SIGKILL. */
const STOP_GRACE_MS = 5e3;
async function execInWorkspace(fabric, desk, input) {
	const [program, ...args] = input.command;
	if (program === void 0 || program === "") throw invalidArgument("exec needs a command: cairn exec -- CMD [ARGS…]");
	const ws = await desk.getWorkspace(input.workspace);
	const resolved = findCommand(program, input.env.PATH ?? "", ws.dir);
	if (!resolved) throw invalidArgument(`command "${program}" not found on PATH: check its name`, { command: program });
	const env = { ...input.env };
	for (const name of WITHHELD_VARIABLES) delete env[name];
	let handleId;
	try {
		if (input.keys) {
			const issued = await input.keys.keys.issueHandle({
				session: ws.session,
				branch: ws.branch,
				ttlMs: EXEC_HANDLE_TTL_MS
			});
			handleId = issued.id;
			env.CAIRN_PROXY_URL = input.keys.proxyUrl;
			env.CAIRN_HANDLE = issued.handle;
			env.CAIRN_BRANCH = ws.branch;
			for (const credential of input.keys.envCredentials ?? []) {
				const injected = await input.keys.keys.envForChild({
					session: ws.session,
					branch: ws.branch,
					credential
				});
				env[injected.variable] = injected.value;
			}
		}
		return await runStep(fabric, desk, ws, resolved, args, input.command, env, input.signal);
	} finally {
		if (handleId) await input.keys?.keys.revokeHandle(handleId);
	}
}
async function runStep(fabric, desk, ws, resolved, args, command, env, signal) {
	const journal = (await Journal.open(fabric, {
		session: ws.session,
		branch: ws.branch
	})).atEnd();
	let stdout = Buffer.alloc(0);
	let stderr = Buffer.alloc(0);
	let position = 0;
	let key = "";
	const result = await journal.step("exec", {
		command,
		workspace: ws.id
	}, async (ctx) => {
		position = ctx.position;
		key = ctx.key;
		const started = performance.now();
		const child = spawn(resolved, args, {
			cwd: ws.dir,
			env: {
				...env,
				CAIRN_STEP_KEY: ctx.key
			}
		});
		const out = [];
		const err = [];
		child.stdout.on("data", (d) => out.push(d));
		child.stderr.on("data", (d) => err.push(d));
		let killer;
		const stop = () => {
			child.kill("SIGTERM");
			killer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
		};
		if (signal?.aborted) stop();
		else signal?.addEventListener("abort", stop, { once: true });
		const exit = await new Promise((resolve, reject) => {
			child.on("error", reject);
			child.on("close", (code, ended) => resolve(code ?? (ended ? 128 + (osSignals[ended] ?? 0) : 1)));
		}).finally(() => {
			clearTimeout(killer);
			signal?.removeEventListener("abort", stop);
		});
		stdout = Buffer.concat(out);
		stderr = Buffer.concat(err);
		return {
			exit,
			outputDigest: sha256Hex(Buffer.concat([stdout, stderr])),
			durationMs: Math.round(performance.now() - started)
		};
	}, { policy: "escalate" }).finally(() => journal.flush());
	const checkpoint = await desk.checkpoint(ws.id);
	return {
		position,
		key,
		...result,
		stdout,
		stderr,
		checkpoint
	};
}
export { execInWorkspace as t };
