/**
 * Artifacts (issue 21): deliverables that outlive their workspace, with a
 * lineage checked when they are published, on SQLite and PostgreSQL.
 */

import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openWorkspaceFile } from '../src/artifacts/workspace-file.js';
import type { Desk } from '../src/desk/desk.js';
import { sha256Hex } from '../src/digest.js';
import { EmbeddedFabric } from '../src/embedded-fabric.js';
import { inDoubt } from '../src/errors.js';
import type { Identity } from '../src/index.js';
import { Journal } from '../src/steps/journal.js';
import type { SqlExecutor } from '../src/storage/engine.js';
import type { Store } from '../src/store.js';
import { expectCode } from '../src/testing/expect-code.js';
import { Units } from '../src/unit/unit.js';
import { describePostgres } from './support/postgres.js';
import { describeS3 } from './support/s3.js';
import { backendStore, tempDir } from './support/stores.js';
import { put } from './support/trees.js';

type Backend = 'sqlite' | 'postgres' | 'postgres-s3';

function artifactSuite(backend: Backend) {
  let temp: { dir: string; remove(): void };
  let store: Store;
  let cleanup: () => Promise<void>;
  let who: Identity;
  let desk: Desk;
  let fabric: EmbeddedFabric;
  let units: Units;

  beforeEach(async () => {
    temp = tempDir('cairn-artifacts-');
    ({ store, cleanup, who } = await backendStore(backend, 'artifacts'));
    desk = store.desk(who, { host: 'artifact-test', stateDir: join(temp.dir, 'state') });
    fabric = store.fabric(who);
    units = new Units(fabric, desk);
  });

  afterEach(async () => {
    await desk.close();
    await cleanup();
    temp.remove();
  });

  /** A workspace holding `out/report.bin` (1.5 MB: several chunks) and a unit checkpoint of it. */
  async function checkpointed(dir = join(temp.dir, 'work')) {
    const report = randomBytes(1_500_000);
    put(dir, 'out/report.bin', report);
    put(dir, 'notes.md', '# notes\n');
    const ws = (await desk.attach({ dir })).workspace;
    const checkpoint = await units.checkpoint({ workspace: ws.id, label: 'report done' });
    return { ws, report, checkpoint };
  }

  it('an artifact published from a fork outlives its workspace: detach --discard, abandon past its TTL, gc', async () => {
    const { ws, checkpoint } = await checkpointed();
    const forked = await units.fork(checkpoint.id, {
      branches: 1,
      dirRoot: join(temp.dir, 'forks'),
      driver: 'copy',
    });
    const fork = forked.branches[0]!;
    const deliverable = randomBytes(2_000_000);
    put(fork.workspace.dir, 'out/final.pdf', deliverable);
    const made = await units.checkpoint({ workspace: fork.workspace.id, label: 'final' });
    const artifact = await fabric.publishArtifact({
      session: ws.session,
      branch: fork.branch,
      name: 'final.pdf',
      mediaType: 'application/pdf',
      bytes: deliverable,
      checkpoint: made.id,
      path: 'out/final.pdf',
    });
    expect(artifact).toMatchObject({
      size: deliverable.length,
      digest: sha256Hex(deliverable),
      lineage: { checkpoint: made.id, snapshot: made.snapshot, path: 'out/final.pdf', branch: fork.branch },
      expiresAt: null,
    });
    // Its publication is an event on the fork's branch.
    expect((await fabric.getEvent({ event: artifact.event })).kind).toBe('cairn.artifact');

    // The fork goes: its branch abandoned with no TTL left, its workspace reclaimed with its files, then gc.
    await units.abandon(ws.session, fork.branch, 0);
    expect((await units.reclaim()).reclaimed).toEqual([fork.workspace.id]);
    expect(existsSync(join(fork.workspace.dir, 'out/final.pdf'))).toBe(false);
    await desk.gc({ graceMs: 0 });
    expect(await fabric.sweepArtifacts({ graceMs: 0 })).toMatchObject({ expired: 0, abandoned: 0 });
    // Its bytes are its own blobs, not the desk's packs: every pack file deleted, it still reads whole.
    const packs = await store.engine.read(who.tenant, (tx) =>
      tx.all<{ digest: string }>('SELECT digest FROM desk_packs WHERE tenant = ?', [who.tenant]),
    );
    expect(packs.length).toBeGreaterThan(0);
    for (const p of packs) await store.blobs.delete(who.tenant, p.digest);

    const { bytes } = await fabric.readArtifact({ artifact: artifact.id });
    expect(Buffer.from(bytes).equals(deliverable)).toBe(true);
    // Its lineage still names the checkpoint of the workspace that is gone.
    expect((await fabric.getArtifact({ artifact: artifact.id })).lineage).toMatchObject({
      checkpoint: made.id,
      snapshot: made.snapshot,
    });
    // The original workspace detached: the artifact does not care either.
    await desk.detach(ws.id);
    const {
      bytes: again,
      offset,
      size,
    } = await fabric.readArtifact({
      artifact: artifact.id,
      offset: 1_000_000,
      length: 10,
    });
    expect([offset, size]).toEqual([1_000_000, deliverable.length]);
    expect(Buffer.from(again).equals(deliverable.subarray(1_000_000, 1_000_010))).toBe(true);
  });

  it('a derived artifact’s lineage leads back through its step to its inputs, and forward again', async () => {
    const { ws, report, checkpoint } = await checkpointed();
    const source = await fabric.publishArtifact({
      session: ws.session,
      name: 'report.bin',
      bytes: report,
      checkpoint: checkpoint.id,
      path: 'out/report.bin',
    });
    const journal = (await Journal.open(fabric, { session: ws.session, branch: ws.branch })).atEnd();
    await journal.step('summarize', { of: source.id }, async () => 'summary made');
    await journal.flush();
    const [step] = (await fabric.listSteps({ session: ws.session, branch: ws.branch })).steps;
    const summary = await fabric.publishArtifact({
      session: ws.session,
      name: 'summary.md',
      mediaType: 'text/markdown',
      bytes: Buffer.from('# summary\n'),
      step: step!.position,
      inputs: [source.id],
      inputFiles: [{ snapshot: checkpoint.snapshot as `sn_${string}`, path: 'notes.md' }],
    });
    expect(summary.lineage).toMatchObject({
      step: step!.position,
      stepEvent: step!.event,
      inputs: [source.id],
      inputFiles: [{ snapshot: checkpoint.snapshot, path: 'notes.md' }],
    });
    const deck = await fabric.publishArtifact({
      session: ws.session,
      name: 'deck.txt',
      bytes: Buffer.from('slides'),
      inputs: [summary.id],
    });
    const back = await fabric.artifactLineage({ artifact: deck.id });
    expect(back.ancestors.map((a) => a.id)).toEqual([summary.id, source.id]);
    expect(back.ancestors[1]?.lineage.checkpoint).toBe(checkpoint.id);
    const forward = await fabric.artifactLineage({ artifact: source.id });
    expect(forward.descendants.map((a) => a.id)).toEqual([summary.id, deck.id]);
    expect((await fabric.artifactLineage({ artifact: source.id, depth: 1 })).descendants).toHaveLength(1);
  });

  it('refuses a lineage it cannot check, bytes that are not the snapshot’s, a publish past the quota and a range outside, storing nothing', async () => {
    const { ws, report, checkpoint } = await checkpointed();
    const base = { session: ws.session, name: 'x.bin', bytes: report } as const;
    const firstEvent = (await fabric.readBranch({ session: ws.session })).events[0]!.id;
    const refusals: Array<[string, () => Promise<unknown>]> = [
      [
        'INVALID_ARGUMENT',
        () =>
          fabric.publishArtifact({
            ...base,
            bytes: randomBytes(10),
            checkpoint: checkpoint.id,
            path: 'out/report.bin',
          }),
      ],
      [
        'NOT_FOUND',
        () => fabric.publishArtifact({ ...base, checkpoint: checkpoint.id, path: 'out/missing.bin' }),
      ],
      ['INVALID_ARGUMENT', () => fabric.publishArtifact({ ...base, checkpoint: checkpoint.id, path: 'out' })],
      [
        'NOT_FOUND',
        () =>
          fabric.publishArtifact({
            ...base,
            snapshot: 'sn_00000000000000000000000000',
            path: 'out/report.bin',
          }),
      ],
      [
        'NOT_FOUND',
        () =>
          fabric.publishArtifact({ ...base, checkpoint: ws.session.replace('ss_', 'ev_') as `ev_${string}` }),
      ],
      ['INVALID_ARGUMENT', () => fabric.publishArtifact({ ...base, checkpoint: firstEvent })],
      ['NOT_FOUND', () => fabric.publishArtifact({ ...base, step: 7 })],
      ['NOT_FOUND', () => fabric.publishArtifact({ ...base, inputs: ['af_00000000000000000000000000'] })],
      ['NOT_FOUND', () => fabric.publishArtifact({ ...base, branch: 'nope' })],
      ['INVALID_ARGUMENT', () => fabric.publishArtifact({ ...base, path: 'out/report.bin' })],
      ['INVALID_ARGUMENT', () => fabric.publishArtifact({ ...base, mediaType: 'not a type' })],
      // A line break would make the type a header no server can send back.
      ['INVALID_ARGUMENT', () => fabric.publishArtifact({ ...base, mediaType: 'text/plain\n;x=1' })],
      ['INVALID_ARGUMENT', () => fabric.publishArtifact({ ...base, ttlMs: 5 })],
    ];
    for (const [i, [code, refused]] of refusals.entries())
      expect(
        await refused().then(
          () => 'stored',
          (e) => e.code,
        ),
        `refusal ${i}`,
      ).toBe(code);
    expect((await fabric.listArtifacts()).artifacts).toEqual([]);
    expect(await fabric.artifactQuota()).toMatchObject({ used: 0, artifacts: 0 });

    await fabric.setArtifactQuota({ bytes: report.length + 10 });
    const kept = await fabric.publishArtifact(base);
    await expectCode(
      fabric.publishArtifact({ ...base, bytes: Buffer.from('eleven byte') }),
      'QUOTA_EXCEEDED',
    );
    expect(await fabric.artifactQuota()).toEqual({
      limit: report.length + 10,
      used: report.length,
      artifacts: 1,
    });
    await expectCode(
      fabric.readArtifact({ artifact: kept.id, offset: report.length + 1 }),
      'INVALID_ARGUMENT',
    );
    expect((await fabric.readArtifact({ artifact: kept.id, offset: report.length })).bytes).toHaveLength(0);
    const { bytes: tail } = await fabric.readArtifact({
      artifact: kept.id,
      offset: report.length - 5,
      length: 100,
    });
    expect(Buffer.from(tail).equals(report.subarray(report.length - 5))).toBe(true);
  });

  it('stores equal bytes once; removing one artifact keeps them for the other; the last removal deletes them', async () => {
    const { ws } = await checkpointed();
    const bytes = randomBytes(100_000);
    const one = await fabric.publishArtifact({ session: ws.session, name: 'a', bytes });
    const two = await fabric.publishArtifact({ session: ws.session, name: 'b', bytes });
    const blobs = store.blobs;
    expect(await blobs.has(who.tenant, one.digest)).toBe(true);
    await fabric.removeArtifact({ artifact: one.id });
    await expectCode(fabric.getArtifact({ artifact: one.id }), 'NOT_FOUND');
    expect(Buffer.from((await fabric.readArtifact({ artifact: two.id })).bytes).equals(bytes)).toBe(true);
    await fabric.removeArtifact({ artifact: two.id });
    expect(await blobs.has(who.tenant, two.digest)).toBe(false);
    await expectCode(fabric.removeArtifact({ artifact: two.id }), 'NOT_FOUND');
  });

  it('the desk cannot delete an artifact’s bytes: a discard naming its chunk leaves it whole', async () => {
    const { ws } = await checkpointed();
    const bytes = randomBytes(50_000);
    const artifact = await fabric.publishArtifact({ session: ws.session, name: 'small.bin', bytes });
    // A small artifact is one chunk, and its chunk's digest is its own: anyone can read it off the record.
    await fabric.deskDiscardPacks({ packs: [artifact.digest] });
    await desk.gc({ graceMs: 0 });
    expect(Buffer.from((await fabric.readArtifact({ artifact: artifact.id })).bytes).equals(bytes)).toBe(
      true,
    );
  });

  it('the blob GC lists the tenant’s blobs and deletes only those no row names: an artifact’s chunks and the desk’s packs stay', async () => {
    const { ws, report, checkpoint } = await checkpointed();
    const artifact = await fabric.publishArtifact({
      session: ws.session,
      name: 'report.bin',
      bytes: report,
      checkpoint: checkpoint.id,
      path: 'out/report.bin',
    });
    const small = await fabric.publishArtifact({
      session: ws.session,
      name: 'n.txt',
      bytes: Buffer.from('n\n'),
    });
    // What a crash between a removal's rows and its blobs leaves: blobs no row names.
    const leaked = await Promise.all(
      [randomBytes(1000), randomBytes(600_000)].map((b) => store.blobs.put(who.tenant, b)),
    );
    const first = await store.collectUnnamedBlobs(who.tenant);
    expect(first.deleted).toBe(2);
    for (const digest of leaked) expect(await store.blobs.has(who.tenant, digest)).toBe(false);
    const again = await store.collectUnnamedBlobs(who.tenant);
    expect(again).toEqual({ listed: first.listed - 2, deleted: 0, temporary: 0 });
    // Everything named is whole: both artifacts, and the workspace restores from its snapshot.
    expect(
      Buffer.from((await fabric.readArtifact({ artifact: artifact.id, length: report.length })).bytes),
    ).toEqual(report);
    expect(Buffer.from((await fabric.readArtifact({ artifact: small.id })).bytes).toString()).toBe('n\n');
    expect((await desk.verify()).ok).toBe(true);
  });

  it('a publication whose commit’s outcome is unknown (IN_DOUBT) is not discarded: committed, it stays whole', async () => {
    const { ws } = await checkpointed();
    // An engine whose commit of the publication's last transaction succeeds but whose answer is lost.
    const engine = new Proxy(store.engine, {
      get(target, prop, receiver) {
        if (prop !== 'write') return Reflect.get(target, prop, receiver);
        return async (tenant: string, fn: (tx: SqlExecutor, now: number) => Promise<unknown>) => {
          let live = false;
          const value = await target.write(tenant, (tx, now) =>
            fn(
              new Proxy(tx, {
                get(t, p, r) {
                  if (p !== 'run') return Reflect.get(t, p, r);
                  return (sql: string, params?: unknown[]) => {
                    if (sql.includes("SET state = 'live'")) live = true;
                    return t.run(sql, params as never);
                  };
                },
              }),
              now,
            ),
          );
          if (live) throw inDoubt('the connection failed during COMMIT (simulated)');
          return value;
        };
      },
    });
    const doubtful = new EmbeddedFabric(engine, who, undefined, { blobs: store.blobs });
    const bytes = randomBytes(900_000);
    await expectCode(doubtful.publishArtifact({ session: ws.session, name: 'maybe.bin', bytes }), 'IN_DOUBT');
    // It did commit: it is listed and reads back whole (a discard would have taken its record and bytes).
    const [listed] = (await fabric.listArtifacts()).artifacts;
    expect(listed?.name).toBe('maybe.bin');
    expect(Buffer.from((await fabric.readArtifact({ artifact: listed!.id })).bytes).equals(bytes)).toBe(true);
  });

  it('an artifact past its TTL goes at the next sweep, its workspace or not; one without a TTL stays', async () => {
    const { ws } = await checkpointed();
    const brief = await fabric.publishArtifact({
      session: ws.session,
      name: 'brief',
      bytes: Buffer.from('x'),
      ttlMs: 1000,
    });
    const kept = await fabric.publishArtifact({ session: ws.session, name: 'kept', bytes: Buffer.from('y') });
    // A day to go whatever the machine's load: not yet due at the sweep below.
    const later = await fabric.publishArtifact({
      session: ws.session,
      name: 'later',
      bytes: Buffer.from('z'),
      ttlMs: 24 * 60 * 60 * 1000,
    });
    expect(brief.expiresAt).toBe(brief.createdAt + 1000);
    // Waits for the TTL to pass (a slower machine only waits longer), then sweeps: only the one due goes.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await fabric.sweepArtifacts()).toMatchObject({ expired: 1 });
    await expectCode(fabric.getArtifact({ artifact: brief.id }), 'NOT_FOUND');
    expect((await fabric.listArtifacts()).artifacts.map((a) => a.id)).toEqual([kept.id, later.id]);
  });

  it('another tenant’s artifact is NOT_FOUND: its record, its bytes, its lineage, as an input, and its removal', async () => {
    const { ws, checkpoint } = await checkpointed();
    const mine = await fabric.publishArtifact({
      session: ws.session,
      name: 'mine',
      bytes: Buffer.from('secret'),
    });
    const other = await store.createTenant('other');
    const them = store.fabric(await store.authenticate(other.token.token));
    const session = await them.createSession();
    await expectCode(them.getArtifact({ artifact: mine.id }), 'NOT_FOUND');
    await expectCode(them.readArtifact({ artifact: mine.id, offset: 0, length: 3 }), 'NOT_FOUND');
    await expectCode(them.artifactLineage({ artifact: mine.id }), 'NOT_FOUND');
    await expectCode(them.removeArtifact({ artifact: mine.id }), 'NOT_FOUND');
    await expectCode(
      them.publishArtifact({ session: session.id, name: 'x', bytes: Buffer.from('x'), inputs: [mine.id] }),
      'NOT_FOUND',
    );
    await expectCode(
      them.publishArtifact({ session: ws.session, name: 'x', bytes: Buffer.from('x') }),
      'NOT_FOUND',
    );
    // Nor can another tenant name this tenant's checkpoint, snapshot, files or events as its lineage.
    const theirs = { session: session.id, name: 'x', bytes: readFileSync(join(ws.dir, 'out/report.bin')) };
    const crossings: Array<() => Promise<unknown>> = [
      () => them.publishArtifact({ ...theirs, checkpoint: checkpoint.id }),
      () => them.publishArtifact({ ...theirs, checkpoint: checkpoint.id, path: 'out/report.bin' }),
      () =>
        them.publishArtifact({
          ...theirs,
          snapshot: checkpoint.snapshot as `sn_${string}`,
          path: 'out/report.bin',
        }),
      () => them.publishArtifact({ ...theirs, event: mine.event }),
      () =>
        them.publishArtifact({
          ...theirs,
          inputFiles: [{ snapshot: checkpoint.snapshot as `sn_${string}`, path: 'notes.md' }],
        }),
    ];
    for (const [i, crossing] of crossings.entries())
      expect(
        await crossing().then(
          () => 'stored',
          (e) => e.code,
        ),
        `crossing ${i}`,
      ).toBe('NOT_FOUND');
    expect((await them.listArtifacts()).artifacts).toEqual([]);
  });
}

describe('artifacts on SQLite', () => artifactSuite('sqlite'));
describePostgres('artifacts on PostgreSQL', () => artifactSuite('postgres'));
describeS3('artifacts on PostgreSQL with blobs on S3 (Ceph RGW)', () => artifactSuite('postgres-s3'));

describe('a workspace file to publish', () => {
  it('is a regular file inside the workspace: a link out of it, a FIFO or a directory is refused before it is read', async () => {
    const temp = tempDir('cairn-ws-file-');
    try {
      const ws = join(temp.dir, 'ws');
      put(ws, 'out/report.txt', 'inside\n');
      put(temp.dir, 'secret.txt', 'outside\n');
      symlinkSync(join(temp.dir, 'secret.txt'), join(ws, 'out', 'link.txt'));
      symlinkSync(temp.dir, join(ws, 'up'));
      execFileSync('mkfifo', [join(ws, 'out', 'pipe')]);
      const opened = await openWorkspaceFile(ws, 'out/report.txt', 'ws_test');
      expect(opened.size).toBe(7);
      expect((await buffer(opened.bytes)).toString()).toBe('inside\n');
      for (const path of ['out/link.txt', 'up/secret.txt', 'out/pipe', 'out', 'out/missing.txt'])
        await expectCode(openWorkspaceFile(ws, path, 'ws_test'), 'INVALID_ARGUMENT');
    } finally {
      temp.remove();
    }
  });
});
