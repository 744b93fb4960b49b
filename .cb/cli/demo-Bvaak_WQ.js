import { D as actionCounts } from "./store-folder-D53airw-.js";
import { l as randomHex } from "./validate-Dzwxqk5b.js";
import { t as MasterKey } from "./crypto-EPtFFJHI.js";
import { n as startProxy } from "./proxy-DKF1bBki.js";
import { t as execInWorkspace } from "./exec-Dy_fe4K6.js";
import { i as Units } from "./unit-0eTMutQs.js";
import { Store } from "./store-CEqVpbTF.js";
import { m as EXIT } from "./front-BpLyP2oj.js";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { timingSafeEqual } from "node:crypto";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { createServer } from "node:http";
function seed(name, reconciled) {
	const invoices = [];
	const payments = [];
	for (let i = 1; i <= 200; i++) {
		const id = `inv-${String(i).padStart(3, "0")}`;
		const amountCents = 1e4 + i * 7919 % 9e4;
		invoices.push({
			id,
			customer: `customer-${i % 37 + 1}`,
			amountCents,
			status: "open",
			payment: null
		});
		payments.push({
			id: `pay-${String(i).padStart(3, "0")}`,
			amountCents,
			reference: i % 7 === 0 ? "" : id,
			matched: false
		});
	}
	for (let i = 0; i < reconciled; i++) {
		const inv = invoices[i];
		const pay = payments[i];
		inv.status = "reconciled";
		inv.payment = pay.id;
		pay.matched = true;
	}
	return {
		name,
		invoices,
		payments,
		writes: [],
		unauthorized: 0
	};
}
function send(res, status, body) {
	const text = JSON.stringify(body);
	res.writeHead(status, {
		"content-type": "application/json",
		"content-length": Buffer.byteLength(text)
	});
	res.end(text);
}
function sameSecret(given, expected) {
	const a = Buffer.from(given);
	const b = Buffer.from(expected);
	return a.length === b.length && timingSafeEqual(a, b);
}
/** One account's routes under `/<account>/…`. */
function route(account, req, res, path, body) {
	const url = new URL(path, "http://billing.local");
	if (req.method === "GET" && url.pathname === "/invoices") {
		const status = url.searchParams.get("status");
		send(res, 200, account.invoices.filter((i) => status === null || i.status === status));
		return;
	}
	if (req.method === "GET" && url.pathname === "/payments") {
		const unmatched = url.searchParams.get("unmatched") === "1";
		send(res, 200, account.payments.filter((p) => !unmatched || !p.matched));
		return;
	}
	const reconcile = /^\/invoices\/(inv-\d{3})\/reconcile$/.exec(url.pathname);
	if (req.method === "POST" && reconcile) {
		const invoice = account.invoices.find((i) => i.id === reconcile[1]);
		let paymentId = "";
		try {
			paymentId = String(JSON.parse(body).payment ?? "");
		} catch {
			send(res, 400, { error: "body must be JSON {\"payment\": \"pay-…\"}" });
			return;
		}
		const payment = account.payments.find((p) => p.id === paymentId);
		if (!invoice || !payment) {
			send(res, 404, { error: "no such invoice or payment" });
			return;
		}
		if (invoice.status === "reconciled" || payment.matched) {
			send(res, 409, { error: `${invoice.id} or ${payment.id} is already reconciled` });
			return;
		}
		invoice.status = "reconciled";
		invoice.payment = payment.id;
		payment.matched = true;
		account.writes.push({
			method: "POST",
			path: url.pathname,
			invoice: invoice.id,
			payment: payment.id
		});
		send(res, 200, invoice);
		return;
	}
	send(res, 404, { error: `no route ${req.method} ${url.pathname}` });
}
async function startBillingApi(options) {
	const live = seed("live", options.reconciled?.live ?? 0);
	const sandbox = seed("sandbox", options.reconciled?.sandbox ?? 0);
	const accounts = {
		live: {
			account: live,
			token: options.liveToken
		},
		sandbox: {
			account: sandbox,
			token: options.sandboxToken
		}
	};
	const server = createServer((req, res) => {
		const parts = [];
		req.on("data", (d) => parts.push(d));
		req.on("end", () => {
			const match = /^\/(live|sandbox)(\/.*)$/.exec(req.url ?? "");
			const entry = match ? accounts[match[1]] : void 0;
			if (!match || !entry) {
				send(res, 404, { error: "use /live/… or /sandbox/…" });
				return;
			}
			if (!sameSecret(String(req.headers.authorization ?? ""), `Bearer ${entry.token}`)) {
				entry.account.unauthorized++;
				send(res, 401, { error: "a valid bearer token for this account is required" });
				return;
			}
			route(entry.account, req, res, match[2], Buffer.concat(parts).toString("utf8"));
		});
	});
	await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address();
	return {
		url: `http://127.0.0.1:${port}`,
		live,
		sandbox,
		close: () => new Promise((resolve) => {
			server.closeAllConnections();
			server.close(() => resolve());
		})
	};
}
// dist/demo/invoices.js
/**
* `cairn demo`, part 2 — the invoice story (the keys layer). A billing API
* with a live and a sandbox account, 200 invoices each. The agent reconciles
* 40 on the live account ("state 42"), is checkpointed, and is forked three
* ways — the work is copied, the credentials are not:
*
* - A gets a read grant: it computes its matches and tries to apply them;
*   every write is refused, and its report says what it would change;
* - B gets a sandbox grant: its writes go to the test account only;
* - C gets the live account with each write held for a person: the demo
*   plays that person, approving four writes and denying one.
*
* Then it scans every byte of the store, every workspace and the proxy's
* log for the secrets.
*/
const AGENT_SCRIPT = `// reconcile.mjs — the agent's tool: match open invoices to unmatched payments, then apply.
// It reaches the billing API only through Cairn's proxy, with its branch handle; it never holds a token.
import { writeFileSync } from 'node:fs';

const [strategy = 'by-reference', limitText = 'all'] = process.argv.slice(2);
const base = process.env.CAIRN_PROXY_URL + '/billing';
const headers = { 'x-cairn-handle': process.env.CAIRN_HANDLE ?? '', 'content-type': 'application/json' };
async function get(path) {
  const res = await fetch(base + path, { headers });
  if (!res.ok) throw new Error('GET ' + path + ': ' + res.status);
  return res.json();
}
const invoices = await get('/invoices?status=open');
const payments = await get('/payments?unmatched=1');
const byAmount = new Map(payments.map((p) => [p.amountCents, p]));
const byReference = new Map(payments.filter((p) => p.reference).map((p) => [p.reference, p]));
const matches = [];
for (const invoice of invoices) {
  const ref = byReference.get(invoice.id);
  const amount = byAmount.get(invoice.amountCents);
  const pick = strategy === 'by-reference' ? ref : strategy === 'by-amount' ? amount : ref && ref === amount ? ref : undefined;
  if (pick) matches.push({ invoice: invoice.id, payment: pick.id });
}
const limit = limitText === 'all' ? matches.length : Number(limitText);
const applied = [];
const refused = [];
for (const m of matches.slice(0, limit)) {
  const res = await fetch(base + '/invoices/' + m.invoice + '/reconcile', {
    method: 'POST',
    headers,
    body: JSON.stringify({ payment: m.payment }),
  });
  const answer = await res.json().catch(() => ({}));
  if (res.ok) applied.push({ ...m, status: res.status });
  else refused.push({ ...m, status: res.status, reason: answer.error?.message ?? String(answer.error ?? '') });
}
const report = { strategy, open: invoices.length, wouldChange: matches, applied, refused };
writeFileSync('report.json', JSON.stringify(report, null, 2) + '\\n');
console.log(strategy + ': ' + matches.length + ' matches, ' + applied.length + ' applied, ' + refused.length + ' refused');
`;
const reconciled = (account) => account.invoices.filter((i) => i.status === "reconciled").length;
/** Every regular file under root: how many, how many bytes, and which hold any needle. */
function scan(root, needles) {
	const out = {
		files: 0,
		bytes: 0,
		hits: []
	};
	const walk = (dir) => {
		for (const name of readdirSync(dir)) {
			const abs = join(dir, name);
			const st = statSync(abs, { throwIfNoEntry: false });
			if (st?.isDirectory()) walk(abs);
			else if (st?.isFile()) {
				const bytes = readFileSync(abs);
				out.files++;
				out.bytes += bytes.length;
				if (needles.some((n) => bytes.includes(n))) out.hits.push(abs);
			}
		}
	};
	walk(root);
	return out;
}
/** Plays the person in the loop: approves every held write except the `denyNth` one, until stopped. */
function person(keys, denyNth) {
	let running = true;
	const seen = {
		approved: 0,
		denied: 0
	};
	const done = (async () => {
		while (running) {
			for (const a of await keys.listApprovals()) {
				const nth = seen.approved + seen.denied + 1;
				await keys.decide(a.id, nth === denyNth ? "deny" : "approve", nth === denyNth ? "wrong customer" : "");
				if (nth === denyNth) seen.denied++;
				else seen.approved++;
			}
			await new Promise((r) => setTimeout(r, 10));
		}
	})();
	return {
		seen,
		stop: async () => {
			running = false;
			await done;
		}
	};
}
async function invoiceDemo(input) {
	const { root, store } = input;
	const node = process.execPath;
	const liveToken = input.tokens?.live ?? `sk_live_${randomHex(16)}`;
	const sandboxToken = input.tokens?.sandbox ?? `sk_test_${randomHex(16)}`;
	const api = await startBillingApi({
		liveToken,
		sandboxToken,
		reconciled: {
			live: 0,
			sandbox: 40
		}
	});
	const who = await store.localIdentity();
	const keys = store.keys(who, { masterKey: MasterKey.generate() });
	const desk = store.desk(who, { host: "demo" });
	const fabric = store.fabric(who);
	const units = new Units(fabric, desk, keys);
	const proxyLog = [];
	const proxy = await startProxy({
		keysFor: (tenant) => tenant === who.tenant ? keys : void 0,
		auditRefusalsIn: keys,
		approvalTimeoutMs: 3e4,
		pollMs: 10,
		log: (line) => proxyLog.push(line)
	});
	try {
		const dir = join(root, "invoices");
		mkdirSync(dir);
		writeFileSync(join(dir, "reconcile.mjs"), AGENT_SCRIPT);
		writeFileSync(join(dir, "TASK.md"), `Reconcile the 200 open invoices against incoming payments.\n`);
		const { workspace } = await desk.attach({ dir });
		await keys.addCredential({
			name: "billing",
			kind: "bearer",
			upstream: `${api.url}/live`,
			value: Buffer.from(liveToken),
			sandbox: {
				upstream: `${api.url}/sandbox`,
				value: Buffer.from(sandboxToken)
			}
		});
		const rootGrant = await keys.grant({
			session: workspace.session,
			branch: workspace.branch,
			credential: "billing",
			mode: "live"
		});
		const run = (ws, args) => execInWorkspace(fabric, desk, {
			workspace: ws,
			command: [
				node,
				"reconcile.mjs",
				...args
			],
			env: input.env,
			keys: {
				keys,
				proxyUrl: proxy.url
			}
		});
		await run(workspace.id, ["by-reference", "40"]);
		const state42 = await units.checkpoint({
			workspace: workspace.id,
			label: "state 42: 40 reconciled"
		});
		const atState42 = reconciled(api.live);
		const forked = await units.fork(state42.id, {
			branches: [
				"a-read",
				"b-sandbox",
				"c-live"
			],
			dirRoot: join(root, "invoice-branches"),
			driver: "copy",
			grants: [
				[{
					credential: "billing",
					mode: "read"
				}],
				[{
					credential: "billing",
					mode: "sandbox"
				}],
				[{
					credential: "billing",
					mode: "live",
					approval: "each-write"
				}]
			]
		});
		const plans = [
			{
				strategy: "by-reference",
				limit: "all"
			},
			{
				strategy: "by-amount",
				limit: "all"
			},
			{
				strategy: "by-reference-and-amount",
				limit: "5"
			}
		];
		const branches = [];
		const approver = person(keys, 3);
		try {
			for (const [i, b] of forked.branches.entries()) {
				const plan = plans[i];
				const liveBefore = api.live.writes.length;
				const sandboxBefore = api.sandbox.writes.length;
				await run(b.workspace.id, [plan.strategy, plan.limit]);
				const report = JSON.parse(readFileSync(join(b.workspace.dir, "report.json"), "utf8"));
				branches.push({
					branch: b.branch,
					grant: `${b.grants[0]?.mode}${b.grants[0]?.approval === "each-write" ? "+each-write" : ""}`,
					dir: b.workspace.dir,
					strategy: plan.strategy,
					wouldChange: report.wouldChange.length,
					applied: report.applied.length,
					refused: report.refused.length,
					liveWrites: api.live.writes.length - liveBefore,
					sandboxWrites: api.sandbox.writes.length - sandboxBefore
				});
			}
		} finally {
			await approver.stop();
		}
		const audit = await store.engine.read(who.tenant, (tx) => actionCounts(tx, who.tenant, "keys."));
		writeFileSync(join(root, "proxy.log"), `${proxyLog.join("\n")}\n`);
		const secretScan = scan(root, [liveToken, sandboxToken]);
		const result = {
			api: api.url,
			stateCheckpoint: state42.id,
			reconciledAtState42: atState42,
			branches,
			approvals: approver.seen,
			live: {
				reconciled: reconciled(api.live),
				writes: api.live.writes.length,
				unauthorized: api.live.unauthorized
			},
			sandbox: {
				reconciled: reconciled(api.sandbox),
				writes: api.sandbox.writes.length
			},
			secretScan,
			proxyLog,
			audit
		};
		const [a, b, c] = branches;
		return {
			result,
			lines: [
				"",
				`invoices — billing API ${api.url} (live and sandbox accounts, 200 invoices each)`,
				`main  ${state42.label} (live grant ${rootGrant.id}); checkpoint ${state42.id}`,
				`  ├─ ${a.branch}     grant ${a.grant.padEnd(16)} ${a.strategy}: would change ${a.wouldChange}; ${a.refused} writes refused (403); live writes ${a.liveWrites}`,
				`  ├─ ${b.branch}  grant ${b.grant.padEnd(16)} ${b.strategy}: ${b.applied} applied on the test account; live writes ${b.liveWrites}`,
				`  └─ ${c.branch}     grant ${c.grant.padEnd(16)} ${c.strategy}: ${c.applied + c.refused} writes held; ${approver.seen.approved} approved and sent, ${approver.seen.denied} denied (never sent)`,
				`live account: ${result.live.reconciled}/200 reconciled (${atState42} at state 42 + ${c.liveWrites} approved); sandbox: ${result.sandbox.reconciled}/200`,
				`audit: ${audit["keys.use"] ?? 0} uses, ${audit["keys.deny"] ?? 0} refusals, ${audit["keys.approval.approve"] ?? 0} approvals, ${audit["keys.approval.deny"] ?? 0} denials`,
				`secret scan: ${secretScan.hits.length} of ${secretScan.files} files (${secretScan.bytes} bytes: store, 4 workspaces, proxy log) hold the live or sandbox secret`
			]
		};
	} finally {
		await proxy.close();
		await desk.close();
		await api.close();
	}
}
// dist/cli/demo.js
/**
* `cairn demo`, part 1: in a temporary folder, reach "state 42" (a small git
* repository whose test passes), checkpoint it with that test as the check,
* fork it into three branches that each try a different migration (one
* passes its check, two fail), keep the winner, abandon the others, and
* print the tree. Part 2 (src/demo/invoices.ts) is the invoice story of the
* keys layer. Loopback only; a few seconds.
*/
const MIGRATIONS = [
	{
		branch: "migrate-multiply",
		code: "module.exports = 6 * 7;\n"
	},
	{
		branch: "migrate-string",
		code: "module.exports = '42';\n"
	},
	{
		branch: "migrate-off-by-one",
		code: "module.exports = 41 + 2;\n"
	}
];
function git(dir, ...args) {
	return spawnSync("git", [
		"-C",
		dir,
		"-c",
		"user.email=demo@cairn",
		"-c",
		"user.name=cairn demo",
		...args
	], { encoding: "utf8" }).status === 0;
}
const demo = {
	target: "store",
	createsStore: true,
	names: ["demo"],
	example: "cairn demo",
	args: [],
	flags: [],
	summary: "a worked example in a temporary folder: fork three ways and keep the passing branch; then fork an invoice task with read, sandbox and approved-live grants",
	async run(_dir, call) {
		const root = mkdtempSync(join(tmpdir(), "cairn-demo-"));
		const repo = join(root, "repo");
		mkdirSync(repo);
		writeFileSync(join(repo, "answer.js"), "module.exports = 42;\n");
		writeFileSync(join(repo, "test.js"), "const answer = require('./answer.js');\nif (answer !== 42) {\n  console.error('expected 42, got ' + JSON.stringify(answer));\n  process.exit(1);\n}\nconsole.log('ok: 42');\n");
		const hasGit = git(repo, "init", "-q") && git(repo, "add", "-A") && git(repo, "commit", "-qm", "state 42");
		const node = process.execPath;
		const check = `"${node}" test.js`;
		const store = await Store.openDir(join(root, "store"));
		try {
			const who = await store.localIdentity();
			const desk = store.desk(who, { host: "demo" });
			const fabric = store.fabric(who);
			const units = new Units(fabric, desk);
			try {
				const { workspace } = await desk.attach({ dir: repo });
				const start = await units.checkpoint({
					workspace: workspace.id,
					label: "state 42",
					checks: [check]
				});
				const forked = await units.fork(start.id, {
					branches: MIGRATIONS.map((m) => m.branch),
					dirRoot: join(root, "branches"),
					driver: "copy"
				});
				const outcomes = [];
				for (const [i, branch] of forked.branches.entries()) {
					const migration = MIGRATIONS[i];
					await execInWorkspace(fabric, desk, {
						workspace: branch.workspace.id,
						command: [
							node,
							"-e",
							`require('fs').writeFileSync('answer.js', ${JSON.stringify(migration.code)})`
						],
						env: call.env
					});
					const done = await units.checkpoint({
						workspace: branch.workspace.id,
						label: migration.branch,
						checks: [check]
					});
					outcomes.push({
						branch: branch.branch,
						workspace: branch.workspace,
						checkpoint: done
					});
				}
				const winner = outcomes.find((o) => o.checkpoint.accepted);
				for (const o of outcomes) if (o === winner) await units.keep(workspace.session, o.branch);
				else await units.abandon(workspace.session, o.branch);
				const tree = [
					`cairn demo — ${root}`,
					`session ${workspace.session}`,
					`main  ${start.label}: checkpoint ${start.id} ${start.accepted ? "accepted" : "NOT accepted"}${hasGit && start.evidence.git ? ` (git ${start.evidence.git.revision.slice(0, 8)})` : ""}`,
					...outcomes.map((o, i) => {
						const corner = i === outcomes.length - 1 ? "└─" : "├─";
						const verdict = o.checkpoint.accepted ? "check passed" : "check FAILED";
						return `  ${corner} ${o.branch}  ${verdict}  ${o === winner ? "KEPT" : "abandoned"}  (${o.workspace.dir}, grants: none stated)`;
					})
				];
				await desk.close();
				const invoices = await invoiceDemo({
					root,
					store,
					env: call.env
				});
				call.out.result({
					dir: root,
					invoices: invoices.result,
					session: workspace.session,
					checkpoint: start,
					branches: outcomes.map((o) => ({
						branch: o.branch,
						workspace: o.workspace.id,
						dir: o.workspace.dir,
						accepted: o.checkpoint.accepted,
						decision: o === winner ? "keep" : "abandon"
					}))
				}, [...tree, ...invoices.lines]);
				return winner && invoices.result.secretScan.hits.length === 0 ? EXIT.ok : EXIT.checkFailed;
			} finally {
				await desk.close();
			}
		} finally {
			await store.close();
		}
	}
};
export { demo };
