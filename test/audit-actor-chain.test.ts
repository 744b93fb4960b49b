/**
 * The actor chain of audit entries (issue 22, format 12): an entry names the
 * person an agent acts for (derived from who made the agent's token, never
 * from the request; a token an agent makes acts for its person too), the
 * actor, and the branch acted on. It is in the
 * entry's hash and its leaf, so changing it or taking it away fails
 * `audit verify`; entries without one (every entry before format 12) hash
 * and leaf as before.
 */
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EmbeddedFabric } from '../src/embedded-fabric.js';
import type { Identity } from '../src/index.js';
import type { Store } from '../src/store.js';
import { describePostgres } from './support/postgres.js';
import { backendStore } from './support/stores.js';

describe('the actor chain on SQLite', () => chainSuite('sqlite'));
describePostgres('the actor chain on PostgreSQL', () => chainSuite('postgres'));

function chainSuite(backend: 'sqlite' | 'postgres') {
  let store: Store;
  let cleanup: () => Promise<void>;
  let person: Identity;
  let fabric: EmbeddedFabric;

  beforeEach(async () => {
    ({ store, cleanup, who: person } = await backendStore(backend, 'chain'));
    fabric = store.fabric(person);
  });
  afterEach(async () => {
    await cleanup();
  });

  /** The last entry of an action, as the tree has it (its leaf text) and its chain column. */
  const lastEntry = async (action: string) => {
    const row = await store.engine.read(person.tenant, (tx) =>
      tx.get<{ seq: number; chain: string }>(
        'SELECT seq, chain FROM audit_entries WHERE tenant = ? AND action = ? ORDER BY seq DESC LIMIT 1',
        [person.tenant, action],
      ),
    );
    if (!row) throw new Error(`no ${action} entry`);
    await fabric.auditCheckpoint({});
    const proof = await fabric.auditProof({ entry: Number(row.seq) - 1 });
    return {
      seq: Number(row.seq),
      chain: row.chain,
      leaf: JSON.parse(proof.entry) as { chain?: string[] },
      proof,
    };
  };

  it('names the person an agent acts for, the agent and the branch; a person acting alone names no one else', async () => {
    const session = await fabric.createSession({ title: 'chain' });
    const branch = (await fabric.listBranches({ session: session.id }))[0]!;
    const minted = await fabric.createToken({ kind: 'agent', name: 'helper', role: 'member' });
    const agentWho = await store.authenticate(minted.token);
    expect(agentWho.onBehalfOf).toBe(person.principal);
    const agent = store.fabric(agentWho);
    expect((await agent.whoami()).onBehalfOf).toBe(person.principal);

    await agent.append({ session: session.id, kind: 'note', payload: { by: 'agent' } });
    const byAgent = await lastEntry('event.append');
    expect(byAgent.leaf.chain).toEqual([person.principal, agentWho.principal, branch.id]);
    // The leaf hash the proof gives is the hash of the leaf text it gives: the chain is in the tree.
    const leafHash = createHash('sha256')
      .update(Buffer.concat([Buffer.from([0]), Buffer.from(byAgent.proof.entry, 'utf8')]))
      .digest('hex');
    expect(byAgent.proof.leafHash).toBe(leafHash);

    await fabric.append({ session: session.id, kind: 'note', payload: { by: 'person' } });
    expect((await lastEntry('event.append')).leaf.chain).toEqual([person.principal, branch.id]);
    // No branch and no one acted for: the actor alone, the leaf as before format 12.
    await fabric.createSession({ title: 'plain' });
    const plain = await lastEntry('session.create');
    expect(plain.chain).toBe('');
    expect(plain.leaf.chain).toBeUndefined();

    // An agent cannot shed the person it acts for: a token it makes itself, or one it makes for a helper
    // (an admin agent), acts for that person too; the entry that made it names the person.
    const again = await agent.createToken({ principal: agentWho.principal });
    expect((await store.authenticate(again.token)).onBehalfOf).toBe(person.principal);
    expect((await lastEntry('token.create')).leaf.chain).toEqual([person.principal, agentWho.principal]);
    const adminAgent = store.fabric(
      await store.authenticate(
        (await fabric.createToken({ kind: 'agent', name: 'ops', role: 'admin' })).token,
      ),
    );
    const helper = await adminAgent.createToken({ kind: 'agent', name: 'sub', role: 'member' });
    expect((await store.authenticate(helper.token)).onBehalfOf).toBe(person.principal);
    expect((await store.verifyTenants([person.tenant]))[0]).toMatchObject({ ok: true });
  });

  it('fails audit verify when a chain is changed, added or taken away', async () => {
    const session = await fabric.createSession({ title: 'tamper' });
    const agent = store.fabric(
      await store.authenticate(
        (await fabric.createToken({ kind: 'agent', name: 'a', role: 'member' })).token,
      ),
    );
    await agent.append({ session: session.id, kind: 'note', payload: {} });
    const { seq, chain } = await lastEntry('event.append');
    const plain = (await lastEntry('session.create')).seq;
    const changes: [number, string][] = [
      [seq, chain.replace(person.principal, 'pr_someone_else')],
      [seq, ''],
      [plain, JSON.stringify([person.principal])],
    ];
    for (const [at, value] of changes) {
      const before = await store.engine.read(person.tenant, (tx) =>
        tx.get<{ chain: string }>('SELECT chain FROM audit_entries WHERE tenant = ? AND seq = ?', [
          person.tenant,
          at,
        ]),
      );
      await store.engine.write(person.tenant, (tx) =>
        tx.run('UPDATE audit_entries SET chain = ? WHERE tenant = ? AND seq = ?', [value, person.tenant, at]),
      );
      expect((await store.verifyTenants([person.tenant]))[0], `${at} → ${value}`).toMatchObject({
        ok: false,
      });
      await store.engine.write(person.tenant, (tx) =>
        tx.run('UPDATE audit_entries SET chain = ? WHERE tenant = ? AND seq = ?', [
          before?.chain,
          person.tenant,
          at,
        ]),
      );
    }
    expect((await store.verifyTenants([person.tenant]))[0]).toMatchObject({ ok: true });
  });
}
