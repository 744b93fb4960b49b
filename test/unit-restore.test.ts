import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Desk } from '../src/desk/desk.js';
import type { EmbeddedFabric } from '../src/embedded-fabric.js';
import type { Store } from '../src/store.js';
import { expectCode } from '../src/testing/expect-code.js';
import type { Identity } from '../src/types.js';
import { Units } from '../src/unit/unit.js';
import { describePostgres } from './support/postgres.js';
import { backendStore, tempDir } from './support/stores.js';
import { put } from './support/trees.js';

/**
 * Unit restore in the jj model: a restore is a head move to the checkpoint
 * wherever it sits in the session's tree, recorded as an operation, so it
 * can be undone (restore the "before restore" checkpoint) and redone
 * (restore the later checkpoint) — on each engine.
 */
function restoreSuite(backend: 'sqlite' | 'postgres') {
  let temp: { dir: string; remove(): void };
  let store: Store;
  let cleanup: () => Promise<void>;
  let who: Identity;
  let desk: Desk;
  let fabric: EmbeddedFabric;
  let units: Units;

  beforeEach(async () => {
    temp = tempDir('cairn-restore-');
    ({ store, cleanup, who } = await backendStore(backend, 'restore'));
    desk = store.desk(who, { host: 'restore-test', stateDir: join(temp.dir, 'state') });
    fabric = store.fabric(who);
    units = new Units(fabric, desk);
  });

  afterEach(async () => {
    await desk.close();
    await cleanup();
    temp.remove();
  });

  const read = (dir: string, name: string) =>
    existsSync(join(dir, name)) ? readFileSync(join(dir, name), 'utf8') : null;

  /** The payload texts of the branch's notes, root → head. */
  async function notes(session: string, branch: string): Promise<string[]> {
    const { events } = await fabric.readBranch({ session, branch });
    return events.filter((e) => e.kind === 'note').map((e) => e.payload as string);
  }

  /** A workspace with two checkpoints: CP1 (v1, note one) and CP2 (v2, notes one and two). */
  async function twoCheckpoints() {
    const dir = join(temp.dir, 'work');
    put(dir, 'state.txt', 'v1\n');
    const ws = (await desk.attach({ dir })).workspace;
    await fabric.append({ session: ws.session, branch: ws.branch, kind: 'note', payload: 'one' });
    const cp1 = await units.checkpoint({ workspace: ws.id, label: 'one' });
    writeFileSync(join(dir, 'state.txt'), 'v2\n');
    put(dir, 'added.txt', 'two\n');
    await fabric.append({ session: ws.session, branch: ws.branch, kind: 'note', payload: 'two' });
    const cp2 = await units.checkpoint({ workspace: ws.id, label: 'two' });
    return { ws, dir, cp1, cp2 };
  }

  it('restores back, forward to the later checkpoint, and undoes through the "before restore" checkpoint', async () => {
    const { ws, dir, cp1, cp2 } = await twoCheckpoints();
    writeFileSync(join(dir, 'state.txt'), 'v3 unsaved\n');

    const back = await units.restore(cp1.id);
    expect(read(dir, 'state.txt')).toBe('v1\n');
    expect(read(dir, 'added.txt')).toBeNull();
    expect(await notes(ws.session, ws.branch)).toEqual(['one']);
    expect(back.preview.eventsBack).toEqual([]);
    // The before-restore checkpoint holds the unsaved edit, and names the undo.
    expect(back.undo).toBe(back.before.id);
    expect(back.before.label).toBe(`before restore of ${cp1.id}`);

    // Redo: the later checkpoint is off the branch's path now; the preview says what comes back.
    const preview = await units.previewRestore(cp2.id);
    expect(preview.eventsBack.map((e) => e.id)).toContain(cp2.id);
    expect(preview.eventsBack.filter((e) => e.kind === 'note').map((e) => e.payload)).toEqual(['two']);
    expect(preview.files.map((f) => `${f.change} ${f.path}`).sort()).toEqual([
      'added added.txt',
      'changed state.txt',
    ]);
    const forward = await units.restore(cp2.id);
    expect(forward.preview.files).toEqual(preview.files);
    expect(read(dir, 'state.txt')).toBe('v2\n');
    expect(read(dir, 'added.txt')).toBe('two\n');
    expect(await notes(ws.session, ws.branch)).toEqual(['one', 'two']);

    // Undo of the first restore: back to the state it started from, unsaved edit included.
    await units.restore(back.undo);
    expect(read(dir, 'state.txt')).toBe('v3 unsaved\n');
    expect(read(dir, 'added.txt')).toBe('two\n');
    expect(await notes(ws.session, ws.branch)).toEqual(['one', 'two']);

    // Every restore is a recorded head move; the old heads stay readable.
    const history = await fabric.branchHistory({ session: ws.session, branch: ws.branch });
    expect(history.filter((h) => h.op === 'move').map((h) => h.headAfter)).toEqual([
      cp1.id,
      cp2.id,
      back.undo,
    ]);
    expect((await fabric.getEvent({ event: forward.before.id })).kind).toBe('cairn.unit.checkpoint');
    expect((await store.fabric(who).verifyAudit()).ok).toBe(true);
  });

  it('refuses in the preview exactly what the restore refuses, and a refused restore records nothing', async () => {
    const { ws, cp1 } = await twoCheckpoints();
    const failed = await units.checkpoint({ workspace: ws.id, checks: ['exit 7'] });
    const otherDir = join(temp.dir, 'other');
    put(otherDir, 'x', 'x');
    const other = (await desk.attach({ dir: otherDir })).workspace;
    const theirs = await units.checkpoint({ workspace: other.id });
    const audit = (await fabric.verifyAudit()).entries;
    const head = (await fabric.readBranch({ session: ws.session, branch: ws.branch })).head;
    const snapshots = (await desk.listSnapshots(ws.id)).length;

    await expectCode(units.previewRestore(failed.id), 'CONFLICT');
    await expectCode(units.restore(failed.id), 'CONFLICT');
    await expectCode(units.previewRestore(theirs.id, { workspace: ws.id }), 'INVALID_ARGUMENT');
    await expectCode(units.restore(theirs.id, { workspace: ws.id }), 'INVALID_ARGUMENT');
    await expectCode(units.restore('ev_00000000000000000000000000'), 'NOT_FOUND');
    const firstEvent = (await fabric.readBranch({ session: ws.session, branch: ws.branch })).events[0]!;
    await expectCode(units.restore(firstEvent.id), 'NOT_FOUND'); // an event, but not a unit checkpoint
    expect((await fabric.verifyAudit()).entries).toBe(audit);
    expect((await fabric.readBranch({ session: ws.session, branch: ws.branch })).head).toBe(head);
    expect((await desk.listSnapshots(ws.id)).length).toBe(snapshots);

    // The same checkpoint with the flag: preview and restore agree and both go ahead.
    const allowed = await units.previewRestore(failed.id, { allowUnaccepted: true });
    expect(allowed.checkpoint.id).toBe(failed.id);
    await units.restore(cp1.id);
    const done = await units.restore(failed.id, { allowUnaccepted: true });
    expect(done.preview.eventsBack.map((e) => e.id)).toContain(failed.id);
  });

  it('a restore that loses a race to another restore or an append records nothing', async () => {
    const { ws, cp1, cp2 } = await twoCheckpoints();
    const snapshots = (await desk.listSnapshots(ws.id)).length;
    // Two restores at once: both plan against the same head (the desk's checkpoint waits until both
    // got there), one wins; the loser's plan saw a head that moved, so it commits nothing.
    const original = desk.checkpoint.bind(desk);
    let arrived = 0;
    let bothPlanned: () => void = () => {};
    const barrier = new Promise<void>((resolve) => {
      bothPlanned = resolve;
    });
    desk.checkpoint = async (workspace, options) => {
      if (++arrived === 2) bothPlanned();
      await barrier;
      return original(workspace, options);
    };
    const outcomes = await Promise.allSettled([units.restore(cp1.id), units.restore(cp2.id)]);
    desk.checkpoint = original;
    const won = outcomes.filter((o) => o.status === 'fulfilled');
    const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(
      won,
      JSON.stringify(outcomes.map((o) => (o.status === 'rejected' ? String(o.reason) : 'ok'))),
    ).toHaveLength(1);
    expect(lost.map((o) => o.reason.code)).toEqual(['CONFLICT']);
    expect((await desk.listSnapshots(ws.id)).length).toBe(snapshots + 2); // the winner's before + restore
    // One head move, the winner's.
    const moves = (await fabric.branchHistory({ session: ws.session, branch: ws.branch })).filter(
      (h) => h.op === 'move',
    );
    expect(moves).toHaveLength(1);

    // An append that slips in between the plan and the commit: CONFLICT, and only the append is recorded.
    const audit = (await fabric.verifyAudit()).entries;
    const checkpoint = desk.checkpoint.bind(desk);
    desk.checkpoint = async (workspace, options) => {
      await fabric.append({ session: ws.session, branch: ws.branch, kind: 'note', payload: 'sneaked in' });
      return checkpoint(workspace, options);
    };
    await expectCode(units.restore(cp2.id), 'CONFLICT');
    desk.checkpoint = checkpoint;
    expect((await fabric.verifyAudit()).entries).toBe(audit + 1);
    expect((await desk.listSnapshots(ws.id)).length).toBe(snapshots + 2);
    expect((await fabric.readBranch({ session: ws.session, branch: ws.branch })).events.at(-1)?.payload).toBe(
      'sneaked in',
    );
  });

  it('under the fail policy, a credential in the workspace refuses the preview as it refuses the restore', async () => {
    const strict = store.desk(who, {
      host: 'restore-test',
      stateDir: join(temp.dir, 'strict-state'),
      secretPolicy: 'fail',
    });
    try {
      const dir = join(temp.dir, 'strict');
      put(dir, 'app.txt', 'v1\n');
      const ws = (await strict.attach({ dir })).workspace;
      const strictUnits = new Units(fabric, strict);
      const cp = await strictUnits.checkpoint({ workspace: ws.id });
      // An example in a README is low confidence: redacted, never refused — by preview and restore alike.
      put(
        dir,
        'README.md',
        '# App\n\nConnect with:\n\n    postgres://demo:Xy7Qw2Lp9Rt4@localhost:5432/app\n',
      );
      expect((await strictUnits.previewRestore(cp.id)).files.map((f) => f.path)).toEqual(['README.md']);
      await strictUnits.restore(cp.id);
      put(dir, '.env', 'API_KEY=sk_live_51HaNdMaDeUpKeyForThisTest0000\n');
      const audit = (await fabric.verifyAudit()).entries;
      await expectCode(strictUnits.previewRestore(cp.id), 'FORBIDDEN');
      await expectCode(strictUnits.restore(cp.id), 'FORBIDDEN');
      expect((await fabric.verifyAudit()).entries).toBe(audit);
    } finally {
      await strict.close();
    }
  });
}

describe('unit restore on SQLite', () => restoreSuite('sqlite'));
describePostgres('unit restore on PostgreSQL', () => restoreSuite('postgres'));
