/**
 * The step journal under kill -9 (DESIGN §4): every step's effect happens
 * exactly once downstream, however often the process running the steps dies.
 *
 * A worker process (test/fixtures/steps-worker.mjs, which imports the built
 * dist/) runs steps 1..200 of one session, each paying through a payment
 * server that runs in this process (test/support/payment-server.ts) and
 * counts real payments. The test SIGKILLs the worker at random moments — a
 * random 0–40 ms after it opened its journal, when it reports a step's
 * result (so the kill lands between steps or in the next step's append), or
 * when the server receives its n-th request (before or after the payment is
 * recorded: the answer is lost) — and starts the next one, until a worker
 * finishes all steps and flushes. After each kill the next worker's journal
 * must hold exactly what the killed one's output allows: a step whose
 * payment was under way is reported in doubt. At the end the server holds
 * exactly one payment per step, each step's recorded result is that
 * payment's id, and every step that was ever in doubt was settled by its
 * policy.
 *
 * 1. `retry-same-key` against a server that honours `Idempotency-Key`.
 * 2. `probe` against a server that does not (every POST pays): the probe
 *    looks the payment up by the step key, sent as `ref`.
 * 3. A worker whose step 100 changed name stops with DIVERGED and writes and
 *    pays nothing.
 *
 * Run `npx tsc -p tsconfig.json` first.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Journal, STEP_EVENT, type StepPolicy, type StepRecord } from '../src/entry/steps.js';
import { openFabric } from '../src/index.js';
import { type ChildExit, randomInt, STALL_MS, scratchRoot, spawnChild } from './support/kill.js';
import { type PaymentServer, type RequestAction, startPaymentServer } from './support/payment-server.js';

const WORKER = fileURLToPath(new URL('./fixtures/steps-worker.mjs', import.meta.url));

/** The worker's step count (fixed in steps-worker.mjs). */
const STEPS = 200;
/** Kills per scenario, at least. */
const KILLS = 200;
/** A scenario that needs more runs than this is not making progress. */
const MAX_RUNS = 5 * KILLS;
/** Workers started ahead of their run. */
const SPARES = 2;
/** The step that the DIVERGED worker renames. */
const DIVERGE_AT = 100;

const root = scratchRoot('cairn-steps-crash-');

// ---------------------------------------------------------------------------
// Worker processes.

interface WorkerExit extends ChildExit {
  /** Complete lines printed (a line cut by the kill is dropped). */
  lines: string[];
  stderr: string;
}

interface Worker {
  /** Sends `go <run>`; `onLine` sees each line as it arrives. Resolves when the process has ended. */
  run(run: string, onLine: (line: string) => void): Promise<WorkerExit>;
  kill(): void;
  /** Ends a worker that was never run. */
  discard(): Promise<void>;
}

/**
 * Spawns a worker that loads the library and waits on stdin, so the next
 * run's process starts up while the current one runs.
 */
function spawnWorker(
  dir: string,
  session: string,
  server: PaymentServer,
  policy: StepPolicy,
  extra: string[] = [],
): Worker {
  const child = spawnChild('worker', WORKER, [dir, session, server.url, policy, ...extra]);
  let stalled = '';
  return {
    kill: child.kill,
    discard: () => child.discard(),
    async run(run, onLine) {
      child.go(`go ${run}\n`, onLine);
      const stall = setTimeout(() => {
        stalled = `\n(test: no end and no kill within ${STALL_MS} ms)`;
        child.kill();
      }, STALL_MS);
      try {
        const { code, signal } = await child.closed;
        return { code, signal, lines: [...child.lines], stderr: child.err + stalled };
      } finally {
        clearTimeout(stall);
      }
    },
  };
}

// ---------------------------------------------------------------------------
// What a worker printed.

interface Ready {
  done: number;
  inDoubt: number[];
}

type Line =
  | { kind: 'ready'; ready: Ready }
  | { kind: 'probe'; position: number; found: boolean }
  | { kind: 'run'; position: number; retry: boolean }
  | { kind: 'ack'; position: number; id: string }
  | { kind: 'done' };

function parseLine(line: string): Line {
  let m = /^ready (\d+) (-|\d+(?:,\d+)*)$/.exec(line);
  if (m) {
    const inDoubt = m[2] === '-' ? [] : m[2]!.split(',').map(Number);
    return { kind: 'ready', ready: { done: Number(m[1]), inDoubt } };
  }
  m = /^probe (\d+) (found|missing)$/.exec(line);
  if (m) return { kind: 'probe', position: Number(m[1]), found: m[2] === 'found' };
  m = /^run (\d+) ([01])$/.exec(line);
  if (m) return { kind: 'run', position: Number(m[1]), retry: m[2] === '1' };
  m = /^ack (\d+) (pay_[0-9a-f]{16})$/.exec(line);
  if (m) return { kind: 'ack', position: Number(m[1]), id: m[2]! };
  if (line === 'done') return { kind: 'done' };
  throw new Error(`worker printed a malformed line: ${JSON.stringify(line)}`);
}

/**
 * The journal states a worker may leave when it is killed after printing
 * `lines`: its `ready` line, then what it did (acks of replayed steps aside).
 * A step whose intent was durable (`run`, `probe`) and whose result was not
 * reported must be in doubt; after a reported result, the next step's intent
 * (which carries it) may or may not have landed.
 */
function allowedAfterKill(lines: Line[]): { states: Ready[]; last: string } {
  const first = lines[0];
  if (first?.kind !== 'ready') throw new Error('a killed worker printed no ready line');
  const { done, inDoubt } = first.ready;
  const fresh = lines.slice(1).filter((l) => !(l.kind === 'ack' && l.position <= done));
  const last = fresh.at(-1);
  if (!last) {
    // Nothing run yet: at most the first new step's intent landed.
    const states = [first.ready];
    if (inDoubt.length === 0 && done < STEPS) states.push({ done, inDoubt: [done + 1] });
    return { states, last: 'before-first-step' };
  }
  switch (last.kind) {
    case 'run':
      return { states: [{ done: last.position - 1, inDoubt: [last.position] }], last: 'in-payment' };
    case 'probe':
      // A found payment is recorded as the step's result by one write, which may have landed.
      return {
        states: [
          { done: last.position - 1, inDoubt: [last.position] },
          ...(last.found ? [{ done: last.position, inDoubt: [] }] : []),
        ],
        last: 'in-probe',
      };
    case 'ack': {
      const p = last.position;
      const before = fresh.at(-2);
      // A step settled by a found payment has its result durable before the ack.
      const probed = before?.kind === 'probe' && before.position === p && before.found;
      // Then the next step's intent (or, after the last step, the flush) carries the result, or not.
      const next = p < STEPS ? { done: p, inDoubt: [p + 1] } : { done: p, inDoubt: [] };
      return {
        states: probed ? [{ done: p, inDoubt: [] }, next] : [{ done: p - 1, inDoubt: [p] }, next],
        last: 'between-steps',
      };
    }
    default:
      throw new Error(`a killed worker printed ${JSON.stringify(last)} last`);
  }
}

// ---------------------------------------------------------------------------
// The kill loop.

type Plan =
  | { kind: 'timer'; ms: number }
  | { kind: 'ack'; n: number }
  | { kind: 'request'; n: number; action: Exclude<RequestAction, 'answer'> };

/**
 * Where to kill the next worker, given how many steps remain and how many
 * kills are still due: on average about `remaining / killsDue` steps of
 * progress per run, so the kills are spread over all the steps. `ack` and
 * `request` plans always fire before the worker could finish (every step
 * not yet done makes at least one request and prints an ack, and a request
 * plan fires inside the server, which holds the answer); `ack` plans leave
 * the worker ten steps or more to go and the timer runs only while many remain.
 */
function choosePlan(remaining: number, killsDue: number): Plan | null {
  if (killsDue <= 0) return null;
  const pace = remaining / killsDue;
  const progress = () => randomInt(0, Math.round(2 * pace));
  const r = Math.random();
  if (remaining > 40 && r < 0.3) return { kind: 'timer', ms: randomInt(0, 40) };
  if (remaining > 20 && r < 0.6) return { kind: 'ack', n: Math.min(Math.max(progress(), 1), remaining - 10) };
  // Not expected (no plan above or below lets a worker finish while kills are due); if so, kill the replay.
  if (remaining === 0) return { kind: 'timer', ms: 0 };
  return {
    kind: 'request',
    n: Math.min(1 + progress(), remaining),
    action: Math.random() < 0.5 ? 'drop-before' : 'drop-after',
  };
}

interface Scenario {
  dir: string;
  session: string;
  server: PaymentServer;
  runs: number;
  kills: number;
  /** Kills by plan, and by what the worker had printed last. */
  byPlan: Map<string, number>;
  byLast: Map<string, number>;
  /** Restarts that found a step in doubt, and the positions found. */
  detections: number;
  inDoubtPositions: Set<number>;
  /** Kills after a step's intent landed and before its result was reported: each found in doubt by the next run. */
  interrupted: number;
  /** Every acked result per position. */
  acks: Map<number, Set<string>>;
  ms: number;
  /** Total time from `go` to the ready line, and from `go` to the end of the process. */
  startMs: number;
  runMs: number;
}

/** The server's `idle()`, bounded. */
async function idle(server: PaymentServer, where: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      server.idle(),
      new Promise<never>((_, fail) => {
        timer = setTimeout(
          () => fail(new Error(`${where}: the payment server still has requests or connections`)),
          STALL_MS,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

async function crashLoop(policy: StepPolicy, server: PaymentServer): Promise<Scenario> {
  const started = Date.now();
  const dir = join(root(), policy);
  const setup = await openFabric({ dir });
  const session = (await setup.createSession({ title: `steps crash ${policy}` })).id;
  await setup.close();
  const s: Scenario = {
    dir,
    session,
    server,
    runs: 0,
    kills: 0,
    byPlan: new Map(),
    byLast: new Map(),
    detections: 0,
    inDoubtPositions: new Set(),
    interrupted: 0,
    acks: new Map(),
    ms: 0,
    startMs: 0,
    runMs: 0,
  };
  /** What the last killed worker may have left; checked against the next worker's ready line. */
  let expected: { states: Ready[]; last: string; run: number } | null = null;
  // Loading the library takes a worker longer than a run: two load at a time.
  const spares = Array.from({ length: SPARES }, () => spawnWorker(dir, session, server, policy));
  try {
    for (;;) {
      const run = ++s.runs;
      if (run > MAX_RUNS) throw new Error(`${policy}: not done after ${MAX_RUNS} runs (${s.kills} kills)`);
      const worker = spares.shift()!;
      spares.push(spawnWorker(dir, session, server, policy));
      let plan: Plan | null = null;
      let killed = false;
      let timer: NodeJS.Timeout | undefined;
      let fresh = 0;
      let requests = 0;
      let problem = '';
      const kill = () => {
        killed = true;
        worker.kill();
      };
      server.onRequest = (request) => {
        if (request.run !== String(run) || plan?.kind !== 'request' || killed) return 'answer';
        if (++requests < plan.n) return 'answer';
        kill();
        return plan.action;
      };
      let ready: Ready | null = null;
      const go = Date.now();
      const exit = await worker.run(String(run), (text) => {
        try {
          const line = parseLine(text);
          if (line.kind === 'ready') {
            s.startMs += Date.now() - go;
            ready = line.ready;
            if (expected) {
              // The worker before this one was killed: its journal must be in a state its output allows.
              const match = expected.states.some(
                (state) =>
                  state.done === line.ready.done &&
                  JSON.stringify(state.inDoubt) === JSON.stringify(line.ready.inDoubt),
              );
              if (!match) {
                problem = `run ${run} opened ${text} after run ${expected.run} was killed ${expected.last}; expected one of ${JSON.stringify(expected.states)}`;
                kill();
                return;
              }
              if (expected.last === 'in-payment' || expected.last === 'in-probe') s.interrupted++;
            }
            if (line.ready.inDoubt.length > 0) {
              s.detections++;
              for (const p of line.ready.inDoubt) s.inDoubtPositions.add(p);
            }
            plan = choosePlan(STEPS - line.ready.done, KILLS - s.kills);
            if (plan?.kind === 'timer') timer = setTimeout(kill, plan.ms);
          } else if (line.kind === 'ack') {
            const ids = s.acks.get(line.position) ?? new Set();
            ids.add(line.id);
            s.acks.set(line.position, ids);
            if (line.position > (ready?.done ?? 0) && plan?.kind === 'ack' && ++fresh === plan.n) kill();
          } else if (
            (line.kind === 'run' && line.retry !== ready?.inDoubt.includes(line.position)) ||
            (line.kind === 'probe' && !ready?.inDoubt.includes(line.position))
          ) {
            // A step is probed, or runs as a retry, exactly when it was found in doubt.
            problem = `run ${run} printed ${text} after ${JSON.stringify(ready)}`;
            kill();
          }
        } catch (error) {
          problem = String(error);
          kill();
        }
      });
      clearTimeout(timer);
      s.runMs += Date.now() - go;
      server.onRequest = undefined;
      if (problem) throw new Error(`${policy}: ${problem}`);
      if (exit.signal === 'SIGKILL' && killed) {
        s.kills++;
        const lines = exit.lines.map(parseLine);
        if (!plan)
          throw new Error(`${policy}: run ${run} was killed before its ready line; stderr: ${exit.stderr}`);
        const p = plan as Plan;
        bump(s.byPlan, p.kind === 'request' ? `request-${p.action}` : p.kind);
        const allowed = allowedAfterKill(lines);
        bump(s.byLast, allowed.last);
        expected = { ...allowed, run };
      } else if (exit.code === 0 && exit.lines.at(-1) === 'done') {
        break;
      } else {
        throw new Error(
          `${policy}: run ${run} ended with code ${exit.code}, signal ${exit.signal} (killed by the test: ${killed}); last lines ${JSON.stringify(exit.lines.slice(-3))}; stderr: ${exit.stderr}`,
        );
      }
      // Probe only: a payment the killed worker sent may still be on its way
      // to the server, and a probe can only see payments that happened. So
      // the next worker starts once the server handles no request and holds
      // no connection: test orchestration, not a weakening (a deployment
      // bounds this with a request deadline before it probes). On loopback
      // the race did not show without the wait either.
      if (policy === 'probe') await idle(server, `${policy}: after run ${run}`);
    }
  } finally {
    server.onRequest = undefined;
    await Promise.all(spares.map((spare) => spare.discard()));
  }
  s.ms = Date.now() - started;
  return s;
}

/** The checks both scenarios share, on the journal as a fresh process reads it and on the server. */
async function checkScenario(s: Scenario, policy: StepPolicy): Promise<StepRecord[]> {
  const fabric = await openFabric({ dir: s.dir });
  let steps: StepRecord[];
  try {
    const journal = await Journal.open(fabric, { session: s.session });
    steps = journal.steps();
    expect(journal.inDoubt()).toEqual([]);
  } finally {
    await fabric.close();
  }
  expect(steps.map((r) => r.position)).toEqual(Array.from({ length: STEPS }, (_, i) => i + 1));

  // Exactly one payment per step, under that step's key.
  const payments = s.server.payments;
  const perKey = new Map<string, number>();
  for (const payment of payments) perKey.set(payment.key, (perKey.get(payment.key) ?? 0) + 1);
  const duplicated = [...perKey].filter(([, n]) => n > 1);
  expect(duplicated, `${policy}: keys paid more than once`).toEqual([]);
  expect(payments.length, `${policy}: payments`).toBe(STEPS);
  const byKey = new Map(payments.map((payment) => [payment.key, payment]));

  for (const step of steps) {
    const where = `${policy}: step ${step.position}`;
    expect(step.state, where).toBe('done');
    expect(step.name, where).toBe('pay');
    expect(step.policy, where).toBe(policy);
    const payment = byKey.get(step.key);
    if (!payment) expect.fail(`${where}: no payment under its key ${step.key}`);
    expect(payment.step, where).toBe(step.position);
    expect(payment.amount, where).toBe(100 + step.position);
    if (policy === 'probe') expect(payment.ref, where).toBe(step.key);
    // The journal and the server agree, and every worker got that same result.
    expect(step.result, where).toBe(payment.id);
    expect([...(s.acks.get(step.position) ?? [])], `${where}: results acknowledged`).toEqual([payment.id]);
    // A step found in doubt at a restart was settled by its policy, and no other was.
    if (s.inDoubtPositions.has(step.position)) expect(step.settledBy, where).toBe(policy);
    else expect(step.settledBy, where).toBeUndefined();
  }
  return steps;
}

function summary(s: Scenario, policy: StepPolicy): string {
  const list = (m: Map<string, number>) => [...m].map(([k, n]) => `${n} ${k}`).join(', ');
  return (
    `${policy}: ${s.kills} SIGKILLs over ${s.runs} runs in ${(s.ms / 1000).toFixed(1)} s ` +
    `(per run: ${(s.startMs / s.runs).toFixed(0)} ms from go to ready, ${(s.runMs / s.runs).toFixed(0)} ms to exit) ` +
    `(plans: ${list(s.byPlan)}; worker last printed: ${list(s.byLast)}); ` +
    `${s.detections} restarts found a step in doubt (${s.inDoubtPositions.size} distinct steps), ` +
    `${s.interrupted} kills mid-step; server: ${s.server.payments.length} payments, ${s.server.posts} POSTs` +
    (policy === 'probe' ? `, ${s.server.lookups} probes` : `, ${s.server.deduped} answered from their key`)
  );
}

describe('step journal under kill -9', () => {
  it(`retry-same-key against a server that honours Idempotency-Key: one payment per step (${STEPS} steps, ≥ ${KILLS} SIGKILLs)`, async () => {
    const server = await startPaymentServer({ honoursKeys: true });
    try {
      const s = await crashLoop('retry-same-key', server);
      console.log(summary(s, 'retry-same-key'));
      const steps = await checkScenario(s, 'retry-same-key');
      expect(s.kills).toBeGreaterThanOrEqual(KILLS);
      expect(s.detections).toBeGreaterThan(0);
      expect(s.interrupted).toBeGreaterThan(0);
      // Steps were retried downstream with their key and answered from it.
      expect(server.deduped).toBeGreaterThan(0);
      expect(steps).toHaveLength(STEPS);
    } finally {
      await server.close();
    }
  });

  it(`probe against a server that ignores Idempotency-Key: no duplicate payment (${STEPS} steps, ≥ ${KILLS} SIGKILLs)`, async () => {
    const server = await startPaymentServer({ honoursKeys: false });
    try {
      const s = await crashLoop('probe', server);
      console.log(summary(s, 'probe'));
      await checkScenario(s, 'probe');
      expect(s.kills).toBeGreaterThanOrEqual(KILLS);
      expect(s.detections).toBeGreaterThan(0);
      expect(s.interrupted).toBeGreaterThan(0);
      expect(server.lookups).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });

  it('a worker whose code changed at a replayed step stops with DIVERGED, paying and writing nothing', async () => {
    // A journal of its own, finished by one worker that nobody kills.
    const dir = join(root(), 'diverged');
    const setup = await openFabric({ dir });
    const session = (await setup.createSession({ title: 'steps diverged' })).id;
    await setup.close();
    const paid = await startPaymentServer({ honoursKeys: true });
    try {
      const exit = await spawnWorker(dir, session, paid, 'retry-same-key').run('finish', () => {});
      expect(exit.code, `stderr: ${exit.stderr}`).toBe(0);
      expect(exit.lines.at(-1)).toBe('done');
    } finally {
      await paid.close();
    }
    const fabric = await openFabric({ dir });
    let steps: StepRecord[];
    try {
      steps = (await Journal.open(fabric, { session })).steps();
    } finally {
      await fabric.close();
    }
    expect(steps).toHaveLength(STEPS);
    const countEvents = async () => {
      const fabric = await openFabric({ dir });
      try {
        const page = await fabric.readBranch({ session, branch: 'main', limit: 10_000 });
        expect(page.next).toBeNull();
        return page.events.filter((e) => e.kind === STEP_EVENT).length;
      } finally {
        await fabric.close();
      }
    };
    const before = await countEvents();
    const server = await startPaymentServer({ honoursKeys: true });
    try {
      const worker = spawnWorker(dir, session, server, 'retry-same-key', [String(DIVERGE_AT)]);
      const exit = await worker.run('diverge', () => {});
      expect(exit.code, `stderr: ${exit.stderr}`).toBe(3);
      expect(exit.stderr).toContain('DIVERGED');
      const lines = exit.lines.map(parseLine);
      expect(lines[0]).toEqual({ kind: 'ready', ready: { done: STEPS, inDoubt: [] } });
      // Steps before the change replay their recorded results; none runs.
      expect(lines.slice(1)).toEqual(
        steps
          .slice(0, DIVERGE_AT - 1)
          .map((step) => ({ kind: 'ack', position: step.position, id: step.result })),
      );
      expect(server.posts + server.lookups).toBe(0);
    } finally {
      await server.close();
    }
    expect(await countEvents()).toBe(before);
  });
});
