import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Desk } from '../src/desk/desk.js';
import { MasterKey } from '../src/keys/crypto.js';
import type { Keys } from '../src/keys/keys.js';
import { type RunningProxy, startProxy } from '../src/keys/proxy.js';
import { Store } from '../src/store.js';
import { expectCode } from '../src/testing/expect-code.js';
import { execInWorkspace } from '../src/unit/exec.js';
import { Units } from '../src/unit/unit.js';
import { tempDir } from './support/stores.js';
import { put } from './support/trees.js';
import { recordingUpstream, viaProxy } from './support/upstream.js';

/** Grants with the unit of work: forks state them, restores never revive them, status reports them. */
let temp: { dir: string; remove(): void };
let store: Store;
let desk: Desk;
let keys: Keys;
let units: Units;
let proxy: RunningProxy;
let upstream: Awaited<ReturnType<typeof recordingUpstream>>;

beforeEach(async () => {
  temp = tempDir('cairn-keys-unit-');
  store = await Store.openDir(join(temp.dir, 'store'));
  const who = await store.localIdentity();
  desk = store.desk(who, { host: 'keys-unit' });
  keys = store.keys(who, { masterKey: MasterKey.generate() });
  units = new Units(store.fabric(who), desk, keys);
  upstream = await recordingUpstream('live');
  proxy = await startProxy({ keysFor: () => keys, pollMs: 10 });
  await keys.addCredential({
    name: 'billing',
    kind: 'bearer',
    upstream: upstream.url,
    value: Buffer.from('sk_live_unit_0123456789'),
    sandbox: {
      upstream: upstream.url.replace('/api', '/sandbox'),
      value: Buffer.from('sk_test_unit_0123456789'),
    },
  });
});

afterEach(async () => {
  await proxy.close();
  await upstream.close();
  await desk.close();
  await store.close();
  temp.remove();
});

async function unit() {
  const dir = join(temp.dir, 'work');
  put(dir, 'notes.md', 'state 42\n');
  const { workspace } = await desk.attach({ dir });
  const root = await keys.grant({
    session: workspace.session,
    branch: 'main',
    credential: 'billing',
    mode: 'live',
  });
  return { ws: workspace, root };
}

async function get(branch: string, session: string) {
  const { handle } = await keys.issueHandle({ session, branch });
  return (await viaProxy(proxy.url, handle, 'GET', '/billing/invoices')).status;
}

describe('grants and the unit of work', () => {
  it('a fork never copies a grant: branches get exactly the grants stated, each narrowing the parent', async () => {
    const { ws, root } = await unit();
    const cp = await units.checkpoint({ workspace: ws.id, label: 'state 42' });
    expect(cp.grants).toEqual([{ id: root.id, credential: 'billing', mode: 'live', approval: 'none' }]);
    const forked = await units.fork(cp.id, {
      branches: ['a', 'b', 'c', 'bare'],
      dirRoot: join(temp.dir, 'forks'),
      driver: 'copy',
      grants: [
        [{ credential: 'billing', mode: 'read' }],
        [{ credential: 'billing', mode: 'sandbox' }],
        [{ credential: 'billing', mode: 'live', approval: 'each-write' }],
      ],
    });
    expect(forked.branches.map((b) => [b.branch, b.grants.map((g) => `${g.mode}/${g.approval}`)])).toEqual([
      ['a', ['read/none']],
      ['b', ['sandbox/none']],
      ['c', ['live/each-write']],
      ['bare', []],
    ]);
    for (const b of forked.branches.slice(0, 3))
      expect((await keys.getGrant(b.grants[0]!.id)).parent).toBe(root.id);
    expect(await keys.listGrants({ session: ws.session, branch: 'bare' })).toEqual([]);
    expect(await get('bare', ws.session)).toBe(403);
    expect(await get('a', ws.session)).toBe(200);
    // Revoking the parent revokes every fork's grant.
    const { revoked } = await keys.revoke(root.id, 'incident');
    expect(revoked).toHaveLength(4);
    for (const b of ['main', 'a', 'b', 'c']) expect(await get(b, ws.session)).toBe(403);
  });

  it('refuses a fork whose grant is wider than its parent before making anything', async () => {
    const { ws } = await unit();
    const cp = await units.checkpoint({ workspace: ws.id });
    const sandboxOnly = await keys.grant({
      session: ws.session,
      branch: 'main',
      credential: 'billing',
      mode: 'sandbox',
    });
    const error = await expectCode(
      units.fork(cp.id, {
        branches: ['x'],
        dirRoot: join(temp.dir, 'forks'),
        grants: [[{ credential: 'billing', mode: 'live', parent: sandboxOnly.id }]],
      }),
      'INVALID_ARGUMENT',
    );
    expect(error.message).toMatch(/wider than its parent/);
    const ambiguous = await expectCode(
      units.fork(cp.id, {
        branches: ['x'],
        dirRoot: join(temp.dir, 'forks'),
        grants: [[{ credential: 'billing', mode: 'read' }]],
      }),
      'INVALID_ARGUMENT',
    );
    expect(ambiguous.message).toMatch(/name the parent/);
    // A member who does not own the forked branch cannot hand its grants on.
    const member = await store
      .fabric(await store.localIdentity())
      .createToken({ kind: 'agent', name: 'bot', role: 'member' });
    const memberWho = await store.authenticate(member.token);
    const memberUnits = new Units(store.fabric(memberWho), desk, store.keys(memberWho));
    const refused = await expectCode(
      memberUnits.fork(cp.id, {
        branches: ['y'],
        dirRoot: join(temp.dir, 'forks'),
        grants: [[{ credential: 'billing', mode: 'read', parent: sandboxOnly.id }]],
      }),
      'FORBIDDEN',
    );
    expect(refused.message).toMatch(/hand its grants to forks/);
    expect((await desk.listWorkspaces()).map((w) => w.branch)).toEqual(['main']);
    expect(
      (await store.fabric(await store.localIdentity()).listBranches({ session: ws.session })).map(
        (b) => b.name,
      ),
    ).toEqual(['main']);
  });

  it('a restore never revives a grant revoked or expired since the checkpoint; status reports it', async () => {
    const { ws, root } = await unit();
    const cp = await units.checkpoint({ workspace: ws.id, label: 'with an active grant' });
    expect(await get('main', ws.session)).toBe(200);
    expect((await units.status(ws.id)).clean).toBe(true);
    await keys.revoke(root.id, 'the person left');
    const status = await units.status(ws.id);
    expect(status.clean).toBe(false);
    expect(status.endedGrants).toEqual([
      { id: root.id, credential: 'billing', mode: 'live', state: 'revoked' },
    ]);
    const preview = await units.previewRestore(cp.id);
    expect(preview.grants).toEqual([
      { id: root.id, credential: 'billing', mode: 'live', approval: 'none', state: 'revoked' },
    ]);
    await units.restore(cp.id);
    expect((await keys.getGrant(root.id)).revokedAt).not.toBeNull();
    expect(await get('main', ws.session)).toBe(403);
    expect(upstream.seen).toHaveLength(1);
    // Ended grants count as drift only when the branch relied on them: recorded by a checkpoint
    // (though never used), yes; neither recorded nor used, no.
    const recorded = await keys.grant({
      session: ws.session,
      branch: 'main',
      credential: 'billing',
      mode: 'read',
    });
    await units.checkpoint({ workspace: ws.id, label: 'records the read grant' });
    const unrelied = await keys.grant({
      session: ws.session,
      branch: 'main',
      credential: 'billing',
      mode: 'read',
    });
    await keys.revoke(recorded.id);
    await keys.revoke(unrelied.id);
    expect((await units.status(ws.id)).endedGrants.map((g) => g.id).sort()).toEqual(
      [root.id, recorded.id].sort(),
    );
    // The checkpoint taken by the restore records no grant: there is none active to record.
    const after = await units.checkpoint({ workspace: ws.id, label: 'after' });
    expect(after.grants).toEqual([]);
  });

  it('exec gives the child a handle that expires by itself and is revoked at exit, or when injection fails', async () => {
    const { ws } = await unit();
    const fabric = store.fabric(await store.localIdentity());
    const handles = () =>
      store.engine.read(ws.tenant, (tx) =>
        tx.all<{ expires_at: number | null; revoked_at: number | null }>(
          'SELECT expires_at, revoked_at FROM key_handles',
        ),
      );
    const ran = await execInWorkspace(fabric, desk, {
      workspace: ws.id,
      command: ['sh', '-c', 'test -n "$CAIRN_HANDLE"'],
      env: { PATH: process.env.PATH },
      keys: { keys, proxyUrl: proxy.url },
    });
    expect(ran.exit).toBe(0);
    await keys.addCredential({
      name: 'deploy',
      kind: 'env',
      upstream: '',
      value: Buffer.from('env-secret-5678'),
    });
    await expectCode(
      execInWorkspace(fabric, desk, {
        workspace: ws.id,
        command: ['true'],
        env: { PATH: process.env.PATH },
        keys: { keys, proxyUrl: proxy.url, envCredentials: ['deploy'] },
      }),
      'FORBIDDEN',
    );
    const rows = await handles();
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.revoked_at).not.toBeNull();
      expect(row.expires_at).not.toBeNull();
    }
  });
});
