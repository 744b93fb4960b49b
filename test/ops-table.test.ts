/**
 * The table of operations against the surfaces made from it: the HTTP
 * routes the server registers, the OpenAPI document, the remote client and
 * the embedded fabric expose exactly the table's operations; every answer of
 * a live server matches the operation's output schema; and tenant A's token
 * on tenant B's ids, tried on every operation of the table, sees nothing of
 * B and changes nothing (a new operation is covered the day it is added).
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../src/client/connect.js';
import type { RemoteFabric } from '../src/client/remote-fabric.js';
import { inputJsonSchema, pathFieldsOf } from '../src/contract/json-schema.js';
import { digestOf } from '../src/desk/chunker.js';
import { packIndex } from '../src/desk/pack-format.js';
import { PACK_SALT } from '../src/desk/pack-limits.js';
import { CairnError } from '../src/errors.js';
import { newId } from '../src/ids.js';
import { MasterKey } from '../src/keys/crypto.js';
import type { Keys } from '../src/keys/keys.js';
import type { Op } from '../src/ops/op.js';
import { OPERATIONS } from '../src/ops/table.js';
import { createApp, type RunningServer, startServer } from '../src/server/index.js';
import { openApiDocument } from '../src/server/openapi.js';
import { Journal } from '../src/steps/journal.js';
import type { Store } from '../src/store.js';
import { expectCode } from '../src/testing/expect-code.js';
import { heldWrites } from './support/held-writes.js';
import { sqliteStore, tempDir } from './support/stores.js';
import { put } from './support/trees.js';

const OPS = Object.values(OPERATIONS) as Op[];
const served = OPS.filter((o) => o.runs === 'anywhere');
const key = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

/** Ids a tenant owns, by the input field names operations take them in. */
interface Owned {
  session: string;
  event: string;
  approval: string;
  /** A second held request, for `deny`. */
  approval2: string;
  grant: string;
  token: string;
  principal: string;
  /** A workspace of the desk, its first snapshot, its directory and its root tree. */
  workspace: string;
  snapshot: string;
  dir: string;
  root: string;
  /** A memory record of the tenant, in its session. */
  memory: string;
  /** An artifact of the tenant, in its session. */
  artifact: string;
}

const HOST = 'table-host';
const desks = tempDir('cairn-table-desk-');

/** The store's one vault master key: the server seals and opens with it too. */
const masterKey = MasterKey.generate();

/** A tenant with one of everything the table's operations name. */
async function populate(store: Store, token: string, secret: string): Promise<Owned> {
  const who = await store.authenticate(token);
  const fabric = store.fabric(who);
  const session = await fabric.createSession({ title: `${secret} session` });
  const event = await fabric.append({ session: session.id, kind: 'message', payload: secret });
  const minted = await fabric.createToken({ kind: 'agent', name: `${secret} agent`, label: secret });
  const memory = await fabric.remember({
    scope: { session: session.id },
    text: `${secret} memo`,
    source: 'person',
  });
  // A step left in doubt (its result never recorded), for listSteps and resolveStep.
  await (await Journal.open(fabric, { session: session.id })).step('pay', { secret }, async () => secret);
  const keys: Keys = store.keys(who, { masterKey });
  const { grant, approvals: held } = await heldWrites(
    keys,
    session.id,
    `sk_${secret}_1`,
    [1, 2].map((amount) => JSON.stringify({ amount, note: secret })),
  );
  const dir = join(desks.dir, secret);
  put(dir, 'notes.txt', `${secret} notes\n`);
  const desk = store.desk(who, { host: HOST, stateDir: join(desks.dir, `${secret}-state`) });
  const attached = await desk.attach({ dir, session: session.id });
  await desk.close();
  const artifact = await fabric.publishArtifact({
    session: session.id,
    name: `${secret}.txt`,
    bytes: Buffer.from(`${secret} notes\n`),
    snapshot: attached.checkpoint.snapshot.id,
    path: 'notes.txt',
  });
  return {
    artifact: artifact.id,
    workspace: attached.workspace.id,
    snapshot: attached.checkpoint.snapshot.id,
    dir: attached.workspace.dir,
    root: attached.checkpoint.snapshot.root,
    session: session.id,
    event: event.id,
    approval: held[0] as string,
    approval2: held[1] as string,
    grant,
    token: minted.id,
    principal: minted.principal,
    memory: memory.id,
  };
}

/** An input for `operation` naming the given tenant's records wherever it takes an id. */
function inputFor(operation: Op, ids: Owned): Record<string, unknown> {
  const values: Record<string, unknown> = {
    session: ids.session,
    event: ids.event,
    to: ids.event,
    at: ids.event,
    branch: 'main',
    approval: operation.name === 'deny' ? ids.approval2 : ids.approval,
    grant: ids.grant,
    token: ids.token,
    principal: ids.principal,
    kind: operation.name === 'createToken' ? 'agent' : 'message',
    payload: 'from the table test',
    name: `t-${operation.name.toLowerCase()}`,
    workspace: ids.workspace,
    snapshot: ids.snapshot,
    digests: [ids.root],
    position: 1,
    record: ids.memory,
    scope: { session: ids.session },
    query: 'memo',
    text: 'from the table test',
    artifact: ids.artifact,
    bytes: Buffer.from('from the table test'),
  };
  const properties = Object.keys(inputJsonSchema(operation).properties ?? {});
  const input = Object.fromEntries(properties.filter((p) => p in values).map((p) => [p, values[p]]));
  // Fields whose meaning is the operation's own.
  const own: Record<string, Record<string, unknown>> = {
    addCredential: {
      name: 'c-new',
      kind: 'bearer',
      upstream: 'http://127.0.0.1:9/new',
      value: 'sk_new_value_1',
    },
    rotateCredential: { name: 'billing', value: 'sk_rotated_value_1' },
    deleteCredential: { name: 'c-new' },
    addGrant: { credential: 'c-new', mode: 'read', approval: 'none' },
    checkGrant: { credential: 'billing', mode: 'read', approval: 'none' },
    resolveStep: { result: 'settled by the table test' },
    // The journal's and the unit's own records (Cairn's kinds, which `append` refuses).
    recordStep: { payload: { probe: { position: 1, happened: false } } },
    recordCheckpoint: {
      payload: {
        label: 'from the table test',
        head: '',
        workspace: ids.workspace,
        snapshot: ids.snapshot,
        root: ids.root,
        inDoubt: [],
        evidence: { checks: [] },
        accepted: true,
      },
    },
    abandonBranch: { expiresAt: Number.MAX_SAFE_INTEGER },
    remember: { kind: 'fact' },
    rememberMany: { records: [{ scope: { session: ids.session }, text: 'from the table test, in a batch' }] },
    // Into the branch the table's `fork` made (it runs before, in the table's order).
    carryMemory: { from: 'main', to: 't-fork' },
    // main is kept for itself: nothing is dropped, the call is valid.
    dropBranchMemory: { keepFor: ['main'] },
    // The desk's contract: a pack of the caller's own, a commit after the workspace's head, a fork of it.
    deskPutPack: { digest: pack.digest, bytes: pack.bytes },
    deskDiscardPacks: { packs: [] },
    // A derived artifact: its input the tenant's own.
    publishArtifact: { name: 'derived.txt', inputs: [ids.artifact], snapshot: undefined },
    setArtifactQuota: { bytes: 1_000_000_000 },
    // The audit tree's own numbers (auditCheckpoint, before them in the table, signs one).
    auditProof: { entry: 0 },
    auditConsistency: { from: 1, to: undefined },
    // A preview: the table's later operations still need the session.
    erase: { subject: `session:${ids.session}`, preview: true },
    attachedAt: { host: HOST, paths: [ids.dir] },
    deskCommit: {
      id: newId('snapshot'),
      kind: 'checkpoint',
      expectHead: ids.snapshot,
      root: ids.root,
      files: 1,
      bytes: 10,
      addedBytes: 0,
      packs: [],
      reused: [ids.root],
      payload: {},
    },
    deskRefused: { action: 'discard', reason: 'not-created', host: HOST, dir: ids.dir },
    deskFork: {
      id: newId('workspace'),
      from: ids.workspace,
      host: HOST,
      path: `/table-fork-${randomBytes(4).toString('hex')}`,
      driver: 'copy',
      baseSnapshot: ids.snapshot,
      branch: `fork-${randomBytes(4).toString('hex')}`,
    },
  };
  return { ...input, ...own[operation.name] };
}

/** Every value inside `value`, at any depth (what a caller sent, nested in records or scopes). */
function leaves(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.flatMap(leaves);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(leaves);
  return [value];
}

/** A valid pack of one object (stored in the caller's own tenant). */
const pack = (() => {
  const object = randomBytes(64);
  const bytes = Buffer.concat([
    randomBytes(PACK_SALT),
    object,
    packIndex([{ digest: digestOf(object), kind: 'chunk', off: PACK_SALT, len: object.length }]),
  ]);
  return { digest: digestOf(bytes), bytes };
})();

let server: RunningServer;
let store: Store;
let cleanup: () => Promise<void>;
let a: RemoteFabric;
let tokens: { a: string; b: string };
let idsA: Owned;
let idsB: Owned;

beforeAll(async () => {
  ({ store, cleanup } = await sqliteStore());
  const tenantA = await store.createTenant('a');
  const tenantB = await store.createTenant('b');
  tokens = { a: tenantA.token.token, b: tenantB.token.token };
  idsA = await populate(store, tokens.a, 'alpha-secret');
  idsB = await populate(store, tokens.b, 'bravo-secret');
  server = await startServer(store, { host: '127.0.0.1', port: 0, masterKey });
  a = connect({ url: server.url, token: tokens.a });
});

afterAll(async () => {
  await a?.close();
  await server?.close();
  await cleanup?.();
  desks.remove();
});

describe('the table of operations', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  it('is what the HTTP server routes, the OpenAPI document describes, and both fabrics offer', () => {
    const table = new Set(served.map((o) => key(o.http.method, o.http.path)));
    const app = createApp(store);
    const routes = new Set(
      app.routes
        .filter((r) => r.path.startsWith('/v1/') && r.method !== 'ALL')
        .map((r) => key(r.method, r.path.replace(/:(\w+)/g, '{$1}'))),
    );
    expect([...routes].sort()).toEqual([...table].sort());
    const document = openApiDocument() as { paths: Record<string, Record<string, { operationId: string }>> };
    const described = new Set<string>();
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, entry] of Object.entries(methods)) {
        described.add(key(method, path));
        expect(OPERATIONS[entry.operationId as keyof typeof OPERATIONS]?.http.path).toBe(path);
      }
    }
    expect([...described].sort()).toEqual([...table].sort());
    const methodsOf = (o: object) =>
      Object.keys(o)
        .filter((k) => typeof (o as Record<string, unknown>)[k] === 'function')
        .sort();
    const names = OPS.map((o) => o.name).sort();
    expect(methodsOf(a)).toEqual(names);
    expect(methodsOf(store.fabric({ tenant: 't', principal: 'p', kind: 'user', role: 'admin' }))).toEqual(
      names,
    );
    // Each entry's name is its key, and every path field is an input field.
    for (const [name, operation] of Object.entries(OPERATIONS) as [string, Op][]) {
      expect(operation.name).toBe(name);
      const fields = Object.keys(inputJsonSchema(operation).properties ?? {});
      for (const field of pathFieldsOf(operation)) expect(fields, `${name}: ${field}`).toContain(field);
    }
  });

  it('refuses, through the server, the operations that run where the workspace is, saying so', async () => {
    const local = OPS.filter((o) => o.runs === 'caller');
    expect(local.map((o) => o.name).sort()).toEqual([
      'attachWorkspace',
      'checkpoint',
      'forkUnit',
      'publishWorkspaceFile',
      'restore',
      'status',
    ]);
    for (const operation of local) {
      const method = (a as unknown as Record<string, (i: unknown) => Promise<unknown>>)[operation.name];
      const error = await (method as (i: unknown) => Promise<unknown>)({}).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error, operation.name).toBeInstanceOf(CairnError);
      expect((error as CairnError).code).toBe('UNAVAILABLE');
      expect((error as CairnError).message).toContain('runs where the workspace is');
    }
  });

  /** The answer is what the OpenAPI document says this route answers (any of its success statuses). */
  function matchesDocument(operation: Op, answer: unknown): void {
    const http = operation.http as NonNullable<Op['http']>;
    const document = openApiDocument() as {
      paths: Record<
        string,
        Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>
      >;
    };
    const entry = document.paths[http.path]?.[http.method.toLowerCase()];
    expect(entry, `${operation.name}: in the document`).toBeDefined();
    if (http.body === 'bytes')
      expect(
        Object.keys((entry as { requestBody?: { content: object } }).requestBody?.content ?? {}),
      ).toEqual(['application/octet-stream']);
    const successes = Object.entries(entry?.responses ?? {}).filter(([status]) => /^2/.test(status));
    expect(successes.length, operation.name).toBeGreaterThan(0);
    for (const [, response] of successes) {
      if (http.answer === 'content') {
        // One object's bytes, raw, whatever their type; what it is travels in headers.
        expect(Object.keys(response.content ?? {}), operation.name).toEqual(['*/*']);
        const content = answer as { bytes: Uint8Array; offset: number; size: number; digest: string };
        expect(content.bytes, operation.name).toBeInstanceOf(Uint8Array);
        expect(content.digest, operation.name).toMatch(/^[0-9a-f]{64}$/);
        expect(content.offset + content.bytes.length, operation.name).toBeLessThanOrEqual(content.size);
        continue;
      }
      if (http.answer === 'bytes') {
        expect(Object.keys(response.content ?? {}), operation.name).toEqual(['application/octet-stream']);
        expect(
          (answer as unknown[]).every((b) => Buffer.isBuffer(b)),
          operation.name,
        ).toBe(true);
        continue;
      }
      const validate = ajv.compile(response.content?.['application/json']?.schema as object);
      expect(
        validate(JSON.parse(JSON.stringify(answer))),
        `${operation.name}: ${JSON.stringify(validate.errors)}`,
      ).toBe(true);
    }
  }

  it("answers every operation on the caller's own records with what its output schema describes", async () => {
    // Reads first, then writes, so each write finds what it acts on; the credential made is granted, then deleted.
    const rank = (o: Op) =>
      o.effect === 'read'
        ? 0
        : o.name === 'addCredential' || o.name === 'resolveStep' // before a rewind takes the step off main
          ? 1
          : o.name === 'deleteCredential'
            ? 3
            : 2;
    const ordered = [...served].sort((x, y) => rank(x) - rank(y));
    for (const operation of ordered) {
      const input = inputFor(operation, idsA);
      if (operation.name === 'createToken') delete input.principal; // a new principal: A's own admin may
      const method = (a as unknown as Record<string, (i: unknown) => Promise<unknown>>)[operation.name];
      if (operation.name === 'reindexMemory') {
        // This server was given no embedding function: it says what the operation needs.
        await expectCode((method as (i: unknown) => Promise<unknown>)(input), 'UNAVAILABLE');
        continue;
      }
      const answer = await (method as (i: unknown) => Promise<unknown>)(input);
      matchesDocument(operation, answer);
      const parsed = operation.output.safeParse(answer);
      expect(parsed.success, `${operation.name}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
      // Nothing in the answer that the schema does not describe (zod drops unknown keys).
      expect(parsed.data, operation.name).toEqual(answer);
    }
  });

  it("answers tenant A's token on tenant B's ids, on every operation, with nothing of B and changes nothing", async () => {
    const before = {
      events: (await store.fabric(await store.authenticate(tokens.b)).readBranch({ session: idsB.session }))
        .events,
      approvals: await store.keys(await store.authenticate(tokens.b)).listApprovals({ state: 'all' }),
      grants: await store.keys(await store.authenticate(tokens.b)).listGrants(),
      credentials: await store.keys(await store.authenticate(tokens.b)).listCredentials(),
      workspaces: await store.fabric(await store.authenticate(tokens.b)).listWorkspaces(),
      snapshots: await store
        .fabric(await store.authenticate(tokens.b))
        .listSnapshots({ workspace: idsB.workspace }),
    };
    const secretsOfB = ['bravo-secret', ...Object.values(idsB)];
    let tried = 0;
    for (const operation of served) {
      const input = inputFor(operation, idsB);
      // A token for B's principal (kind and name describe a new principal instead).
      if (operation.name === 'createToken') for (const field of ['kind', 'name']) delete input[field];
      const method = (a as unknown as Record<string, (i: unknown) => Promise<unknown>>)[operation.name];
      let answer: unknown;
      try {
        answer = await (method as (i: unknown) => Promise<unknown>)(input);
      } catch (error) {
        expect(error, operation.name).toBeInstanceOf(CairnError);
        // B's ids are unknown to A (never FORBIDDEN, which would confirm they exist); an input naming
        // none of them may fail on A's own records (a name A already uses: CONFLICT).
        const ofB = new Set<unknown>(Object.values(idsB));
        if (Object.values(input).some((v) => ofB.has(v)))
          expect((error as CairnError).code, operation.name).toBe('NOT_FOUND');
        answer = (error as CairnError).toJSON();
      }
      tried++;
      // What A sent it may see again (an error naming the id it asked for); nothing else of B's.
      const text = JSON.stringify(answer);
      const sent = new Set(leaves(input));
      for (const secret of secretsOfB.filter((s) => !sent.has(s))) {
        expect(text, `${operation.name} leaks ${secret}`).not.toContain(secret);
      }
    }
    expect(tried).toBe(served.length);
    const b = await store.authenticate(tokens.b);
    expect((await store.fabric(b).readBranch({ session: idsB.session })).events).toEqual(before.events);
    expect(await store.keys(b).listApprovals({ state: 'all' })).toEqual(before.approvals);
    expect(await store.keys(b).listGrants()).toEqual(before.grants);
    expect(await store.keys(b).listCredentials()).toEqual(before.credentials);
    expect(await store.fabric(b).listWorkspaces()).toEqual(before.workspaces);
    expect(await store.fabric(b).listSnapshots({ workspace: idsB.workspace })).toEqual(before.snapshots);
    // B's minted token still works.
    expect((await store.fabric(b).whoami()).tenant).toBe(b.tenant);
  });
});
