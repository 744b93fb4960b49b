import { M as canonicalJson, N as sha256Hex, P as tupleDigest } from "./store-folder-D53airw-.js";
import { A as invalidArgument, E as diverged, M as notFound, O as inDoubt, w as conflict } from "./front-BpLyP2oj.js";
import { r as readAll } from "./pages-Dke7rruH.js";
// dist/steps/journal.js
/**
* The step journal: durable steps on a session branch (DESIGN §4).
*
* Before a step's function runs, its intent — position, name, key, digest of
* its arguments — is appended to the branch; its result (or error) is
* recorded after. To keep a step near one durable write, a step's result is
* carried by the next step's intent event (or by `flush`): a crash between
* the two leaves the step *in doubt*, which its policy then settles. On
* replay (a new Journal over the same branch) a step with a recorded result
* returns it without running; a step whose name or arguments differ from
* the journal at its position fails with DIVERGED; a step with an intent but
* no result is in doubt and is never blindly re-run:
*
* - `retry-same-key`: run again with the same key; the downstream dedups.
* - `probe`: ask the world (`probe`) whether the effect happened; the answer
*   is recorded; if it happened its result is used, else the step runs again.
* - `escalate`: fail with IN_DOUBT until a person resolves the step
*   (`resolve`, the table's `resolveStep`: a person's only).
*
* The journal's events are Cairn's own kinds, which the log's `append`
* refuses: `cairn.step` (intent, result, probe) is written through
* `recordStep`, `cairn.step.resolve` only by `resolveStep`, naming the
* principal who resolved it. Replay honours a resolution only from that
* kind, and only when the principal it names is the event's owner (which
* the store sets from the writer's token).
*
* Keys derive from (session, branch, position): stable across retries, and
* fresh for steps a fork adds after its fork point.
*/
const STEP_EVENT = "cairn.step";
/** A person's resolution of a step in doubt: written only by the table's `resolveStep`. */
const STEP_RESOLVE_EVENT = "cairn.step.resolve";
/** A step whose function threw; recorded, and thrown again on replay. */
var StepFailed = class extends Error {
	step;
	position;
	constructor(step, position, message) {
		super(message);
		this.step = step;
		this.position = position;
		this.name = "StepFailed";
	}
};
const POLICIES = [
	"retry-same-key",
	"probe",
	"escalate"
];
var Journal = class Journal {
	fabric;
	session;
	branch;
	branchId;
	records = /* @__PURE__ */ new Map();
	/** Positions a person allowed to run again (escalate → rerun), with the principal who did. */
	rerun = /* @__PURE__ */ new Map();
	next = 1;
	pending = null;
	/** Distinguishes this process's appends from an earlier process's at the same position. */
	attempt = 0;
	run_ = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
	/** The branch head this journal last saw (read at open, then its own appends). */
	head = "";
	constructor(fabric, session, branch, branchId) {
		this.fabric = fabric;
		this.session = session;
		this.branch = branch;
		this.branchId = branchId;
	}
	/** Opens the journal of a session branch, reading every step recorded on its path. */
	static open(fabric, input) {
		return Journal.load(fabric, input);
	}
	/** Opens a journal to read (its steps, a resolution to record): it cannot record steps. */
	static read(fabric, input) {
		return Journal.load(fabric, input);
	}
	static async load(fabric, input) {
		const branchName = input.branch ?? "main";
		await fabric.getSession({ session: input.session });
		const branch = (await fabric.listBranches({ session: input.session })).find((b) => b.name === branchName);
		if (!branch) throw notFound(`session ${input.session} has no branch "${branchName}": fork it first`, {
			session: input.session,
			branch: branchName
		});
		const journal = new Journal(fabric, input.session, branchName, branch.id);
		const { events, head } = await readAll((from) => fabric.readBranch({
			session: input.session,
			branch: branchName,
			from,
			limit: 1e4
		}));
		for (const event of events) journal.replay(event);
		journal.head = head;
		return journal;
	}
	replay(event) {
		if (event.kind === "cairn.step.resolve") {
			this.replayResolve(event);
			return;
		}
		if (event.kind !== "cairn.step") return;
		const payload = event.payload;
		if (payload.done) this.settle(payload.done);
		if (payload.intent) {
			const i = payload.intent;
			this.records.set(i.position, {
				position: i.position,
				name: i.name,
				key: i.key,
				argsDigest: i.args,
				policy: i.policy,
				...i.compensate ? { compensate: i.compensate } : {},
				effect: i.effect ?? "external",
				event: event.id,
				state: "in-doubt"
			});
		}
	}
	/** A person's resolution, honoured only as `resolveStep` writes it: its resolver is the event's owner. */
	replayResolve(event) {
		const { resolve, resolvedBy } = event.payload ?? {};
		if (!resolve || typeof resolvedBy !== "string" || resolvedBy !== event.owner) return;
		const record = this.records.get(resolve.position);
		if (!record || record.state !== "in-doubt") return;
		if ("rerun" in resolve) this.rerun.set(resolve.position, resolvedBy);
		else this.settle({
			...resolve,
			via: "person"
		}, resolvedBy);
	}
	/**
	* Settles a step. `person` is the principal of a resolution; a result
	* the journal recorded after a person's rerun names that person too — any
	* other claim of a person is not one.
	*/
	settle(done, person) {
		const record = this.records.get(done.position);
		if (!record) return;
		const resolver = person ?? (done.via === "person" ? this.rerun.get(done.position) : void 0);
		record.state = done.ok ? "done" : "failed";
		if (done.ok) record.result = done.result;
		else record.error = done.error;
		if (done.via && (done.via !== "person" || resolver)) record.settledBy = done.via;
		if (done.via === "person" && resolver) record.resolvedBy = resolver;
		this.rerun.delete(done.position);
	}
	/**
	* Moves to the end of the journal: the next `step` is appended after every
	* recorded one instead of replaying from the start (one-off steps such as
	* `cairn exec`; steps left in doubt before it stay in doubt).
	*/
	atEnd() {
		this.next = Math.max(0, ...this.records.keys()) + 1;
		return this;
	}
	/** Every step recorded on this branch so far, in order. */
	steps() {
		return [...this.records.values()].sort((a, b) => a.position - b.position).map((r) => ({ ...r }));
	}
	/** Steps with an intent but no recorded result. */
	inDoubt() {
		return this.steps().filter((s) => s.state === "in-doubt" && !(this.pending?.position === s.position));
	}
	/**
	* A new step's key: from the session, the branch, the position and the
	* branch head the step follows. The head makes a step re-run after a
	* rewind (a unit restore) a different effect with a different key; a step
	* in doubt keeps the key its intent recorded.
	*/
	keyFor(position) {
		return `step_${tupleDigest([
			this.session,
			this.branchId,
			position,
			this.head
		]).slice(0, 40)}`;
	}
	/**
	* Appends one journal event. Its idempotency key names this branch, the
	* position and what the event says, so a retried append (a lost answer)
	* is recorded once; `attempt` tells apart later events of the same kind.
	*/
	async write(payload, position, what) {
		if (!("recordStep" in this.fabric)) throw new Error("this journal was opened to read (Journal.read): open it with Journal.open to run steps");
		const event = await this.fabric.recordStep({
			session: this.session,
			branch: this.branch,
			payload,
			idempotencyKey: `step:${this.branchId}:${position}:${what}:${this.run_}:${this.attempt++}`
		});
		this.head = event.id;
		return event;
	}
	/** Makes the last step's result durable (otherwise it rides on the next step's intent). */
	async flush() {
		if (!this.pending) return;
		const done = this.pending;
		await this.write({ done }, done.position, "done");
		this.pending = null;
		this.settle(done);
	}
	/**
	* Runs `fn` as the next step of the branch, or returns its recorded
	* result when this position already ran. `args` must be JSON; the result
	* must be JSON too (it is recorded).
	*/
	async step(name, args, fn, options = {}) {
		const policy = options.policy ?? "retry-same-key";
		if (typeof name !== "string" || name === "" || name.length > 200) throw invalidArgument("a step needs a name of 1 to 200 characters", { name });
		if (!POLICIES.includes(policy)) throw invalidArgument(`unknown step policy "${String(policy)}"`, { policy });
		if (policy === "probe" && typeof options.probe !== "function") throw invalidArgument(`step "${name}" has the probe policy but no probe function`, { step: name });
		const argsDigest = sha256Hex(canonicalJson(args ?? null));
		const position = this.next;
		const recorded = this.records.get(position);
		if (recorded) {
			if (recorded.name !== name || recorded.argsDigest !== argsDigest) throw diverged(`step ${position} of branch ${this.branch} was "${recorded.name}" with other arguments in the journal, not "${name}": the code changed under a replay; fork before the change or restore`, {
				position,
				journal: recorded.name,
				code: name,
				argsMatch: recorded.argsDigest === argsDigest
			});
			this.next++;
			if (recorded.state === "done") return recorded.result;
			if (recorded.state === "failed") throw new StepFailed(name, position, recorded.error?.message ?? "failed");
			return this.settleInDoubt(recorded, args, fn, options);
		}
		this.next++;
		const intent = {
			position,
			name,
			key: this.keyFor(position),
			args: argsDigest,
			policy,
			...options.compensate ? { compensate: options.compensate } : {},
			...options.effect === "local" ? { effect: "local" } : {}
		};
		const carried = this.pending;
		const event = await this.write({
			...carried ? { done: carried } : {},
			intent
		}, position, "intent");
		this.pending = null;
		if (carried) this.settle(carried);
		this.records.set(position, {
			position,
			name,
			key: intent.key,
			argsDigest,
			policy,
			...intent.compensate ? { compensate: intent.compensate } : {},
			effect: intent.effect ?? "external",
			event: event.id,
			state: "in-doubt"
		});
		return this.run(position, fn, {
			key: intent.key,
			position,
			retry: false
		});
	}
	async run(position, fn, ctx, via) {
		try {
			const result = await fn(ctx);
			this.pending = {
				position,
				ok: true,
				result: result ?? null,
				...via ? { via } : {}
			};
			return result;
		} catch (error) {
			const message = error instanceof Error ? error.message : String(error);
			this.pending = {
				position,
				ok: false,
				error: {
					message,
					...error instanceof Error ? { name: error.name } : {}
				},
				...via ? { via } : {}
			};
			throw error;
		}
	}
	async settleInDoubt(record, args, fn, options) {
		const ctx = {
			key: record.key,
			position: record.position,
			retry: true
		};
		if (this.rerun.has(record.position)) return this.run(record.position, fn, ctx, "person");
		if (record.policy === "retry-same-key") return this.run(record.position, fn, ctx, "retry-same-key");
		if (record.policy === "probe") {
			if (!options.probe) throw invalidArgument(`step "${record.name}" is in doubt and needs its probe function`);
			const answer = await options.probe({
				key: record.key,
				args
			});
			if (answer.happened) {
				const done = {
					position: record.position,
					ok: true,
					result: answer.result ?? null,
					via: "probe"
				};
				await this.write({ done }, record.position, "probed");
				this.settle(done);
				return answer.result;
			}
			await this.write({ probe: {
				position: record.position,
				happened: false
			} }, record.position, "probe");
			return this.run(record.position, fn, ctx, "probe");
		}
		throw inDoubt(`step ${record.position} ("${record.name}", key ${record.key}) may or may not have run and its policy is escalate: a person must resolve it (cairn step resolve)`, {
			position: record.position,
			step: record.name,
			key: record.key
		});
	}
	/**
	* Asks the world again about recorded steps: for each step whose name has
	* a probe, runs it and reports the steps it contradicts — recorded as done
	* but the probe says it did not happen (a refund, a deleted ticket), or
	* recorded as failed but it did. Nothing is written; this is drift to
	* report, not to repair.
	*/
	async contradictions(probes) {
		const out = [];
		for (const record of this.steps()) {
			const probe = probes[record.name];
			if (!probe || record.state === "in-doubt") continue;
			const answer = await probe({
				key: record.key,
				position: record.position
			});
			if (answer.happened !== (record.state === "done")) out.push({
				position: record.position,
				name: record.name,
				key: record.key,
				recorded: record.state,
				happened: answer.happened
			});
		}
		return out;
	}
	/**
	* A person's decision about a step in doubt: its result (it happened), an
	* error (it failed), or `rerun` (run it again with the same key). It is
	* the table's `resolveStep`, as the fabric's caller: a person's only.
	*/
	async resolve(position, decision) {
		if (!("resolveStep" in this.fabric)) throw new Error("this journal was opened to read (Journal.read): open it with Journal.open to resolve");
		const record = await this.fabric.resolveStep({
			session: this.session,
			branch: this.branch,
			position,
			...decision
		});
		if ("rerun" in decision) this.rerun.set(position, record.resolvedBy ?? "");
		else this.records.set(position, { ...record });
		return record;
	}
	/**
	* What recording a person's decision writes (`resolveStep`): the payload's
	* `resolve`, after checking the step is in doubt; nothing is written here.
	*/
	resolution(position, decision) {
		const record = this.records.get(position);
		if (!record) throw notFound(`branch ${this.branch} has no step ${position}`, { position });
		if (record.state !== "in-doubt") throw conflict(`step ${position} is not in doubt (it is ${record.state})`, { position });
		return "rerun" in decision ? {
			position,
			rerun: true
		} : "error" in decision ? {
			position,
			ok: false,
			error: { message: decision.error }
		} : {
			position,
			ok: true,
			result: decision.result ?? null
		};
	}
	/** The step at `position` after `event`, a resolution `resolveStep` recorded, is applied. */
	applied(event, position) {
		this.replay(event);
		const record = { ...this.records.get(position) };
		const person = this.rerun.get(position);
		return person ? {
			...record,
			resolvedBy: person
		} : record;
	}
};
export { STEP_EVENT as n, STEP_RESOLVE_EVENT as r, Journal as t };
