/**
 * The branch sweep (issue 22, retention): an abandoned branch past its time
 * goes with every event it appended, its memory, its workspace rows and its
 * grants; what other branches still need stays, with the reason said; the
 * audit tree still verifies (each removed payload a tombstone) and no row
 * names a row that is gone. On SQLite and PostgreSQL.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Desk } from '../src/desk/desk.js';
import type { EmbeddedFabric } from '../src/embedded-fabric.js';
import { MasterKey } from '../src/entry/keys.js';
import type { Identity } from '../src/index.js';
import { appendOwnEvent, encodePayload } from '../src/log/session-log.js';
import type { Store } from '../src/store.js';
import { expectCode } from '../src/testing/expect-code.js';
import { UNIT_ABANDON_EVENT, Units } from '../src/unit/unit.js';
import { danglingReferences } from './support/dangling.js';
import { addBilling } from './support/erasure-seed.js';
import { describePostgres } from './support/postgres.js';
import { backendStore, tempDir } from './support/stores.js';
import { put } from './support/trees.js';

/** Rounds of the race between the sweep and writers that need the branch it takes. */
const ROUNDS = 12;

describe('the branch sweep on SQLite', () => retentionSuite('sqlite'));
describePostgres('the branch sweep on PostgreSQL', () => retentionSuite('postgres'));

function retentionSuite(backend: 'sqlite' | 'postgres') {
  let temp: { dir: string; remove(): void };
  let store: Store;
  let cleanup: () => Promise<void>;
  let admin: Identity;
  let fabric: EmbeddedFabric;
  let desk: Desk;
  let units: Units;
  const master = MasterKey.generate();

  beforeEach(async () => {
    temp = tempDir('cairn-retention-');
    ({ store, cleanup, who: admin } = await backendStore(backend, 'retention'));
    fabric = store.fabric(admin);
    desk = store.desk(admin, { host: 'retention-host', stateDir: join(temp.dir, 'state') });
    units = new Units(fabric, desk);
    await addBilling(store, admin, master);
  });

  afterEach(async () => {
    await desk.close();
    await cleanup();
    temp.remove();
  });

  /** A workspace on main with one event and a checkpoint, forked into `n` branches. */
  async function forked(n: number) {
    const dir = join(temp.dir, 'work');
    put(dir, 'a.txt', 'main file\n');
    const ws = (await desk.attach({ dir })).workspace;
    await fabric.append({ session: ws.session, branch: 'main', kind: 'note', payload: { text: 'on main' } });
    const cp = await units.checkpoint({ workspace: ws.id });
    if (n === 0) return { session: ws.session, main: ws, branches: [] };
    const fork = await units.fork(cp.id, { branches: n, dirRoot: join(temp.dir, 'forks'), driver: 'copy' });
    return { session: ws.session, main: ws, branches: fork.branches };
  }

  const names = async (session: string) => (await fabric.listBranches({ session })).map((b) => b.name).sort();
  const verified = async () => (await store.verifyTenants([admin.tenant]))[0];

  it('sweeps an abandoned branch past its time with what only it holds; a dry run changes nothing', async () => {
    const { session, branches } = await forked(3);
    const [gone, kept, later] = branches.map((b) => b.branch) as [string, string, string];
    const keys = store.keys(admin, { masterKey: master });
    const goneEvents: string[] = [];
    for (let i = 0; i < 3; i++)
      goneEvents.push(
        (await fabric.append({ session, branch: gone, kind: 'note', payload: { text: `gone ${i}` } })).id,
      );
    const keptEvent = await fabric.append({ session, branch: kept, kind: 'note', payload: { text: 'kept' } });
    const goneGrant = await keys.grant({ session, branch: gone, credential: 'billing', mode: 'live' });
    const keptGrant = await keys.grant({ session, branch: kept, credential: 'billing', mode: 'live' });
    await units.abandon(session, gone, 0);
    await units.abandon(session, later, 60 * 60 * 1000);
    expect((await units.reclaim()).reclaimed).toHaveLength(1);
    // Written after the reclaim (which forgets a reclaimed branch's memory): the sweep's to take.
    const goneMemory = await fabric.remember({
      scope: { session },
      branch: gone,
      text: 'only the gone branch knew',
    });
    const keptMemory = await fabric.remember({
      scope: { session },
      branch: kept,
      text: 'the kept branch knows',
    });

    const before = await names(session);
    const dry = await fabric.sweepBranches({ dryRun: true });
    expect(dry.swept).toEqual([{ session, branches: [gone], counts: expect.any(Object) }]);
    expect(dry.counts.log).toMatchObject({ branches: 1, lines: 1 });
    expect(dry.counts.log?.events).toBeGreaterThanOrEqual(goneEvents.length + 2);
    expect(dry.counts.memory).toMatchObject({ records: 1 });
    expect(dry.counts.keys).toMatchObject({ grants: 1 });
    expect(dry.counts.desk).toMatchObject({ workspaces: 1 });
    expect(await names(session)).toEqual(before);
    expect((await fabric.getEvent({ event: goneEvents[0]! })).id).toBe(goneEvents[0]);

    const swept = await fabric.sweepBranches({});
    expect(swept.swept).toEqual([{ session, branches: [gone], counts: expect.any(Object) }]);
    const { audit, ...rest } = swept.counts;
    expect(rest).toEqual(dry.counts);
    expect(audit?.payloads).toBeGreaterThan(goneEvents.length);
    expect(await names(session)).toEqual(before.filter((n) => n !== gone));
    for (const id of goneEvents) await expectCode(fabric.getEvent({ event: id }), 'NOT_FOUND');
    await expectCode(fabric.getMemory({ record: goneMemory.id }), 'NOT_FOUND');
    await expectCode(keys.getGrant(goneGrant.id), 'NOT_FOUND');
    // What stays is whole.
    expect((await fabric.getEvent({ event: keptEvent.id })).payload).toEqual({ text: 'kept' });
    expect((await fabric.getMemory({ record: keptMemory.id })).text).toBe('the kept branch knows');
    expect((await keys.getGrant(keptGrant.id)).branch).toBe(kept);
    expect((await fabric.readBranch({ session, branch: 'main' })).events.length).toBeGreaterThan(0);
    // The tree verifies: each removed payload is a tombstone, told apart from tampering.
    const report = await verified();
    expect(report).toMatchObject({ ok: true, erased: audit?.payloads });
    expect(await danglingReferences(store.engine, admin.tenant)).toEqual([]);
    // Nothing is left to sweep; a fork at a swept event finds it gone.
    expect((await fabric.sweepBranches({})).swept).toEqual([]);
    await expectCode(fabric.fork({ session, at: goneEvents[1]!, name: 'late' }), 'NOT_FOUND');
    // The name is free again, and a new branch of that name has none of the old one's grants.
    await fabric.fork({ session, name: gone });
    expect(await keys.listGrants({ session, branch: gone })).toEqual([]);
  });

  it('removes the audit payloads of a memory record first written before the swept branch was made', async () => {
    const { session, main } = await forked(0);
    // Its first version is remembered before the branch exists.
    const first = await fabric.remember({ scope: { session }, text: 'the first version' });
    const cp = await units.checkpoint({ workspace: main.id });
    const fork = await units.fork(cp.id, { branches: 1, dirRoot: join(temp.dir, 'late'), driver: 'copy' });
    const late = fork.branches[0]!.branch;
    await units.abandon(session, late, 0);
    await units.reclaim();
    // Its next version is written on the branch (after the reclaim, which forgets what only that branch saw).
    await fabric.remember({
      scope: { session },
      branch: late,
      text: 'the second version',
      supersedes: first.id,
    });
    // Where the first version was seen is gone (as a sweep of the branch it was written on leaves it).
    await store.engine.write(admin.tenant, (tx) =>
      tx.run('DELETE FROM memory_anchors WHERE tenant = ? AND id = ? AND version = 1', [
        admin.tenant,
        first.id,
      ]),
    );
    const swept = await fabric.sweepBranches({});
    expect(swept.counts.memory).toMatchObject({ records: 1 });
    await expectCode(fabric.getMemory({ record: first.id }), 'NOT_FOUND');
    // No payload about the record is left, the first version's (written before the branch was made) among them.
    const held = await store.engine.read(admin.tenant, (tx) =>
      tx.all<{ seq: number }>(
        `SELECT e.seq FROM audit_entries e JOIN audit_payloads p ON p.tenant = e.tenant AND p.seq = e.seq
         WHERE e.tenant = ? AND e.resource_id = ? AND e.action <> 'audit.erase'`,
        [admin.tenant, first.id],
      ),
    );
    expect(held).toEqual([]);
    expect(await verified()).toMatchObject({ ok: true });
  });

  it('reclaiming a branch keeps a record whose newer version another branch wrote', async () => {
    const { session, branches } = await forked(2);
    const [gone, stays] = branches.map((b) => b.branch) as [string, string];
    const first = await fabric.remember({ scope: { session }, branch: gone, text: 'written on the first' });
    await fabric.remember({
      scope: { session },
      branch: stays,
      text: 'rewritten on the second',
      supersedes: first.id,
    });
    const only = await fabric.remember({ scope: { session }, branch: gone, text: 'only the first saw this' });
    await units.abandon(session, gone, 0);
    await units.reclaim();
    expect((await fabric.getMemory({ record: first.id })).text).toBe('rewritten on the second');
    await expectCode(fabric.getMemory({ record: only.id }), 'NOT_FOUND');
  });

  it('keeps what another branch still needs, and says why', async () => {
    const { session, branches } = await forked(7);
    const [attached, reached, published, named, deskForked, granted, alone] = branches.map(
      (b) => b.branch,
    ) as [string, string, string, string, string, string, string];
    for (const b of [attached, reached, published, named, deskForked, granted, alone])
      await fabric.append({ session, branch: b, kind: 'note', payload: { text: b } });
    // An artifact published on main that names another branch's checkpoint in its lineage.
    const namedWs = branches.find((b) => b.branch === named)!.workspace;
    const namedCheckpoint = await units.checkpoint({ workspace: namedWs.id });
    await fabric.publishArtifact({
      session,
      name: 'from-named.txt',
      mediaType: 'text/plain',
      bytes: Buffer.from('made on another branch\n'),
      checkpoint: namedCheckpoint.id,
    });
    await fabric.publishArtifact({
      session,
      branch: published,
      name: 'out.txt',
      mediaType: 'text/plain',
      bytes: Buffer.from('a deliverable\n'),
    });
    // A workspace of another branch starts from one of its snapshots (a desk fork of its workspace).
    const deskWs = branches.find((b) => b.branch === deskForked)!.workspace;
    put(deskWs.dir, 'b.txt', 'its own file\n');
    await desk.checkpoint(deskWs.id);
    await desk.fork(deskWs.id, { dir: join(temp.dir, 'grandchild'), branch: 'grandchild', driver: 'copy' });
    // A grant of main narrows one of its grants.
    const keys = store.keys(admin, { masterKey: master });
    const parentGrant = await keys.grant({ session, branch: granted, credential: 'billing', mode: 'live' });
    await keys.grant({
      session,
      branch: 'main',
      credential: 'billing',
      mode: 'live',
      parent: parentGrant.id,
    });
    for (const b of [reached, published, named, deskForked, granted, alone])
      await units.abandon(session, b, 0);
    await units.reclaim();
    // Abandoned and expired, but its directory is not discarded yet (no reclaim since).
    await units.abandon(session, attached, 0);
    // A branch forked from one that is abandoned keeps its events in use.
    await fabric.fork({ session, from: reached, name: 'child' });
    await units.abandon(session, 'main', 0);

    const swept = await fabric.sweepBranches({});
    expect(swept.swept).toEqual([{ session, branches: [alone], counts: expect.any(Object) }]);
    const why = Object.fromEntries(swept.kept.map((k) => [k.branch, k.reason]));
    expect(why).toEqual({
      main: 'main',
      [attached]: 'workspace-attached',
      [reached]: 'reached',
      [published]: 'artifacts',
      [named]: 'artifacts',
      [deskForked]: 'workspace-forked',
      [granted]: 'grants',
    });
    expect(await names(session)).toEqual(
      ['main', attached, reached, published, named, deskForked, granted, 'child', 'grandchild'].sort((a, b) =>
        a.localeCompare(b),
      ),
    );
    const path = (await fabric.readBranch({ session, branch: 'child' })).events.map((e) => e.payload);
    expect(path).toContainEqual({ text: reached });
    expect(await verified()).toMatchObject({ ok: true });
    expect(await danglingReferences(store.engine, admin.tenant)).toEqual([]);
  });

  it('abandons a branch for its owner or a person who is an admin; an abandon from before retention keeps the branch', async () => {
    const { session, branches } = await forked(2);
    const [theirs, old] = branches.map((b) => b.branch) as [string, string];
    const minted = await fabric.createToken({ kind: 'agent', name: 'other', role: 'admin' });
    const other = new Units(store.fabric(await store.authenticate(minted.token)), desk);
    // An agent, even an admin, cannot schedule the deletion of a person's branch.
    await expectCode(other.abandon(session, theirs, 0), 'FORBIDDEN');
    // An abandon written before retention existed (no `sweepsBranch`) meant the workspace only.
    const ws = branches.find((b) => b.branch === old)!.workspace;
    await store.engine.write(admin.tenant, (tx) =>
      appendOwnEvent(
        tx,
        admin,
        { session, branch: old, kind: UNIT_ABANDON_EVENT, payload: null },
        encodePayload({ workspace: ws.id, expiresAt: 0 }),
        Date.now(),
      ),
    );
    expect((await units.reclaim()).reclaimed).toEqual([ws.id]);
    const swept = await fabric.sweepBranches({});
    expect(swept.swept).toEqual([]);
    expect(await names(session)).toContain(old);
    expect(await danglingReferences(store.engine, admin.tenant)).toEqual([]);
  });

  it('races forks, head moves and appends against the sweep: each either lands and keeps the branch, or finds it gone', async () => {
    const { session, main } = await forked(0);
    const cp = await units.checkpoint({ workspace: main.id });
    let kept = 0;
    let gone = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const fork = await units.fork(cp.id, {
        branches: 2,
        dirRoot: join(temp.dir, `race-${round}`),
        driver: 'copy',
      });
      const [doomed, live] = fork.branches.map((b) => b.branch) as [string, string];
      const event = await fabric.append({ session, branch: doomed, kind: 'note', payload: { round } });
      await units.abandon(session, doomed, 0);
      await units.reclaim();
      const child = `child-${round}`;
      const raced = await Promise.allSettled([
        fabric.sweepBranches({}),
        fabric.fork({ session, from: doomed, name: child }),
        fabric.moveHead({ session, branch: live, to: event.id }),
        fabric.append({ session, branch: doomed, kind: 'note', payload: { late: round } }),
      ]);
      for (const r of raced)
        if (r.status === 'rejected')
          expect((r.reason as { code?: string }).code, String(r.reason)).toBe('NOT_FOUND');
      const now = await names(session);
      const landed =
        now.includes(child) || (await fabric.readBranch({ session, branch: live })).head === event.id;
      // What landed keeps the branch it needs; what did not found it gone.
      if (landed) expect(now).toContain(doomed);
      if (now.includes(doomed)) kept++;
      else gone++;
      expect(await danglingReferences(store.engine, admin.tenant)).toEqual([]);
    }
    expect(kept + gone).toBe(ROUNDS);
    expect(await verified()).toMatchObject({ ok: true });
  });

  it('is an admin’s, and bad input changes nothing', async () => {
    const { session, branches } = await forked(1);
    await units.abandon(session, branches[0]!.branch, 0);
    await units.reclaim();
    const minted = await fabric.createToken({ kind: 'agent', name: 'worker', role: 'member' });
    const member = store.fabric(await store.authenticate(minted.token));
    await expectCode(member.sweepBranches({}), 'FORBIDDEN');
    await expectCode(fabric.sweepBranches({ dryRun: 'yes' } as never), 'INVALID_ARGUMENT');
    await expectCode(fabric.sweepBranches({ dryRun: false, olderThan: 5 } as never), 'INVALID_ARGUMENT');
    expect(await names(session)).toContain(branches[0]!.branch);
  });
}
