import type { z } from 'zod';
import type { Client } from '../contract/spec.js';
import { canonicalJson, sha256Hex, tupleDigest } from '../digest.js';
import { conflict, diverged, inDoubt, invalidArgument as invalid, notFound } from '../errors.js';
import type { LOG_CONTRACT } from '../log/contract.js';
import { readAll } from '../log/pages.js';
import type { CairnEvent } from '../types.js';
import type { STEP_CONTRACT } from './contract.js';
import type * as shape from './shapes.js';

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
export const STEP_EVENT = 'cairn.step';
/** A person's resolution of a step in doubt: written only by the table's `resolveStep`. */
export const STEP_RESOLVE_EVENT = 'cairn.step.resolve';

export type StepPolicy = StepRecord['policy'];

export interface StepContext {
  /** Pass it downstream (an Idempotency-Key header, a client reference). */
  key: string;
  position: number;
  /** true when this run settles a step left in doubt by an earlier process. */
  retry: boolean;
}

export interface ProbeAnswer {
  happened: boolean;
  /** The step's result, when it happened. */
  result?: unknown;
}

export interface StepOptions {
  policy?: StepPolicy;
  /** Required by the `probe` policy: did the effect with this key happen? */
  probe?: (call: { key: string; args: unknown }) => Promise<ProbeAnswer>;
  /** An action that undoes the step; listed (never run) when a restore goes back past it. */
  compensate?: { name: string; args?: unknown };
  /**
   * `local`: the step only changed things a restore puts back (the workspace,
   * the log). `external` (the default): it reached the world, which a
   * restore cannot undo.
   */
  effect?: 'local' | 'external';
}

/** The log operations a journal reads through. */
export type JournalReads = Client<Pick<typeof LOG_CONTRACT, 'getSession' | 'listBranches' | 'readBranch'>>;

/** What a journal reads and writes through: any fabric (its steps recorded by `recordStep`, resolved by `resolveStep`). */
export type JournalLog = JournalReads & Client<Pick<typeof STEP_CONTRACT, 'recordStep' | 'resolveStep'>>;

/** One step of a branch's journal: its shape is declared once, in ./shapes.ts. */
export type StepRecord = z.output<typeof shape.StepRecord>;

/** A step whose function threw; recorded, and thrown again on replay. */
export class StepFailed extends Error {
  constructor(
    readonly step: string,
    readonly position: number,
    message: string,
  ) {
    super(message);
    this.name = 'StepFailed';
  }
}

interface Done {
  position: number;
  ok: boolean;
  result?: unknown;
  error?: { message: string; name?: string };
  via?: 'retry-same-key' | 'probe' | 'person';
}

export interface Intent {
  position: number;
  name: string;
  key: string;
  args: string;
  policy: StepPolicy;
  compensate?: { name: string; args?: unknown };
  effect?: 'local';
}

export interface StepPayload {
  done?: Done;
  intent?: Intent;
  probe?: { position: number; happened: boolean };
}

/** A `cairn.step.resolve` event's payload. */
export interface ResolvePayload {
  resolve: Done | { position: number; rerun: true };
  /** The principal who resolved it: honoured only when it is the event's owner. */
  resolvedBy: string;
}

const POLICIES: readonly StepPolicy[] = ['retry-same-key', 'probe', 'escalate'];

export class Journal {
  private readonly records = new Map<number, StepRecord>();
  /** Positions a person allowed to run again (escalate → rerun), with the principal who did. */
  private readonly rerun = new Map<number, string>();
  private next = 1;
  private pending: Done | null = null;
  /** Distinguishes this process's appends from an earlier process's at the same position. */
  private attempt = 0;
  private readonly run_ = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  /** The branch head this journal last saw (read at open, then its own appends). */
  private head = '';

  private constructor(
    private readonly fabric: JournalLog | JournalReads,
    readonly session: string,
    readonly branch: string,
    private readonly branchId: string,
  ) {}

  /** Opens the journal of a session branch, reading every step recorded on its path. */
  static open(fabric: JournalLog, input: { session: string; branch?: string }): Promise<Journal> {
    return Journal.load(fabric, input);
  }

  /** Opens a journal to read (its steps, a resolution to record): it cannot record steps. */
  static read(fabric: JournalReads, input: { session: string; branch?: string }): Promise<Journal> {
    return Journal.load(fabric, input);
  }

  private static async load(
    fabric: JournalLog | JournalReads,
    input: { session: string; branch?: string },
  ): Promise<Journal> {
    const branchName = input.branch ?? 'main';
    await fabric.getSession({ session: input.session });
    const branch = (await fabric.listBranches({ session: input.session })).find((b) => b.name === branchName);
    if (!branch) {
      throw notFound(`session ${input.session} has no branch "${branchName}": fork it first`, {
        session: input.session,
        branch: branchName,
      });
    }
    const journal = new Journal(fabric, input.session, branchName, branch.id);
    const { events, head } = await readAll((from) =>
      fabric.readBranch({ session: input.session, branch: branchName, from, limit: 10_000 }),
    );
    for (const event of events) journal.replay(event);
    journal.head = head;
    return journal;
  }

  private replay(event: CairnEvent): void {
    if (event.kind === STEP_RESOLVE_EVENT) {
      this.replayResolve(event);
      return;
    }
    if (event.kind !== STEP_EVENT) return;
    const payload = event.payload as StepPayload;
    if (payload.done) this.settle(payload.done);
    if (payload.intent) {
      const i = payload.intent;
      this.records.set(i.position, {
        position: i.position,
        name: i.name,
        key: i.key,
        argsDigest: i.args,
        policy: i.policy,
        ...(i.compensate ? { compensate: i.compensate } : {}),
        effect: i.effect ?? 'external',
        event: event.id,
        state: 'in-doubt',
      });
    }
  }

  /** A person's resolution, honoured only as `resolveStep` writes it: its resolver is the event's owner. */
  private replayResolve(event: CairnEvent): void {
    const { resolve, resolvedBy } = (event.payload ?? {}) as Partial<ResolvePayload>;
    if (!resolve || typeof resolvedBy !== 'string' || resolvedBy !== event.owner) return;
    const record = this.records.get(resolve.position);
    if (!record || record.state !== 'in-doubt') return;
    if ('rerun' in resolve) this.rerun.set(resolve.position, resolvedBy);
    else this.settle({ ...resolve, via: 'person' }, resolvedBy);
  }

  /**
   * Settles a step. `person` is the principal of a resolution; a result
   * the journal recorded after a person's rerun names that person too — any
   * other claim of a person is not one.
   */
  private settle(done: Done, person?: string): void {
    const record = this.records.get(done.position);
    if (!record) return;
    const resolver = person ?? (done.via === 'person' ? this.rerun.get(done.position) : undefined);
    record.state = done.ok ? 'done' : 'failed';
    if (done.ok) record.result = done.result;
    else record.error = done.error;
    if (done.via && (done.via !== 'person' || resolver)) record.settledBy = done.via;
    if (done.via === 'person' && resolver) record.resolvedBy = resolver;
    this.rerun.delete(done.position);
  }

  /**
   * Moves to the end of the journal: the next `step` is appended after every
   * recorded one instead of replaying from the start (one-off steps such as
   * `cairn exec`; steps left in doubt before it stay in doubt).
   */
  atEnd(): this {
    this.next = Math.max(0, ...this.records.keys()) + 1;
    return this;
  }

  /** Every step recorded on this branch so far, in order. */
  steps(): StepRecord[] {
    return [...this.records.values()].sort((a, b) => a.position - b.position).map((r) => ({ ...r }));
  }

  /** Steps with an intent but no recorded result. */
  inDoubt(): StepRecord[] {
    return this.steps().filter((s) => s.state === 'in-doubt' && !(this.pending?.position === s.position));
  }

  /**
   * A new step's key: from the session, the branch, the position and the
   * branch head the step follows. The head makes a step re-run after a
   * rewind (a unit restore) a different effect with a different key; a step
   * in doubt keeps the key its intent recorded.
   */
  private keyFor(position: number): string {
    return `step_${tupleDigest([this.session, this.branchId, position, this.head]).slice(0, 40)}`;
  }

  /**
   * Appends one journal event. Its idempotency key names this branch, the
   * position and what the event says, so a retried append (a lost answer)
   * is recorded once; `attempt` tells apart later events of the same kind.
   */
  private async write(payload: StepPayload, position: number, what: string): Promise<CairnEvent> {
    if (!('recordStep' in this.fabric))
      throw new Error(
        'this journal was opened to read (Journal.read): open it with Journal.open to run steps',
      );
    const event = await this.fabric.recordStep({
      session: this.session,
      branch: this.branch,
      payload: payload as Parameters<JournalLog['recordStep']>[0]['payload'],
      idempotencyKey: `step:${this.branchId}:${position}:${what}:${this.run_}:${this.attempt++}`,
    });
    this.head = event.id;
    return event;
  }

  /** Makes the last step's result durable (otherwise it rides on the next step's intent). */
  async flush(): Promise<void> {
    if (!this.pending) return;
    const done = this.pending;
    await this.write({ done }, done.position, 'done');
    this.pending = null;
    this.settle(done);
  }

  /**
   * Runs `fn` as the next step of the branch, or returns its recorded
   * result when this position already ran. `args` must be JSON; the result
   * must be JSON too (it is recorded).
   */
  async step<T>(
    name: string,
    args: unknown,
    fn: (ctx: StepContext) => Promise<T>,
    options: StepOptions = {},
  ): Promise<T> {
    const policy = options.policy ?? 'retry-same-key';
    if (typeof name !== 'string' || name === '' || name.length > 200) {
      throw invalid('a step needs a name of 1 to 200 characters', { name });
    }
    if (!POLICIES.includes(policy)) throw invalid(`unknown step policy "${String(policy)}"`, { policy });
    if (policy === 'probe' && typeof options.probe !== 'function') {
      throw invalid(`step "${name}" has the probe policy but no probe function`, { step: name });
    }
    const argsDigest = sha256Hex(canonicalJson(args ?? null));
    const position = this.next;
    const recorded = this.records.get(position);
    if (recorded) {
      if (recorded.name !== name || recorded.argsDigest !== argsDigest) {
        throw diverged(
          `step ${position} of branch ${this.branch} was "${recorded.name}" with other arguments in the journal, not "${name}": the code changed under a replay; fork before the change or restore`,
          { position, journal: recorded.name, code: name, argsMatch: recorded.argsDigest === argsDigest },
        );
      }
      this.next++;
      if (recorded.state === 'done') return recorded.result as T;
      if (recorded.state === 'failed')
        throw new StepFailed(name, position, recorded.error?.message ?? 'failed');
      return this.settleInDoubt(recorded, args, fn, options);
    }
    this.next++;
    const intent: Intent = {
      position,
      name,
      key: this.keyFor(position),
      args: argsDigest,
      policy,
      ...(options.compensate ? { compensate: options.compensate } : {}),
      ...(options.effect === 'local' ? { effect: 'local' as const } : {}),
    };
    const carried = this.pending;
    const event = await this.write({ ...(carried ? { done: carried } : {}), intent }, position, 'intent');
    this.pending = null;
    if (carried) this.settle(carried);
    this.records.set(position, {
      position,
      name,
      key: intent.key,
      argsDigest,
      policy,
      ...(intent.compensate ? { compensate: intent.compensate } : {}),
      effect: intent.effect ?? 'external',
      event: event.id,
      state: 'in-doubt',
    });
    return this.run(position, fn, { key: intent.key, position, retry: false });
  }

  private async run<T>(
    position: number,
    fn: (ctx: StepContext) => Promise<T>,
    ctx: StepContext,
    via?: Done['via'],
  ): Promise<T> {
    try {
      const result = await fn(ctx);
      this.pending = { position, ok: true, result: result ?? null, ...(via ? { via } : {}) };
      return result;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.pending = {
        position,
        ok: false,
        error: { message, ...(error instanceof Error ? { name: error.name } : {}) },
        ...(via ? { via } : {}),
      };
      throw error;
    }
  }

  private async settleInDoubt<T>(
    record: StepRecord,
    args: unknown,
    fn: (ctx: StepContext) => Promise<T>,
    options: StepOptions,
  ): Promise<T> {
    const ctx: StepContext = { key: record.key, position: record.position, retry: true };
    if (this.rerun.has(record.position)) return this.run(record.position, fn, ctx, 'person');
    if (record.policy === 'retry-same-key') return this.run(record.position, fn, ctx, 'retry-same-key');
    if (record.policy === 'probe') {
      if (!options.probe) throw invalid(`step "${record.name}" is in doubt and needs its probe function`);
      const answer = await options.probe({ key: record.key, args });
      if (answer.happened) {
        const done: Done = {
          position: record.position,
          ok: true,
          result: answer.result ?? null,
          via: 'probe',
        };
        await this.write({ done }, record.position, 'probed');
        this.settle(done);
        return answer.result as T;
      }
      await this.write({ probe: { position: record.position, happened: false } }, record.position, 'probe');
      return this.run(record.position, fn, ctx, 'probe');
    }
    throw inDoubt(
      `step ${record.position} ("${record.name}", key ${record.key}) may or may not have run and its policy is escalate: a person must resolve it (cairn step resolve)`,
      { position: record.position, step: record.name, key: record.key },
    );
  }

  /**
   * Asks the world again about recorded steps: for each step whose name has
   * a probe, runs it and reports the steps it contradicts — recorded as done
   * but the probe says it did not happen (a refund, a deleted ticket), or
   * recorded as failed but it did. Nothing is written; this is drift to
   * report, not to repair.
   */
  async contradictions(
    probes: Record<string, (call: { key: string; position: number }) => Promise<ProbeAnswer>>,
  ): Promise<
    { position: number; name: string; key: string; recorded: 'done' | 'failed'; happened: boolean }[]
  > {
    const out: {
      position: number;
      name: string;
      key: string;
      recorded: 'done' | 'failed';
      happened: boolean;
    }[] = [];
    for (const record of this.steps()) {
      const probe = probes[record.name];
      if (!probe || record.state === 'in-doubt') continue;
      const answer = await probe({ key: record.key, position: record.position });
      if (answer.happened !== (record.state === 'done')) {
        out.push({
          position: record.position,
          name: record.name,
          key: record.key,
          recorded: record.state,
          happened: answer.happened,
        });
      }
    }
    return out;
  }

  /**
   * A person's decision about a step in doubt: its result (it happened), an
   * error (it failed), or `rerun` (run it again with the same key). It is
   * the table's `resolveStep`, as the fabric's caller: a person's only.
   */
  async resolve(
    position: number,
    decision: { result: unknown } | { error: string } | { rerun: true },
  ): Promise<StepRecord> {
    if (!('resolveStep' in this.fabric))
      throw new Error('this journal was opened to read (Journal.read): open it with Journal.open to resolve');
    const record = await this.fabric.resolveStep({
      session: this.session,
      branch: this.branch,
      position,
      ...decision,
    });
    if ('rerun' in decision) this.rerun.set(position, record.resolvedBy ?? '');
    else this.records.set(position, { ...record });
    return record;
  }

  /**
   * What recording a person's decision writes (`resolveStep`): the payload's
   * `resolve`, after checking the step is in doubt; nothing is written here.
   */
  resolution(
    position: number,
    decision: { result: unknown } | { error: string } | { rerun: true },
  ): ResolvePayload['resolve'] {
    const record = this.records.get(position);
    if (!record) throw notFound(`branch ${this.branch} has no step ${position}`, { position });
    if (record.state !== 'in-doubt') {
      throw conflict(`step ${position} is not in doubt (it is ${record.state})`, {
        position,
      });
    }
    return 'rerun' in decision
      ? { position, rerun: true }
      : 'error' in decision
        ? { position, ok: false, error: { message: decision.error } }
        : { position, ok: true, result: decision.result ?? null };
  }

  /** The step at `position` after `event`, a resolution `resolveStep` recorded, is applied. */
  applied(event: CairnEvent, position: number): StepRecord {
    this.replay(event);
    const record = { ...(this.records.get(position) as StepRecord) };
    const person = this.rerun.get(position);
    return person ? { ...record, resolvedBy: person } : record;
  }
}
