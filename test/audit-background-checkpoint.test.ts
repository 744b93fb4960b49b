/**
 * A server signs checkpoints in the background (issue 22: "state the bound
 * between an entry's commit and its first signed checkpoint";
 * docs/design/audit.md, "When an entry is checkpointed"). With
 * `checkpointEveryMs`, an entry committed through the server is in a signed
 * checkpoint within a round, nobody asking; on SQLite also an entry another
 * process wrote straight into the store. A round signs only with the key a
 * tenant's checkpoints already have, and settles a new tenant's key only on
 * the operator's. Rounds are awaited by count (polls of the stored
 * checkpoints), never timed: once a tenant's key is settled, no test here
 * asks for a checkpoint, which would integrate by itself.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditKey } from '../src/audit/note.js';
import { roundCheckpoint, type TenantWrite } from '../src/audit/tree.js';
import { connect } from '../src/client/connect.js';
import { type RunningServer, startServer } from '../src/server/index.js';
import { Store } from '../src/store.js';
import type { Identity } from '../src/types.js';
import { describePostgres } from './support/postgres.js';
import { backendStore, tempDir } from './support/stores.js';

/** Polls at most this many times for a round to have signed what it should. */
const POLLS = 400;

describe('background checkpoints on SQLite', () => backgroundSuite('sqlite'));
describePostgres('background checkpoints on PostgreSQL', () => backgroundSuite('postgres'));

function backgroundSuite(backend: 'sqlite' | 'postgres') {
  let store: Store;
  let cleanup: () => Promise<void>;
  let who: Identity;
  let server: RunningServer;
  let token = '';

  /** The tenant's audit entries so far, and the size of its latest signed checkpoint (0 before the first). */
  const state = () =>
    store.engine.read(who.tenant, async (tx) => {
      const head = await tx.get<{ seq: number }>('SELECT seq FROM audit_heads WHERE tenant = ?', [
        who.tenant,
      ]);
      const signed = await tx.get<{ size: number | null }>(
        'SELECT MAX(size) AS size FROM audit_checkpoints WHERE tenant = ?',
        [who.tenant],
      );
      return { entries: Number(head?.seq ?? 0), signed: Number(signed?.size ?? 0) };
    });

  /** Polls until a signed checkpoint holds `entries` entries; how many polls it took, or POLLS + 1. */
  async function pollsUntilSigned(entries: number): Promise<number> {
    for (let poll = 1; poll <= POLLS; poll++) {
      if ((await state()).signed >= entries) return poll;
      await sleep(25);
    }
    return POLLS + 1;
  }

  beforeAll(async () => {
    ({ store, cleanup, who } = await backendStore(backend, 'background-checkpoints'));
    token = (await store.fabric(who).createToken({ principal: who.principal })).token;
    // The first checkpoint, asked for, settles the tenant's key (the store's: no operator key here).
    await store.fabric(who).auditCheckpoint({});
    server = await startServer(store, { port: 0, checkpointEveryMs: 20 });
  });

  afterAll(async () => {
    await server?.close();
    await cleanup?.();
  });

  it('an entry committed through the server is signed within a round, nobody asking', async () => {
    const remote = connect({ url: server.url, token });
    const session = await remote.createSession({ title: 'background' });
    for (let i = 0; i < 5; i++) await remote.append({ session: session.id, kind: 'message', payload: { i } });
    const { entries } = await state();
    expect(await pollsUntilSigned(entries)).toBeLessThanOrEqual(POLLS);
    // The signed checkpoint is the tree of every entry: its proofs verify against it (audit verify).
    expect((await store.verifyTenants([who.tenant]))[0]?.ok).toBe(true);
  });

  it('a refused call is audited, and its entry signed within a round too (a read that was refused)', async () => {
    const member = await store.fabric(who).createToken({ kind: 'agent', name: 'a member', role: 'member' });
    // Everything so far signed, asked for: what follows is the refusal's entry alone.
    await store.fabric(who).auditCheckpoint({});
    const remote = connect({ url: server.url, token: member.token });
    await expect(remote.getRedactionPolicy({})).rejects.toMatchObject({ code: 'FORBIDDEN' });
    const { entries } = await state();
    expect(await pollsUntilSigned(entries)).toBeLessThanOrEqual(POLLS);
  });

  if (backend === 'sqlite') {
    it('on SQLite, also an entry written straight into the store by another fabric (a CLI beside the server)', async () => {
      const local = store.fabric(who);
      const session = await local.createSession({ title: 'not through the server' });
      await local.append({ session: session.id, kind: 'message', payload: 'beside' });
      // Nothing here asks for a checkpoint, and the server never saw this write: only its round's scan signs it.
      const { entries } = await state();
      expect(await pollsUntilSigned(entries)).toBeLessThanOrEqual(POLLS);
    });
  }

  it('closing a server waits for the round it is running, and the round stops at its next batch', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((done) => {
      release = done;
    });
    let stopAsked: (() => boolean) | undefined;
    let rounds = 0;
    // Another server over the same store, whose rounds hang until released.
    const stubbed = Object.create(store) as Store;
    stubbed.checkpointWaiting = async (_written, stopped) => {
      rounds++;
      stopAsked = stopped;
      await held;
      return [];
    };
    const other = await startServer(stubbed, { port: 0, checkpointEveryMs: 5 });
    for (let poll = 0; poll < POLLS && rounds === 0; poll++) await sleep(5);
    expect(rounds).toBe(1);
    let closed = false;
    const closing = other.close().then(() => {
      closed = true;
    });
    for (let poll = 0; poll < 10; poll++) await sleep(5);
    expect(closed).toBe(false);
    expect(stopAsked?.()).toBe(true);
    release();
    await closing;
    expect(closed).toBe(true);
    expect(rounds).toBe(1);
  });
}

describe('what a round may sign for', () => {
  it('without the operator key, a tenant no checkpoint was asked for is left for its first request: no key settled', async () => {
    const { store, cleanup, who } = await backendStore('sqlite', 'unsettled');
    try {
      const results = await store.checkpointWaiting([who.tenant]);
      expect(results).toEqual([{ tenant: who.tenant, skipped: expect.stringContaining('not settled') }]);
      const key = await store.engine.read(who.tenant, (tx) =>
        tx.get('SELECT name FROM audit_keys WHERE tenant = ?', [who.tenant]),
      );
      expect(key).toBeUndefined();
      // Once asked for, the store's key is settled, and rounds sign with it.
      await store.fabric(who).auditCheckpoint({});
      await store.fabric(who).createSession({ title: 'after the first checkpoint' });
      const [signed] = await store.checkpointWaiting([who.tenant]);
      expect(signed?.checkpoint?.size).toBeGreaterThan(0);
    } finally {
      await cleanup();
    }
  });

  it('with the operator key, a round settles a new tenant on it, and leaves a tenant signed with another key alone', async () => {
    const temp = tempDir();
    const operator = AuditKey.parse(randomBytes(32).toString('hex'), 'the operator');
    try {
      // A tenant settled on the store's own key before the operator key was given.
      let store = await Store.openDir(temp.dir);
      const early = await store.createTenant('early');
      await store.fabric(await store.authenticate(early.token.token)).auditCheckpoint({});
      await store.close();
      store = await Store.openDir(temp.dir, { auditKey: operator });
      try {
        const late = await store.createTenant('late');
        // Something waiting in the early tenant too: a round has a reason to look at its key.
        await store.fabric(await store.authenticate(early.token.token)).createSession({ title: 'later' });
        const results = await store.checkpointWaiting([late.tenant, early.tenant]);
        const byTenant = new Map(results.map((r) => [r.tenant, r]));
        expect(byTenant.get(late.tenant)?.checkpoint?.size).toBeGreaterThan(0);
        expect(byTenant.get(early.tenant)?.skipped).toContain('another key');
        expect(byTenant.get(early.tenant)?.error).toBeUndefined();
        const lateKey = await store.fabric(await store.authenticate(late.token.token)).auditKey({});
        expect(lateKey.publicKey).toBe(operator.publicKey.toString('hex'));
      } finally {
        await store.close();
      }
    } finally {
      temp.remove();
    }
  });

  it('a server reports a tenant it will not sign for once, not every round', async () => {
    const { store, cleanup, who } = await backendStore('sqlite', 'told-once');
    const told: string[] = [];
    const server = await startServer(store, {
      port: 0,
      checkpointEveryMs: 5,
      onInternalError: (error) => told.push((error as Error).message),
    });
    try {
      const token = (await store.fabric(who).createToken({ principal: who.principal })).token;
      const remote = connect({ url: server.url, token });
      const session = await remote.createSession({ title: 'unsettled' });
      const said = () => told.filter((m) => m.includes(who.tenant) && m.includes('not settled')).length;
      for (let poll = 0; poll < POLLS && said() === 0; poll++) await sleep(10);
      expect(said()).toBe(1);
      // More writes, more rounds: the same tenant and reason are not said again.
      for (let i = 0; i < 20; i++) {
        await remote.append({ session: session.id, kind: 'message', payload: i });
        await sleep(10);
      }
      expect(said()).toBe(1);
      expect(told.filter((m) => !m.includes('not settled'))).toEqual([]);
    } finally {
      await server.close();
      await cleanup();
    }
  });

  it('a round integrates a batch per transaction and stops between batches when told', async () => {
    const { store, cleanup, who } = await backendStore('sqlite', 'batches');
    try {
      const fabric = store.fabric(who);
      const first = await fabric.auditCheckpoint({});
      const session = await fabric.createSession({ title: 'batches' });
      for (let i = 0; i < 10; i++) await fabric.append({ session: session.id, kind: 'message', payload: i });
      const waiting = await store.engine.read(who.tenant, (tx) =>
        tx.get<{ seq: number }>('SELECT seq FROM audit_heads WHERE tenant = ?', [who.tenant]),
      );
      const write: TenantWrite = (fn) => store.engine.write(who.tenant, (tx) => fn(tx, Date.now()));
      const stoppedAtOnce = await roundCheckpoint(write, who.tenant, undefined, {
        batch: 3,
        stopped: () => true,
      });
      expect(stoppedAtOnce).toMatchObject({ checkpoint: { size: first.size + 3 } });
      let batches = 0;
      const whole = await roundCheckpoint(write, who.tenant, undefined, {
        batch: 3,
        stopped: () => ++batches > 100,
      });
      expect(whole).toMatchObject({ checkpoint: { size: Number(waiting?.seq) } });
      // Asked after each full batch (the last, if full, is followed by an empty one that ends it).
      expect(batches).toBe(Math.floor((Number(waiting?.seq) - first.size - 3) / 3));
    } finally {
      await cleanup();
    }
  });

  it('refuses an interval a timer cannot keep, and starts no server', async () => {
    const { store, cleanup } = await backendStore('sqlite', 'interval');
    try {
      for (const bad of [2 ** 31, -1, 1.5, Number.NaN])
        await expect(startServer(store, { port: 0, checkpointEveryMs: bad })).rejects.toMatchObject({
          code: 'INVALID_ARGUMENT',
        });
    } finally {
      await cleanup();
    }
  });
});
