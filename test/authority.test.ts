/**
 * Authority is derived, never claimed (issue 19): each operation of the table
 * declares who may call it, and the gate in `runOp` refuses everyone else
 * before the input is read, audited, changing nothing; event kinds under
 * `cairn.` are Cairn's own — the generic `append` refuses them on every
 * surface, so an agent cannot forge a person's resolution of a step or a
 * unit's abandon; a step is settled by a person only through `resolveStep`,
 * which records who.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../src/client/connect.js';
import type { RemoteFabric } from '../src/client/remote-fabric.js';
import { newId } from '../src/ids.js';
import { MasterKey } from '../src/keys/crypto.js';
import type { Op } from '../src/ops/op.js';
import { OPERATIONS } from '../src/ops/table.js';
import { type RunningServer, startServer } from '../src/server/index.js';
import { Journal, STEP_EVENT, STEP_RESOLVE_EVENT } from '../src/steps/journal.js';
import type { Store } from '../src/store.js';
import { expectCode } from '../src/testing/expect-code.js';
import { cliIn } from './support/cli.js';
import { heldWrites } from './support/held-writes.js';
import { connectMcpHttp } from './support/mcp-http.js';
import { sqliteStore } from './support/stores.js';

const OPS = Object.values(OPERATIONS) as Op[];
const masterKey = MasterKey.generate();

let store: Store;
let cleanup: () => Promise<void>;
let server: RunningServer;
let tenant: string;
/** The tenant's first principal: a person who is its admin. */
let person: RemoteFabric;
/** An agent of the tenant (member), and one with the admin role: neither is a person. */
let agent: RemoteFabric;
let agentAdmin: RemoteFabric;
let agentToken: string;
let personToken: () => Promise<string>;
let agentPrincipal: string;
let session: string;
let approval: string;
let memory: string;
const opened: Client[] = [];

beforeAll(async () => {
  ({ store, cleanup } = await sqliteStore());
  const created = await store.createTenant('authority');
  tenant = created.tenant;
  server = await startServer(store, {
    host: '127.0.0.1',
    port: 0,
    masterKey,
    mcp: { version: '0.0.0-test' },
  });
  person = connect({ url: server.url, token: created.token.token });
  personToken = async () => created.token.token;
  const minted = await person.createToken({ kind: 'agent', name: 'worker', label: 'agent' });
  agentToken = minted.token;
  agentPrincipal = minted.principal;
  agent = connect({ url: server.url, token: agentToken });
  const adminAgent = await person.createToken({
    kind: 'agent',
    name: 'ops-bot',
    role: 'admin',
    label: 'bot',
  });
  agentAdmin = connect({ url: server.url, token: adminAgent.token });

  session = (await agent.createSession({ title: 'authority' })).id;
  // The agent's step 1 runs under the escalate policy and its result is never recorded: in doubt.
  const journal = await Journal.open(agent, { session });
  await journal.step('wire', { to: 'acme' }, async () => 'sent', { policy: 'escalate' });
  const who = await store.authenticate(created.token.token);
  ({
    approvals: [approval = ''],
  } = await heldWrites(store.keys(who, { masterKey }), session, 'sk_authority_value_1', ['{"amount":1}']));
  memory = (await agent.remember({ scope: { session }, text: 'the deploy key rotates monthly' })).id;
});

afterAll(async () => {
  for (const client of opened) await client.close().catch(() => {});
  for (const f of [person, agent, agentAdmin]) await f?.close();
  await server?.close();
  await cleanup?.();
});

/** What an agent could change through a person's operation: the branch, the approval, the record's trust. */
async function snapshot() {
  return {
    events: (await person.readBranch({ session })).events.map((e) => e.id),
    approval: (await person.getApproval({ approval })).state,
    trust: (await person.getMemory({ record: memory })).provenance.trust,
    steps: (await person.listSteps({ session })).steps,
  };
}

async function auditActions(): Promise<{ action: string; resource: string; actor: string }[]> {
  return store.engine.read(tenant, (tx) =>
    tx.all<{ action: string; resource: string; actor: string }>(
      'SELECT action, resource_id AS resource, actor FROM audit_entries WHERE tenant = ? ORDER BY seq',
      [tenant],
    ),
  );
}

const connectMcp = (token: string) => connectMcpHttp(server.url, token, opened);

describe('who may call each operation', () => {
  it('is declared by every operation of the table; a person’s decisions are a person’s only', () => {
    for (const operation of OPS)
      expect(['any', 'person', 'admin', 'person-admin'], operation.name).toContain(operation.callers);
    const persons = OPS.filter((o) => o.callers === 'person' || o.callers === 'person-admin').map(
      (o) => o.name,
    );
    expect(persons.sort()).toEqual([
      'approve',
      'deny',
      'erase',
      'promoteMemory',
      'resolveStep',
      'setArtifactQuota',
      'setRedactionPolicy',
    ]);
    // No MCP tool is a person's decision: an agent's MCP client never sees one.
    for (const operation of OPS)
      if (operation.callers !== 'any') expect(operation.mcp, operation.name).toBeUndefined();
  });

  it('refuses an agent token over HTTP on every person-only operation: FORBIDDEN, audited, nothing changed', async () => {
    const inputs: Record<string, Record<string, unknown>> = {
      resolveStep: { session, branch: 'main', position: 1, result: 'forged by the agent' },
      approve: { approval },
      deny: { approval },
      promoteMemory: { record: memory },
      setArtifactQuota: { bytes: 1 },
      erase: { subject: `session:${session}` },
      setRedactionPolicy: { enabled: false },
    };
    const before = await snapshot();
    const auditBefore = (await auditActions()).length;
    let refused = 0;
    for (const operation of OPS.filter((o) => o.callers === 'person' || o.callers === 'person-admin')) {
      for (const caller of [agent, agentAdmin]) {
        const method = (caller as unknown as Record<string, (i: unknown) => Promise<unknown>>)[
          operation.name
        ];
        const error = await expectCode(
          (method as (i: unknown) => Promise<unknown>)(inputs[operation.name]),
          'FORBIDDEN',
        );
        expect(error.message, operation.name).toContain('only a person');
        refused++;
      }
    }
    expect(refused).toBe(14);
    expect(await snapshot()).toEqual(before);
    const audit = (await auditActions()).slice(auditBefore);
    expect(audit).toHaveLength(refused);
    for (const entry of audit) expect(entry.action).toBe('authority.refused');
    expect(audit.map((e) => e.resource).sort()).toEqual(
      [
        'approve',
        'approve',
        'deny',
        'deny',
        'erase',
        'erase',
        'promoteMemory',
        'promoteMemory',
        'resolveStep',
        'resolveStep',
        'setArtifactQuota',
        'setArtifactQuota',
        'setRedactionPolicy',
        'setRedactionPolicy',
      ].sort(),
    );
  });

  it('refuses an agent member the admin-only operations, and changes nothing', async () => {
    await expectCode(
      agent.addCredential({
        name: 'ci',
        kind: 'bearer',
        upstream: 'http://127.0.0.1:9/ci',
        value: 'sk_ci_value_1',
      }),
      'FORBIDDEN',
    );
    expect((await person.listCredentials()).credentials.map((c) => c.name)).not.toContain('ci');
  });
});

describe('a person’s token is a person’s to mint', () => {
  it('refuses an agent with the admin role a new user principal or a token of a person: audited, nothing made', async () => {
    const me = await person.whoami();
    const auditBefore = (await auditActions()).length;
    const principals = async () =>
      store.engine.read(tenant, (tx) => tx.all('SELECT id FROM principals WHERE tenant = ?', [tenant]));
    const before = await principals();
    await expectCode(
      agentAdmin.createToken({ kind: 'user', name: 'me now', label: 'escalate' }),
      'FORBIDDEN',
    );
    await expectCode(agentAdmin.createToken({ principal: me.principal, label: 'borrowed' }), 'FORBIDDEN');
    expect(await principals()).toEqual(before);
    const audit = (await auditActions()).slice(auditBefore);
    expect(audit.map((e) => e.action)).toEqual(['authority.refused', 'authority.refused']);
    // An agent for the work is the admin's to make.
    expect(
      (await agentAdmin.createToken({ kind: 'agent', name: 'helper', label: 'helper' })).principal,
    ).toMatch(/^pr_/);
  });
});

describe('event kinds under cairn. are Cairn’s own', () => {
  const forgeries = () => [
    { kind: STEP_EVENT, payload: { resolve: { position: 1, ok: true, result: 'forged' } } },
    {
      kind: STEP_RESOLVE_EVENT,
      payload: { resolve: { position: 1, ok: true, result: 'forged' }, resolvedBy: agentPrincipal },
    },
    { kind: 'cairn.unit.abandon', payload: { workspace: 'ws_0', expiresAt: 0 } },
    { kind: 'cairn.memory.carry', payload: {} },
  ];

  it('refuses an agent’s append of a reserved kind over HTTP: the step stays in doubt and replay runs no forgery', async () => {
    const before = await snapshot();
    const auditBefore = (await auditActions()).length;
    for (const forged of forgeries()) await expectCode(agent.append({ session, ...forged }), 'FORBIDDEN');
    // Another spelling is another kind, refused at the edge: never stored as one of Cairn's.
    await expectCode(agent.append({ session, kind: 'CAIRN.step', payload: {} }), 'INVALID_ARGUMENT');
    expect(await snapshot()).toEqual(before);
    const [step] = (await agent.listSteps({ session })).steps;
    expect(step).toMatchObject({ position: 1, state: 'in-doubt' });
    expect(step?.settledBy).toBeUndefined();
    const replay = await Journal.open(agent, { session });
    await expectCode(
      replay.step('wire', { to: 'acme' }, async () => 'again', { policy: 'escalate' }),
      'IN_DOUBT',
    );
    const audit = (await auditActions()).slice(auditBefore);
    expect(audit.map((e) => e.action)).toEqual(forgeries().map(() => 'log.append.reserved'));
    for (const entry of audit) expect(entry.actor).toBe(agentPrincipal);
  });

  it('refuses the same over MCP (event_append), as a tool error carrying FORBIDDEN', async () => {
    const client = await connectMcp(agentToken);
    const before = await snapshot();
    for (const forged of forgeries()) {
      const result = (await client.callTool({ name: 'event_append', arguments: { session, ...forged } })) as {
        isError?: boolean;
        structuredContent?: { error?: { code?: string } };
      };
      expect(result.isError, forged.kind).toBe(true);
      expect(result.structuredContent?.error?.code).toBe('FORBIDDEN');
    }
    expect(await snapshot()).toEqual(before);
  });

  it('lets the journal record no resolution: recordStep refuses one, and a claimed person’s rerun is not one', async () => {
    const before = await snapshot();
    await expectCode(
      agent.recordStep({
        session,
        branch: 'main',
        payload: { resolve: { position: 1, ok: true, result: 'forged' } } as never,
      }),
      'INVALID_ARGUMENT',
    );
    expect(await snapshot()).toEqual(before);
    // A result the journal says a person's rerun produced, with no rerun resolved: not settled by a person.
    const other = (await agent.createSession({ title: 'claimed rerun' })).id;
    const journal = await Journal.open(agent, { session: other });
    await journal.step('wire', { to: 'beta' }, async () => 'sent', { policy: 'escalate' });
    await agent.recordStep({
      session: other,
      branch: 'main',
      payload: { done: { position: 1, ok: true, result: 'x', via: 'person' } },
    });
    const [step] = (await agent.listSteps({ session: other })).steps;
    expect(step?.settledBy).toBeUndefined();
    expect(step?.resolvedBy).toBeUndefined();
  });

  it('refuses a commit that carries another event than the unit checkpoint', async () => {
    await expectCode(
      agent.deskCommit({
        id: newId('snapshot'),
        workspace: newId('workspace'),
        expectHead: '',
        kind: 'checkpoint',
        root: '0'.repeat(64),
        files: 0,
        bytes: 0,
        addedBytes: 0,
        packs: [],
        reused: [],
        also: { kind: 'cairn.unit.abandon' as 'cairn.unit.checkpoint', payload: { expiresAt: 0 } },
      }),
      'INVALID_ARGUMENT',
    ).then((error) => expect(error.data).toMatchObject({ field: 'also.kind' }));
  });

  it('refuses a reserved kind through the SDK (embedded, any principal: a person’s token too) and the CLI', async () => {
    const before = await snapshot();
    for (const token of [agentToken, await personToken()]) {
      const embedded = store.fabric(await store.authenticate(token));
      for (const forged of forgeries())
        await expectCode(embedded.append({ session, ...forged }), 'FORBIDDEN');
    }
    // Look-alikes of the prefix are not kinds at all (the kind alphabet is lowercase ASCII).
    for (const kind of ['Cairn.step', 'cａirn.step', 'cаirn.step', ' cairn.step', 'cairn\u200b.step'])
      await expectCode(agent.append({ session, kind, payload: {} }), 'INVALID_ARGUMENT');
    expect(await snapshot()).toEqual(before);

    const work = mkdtempSync(join(tmpdir(), 'cairn-authority-cli-'));
    try {
      const { ok, fails } = cliIn(work, join(work, 'store'));
      await ok(['init']);
      const own = (await ok(['session', 'new', '--title', 'cli'])).id as string;
      const payload = JSON.stringify({ resolve: { position: 1, ok: true, result: 'forged' } });
      const error = await fails(
        ['log', 'append', own, '--kind', 'cairn.step', '--payload', payload, '--store', join(work, 'store')],
        6,
      );
      expect(error).toMatchObject({ code: 'FORBIDDEN', data: { kind: 'cairn.step' } });
      expect((await ok(['log', 'show', own])).events).toEqual([]);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  it('settles a step by a person’s resolveStep only, naming the person; replay honours it', async () => {
    const who = await person.whoami();
    const record = await person.resolveStep({
      session,
      branch: 'main',
      position: 1,
      result: 'confirmed by the bank',
    });
    expect(record).toMatchObject({ state: 'done', settledBy: 'person', resolvedBy: who.principal });
    const [listed] = (await agent.listSteps({ session })).steps;
    expect(listed).toMatchObject({ state: 'done', settledBy: 'person', resolvedBy: who.principal });
    const replay = await Journal.open(agent, { session });
    expect(await replay.step('wire', { to: 'acme' }, async () => 'never', { policy: 'escalate' })).toBe(
      'confirmed by the bank',
    );
  });
});
