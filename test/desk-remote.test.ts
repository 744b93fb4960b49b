import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect } from '../src/client/connect.js';
import { remoteDesk } from '../src/client/remote-desk-store.js';
import type { RemoteFabric } from '../src/client/remote-fabric.js';
import { digestOf } from '../src/desk/chunker.js';
import type { Desk } from '../src/desk/desk.js';
import { packIndex } from '../src/desk/pack-format.js';
import { MAX_PACK_BYTES, PACK_SALT } from '../src/desk/pack-limits.js';
import { encodeTree } from '../src/desk/tree.js';
import { CairnError } from '../src/errors.js';
import { newId } from '../src/ids.js';
import { MasterKey } from '../src/keys/crypto.js';
import { type RunningServer, startServer } from '../src/server/index.js';
import { Store } from '../src/store.js';
import { expectCode } from '../src/testing/expect-code.js';
import { keysOverFabric, Units } from '../src/unit/unit.js';
import { tempDir, twoTenants } from './support/stores.js';
import { describeTree, fidelityTree, put } from './support/trees.js';

/** A pack of one object whose index names `claimed` (a lie when it is not the bytes' digest). */
function onePack(
  bytes: Buffer,
  claimed = digestOf(bytes),
  kind: 'chunk' | 'tree' = 'chunk',
): { digest: string; pack: Buffer } {
  const pack = Buffer.concat([
    randomBytes(PACK_SALT),
    bytes,
    packIndex([{ digest: claimed, kind, off: PACK_SALT, len: bytes.length }]),
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
    await expectCode(a.deskPutPack({ digest, bytes: pack }), 'INVALID_ARGUMENT');
    // A pack not named by its own hash.
    const good = onePack(honest);
    await expectCode(a.deskPutPack({ digest: digestOf(honest), bytes: good.pack }), 'INVALID_ARGUMENT');
    // Junk with no index.
    const junk = randomBytes(500);
    await expectCode(a.deskPutPack({ digest: digestOf(junk), bytes: junk }), 'INVALID_ARGUMENT');
    // An inline pack in a commit is checked the same way.
    const lie = onePack(liar, digestOf(honest)).pack;
    put(join(hostSide.dir, 'w'), 'a.txt', 'a\n');
    const ws = await (await deskOf(a)).attach({ dir: join(hostSide.dir, 'w') });
    await expectCode(
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
      'INVALID_ARGUMENT',
    );
    expect((await a.deskMissing({ digests: [digestOf(honest)] })).missing).toEqual([digestOf(honest)]);
    // The honest pack goes in, twice (a resend after a cut connection): one pack, staged, not yet reachable.
    await a.deskPutPack({ digest: good.digest, bytes: good.pack });
    await a.deskPutPack({ digest: good.digest, bytes: good.pack });
    expect((await a.deskMissing({ digests: [digestOf(honest)] })).missing).toEqual([digestOf(honest)]);
  });

  it("the unit through a server: a checkpoint records the branch's grants, a fork hands on a narrower one", async () => {
    const work = join(hostSide.dir, 'unit');
    put(work, 'state.txt', '42\n');
    const desk = await deskOf(a);
    const { workspace } = await desk.attach({ dir: work });
    // The server's keys: a credential and a live grant to the workspace's branch, made where the store is.
    const admin = await store.authenticate(token);
    const keys = store.keys(admin, { masterKey: MasterKey.generate() });
    await keys.addCredential({
      name: 'billing',
      kind: 'bearer',
      upstream: 'http://127.0.0.1:9/api',
      value: Buffer.from('sk_live_unit'),
    });
    const live = await keys.grant({
      session: workspace.session,
      branch: 'main',
      credential: 'billing',
      mode: 'live',
    });
    const units = new Units(a, desk, await keysOverFabric(a));
    const checkpoint = await units.checkpoint({ workspace: workspace.id, label: 'with grants' });
    expect(checkpoint.grants?.map((g) => g.id)).toEqual([live.id]);
    const forked = await units.fork(checkpoint.id, {
      branches: ['narrow'],
      dirRoot: join(hostSide.dir, 'unit-forks'),
      driver: 'copy',
      grants: [[{ credential: 'billing', mode: 'read' }]],
    });
    const handed = forked.branches[0]?.grants ?? [];
    expect(handed.map((g) => [g.credential, g.mode])).toEqual([['billing', 'read']]);
    expect((await a.getGrant({ grant: handed[0]?.id as string })).parent).toBe(live.id);
    // A fork asking for more than the branch holds is refused before anything is made.
    const before = (await a.listWorkspaces()).items.length;
    const wider = units.fork(checkpoint.id, {
      branches: ['wider'],
      dirRoot: join(hostSide.dir, 'unit-forks'),
      driver: 'copy',
      grants: [
        [{ credential: 'billing', mode: 'live', approval: 'none', allow: { hosts: ['evil.example'] } }],
      ],
    });
    await expect(wider).rejects.toBeInstanceOf(CairnError);
    expect((await a.listWorkspaces()).items.length).toBe(before);
  });

  it("a member cannot break the tenant's other snapshots through the contract (the red team's cases)", async () => {
    // Two workspaces of one tenant; the honest one reuses what the other stored.
    const one = join(hostSide.dir, 'rt-one');
    const two = join(hostSide.dir, 'rt-two');
    const shared = randomBytes(400 * 1024);
    put(one, 'shared.bin', shared);
    put(two, 'shared.bin', shared);
    const first = await (await deskOf(a, 'rt-host-1')).attach({ dir: one });
    const honestDesk = await deskOf(a, 'rt-host-2');
    const honest = await honestDesk.attach({ dir: two });
    const admin = await store.authenticate(token);
    const live = await store.engine.read(admin.tenant, (tx) =>
      tx.all<{ digest: string }>(
        "SELECT digest FROM desk_packs WHERE tenant = ? AND state = 'live' AND inline = 0",
        [admin.tenant],
      ),
    );
    expect(live.length).toBeGreaterThan(0);
    // 1. Discarding a live pack deletes nothing of it.
    await a.deskDiscardPacks({ packs: live.map((p) => p.digest) });
    await honestDesk.restore(honest.workspace.id, honest.checkpoint.snapshot.id);
    expect(readFileSync(join(two, 'shared.bin')).equals(shared)).toBe(true);
    // 2. A pack stored with putPack cannot also be the inline pack of a commit (it would stay `writing`).
    const object = randomBytes(300);
    const stored = onePack(object);
    await a.deskPutPack({ digest: stored.digest, bytes: stored.pack });
    const base = {
      workspace: first.workspace.id,
      kind: 'checkpoint' as const,
      files: 1,
      bytes: 1,
      addedBytes: 0,
      packs: [] as string[],
      reused: [] as string[],
    };
    const head = () => a.getWorkspace({ workspace: first.workspace.id }).then((w) => w.headSnapshot);
    /** A commit on `first`'s head as it is now, with a fresh id unless `extra` names one. */
    const commit = async (extra: Partial<Parameters<typeof a.deskCommit>[0]> & { root: string }) =>
      a.deskCommit({ ...base, id: newId('snapshot'), expectHead: await head(), ...extra });
    await expectCode(
      commit({ root: first.checkpoint.snapshot.root, inline: stored.pack.toString('base64') }),
      'INVALID_ARGUMENT',
    );
    // 3. A root that is a file chunk, and a tree object that is no tree, are refused.
    const chunk = (
      JSON.parse((await a.deskReadObjects({ digests: [first.checkpoint.snapshot.root] }))[0]!.toString())
        .e[0] as string[][]
    )[4]![0]!;
    await expectCode(commit({ root: chunk, reused: [chunk] }), 'INVALID_ARGUMENT');
    const notATree = Buffer.from('{"v":1,"e":[["x","f"]]}');
    const badTree = onePack(notATree, digestOf(notATree), 'tree');
    await expectCode(a.deskPutPack({ digest: badTree.digest, bytes: badTree.pack }), 'INVALID_ARGUMENT');
    // 4. A valid tree naming what is not there: the snapshot is the committer's own problem; GC still runs.
    const dangling = encodeTree([
      { name: 'gone', kind: 'dir', tree: digestOf(randomBytes(8)), files: 1, bytes: 1 },
    ]);
    const danglingPack = onePack(dangling.bytes, dangling.digest, 'tree');
    await a.deskPutPack({ digest: danglingPack.digest, bytes: danglingPack.pack });
    // 5. The payload cannot rewrite the snapshot event's own fields.
    const committed = await commit({
      root: dangling.digest,
      packs: [danglingPack.digest],
      payload: { root: digestOf(randomBytes(8)), snapshot: 'sn_00000000000000000000000000' },
    });
    const event = await a.getEvent({ event: committed.snapshot.event });
    expect(event.payload).toMatchObject({ root: dangling.digest, snapshot: committed.snapshot.id });
    // 6. A snapshot id proposed twice is CONFLICT, not a server fault.
    await expectCode(
      commit({ id: committed.snapshot.id, root: dangling.digest, reused: [dangling.digest] }),
      'CONFLICT',
    );
    const check = store.desk(admin, { stateDir: join(serverSide.dir, 'rt-state'), host: 'rt-check' });
    const gc = await check.gc({ graceMs: 0 });
    expect(gc.brokenSnapshots).toEqual([committed.snapshot.id]);
    await check.close();
    await honestDesk.restore(honest.workspace.id, honest.checkpoint.snapshot.id);
    expect(readFileSync(join(two, 'shared.bin')).equals(shared)).toBe(true);
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
    await expectCode(b.deskReadObjects({ digests: [root] }), 'NOT_FOUND');
    expect((await b.deskMissing({ digests: [root] })).missing).toEqual([root]);
    await expectCode(b.getWorkspace({ workspace: workspace.id }), 'NOT_FOUND');
    await expectCode(b.getSnapshot({ snapshot: checkpoint.snapshot.id }), 'NOT_FOUND');
    await expectCode(b.listSnapshots({ workspace: workspace.id }), 'NOT_FOUND');
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
    await expectCode(b.detachWorkspace({ workspace: workspace.id }), 'NOT_FOUND');
    expect((await a.getWorkspace({ workspace: workspace.id })).state).toBe('attached');
  });
});
