/**
 * A server signs checkpoints in the background (issue 22: "state the bound
 * between an entry's commit and its first signed checkpoint";
 * docs/design/audit.md, "When an entry is checkpointed"). With
 * `checkpointEveryMs`, an entry committed through the server is in a signed
 * checkpoint within a round, nobody asking; on SQLite also an entry another
 * process wrote straight into the store. Rounds are awaited by count (polls
 * of the stored checkpoints), never timed: no test here asks for a
 * checkpoint, which would integrate by itself.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../src/client/connect.js';
import { type RunningServer, startServer } from '../src/server/index.js';
import type { Store } from '../src/store.js';
import type { Identity } from '../src/types.js';
import { describePostgres } from './support/postgres.js';
import { backendStore } from './support/stores.js';

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

  it('closing a server with rounds running resolves, and another server on the store goes on signing', async () => {
    const other = await startServer(store, { port: 0, checkpointEveryMs: 20 });
    await other.close();
    const remote = connect({ url: server.url, token });
    const session = await remote.createSession({ title: 'after a close' });
    await remote.append({ session: session.id, kind: 'message', payload: 'still signed by the open one' });
    const { entries } = await state();
    expect(await pollsUntilSigned(entries)).toBeLessThanOrEqual(POLLS);
  });
}
