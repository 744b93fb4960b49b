import { existsSync, readdirSync, readFileSync, renameSync, symlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect } from '../src/client/connect.js';
import { remoteDesk } from '../src/client/remote-desk-store.js';
import type { RemoteFabric } from '../src/client/remote-fabric.js';
import type { Desk } from '../src/desk/desk.js';
import { isMounted } from '../src/desk/overlay.js';
import type { Workspace } from '../src/desk/rows.js';
import { newId } from '../src/ids.js';
import { type RunningServer, startServer } from '../src/server/index.js';
import { Store } from '../src/store.js';
import { expectCode } from '../src/testing/expect-code.js';
import type { Identity } from '../src/types.js';
import { Units } from '../src/unit/unit.js';
import { cliIn } from './support/cli.js';
import { tempDir } from './support/stores.js';
import { put } from './support/trees.js';

/**
 * A workspace record says where a directory is, never that the desk may
 * delete it: destructive work happens only on the record's host, in a
 * directory that host's desk created (its host-local registry, created.ts).
 */
describe('destructive work on a directory happens only on its own host, only where the desk created it', () => {
  let temp: ReturnType<typeof tempDir>;
  let store: Store;
  let server: RunningServer;
  let admin: Identity;
  let agent: RemoteFabric;
  let desks: Desk[];
  let victim: string;

  beforeEach(async () => {
    temp = tempDir('cairn-host-authority-');
    store = await Store.openDir(join(temp.dir, 'store'));
    // The store's own tenant and admin: who `cairn gc --store` acts as.
    admin = await store.localIdentity();
    server = await startServer(store, { host: '127.0.0.1', port: 0 });
    const agentToken = await store.fabric(admin).createToken({ kind: 'agent', name: 'bot', role: 'member' });
    agent = connect({ url: server.url, token: agentToken.token });
    desks = [];
    // Someone's files the desk never made.
    victim = join(temp.dir, 'victim');
    put(victim, 'precious.txt', 'keep me\n');
    put(victim, 'sub/deep.txt', 'me too\n');
  });

  afterEach(async () => {
    for (const desk of desks) await desk.close();
    await agent.close();
    await server.close();
    await store.close();
    temp.remove();
  });

  function adminDesk(host: string, stateDir?: string): Desk {
    const desk = store.desk(admin, { host, ...(stateDir ? { stateDir } : {}) });
    desks.push(desk);
    return desk;
  }

  /** Over HTTP with an agent token: a fork record whose host and directory the agent chose. */
  async function forgedFork(
    host: string,
    dir: string,
    driver: 'copy' | 'overlay' = 'copy',
  ): Promise<Workspace> {
    const own = await remoteDesk(agent, { host: 'agent-host', stateDir: join(temp.dir, 'agent-state') });
    desks.push(own);
    const work = join(temp.dir, 'agent-work');
    put(work, 'a.txt', 'agent\n');
    const { workspace } = await own.attach({ dir: work });
    return agent.deskFork({
      id: newId('workspace'),
      from: workspace.id,
      host,
      path: dir,
      driver,
      baseSnapshot: workspace.headSnapshot,
      branch: 'evil',
    });
  }

  function victimIntact(): void {
    expect(readFileSync(join(victim, 'precious.txt'), 'utf8')).toBe('keep me\n');
    expect(readFileSync(join(victim, 'sub', 'deep.txt'), 'utf8')).toBe('me too\n');
  }

  async function refusals(): Promise<{ action: string; resource_id: string }[]> {
    return store.engine.read(admin.tenant, (tx) =>
      tx.all<{ action: string; resource_id: string }>(
        `SELECT action, resource_id FROM audit_entries WHERE tenant = ? AND action = 'desk.refused' ORDER BY seq`,
        [admin.tenant],
      ),
    );
  }

  it("an agent's fork record at a victim directory, abandoned, then the admin's `cairn gc`: the directory is intact and the report names it", async () => {
    const forged = await forgedFork(hostname(), victim);
    // A real abandon (the person's), so the scenario holds even where `cairn.*` appends are refused.
    const units = new Units(store.fabric(admin), adminDesk(hostname()));
    await units.abandon(forged.session, forged.branch, 0);
    const cli = cliIn(temp.dir, join(temp.dir, 'store'));
    const gc = await cli.ok(['gc', '--grace-ms', '0']);
    victimIntact();
    expect(gc.reclaimedWorkspaces).toEqual([]);
    expect(gc.leftAlone).toEqual([
      { workspace: forged.id, host: hostname(), dir: victim, reason: 'not-created' },
    ]);
    const human = await cli.cairn(['gc', '--store', join(temp.dir, 'store')]);
    expect(human.stdout, JSON.stringify(human)).toContain(
      `left alone ${forged.id} at ${victim}: not created by this desk`,
    );
    // Left as it was: still attached, for a person to look at.
    expect((await store.desk(admin).getWorkspace(forged.id)).state).toBe('attached');
  });

  it('refuses detach --discard of a fork whose directory the desk did not create (typed, audited, nothing changed)', async () => {
    const desk = adminDesk('host-a');
    const forged = await forgedFork('host-a', victim);
    const error = await expectCode(desk.detach(forged.id, { discard: true }), 'FORBIDDEN');
    expect(error.message).toContain('deletes only directories its desk on this host created');
    expect(error.data).toMatchObject({ workspace: forged.id, reason: 'not-created', dir: victim });
    victimIntact();
    expect((await desk.getWorkspace(forged.id)).state).toBe('attached');
    expect(await refusals()).toEqual([{ action: 'desk.refused', resource_id: forged.id }]);
    // The same record, asked of a desk on another host: refused as another host's.
    const elsewhere = adminDesk('host-b', join(temp.dir, 'state-b'));
    const other = await expectCode(elsewhere.detach(forged.id, { discard: true }), 'FORBIDDEN');
    expect(other.data).toMatchObject({ reason: 'other-host', host: 'host-a' });
    victimIntact();
  });

  it('a desk whose store is a server refuses the same, and the refusal is audited through the server', async () => {
    const forged = await forgedFork('agent-host', victim);
    const own = await remoteDesk(agent, { host: 'agent-host', stateDir: join(temp.dir, 'agent-state') });
    desks.push(own);
    await expectCode(own.detach(forged.id, { discard: true }), 'FORBIDDEN');
    victimIntact();
    expect(await refusals()).toEqual([{ action: 'desk.refused', resource_id: forged.id }]);
  });

  it('refuses to discard a fork it created once its directory was swapped for a link to another', async () => {
    const desk = adminDesk('host-a');
    const work = join(temp.dir, 'work');
    put(work, 'a.txt', 'one\n');
    const { workspace } = await desk.attach({ dir: work });
    const forkDir = join(temp.dir, 'fork');
    const fork = (await desk.fork(workspace.id, { dir: forkDir, driver: 'copy', branch: 'try' })).workspace;
    renameSync(forkDir, join(temp.dir, 'fork-moved'));
    symlinkSync(victim, forkDir);
    const error = await expectCode(desk.detach(fork.id, { discard: true }), 'FORBIDDEN');
    expect(error.data).toMatchObject({ reason: 'not-created' });
    victimIntact();
  });

  it('never mounts an overlay over a directory the desk did not create', async () => {
    const desk = adminDesk('host-a');
    const forged = await forgedFork('host-a', victim, 'overlay');
    await expectCode(desk.checkpoint(forged.id), 'FORBIDDEN');
    expect(isMounted(victim)).toBe(false);
    victimIntact();
    expect((await refusals()).map((r) => r.resource_id)).toEqual([forged.id]);
    // Not its to unmount, so not its to discard: the desk may only stop tracking it.
    await expectCode(desk.detach(forged.id, { discard: true }), 'FORBIDDEN');
    expect((await desk.detach(forged.id)).state).toBe('detached');
    victimIntact();
  });

  it("gc on host A leaves host B's abandoned fork alone and reports it; B's own gc reclaims it", async () => {
    const fabric = store.fabric(admin);
    const deskB = adminDesk('host-b', join(temp.dir, 'state-b'));
    const work = join(temp.dir, 'work-b');
    put(work, 'a.txt', 'one\n');
    const { workspace } = await deskB.attach({ dir: work });
    const forkDir = join(temp.dir, 'fork-b');
    const fork = (await deskB.fork(workspace.id, { dir: forkDir, driver: 'copy', branch: 'try' })).workspace;
    put(forkDir, 'made-on-b.txt', 'b\n');
    await new Units(fabric, deskB).abandon(fork.session, fork.branch, 0);

    const onA = await new Units(fabric, adminDesk('host-a', join(temp.dir, 'state-a'))).reclaim();
    expect(onA).toEqual({
      reclaimed: [],
      leftAlone: [{ workspace: fork.id, host: 'host-b', dir: fork.dir, reason: 'other-host' }],
    });
    expect(readFileSync(join(forkDir, 'made-on-b.txt'), 'utf8')).toBe('b\n');

    const onB = await new Units(fabric, deskB).reclaim();
    expect(onB).toEqual({ reclaimed: [fork.id], leftAlone: [] });
    expect(existsSync(forkDir) ? readdirSync(forkDir) : []).toEqual([]);
  });
});
