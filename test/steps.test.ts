import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EmbeddedFabric } from '../src/embedded-fabric.js';
import { Journal, STEP_EVENT, StepFailed } from '../src/steps/journal.js';
import { openFabric } from '../src/store.js';
import { expectCode } from '../src/testing/expect-code.js';
import { tempDir } from './support/stores.js';

let temp: { dir: string; remove(): void };
let fabric: EmbeddedFabric;
let session: string;

beforeEach(async () => {
  temp = tempDir('cairn-steps-');
  fabric = await openFabric({ dir: temp.dir });
  session = (await fabric.createSession({ title: 'steps' })).id;
});

afterEach(async () => {
  await fabric.close();
  temp.remove();
});

async function stepEvents(branch = 'main') {
  const page = await fabric.readBranch({ session, branch });
  return page.events.filter((e) => e.kind === STEP_EVENT);
}

describe('step journal', () => {
  it('records each step once and replays results without running the function again', async () => {
    const calls: string[] = [];
    const run = async (journal: Journal) => {
      const a = await journal.step('plan', { goal: 'x' }, async () => {
        calls.push('plan');
        return { steps: 2 };
      });
      const b = await journal.step('write', { file: 'a' }, async ({ key }) => {
        calls.push('write');
        return key;
      });
      await journal.flush();
      return [a, b];
    };
    const first = await run(await Journal.open(fabric, { session }));
    const again = await run(await Journal.open(fabric, { session }));
    expect(again).toEqual(first);
    expect(calls).toEqual(['plan', 'write']);
    // One event per step plus the final flush: the result of a step rides on the next intent.
    expect(await stepEvents()).toHaveLength(3);
  });

  it('amortises to one durable write per step', async () => {
    const journal = await Journal.open(fabric, { session });
    for (let i = 0; i < 50; i++) await journal.step('n', { i }, async () => i);
    await journal.flush();
    expect(await stepEvents()).toHaveLength(51);
  });

  it('fails closed with DIVERGED when the code at a replayed position changed, and writes nothing', async () => {
    const journal = await Journal.open(fabric, { session });
    await journal.step('charge', { amount: 5 }, async () => 'ok');
    await journal.flush();
    const before = (await stepEvents()).length;
    const replay = await Journal.open(fabric, { session });
    await expectCode(
      replay.step('refund', { amount: 5 }, async () => 'x'),
      'DIVERGED',
    );
    const other = await Journal.open(fabric, { session });
    await expectCode(
      other.step('charge', { amount: 6 }, async () => 'x'),
      'DIVERGED',
    );
    expect((await stepEvents()).length).toBe(before);
  });

  it('marks an intent without a result in doubt and settles it by retry-same-key', async () => {
    const keys: string[] = [];
    const crashed = await Journal.open(fabric, { session });
    await crashed.step('pay', { amount: 7 }, async ({ key }) => {
      keys.push(key);
      return 'paid';
    });
    // The process dies here: the result was never made durable.
    const resumed = await Journal.open(fabric, { session });
    expect(resumed.inDoubt().map((s) => s.name)).toEqual(['pay']);
    const result = await resumed.step('pay', { amount: 7 }, async ({ key, retry }) => {
      keys.push(key);
      expect(retry).toBe(true);
      return 'paid';
    });
    await resumed.flush();
    expect(result).toBe('paid');
    expect(keys[1]).toBe(keys[0]);
    const settled = (await Journal.open(fabric, { session })).steps()[0];
    expect(settled).toMatchObject({ state: 'done', result: 'paid', settledBy: 'retry-same-key' });
  });

  it('settles a step in doubt by its probe, recording the answer, and runs it again only if it did not happen', async () => {
    const crashed = await Journal.open(fabric, { session });
    await crashed.step('ticket', { t: 1 }, async () => 'T-1', {
      policy: 'probe',
      probe: async () => ({ happened: false }),
    });
    await crashed.step('ticket', { t: 2 }, async () => 'T-2', {
      policy: 'probe',
      probe: async () => ({ happened: false }),
    });
    // Crash: step 2's result is lost. Step 1's rode on step 2's intent.
    let ran = 0;
    const resumed = await Journal.open(fabric, { session });
    expect(
      await resumed.step('ticket', { t: 1 }, async () => 'never', {
        policy: 'probe',
        probe: async () => ({ happened: false }),
      }),
    ).toBe('T-1');
    const found = await resumed.step(
      'ticket',
      { t: 2 },
      async () => {
        ran++;
        return 'dup';
      },
      {
        policy: 'probe',
        probe: async ({ key }) => ({ happened: true, result: `T-2 (found by ${key.slice(0, 5)})` }),
      },
    );
    expect(ran).toBe(0);
    expect(found).toMatch(/^T-2 \(found by step_/);
    expect((await Journal.open(fabric, { session })).steps()[1]).toMatchObject({
      state: 'done',
      settledBy: 'probe',
    });

    // A probe that says it did not happen: the step runs again, and the probe answer is in the log.
    const third = await Journal.open(fabric, { session });
    await third.step('ticket', { t: 1 }, async () => 'x', {
      policy: 'probe',
      probe: async () => ({ happened: false }),
    });
    await third.step('ticket', { t: 2 }, async () => 'x', {
      policy: 'probe',
      probe: async () => ({ happened: false }),
    });
    await third.step('ticket', { t: 3 }, async () => 'T-3', {
      policy: 'probe',
      probe: async () => ({ happened: false }),
    });
    const fourth = await Journal.open(fabric, { session });
    await fourth.step('ticket', { t: 1 }, async () => 'x', {
      policy: 'probe',
      probe: async () => ({ happened: false }),
    });
    await fourth.step('ticket', { t: 2 }, async () => 'x', {
      policy: 'probe',
      probe: async () => ({ happened: false }),
    });
    const rerun = await fourth.step(
      'ticket',
      { t: 3 },
      async () => {
        ran++;
        return 'T-3 again';
      },
      {
        policy: 'probe',
        probe: async () => ({ happened: false }),
      },
    );
    expect(rerun).toBe('T-3 again');
    expect(ran).toBe(1);
    const probes = (await stepEvents()).filter((e) => (e.payload as { probe?: unknown }).probe);
    expect(probes).toHaveLength(1);
  });

  it('escalates: IN_DOUBT until a person resolves the step, by result or by rerun', async () => {
    const crashed = await Journal.open(fabric, { session });
    await crashed.step('wire', { to: 'acme' }, async () => 'sent', { policy: 'escalate' });
    const blocked = await Journal.open(fabric, { session });
    const error = await expectCode(
      blocked.step('wire', { to: 'acme' }, async () => 'again', { policy: 'escalate' }),
      'IN_DOUBT',
    );
    expect(error.data).toMatchObject({ position: 1, step: 'wire' });
    const person = await Journal.open(fabric, { session });
    await expectCode(person.resolve(9, { result: 1 }), 'NOT_FOUND');
    await person.resolve(1, { result: 'confirmed by the bank' });
    await expectCode(person.resolve(1, { result: 'twice' }), 'CONFLICT');
    const after = await Journal.open(fabric, { session });
    expect(await after.step('wire', { to: 'acme' }, async () => 'never', { policy: 'escalate' })).toBe(
      'confirmed by the bank',
    );

    // Rerun: the same key is passed to the function again.
    const keys: string[] = [];
    await after.step(
      'wire',
      { to: 'beta' },
      async ({ key }) => {
        keys.push(key);
        return 'sent';
      },
      { policy: 'escalate' },
    );
    const p2 = await Journal.open(fabric, { session });
    await p2.resolve(2, { rerun: true });
    const r = await Journal.open(fabric, { session });
    await r.step('wire', { to: 'acme' }, async () => 'x', { policy: 'escalate' });
    expect(
      await r.step(
        'wire',
        { to: 'beta' },
        async ({ key }) => {
          keys.push(key);
          return 'resent';
        },
        { policy: 'escalate' },
      ),
    ).toBe('resent');
    expect(keys[1]).toBe(keys[0]);
  });

  it('records a failure and throws it again on replay; lists compensations', async () => {
    const journal = await Journal.open(fabric, { session });
    await journal.step('book', { room: 1 }, async () => 'booked', {
      compensate: { name: 'cancel', args: { room: 1 } },
    });
    await expect(
      journal.step('pay', {}, async () => {
        throw new Error('card declined');
      }),
    ).rejects.toThrow('card declined');
    await journal.flush();
    const replay = await Journal.open(fabric, { session });
    await replay.step('book', { room: 1 }, async () => 'x');
    await expect(replay.step('pay', {}, async () => 'x')).rejects.toBeInstanceOf(StepFailed);
    expect(replay.steps().map((s) => [s.name, s.state, s.compensate?.name])).toEqual([
      ['book', 'done', 'cancel'],
      ['pay', 'failed', undefined],
    ]);
  });

  it('gives steps after a fork point fresh keys and keeps the keys of steps before it', async () => {
    const main = await Journal.open(fabric, { session });
    const k1 = await main.step('a', {}, async ({ key }) => key);
    await main.flush();
    const head = (await fabric.readBranch({ session })).head;
    await fabric.fork({ session, at: head, name: 'try-2' });
    const k2main = await main.step('b', {}, async ({ key }) => key);
    await main.flush();
    const fork = await Journal.open(fabric, { session, branch: 'try-2' });
    expect(await fork.step('a', {}, async () => 'never')).toBe(k1);
    const k2fork = await fork.step('b', {}, async ({ key }) => key);
    expect(k2fork).not.toBe(k2main);
  });

  it('refuses bad input with typed errors and writes nothing', async () => {
    await expectCode(Journal.open(fabric, { session: 'ss_00000000000000000000000000' }), 'NOT_FOUND');
    await expectCode(Journal.open(fabric, { session, branch: 'nope' }), 'NOT_FOUND');
    const journal = await Journal.open(fabric, { session });
    await expectCode(
      journal.step('', {}, async () => 1),
      'INVALID_ARGUMENT',
    );
    // @ts-expect-error an unknown policy
    await expectCode(
      journal.step('x', {}, async () => 1, { policy: 'yolo' }),
      'INVALID_ARGUMENT',
    );
    await expectCode(
      journal.step('x', {}, async () => 1, { policy: 'probe' }),
      'INVALID_ARGUMENT',
    );
    expect(await stepEvents()).toHaveLength(0);
  });
});
