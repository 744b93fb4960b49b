import { D as forbidden, F as unavailable, c as socketPlaces, d as watchSocketPath, g as Output, i as forwardedEnv, l as storeArgument, m as EXIT, o as prepareSocketDir, p as storeDir, r as forwardedCommand, w as conflict } from "./front-BpLyP2oj.js";
import { f as wantsJson } from "./args-Br0IqddQ.js";
import { a as untilStopSignal, c as readStoreConfig, r as openConfiguredStore, s as deskSettings } from "./store-commands-CycJ5P-a.js";
import { existsSync, unlinkSync } from "node:fs";
import { isAbsolute } from "node:path";
import { connect, createServer } from "node:net";
import { hostname } from "node:os";
import { Readable, Writable } from "node:stream";
// dist/cli/watch-command.js
/**
* `cairn watch`: a long-lived process beside a local store that keeps the
* store open and the desk watching every workspace attached on this host
* (inotify, one watch per directory), and runs workspace command lines for
* the CLI over a Unix socket (see front.ts). A `cairn checkpoint`
* then looks only at what changed instead of stat-scanning the tree, and
* its process loads nothing but the CLI's front.
*/
/** A request line larger than this is refused (a command line and its environment fit easily). */
const MAX_REQUEST_BYTES = 1048576;
/** A Writable that keeps what is written, for a command's stdout or stderr. */
var Collected = class extends Writable {
	text = "";
	_write(chunk, _encoding, done) {
		this.text += chunk.toString();
		done();
	}
};
function parseRequest(line) {
	const request = JSON.parse(line);
	const strings = (xs) => Array.isArray(xs) && xs.every((x) => typeof x === "string");
	if (!strings(request.argv) || typeof request.cwd !== "string" || !isAbsolute(request.cwd) || typeof request.env !== "object" || request.env === null || !Object.values(request.env).every((v) => typeof v === "string")) throw new Error("a request is {argv: string[], cwd: absolute path, env: {name: string}}");
	return request;
}
/**
* Refuses what the front never forwards: another command, or another store
* than this watcher's. The environment is cut to what the front may send.
*/
function admit(request, dir) {
	if (forwardedCommand(request.argv) === null) throw forbidden(`cairn watch runs only the workspace commands the CLI forwards to it, not "${request.argv.slice(0, 2).join(" ")}": run that command yourself`, {});
	const env = forwardedEnv(request.env);
	const named = storeDir({ store: storeArgument(request.argv) }, env, request.cwd).dir;
	if (named !== dir) throw forbidden(`this cairn watch serves the store ${dir}, not ${named}: run the command yourself`, {});
	return {
		...request,
		env
	};
}
/** True when something answers on the socket (another watcher); a leftover file from a dead one does not. */
function answers(socket) {
	return new Promise((resolve) => {
		const probe = connect(socket);
		probe.on("connect", () => {
			probe.destroy();
			resolve(true);
		});
		probe.on("error", () => resolve(false));
	});
}
/** Binds in a folder only this user may enter, under a umask that leaves the socket 0600 (no chmod after bind). */
async function listen(socket, dir, uid, onConnection) {
	prepareSocketDir(socket, dir, uid);
	if (existsSync(socket)) {
		if (await answers(socket)) throw conflict(`a cairn watch already serves this store (its socket ${socket} answers): one is enough`, { socket });
		unlinkSync(socket);
	}
	const server = createServer({ allowHalfOpen: true }, onConnection);
	const umask = process.umask(127);
	try {
		await new Promise((resolve, reject) => {
			server.once("error", reject);
			server.listen(socket, () => resolve());
		});
	} finally {
		process.umask(umask);
	}
	return server;
}
const WATCH_COMMANDS = [{
	target: "store",
	createsStore: false,
	names: ["watch"],
	example: "cairn watch",
	args: [],
	flags: [],
	summary: "keep the store open and its workspaces watched until SIGINT/SIGTERM; workspace commands on this store then run here, without a scan",
	async run(dir, call) {
		const { out } = call;
		const store = await openConfiguredStore(dir, "background");
		const config = readStoreConfig(dir);
		const who = await store.localIdentity();
		const host = hostname();
		const desk = store.desk(who, {
			host,
			...deskSettings(config),
			watch: true
		});
		const shared = {
			dir,
			config: JSON.stringify(config),
			ctx: {
				desk,
				fabric: store.fabric(who),
				local: {
					store,
					who
				}
			}
		};
		const { main } = await import("./main.js");
		let queue = Promise.resolve();
		const run = (request) => {
			const stdout = new Collected();
			const stderr = new Collected();
			const world = {
				stdout,
				stderr,
				stdin: Readable.from([]),
				env: request.env,
				cwd: request.cwd,
				shared
			};
			const done = queue.then(async () => ({
				code: await main(request.argv, world),
				stdout: stdout.text,
				stderr: stderr.text
			}));
			queue = done.catch(() => void 0);
			return done;
		};
		const onConnection = (conn) => {
			let text = "";
			conn.setEncoding("utf8");
			conn.on("error", () => conn.destroy());
			conn.on("data", (chunk) => {
				text += chunk;
				if (text.length > MAX_REQUEST_BYTES) conn.destroy();
			});
			conn.on("end", () => {
				let request;
				try {
					request = parseRequest(text.trim());
				} catch (error) {
					const reason = error instanceof Error ? error.message : String(error);
					conn.end(JSON.stringify({
						code: EXIT.usage,
						stdout: "",
						stderr: `cairn watch: ${reason}\n`
					}));
					return;
				}
				try {
					request = admit(request, dir);
				} catch (error) {
					const stdout = new Collected();
					const stderr = new Collected();
					const code = new Output(wantsJson(request.argv), {
						stdout,
						stderr
					}, false).fail(error);
					conn.end(JSON.stringify({
						code,
						stdout: stdout.text,
						stderr: stderr.text
					}));
					return;
				}
				run(request).then((answer) => conn.end(JSON.stringify(answer)));
			});
		};
		const places = socketPlaces(call.env);
		const socket = watchSocketPath(dir, places);
		if (socket === void 0) throw unavailable(`no folder gives ${dir} a watch socket path short enough (108 bytes): set $XDG_RUNTIME_DIR or $TMPDIR to a short folder`, { store: dir });
		let server;
		try {
			const here = (await desk.listWorkspaces()).filter((w) => w.state === "attached" && w.host === host);
			for (const ws of here) await desk.prepare(ws.id).catch((error) => {
				out.problem(`workspace ${ws.id} (${ws.dir}): ${error instanceof Error ? error.message : error}`);
			});
			server = await listen(socket, dir, places.uid, onConnection);
			const stopped = untilStopSignal();
			out.result({
				store: dir,
				socket,
				workspaces: here.map((w) => w.id)
			}, [`Cairn watching ${here.length} workspace${here.length === 1 ? "" : "s"} of ${dir}`, `socket: ${socket}`]);
			await stopped;
		} finally {
			if (server) await new Promise((resolve) => server?.close(resolve));
			await queue;
			await desk.close();
			await store.close();
		}
		return EXIT.ok;
	}
}];
export { WATCH_COMMANDS };
