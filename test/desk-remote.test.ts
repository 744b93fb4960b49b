import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { remoteDesk } from '../src/client/remote-desk-store.js';
import { connect, type RemoteFabric } from '../src/client/remote-fabric.js';
import { digestOf } from '../src/desk/chunker.js';
import type { Desk } from '../src/desk/desk.js';
import { PACK_SALT, packIndex } from '../src/desk/pack-format.js';
import { CairnError } from '../src/errors.js';
import { MAX_PACK_BYTES } from '../src/ops/desk-ops.js';
import { type RunningServer, startServer } from '../src/server/index.js';
import { Store } from '../src/store.js';
import { tempDir, twoTenants } from './support/stores.js';
import { describeTree, fidelityTree, put } from './support/trees.js';

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CairnError);
  return (error as CairnError).code;
}

/** A pack of one object whose index names `claimed` (a lie when it is not the bytes' digest). */
function onePack(bytes: Buffer, claimed = digestOf(bytes)): { digest: string; pack: Buffer } {
  const pack = Buffer.concat([
    randomBytes(PACK_SALT),
    bytes,
    packIndex([{ digest: claimed, kind: 'chunk', off: PACK_SALT, len: bytes.length }]),
  ]);
  return { digest: digestOf(pack), pack };
}

describe('the desk over the network (a host with no store, a server that has one)', () => {
  let serverSide: ReturnType<typeof tempDir>;
  let hostSide: ReturnType<typeof tempDir>;
  let store: Store;
  let server: RunningServer;
  let a: RemoteFabric;
  let b: RemoteFabric;
  let token: string;
  let desks: Desk[];

  beforeEach(async () => {
    serverSide = tempDir('cairn-server-');
    hostSide = tempDir('cairn-host-');
    store = await Store.openDir(join(serverSide.dir, 'store'));
    const tenants = await twoTenants(store);
    server = await startServer(store, { host: '127.0.0.1', port: 0 });
    token = tenants.a.token.token;
    a = connect({ url: server.url, token });
    b = connect({ url: server.url, token: tenants.b.token.token });
    desks = [];
  });

  afterEach(async () => {
    for (const desk of desks) await desk.close();
    await a.close();
    await b.close();
    await server.close();
    await store.close();
    serverSide.remove();
    hostSide.remove();
  });

  async function deskOf(fabric: RemoteFabric, host = 'agent-host'): Promise<Desk> {
    const desk = await remoteDesk(fabric, { stateDir: join(hostSide.dir, `state-${desks.length}`), host });
    desks.push(desk);
    return desk;
  }

  it('attaches, checkpoints, diffs, restores, forks and merges through the server alone', async () => {
    const work = join(hostSide.dir, 'work');
    fidelityTree(work);
    put(work, 'big.bin', randomBytes(9 * 1024 * 1024));
    const desk = await deskOf(a);
    const { workspace, checkpoint } = await desk.attach({ dir: work });
    const original = describeTree(work);
    expect(checkpoint.snapshot.addedBytes).toBeGreaterThan(9 * 1024 * 1024);
    // Nothing of the store is on this host: no .cairn, no packs.
    expect(existsSync(join(work, '.cairn'))).toBe(false);
    expect(existsSync(join(hostSide.dir, '.cairn'))).toBe(false);

    put(work, 'notes.txt', 'second\n');
    rmSync(join(work, 'big.bin'));
    const second = await desk.checkpoint(workspace.id);
    expect(second.created).toBe(true);
    const diff = await desk.diff({ from: checkpoint.snapshot.id, to: second.snapshot.id });
    expect(diff.map((d) => [d.path, d.change])).toEqual(
      expect.arrayContaining([
        ['big.bin', 'removed'],
        ['notes.txt', 'added'],
      ]),
    );

    // Restore from a second desk process (a fresh model, no stat cache): byte for byte.
    const restored = await desk.restore(workspace.id, checkpoint.snapshot.id);
    expect(restored.changes.length).toBeGreaterThan(0);
    expect(describeTree(work)).toEqual(original);

    const forkDir = join(hostSide.dir, 'fork');
    const fork = await desk.fork(workspace.id, { dir: forkDir, driver: 'copy', branch: 'try' });
    expect(describeTree(forkDir)).toEqual(original);
    put(forkDir, 'from-fork.txt', 'fork\n');
    const merged = await desk.merge({ from: fork.workspace.id, into: workspace.id });
    expect(merged.changed).toContain('from-fork.txt');
    expect(readFileSync(join(work, 'from-fork.txt'), 'utf8')).toBe('fork\n');
    await desk.detach(fork.workspace.id, { discard: true });

    // The server's own view: the snapshots are in its store, and its verify passes.
    const who = await store.authenticate((await a.createToken({ name: 'check', role: 'admin' })).token);
    const local = store.desk(who, { stateDir: join(serverSide.dir, 'desk-state') });
    expect((await local.listSnapshots(workspace.id)).length).toBeGreaterThanOrEqual(4);
    expect(await local.verify()).toMatchObject({ ok: true });
    await local.close();
  });

  it('refuses a pack whose bytes do not hash to what it claims, and stores nothing of it', async () => {
    const honest = randomBytes(1000);
    const liar = randomBytes(1000);
    const { digest, pack } = onePack(liar, digestOf(honest));
    expect(await codeOf(a.deskPutPack({ digest, bytes: pack }))).toBe('INVALID_ARGUMENT');
    // A pack not named by its own hash.
    const good = onePack(honest);
    expect(await codeOf(a.deskPutPack({ digest: digestOf(honest), bytes: good.pack }))).toBe(
      'INVALID_ARGUMENT',
    );
    // Junk with no index.
    const junk = randomBytes(500);
    expect(await codeOf(a.deskPutPack({ digest: digestOf(junk), bytes: junk }))).toBe('INVALID_ARGUMENT');
    // An inline pack in a commit is checked the same way.
    const lie = onePack(liar, digestOf(honest)).pack;
    put(join(hostSide.dir, 'w'), 'a.txt', 'a\n');
    const ws = await (await deskOf(a)).attach({ dir: join(hostSide.dir, 'w') });
    expect(
      await codeOf(
        a.deskCommit({
          id: 'sn_00000000000000000000000000',
          workspace: ws.workspace.id,
          expectHead: ws.workspace.headSnapshot,
          kind: 'checkpoint',
          root: digestOf(honest),
          files: 1,
          bytes: 1000,
          addedBytes: 1000,
          packs: [],
          inline: lie.toString('base64'),
          reused: [],
        }),
      ),
    ).toBe('INVALID_ARGUMENT');
    expect((await a.deskMissing({ digests: [digestOf(honest)] })).missing).toEqual([digestOf(honest)]);
    // The honest pack goes in, twice (a resend after a cut connection): one pack, staged, not yet reachable.
    await a.deskPutPack({ digest: good.digest, bytes: good.pack });
    await a.deskPutPack({ digest: good.digest, bytes: good.pack });
    expect((await a.deskMissing({ digests: [digestOf(honest)] })).missing).toEqual([digestOf(honest)]);
  });

  it('bounds what one call may carry: a pack over the largest size, a read over 64 MiB', async () => {
    // A body over a pack's largest size is refused from its length, before it is read.
    const huge = Buffer.alloc(MAX_PACK_BYTES + 1);
    const refused = await fetch(`${server.url}/v1/desk/packs/${'0'.repeat(64)}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
      body: huge,
    });
    expect(refused.status).toBe(413);
    expect((await refused.json()).code).toBe('PAYLOAD_TOO_LARGE');
    // A read of objects holding more than 64 MiB in all is refused; one object at a time is served.
    const work = join(hostSide.dir, 'big');
    put(work, 'big.bin', randomBytes(70 * 1024 * 1024));
    const { checkpoint } = await (await deskOf(a)).attach({ dir: work });
    const [tree] = await a.deskReadObjects({ digests: [checkpoint.snapshot.root] });
    const chunks = (JSON.parse((tree as Buffer).toString('utf8')).e[0] as unknown[])[4] as string[];
    expect(chunks.length).toBeGreaterThan(10);
    const error = await a.deskReadObjects({ digests: chunks }).catch((e: CairnError) => e);
    expect((error as CairnError).code).toBe('INVALID_ARGUMENT');
    expect((error as CairnError).data).toMatchObject({ limit: 64 * 1024 * 1024 });
    const [one] = await a.deskReadObjects({ digests: [chunks[0] as string] });
    expect(digestOf(one as Buffer)).toBe(chunks[0]);
  });

  it("one tenant cannot read, find or reuse another tenant's desk", async () => {
    const work = join(hostSide.dir, 'secret-work');
    put(work, 'plan.txt', `tenant A only ${randomBytes(8).toString('hex')}\n`);
    const { workspace, checkpoint } = await (await deskOf(a)).attach({ dir: work });
    const root = checkpoint.snapshot.root;
    expect(await codeOf(b.deskReadObjects({ digests: [root] }))).toBe('NOT_FOUND');
    expect((await b.deskMissing({ digests: [root] })).missing).toEqual([root]);
    expect(await codeOf(b.getWorkspace({ workspace: workspace.id }))).toBe('NOT_FOUND');
    expect(await codeOf(b.getSnapshot({ snapshot: checkpoint.snapshot.id }))).toBe('NOT_FOUND');
    expect(await codeOf(b.listSnapshots({ workspace: workspace.id }))).toBe('NOT_FOUND');
    expect((await b.listWorkspaces()).items).toEqual([]);
    // B committing a snapshot that reuses A's root: refused (the object is not B's), nothing recorded.
    const bDesk = await deskOf(b, 'b-host');
    const bWork = join(hostSide.dir, 'b-work');
    put(bWork, 'x.txt', 'x\n');
    const bWs = await bDesk.attach({ dir: bWork });
    const error = await b
      .deskCommit({
        id: 'sn_00000000000000000000000001',
        workspace: bWs.workspace.id,
        expectHead: bWs.workspace.headSnapshot,
        kind: 'checkpoint',
        root,
        files: 1,
        bytes: 10,
        addedBytes: 0,
        packs: [],
        reused: [root],
      })
      .catch((e: CairnError) => e);
    expect((error as CairnError).code).toBe('CONFLICT');
    expect((await b.listSnapshots({ workspace: bWs.workspace.id })).items).toHaveLength(1);
    // And A's workspace cannot be forked or detached by B.
    expect(await codeOf(b.detachWorkspace({ workspace: workspace.id }))).toBe('NOT_FOUND');
    expect((await a.getWorkspace({ workspace: workspace.id })).state).toBe('attached');
  });
});
