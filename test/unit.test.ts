import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Desk } from '../src/desk/desk.js';
import { EmbeddedFabric } from '../src/embedded-fabric.js';
import type { WorkspaceId } from '../src/ids.js';
import type { CallerSide } from '../src/ops/op.js';
import { Journal } from '../src/steps/journal.js';
import { Store } from '../src/store.js';
import { expectCode } from '../src/testing/expect-code.js';
import { execInWorkspace } from '../src/unit/exec.js';
import { Units } from '../src/unit/unit.js';
import { tempDir } from './support/stores.js';
import { put } from './support/trees.js';

let temp: { dir: string; remove(): void };
let store: Store;
let desk: Desk;
let fabric: EmbeddedFabric;
let units: Units;
const env = { PATH: process.env.PATH };

beforeEach(async () => {
  temp = tempDir('cairn-unit-');
  store = await Store.openDir(join(temp.dir, 'store'));
  const who = await store.localIdentity();
  desk = store.desk(who, { host: 'unit-test' });
  fabric = store.fabric(who);
  units = new Units(fabric, desk);
});

afterEach(async () => {
  await desk.close();
  await store.close();
  temp.remove();
});

async function workspace() {
  const dir = join(temp.dir, 'work');
  put(dir, 'test.sh', 'test -f ok\n');
  put(dir, 'ok', '');
  return (await desk.attach({ dir })).workspace;
}

describe('the unit of work', () => {
  it('captures `exec -- sh -c "echo x > f"` as a step and a checkpoint that restores it', async () => {
    const ws = await workspace();
    const ran = await execInWorkspace(fabric, desk, {
      workspace: ws.id,
      command: ['sh', '-c', 'echo x > f'],
      env,
    });
    expect(ran.exit).toBe(0);
    expect(ran.checkpoint.created).toBe(true);
    const journal = await Journal.open(fabric, { session: ws.session, branch: ws.branch });
    expect(journal.steps()).toMatchObject([{ name: 'exec', state: 'done', result: { exit: 0 } }]);
    writeFileSync(join(ws.dir, 'f'), 'overwritten\n');
    await desk.restore(ws.id, ran.checkpoint.snapshot.id);
    expect(readFileSync(join(ws.dir, 'f'), 'utf8')).toBe('x\n');
    // A command that is not there: a typed error, and no step recorded.
    await expectCode(
      execInWorkspace(fabric, desk, { workspace: ws.id, command: ['no-such-command-x'], env }),
      'INVALID_ARGUMENT',
    );
    expect((await Journal.open(fabric, { session: ws.session, branch: ws.branch })).steps()).toHaveLength(1);
  });

  it('checkpoints the unit with evidence, and previews a restore with steps grouped by what undoes them', async () => {
    const ws = await workspace();
    const start = await units.checkpoint({ workspace: ws.id, label: 'start', checks: ['sh test.sh'] });
    expect(start).toMatchObject({ accepted: true, label: 'start', snapshot: expect.stringMatching(/^sn_/) });
    expect(start.evidence.checks[0]).toMatchObject({ exit: 0, passed: true });
    const journal = (await Journal.open(fabric, { session: ws.session, branch: ws.branch })).atEnd();
    await journal.step('format', {}, async () => 'ok', { effect: 'local' });
    await journal.step('book', {}, async () => 'ok', { compensate: { name: 'cancel-booking' } });
    await journal.step('email', {}, async () => 'sent');
    await journal.flush();
    put(ws.dir, 'new.txt', 'after the checkpoint\n');
    const preview = await units.previewRestore(start.id);
    expect(preview.steps.undone.map((s) => s.name)).toEqual(['format']);
    expect(preview.steps.compensation.map((s) => [s.name, s.compensate?.name])).toEqual([
      ['book', 'cancel-booking'],
    ]);
    expect(preview.steps.cannotUndo.map((s) => s.name)).toEqual(['email']);
    expect(preview.files.map((f) => `${f.change} ${f.path}`)).toEqual(['removed new.txt']);
    expect(existsSync(join(ws.dir, 'new.txt'))).toBe(true);

    const done = await units.restore(start.id);
    expect(existsSync(join(ws.dir, 'new.txt'))).toBe(false);
    expect(done.before.label).toMatch(/before restore/);
    // The log head moved back to the checkpoint: the steps after it are off the branch's path.
    expect((await Journal.open(fabric, { session: ws.session, branch: ws.branch })).steps()).toEqual([]);
    const history = await fabric.branchHistory({ session: ws.session, branch: ws.branch });
    expect(history.at(-1)).toMatchObject({ op: 'move', headAfter: start.id });
  });

  it('refuses to fork or restore a checkpoint whose checks failed, unless asked', async () => {
    const ws = await workspace();
    const failed = await units.checkpoint({
      workspace: ws.id,
      checks: [
        'for i in $(seq 1 100); do echo "line $i"; done; echo "assertion $(echo failed): total" >&2; exit 3',
      ],
    });
    expect(failed.accepted).toBe(false);
    expect(failed.evidence.checks[0]?.exit).toBe(3);
    // The person sees why (the tail of the output); the log keeps only the digest.
    const tail = failed.evidence.checks[0]?.outputTail ?? '';
    expect(tail.split('\n')).toHaveLength(40);
    expect(tail).toContain('assertion failed: total');
    expect(tail).not.toContain('line 50\n');
    expect(JSON.stringify((await fabric.getEvent({ event: failed.id })).payload)).not.toContain(
      'assertion failed',
    );
    expect((await units.get(failed.id)).evidence.checks[0]).not.toHaveProperty('outputTail');
    await expectCode(units.fork(failed.id, { branches: 1, dirRoot: join(temp.dir, 'forks') }), 'CONFLICT');
    await expectCode(units.restore(failed.id), 'CONFLICT');
    const forked = await units.fork(failed.id, {
      branches: 1,
      dirRoot: join(temp.dir, 'forks'),
      allowUnaccepted: true,
      driver: 'copy',
    });
    expect(forked.branches).toHaveLength(1);
  });

  it('forks the unit into N branches, each with its own log branch, workspace and no grants', async () => {
    const ws = await workspace();
    const start = await units.checkpoint({ workspace: ws.id, checks: ['sh test.sh'] });
    put(ws.dir, 'later.txt', 'after the checkpoint\n');
    await desk.checkpoint(ws.id);
    const forked = await units.fork(start.id, {
      branches: 3,
      dirRoot: join(temp.dir, 'forks'),
      driver: 'copy',
    });
    expect(forked.branches).toHaveLength(3);
    expect(new Set(forked.branches.map((b) => b.branch)).size).toBe(3);
    for (const b of forked.branches) {
      expect(b.grants).toEqual([]);
      // Each branch starts from the checkpoint, not from later work.
      expect(existsSync(join(b.workspace.dir, 'later.txt'))).toBe(false);
      const head = (await fabric.readBranch({ session: ws.session, branch: b.branch })).head;
      expect(head).toBe(start.id);
    }
    await expectCode(
      units.fork(start.id, { branches: 0, dirRoot: join(temp.dir, 'f0') }),
      'INVALID_ARGUMENT',
    );
    await expectCode(
      units.fork(start.id, { branches: 100_000, dirRoot: join(temp.dir, 'f1') }),
      'INVALID_ARGUMENT',
    );
    // Keep one, abandon the others; reclaim discards abandoned workspaces past their TTL.
    // What the kept branch remembered becomes its parent's; a sibling's stays its own.
    const memory = store.memory(await store.localIdentity());
    const recallOn = async (branch: string) =>
      (await memory.recall({ query: 'winner', scope: { session: ws.session }, branch })).items.map(
        (i) => i.text,
      );
    await memory.remember({
      scope: { session: ws.session },
      branch: forked.branches[0]!.branch,
      text: 'the winner learned this',
    });
    const loser = await memory.remember({
      scope: { session: ws.session },
      branch: forked.branches[1]!.branch,
      text: 'the loser winner guess',
    });
    expect(await recallOn(ws.branch)).toEqual([]);
    await units.keep(ws.session, forked.branches[0]!.branch);
    expect(await recallOn(ws.branch)).toEqual(['the winner learned this']);
    await units.abandon(ws.session, forked.branches[1]!.branch, 0);
    await units.abandon(ws.session, forked.branches[2]!.branch, 60_000);
    const { reclaimed } = await units.reclaim();
    expect(reclaimed).toEqual([forked.branches[1]!.workspace.id]);
    // The reclaimed branch's memory went with it; the kept one's stays, now its parent's.
    await expectCode(memory.getMemory({ record: loser.id }), 'NOT_FOUND');
    expect(await recallOn(ws.branch)).toEqual(['the winner learned this']);
  });

  it('reports drift: unrecorded workspace changes, steps in doubt, and recorded steps a probe contradicts', async () => {
    const ws = await workspace();
    expect((await units.status(ws.id)).clean).toBe(true);
    const journal = (await Journal.open(fabric, { session: ws.session, branch: ws.branch })).atEnd();
    await journal.step('ticket', { n: 1 }, async () => 'T-1');
    await journal.step('refund', { n: 2 }, async () => 'R-2');
    await journal.flush();
    await journal.step('pay', { n: 3 }, async () => 'P-3'); // its result never made durable: in doubt
    put(ws.dir, 'edited-by-hand.txt', 'outside any step\n');
    const world = { 'T-1': true, 'R-2': false };
    const report = await units.status(ws.id, {
      ticket: async () => ({ happened: world['T-1'] }),
      refund: async () => ({ happened: world['R-2'] }),
    });
    expect(report.clean).toBe(false);
    expect(report.unrecordedChanges).toEqual([{ path: 'edited-by-hand.txt', change: 'added' }]);
    expect(report.inDoubt.map((s) => s.name)).toEqual(['pay']);
    expect(report.contradicted).toEqual([
      expect.objectContaining({ name: 'refund', recorded: 'done', happened: false }),
    ]);
    // status records nothing: no new snapshot, the file is still unrecorded.
    expect((await desk.listSnapshots(ws.id)).length).toBe(1);
    expect((await units.status(ws.id)).unrecordedChanges).toHaveLength(1);
  });

  it('gives a step re-run after a restore a new key, so a keyed downstream does not answer with the undone effect', async () => {
    const ws = await workspace();
    const start = await units.checkpoint({ workspace: ws.id });
    const before = (await Journal.open(fabric, { session: ws.session, branch: ws.branch })).atEnd();
    const first = await before.step('pay', { amount: 10 }, async ({ key }) => key);
    await before.flush();
    await units.restore(start.id);
    const after = (await Journal.open(fabric, { session: ws.session, branch: ws.branch })).atEnd();
    const second = await after.step('pay', { amount: 20 }, async ({ key }) => key);
    expect(second).not.toBe(first);
  });

  it('forks at the branch head, so steps after the last snapshot come along, and reclaims only what was abandoned', async () => {
    const ws = await workspace();
    const journal = (await Journal.open(fabric, { session: ws.session, branch: ws.branch })).atEnd();
    await journal.step('after-the-snapshot', {}, async () => 'once');
    await journal.flush();
    const fork = (await desk.fork(ws.id, { dir: join(temp.dir, 'try-1'), branch: 'try-1', driver: 'copy' }))
      .workspace;
    let ran = 0;
    const replay = await Journal.open(fabric, { session: ws.session, branch: 'try-1' });
    expect(
      await replay.step('after-the-snapshot', {}, async () => {
        ran++;
        return 'twice';
      }),
    ).toBe('once');
    expect(ran).toBe(0);
    // A fork of an abandoned branch inherits the abandon event on its path, but is not reclaimed for it.
    await units.abandon(ws.session, 'try-1', 0);
    put(fork.dir, 'changed.txt', 'x');
    const child = (
      await desk.fork(fork.id, { dir: join(temp.dir, 'child'), branch: 'child', driver: 'copy' })
    ).workspace;
    put(child.dir, 'precious.txt', 'keep me');
    expect(await units.reclaim()).toEqual({ reclaimed: [fork.id], leftAlone: [] });
    expect(readFileSync(join(child.dir, 'precious.txt'), 'utf8')).toBe('keep me');
    await expectCode(
      units.fork((await units.checkpoint({ workspace: ws.id })).id, {
        branches: ['../../escaped'],
        dirRoot: join(temp.dir, 'x'),
      }),
      'INVALID_ARGUMENT',
    );
    await expectCode(
      units.fork((await units.checkpoint({ workspace: ws.id })).id, {
        branches: ['same', 'same'],
        dirRoot: join(temp.dir, 'y'),
      }),
      'INVALID_ARGUMENT',
    );
    expect(existsSync(join(temp.dir, 'escaped'))).toBe(false);
  });

  it('refuses to restore a checkpoint of another session into a workspace', async () => {
    const ws = await workspace();
    const otherDir = join(temp.dir, 'other');
    put(otherDir, 'a', 'a');
    const other = (await desk.attach({ dir: otherDir })).workspace;
    const theirs = await units.checkpoint({ workspace: other.id });
    await expectCode(units.restore(theirs.id, { workspace: ws.id }), 'INVALID_ARGUMENT');
    await expectCode(units.previewRestore(theirs.id, { workspace: ws.id }), 'INVALID_ARGUMENT');
    await expectCode(
      units.get((await fabric.readBranch({ session: ws.session })).events[0]!.id),
      'NOT_FOUND',
    );
  });
});

describe('listing checkpoints (the table: listCheckpoints, the tool workspace_checkpoints)', () => {
  it("lists a workspace's or a session's checkpoints newest first, with what they hold, those a restore went back before included, in pages", async () => {
    const ws = await workspace();
    const first = await units.checkpoint({ workspace: ws.id, label: 'one', checks: ['sh test.sh'] });
    put(ws.dir, 'two.txt', 'two\n');
    const second = await units.checkpoint({ workspace: ws.id, label: 'two', checks: ['exit 1'] });
    const third = await units.checkpoint({ workspace: ws.id, label: 'three (unchanged)' });
    const forked = await units.fork(first.id, {
      branches: ['alt'],
      dirRoot: join(temp.dir, 'forks'),
      driver: 'copy',
    });
    const alt = forked.branches[0]!.workspace;
    const onAlt = await units.checkpoint({ workspace: alt.id, label: 'on alt' });

    const mine = await fabric.listCheckpoints({ workspace: ws.id });
    expect(mine.items.map((c) => c.id)).toEqual([third.id, second.id, first.id]);
    expect(mine.next).toBeNull();
    expect(mine.items.map((c) => [c.label, c.files, c.accepted, c.checks, c.onBranchPath])).toEqual([
      ['three (unchanged)', 3, true, [], true],
      ['two', 3, false, [{ command: 'exit 1', passed: false }], true],
      ['one', 2, true, [{ command: 'sh test.sh', passed: true }], true],
    ]);
    expect(mine.items[2]).toMatchObject({
      session: ws.session,
      branch: ws.branch,
      workspace: ws.id,
      snapshot: first.snapshot,
      head: first.head,
      inDoubt: 0,
      createdAt: first.createdAt,
    });
    expect(mine.items[2]!.bytes).toBe((await desk.getSnapshot(first.snapshot)).bytes);

    // Pages: `next` is the last one given; `before` it lists the older ones.
    const page = await fabric.listCheckpoints({ workspace: ws.id, limit: 2 });
    expect(page.items.map((c) => c.id)).toEqual([third.id, second.id]);
    expect(page.next).toBe(second.id);
    const rest = await fabric.listCheckpoints({ workspace: ws.id, limit: 2, before: page.next! });
    expect(rest).toEqual({ items: [expect.objectContaining({ id: first.id })], next: null });

    // A session's: every workspace's, on every branch; a branch narrows it.
    const session = await fabric.listCheckpoints({ session: ws.session });
    expect(session.items.map((c) => c.id)).toEqual([onAlt.id, third.id, second.id, first.id]);
    expect(
      (await fabric.listCheckpoints({ session: ws.session, branch: 'alt' })).items.map((c) => c.id),
    ).toEqual([onAlt.id]);
    expect((await fabric.listCheckpoints({ workspace: alt.id })).items.map((c) => c.workspace)).toEqual([
      alt.id,
    ]);

    // Back to the first: the later two are off the branch's path now, and still listed (to go forward again).
    await units.restore(first.id);
    const after = await fabric.listCheckpoints({ workspace: ws.id });
    expect(after.items.map((c) => [c.label, c.onBranchPath])).toEqual([
      [`before restore of ${first.id}`, false],
      ['three (unchanged)', false],
      ['two', false],
      ['one', true],
    ]);

    // Without a caller's side a workspace is named by its id, and something must be named.
    await expectCode(fabric.listCheckpoints({ workspace: ws.dir }), 'INVALID_ARGUMENT');
    await expectCode(fabric.listCheckpoints(), 'INVALID_ARGUMENT');
    const elsewhere = await fabric.createSession({ title: 'another' });
    await expectCode(fabric.listCheckpoints({ workspace: ws.id, session: elsewhere.id }), 'INVALID_ARGUMENT');
    await expectCode(fabric.listCheckpoints({ session: 'ss_00000000000000000000000000' }), 'NOT_FOUND');
  });

  it("settles a directory, or no workspace, on the caller's side; attaches only there", async () => {
    const ws = await workspace();
    const only = await units.checkpoint({ workspace: ws.id, label: 'only' });
    const who = await store.localIdentity();
    const caller: CallerSide = {
      units,
      fabric,
      workspace: (ref) =>
        ref?.startsWith('ws_') ? desk.getWorkspace(ref as WorkspaceId) : desk.findWorkspace(ref ?? ws.dir),
      attach: (input) => desk.attach(input),
    };
    const here = new EmbeddedFabric(store.engine, who, undefined, { caller, blobs: store.blobs });
    expect((await here.listCheckpoints()).items.map((c) => c.id)).toEqual([only.id]);
    expect((await here.listCheckpoints({ workspace: ws.dir })).items.map((c) => c.id)).toEqual([only.id]);

    const dir = join(temp.dir, 'attached');
    put(dir, 'a.txt', 'a\n');
    put(dir, '.env', 'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n');
    // To a branch that exists (a branch of its own, forked in the log).
    await expectCode(here.attachWorkspace({ dir, session: ws.session, branch: 'side' }), 'NOT_FOUND');
    await fabric.fork({ session: ws.session, name: 'side' });
    const attached = await here.attachWorkspace({ dir, session: ws.session, branch: 'side' });
    expect(attached.workspace).toMatchObject({ dir, session: ws.session, branch: 'side', state: 'attached' });
    expect(attached.snapshot.id).toBe(attached.workspace.headSnapshot);
    expect(attached.findings.map((f) => [f.path, f.action])).toEqual([['.env', 'withheld']]);
    await expectCode(here.attachWorkspace({ dir }), 'CONFLICT');
    // Without the caller's side (a store's fabric, a server) nothing is attached, and it says where it runs.
    const refused = await expectCode(fabric.attachWorkspace({ dir: join(temp.dir, 'nope') }), 'UNAVAILABLE');
    expect(refused.data).toMatchObject({ runs: 'caller' });
  });
});
