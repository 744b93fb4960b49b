import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresBlobStore } from '../src/blob/postgres/postgres-blob-store.js';
import { digestOf } from '../src/desk/chunker.js';
import { packIndex } from '../src/desk/pack-format.js';
import { PACK_SALT } from '../src/desk/pack-limits.js';
import { sha256Hex } from '../src/digest.js';
import type { EmbeddedFabric } from '../src/embedded-fabric.js';
import { CairnError } from '../src/errors.js';
import { FEATURE_TABLES } from '../src/features.js';
import { MasterKey } from '../src/keys/crypto.js';
import { NO_TENANT } from '../src/storage/engine.js';
import { CURRENT_FORMAT_VERSION } from '../src/storage/migrations.js';
import { PostgresEngine } from '../src/storage/postgres/postgres-engine.js';
import { Store } from '../src/store.js';
import type { Identity } from '../src/types.js';
import {
  APP_ROLE,
  describePostgres,
  freshPostgresDatabase,
  PG_ADMIN_URL,
  type PostgresTestDatabase,
} from './support/postgres.js';

/** Every table row-level security guards, with the column holding the tenant. */
const GUARDED: Array<{ table: string; column: string }> = [
  { table: 'tenants', column: 'id' },
  ...FEATURE_TABLES.flatMap((f) => f.rowSecured)
    .filter((table) => table !== 'tenants')
    .map((table) => ({
      table,
      column: 'tenant',
    })),
];

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  return client;
}

/** Runs fn in one transaction of a raw connection, with `cairn.tenant` set locally when tenant is given. */
async function inTransaction<T>(
  client: pg.Client,
  tenant: string | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  await client.query('BEGIN');
  try {
    if (tenant !== undefined) await client.query("SELECT set_config('cairn.tenant', $1, true)", [tenant]);
    const value = await fn();
    await client.query('COMMIT');
    return value;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}

async function expectCairnError(promise: Promise<unknown>, code: CairnError['code']): Promise<CairnError> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(CairnError);
  expect((error as CairnError).code).toBe(code);
  return error as CairnError;
}

async function formatVersion(url: string): Promise<string | undefined> {
  const client = await connect(url);
  try {
    const { rows } = await client.query("SELECT value FROM cairn_meta WHERE key = 'format_version'");
    return rows[0]?.value;
  } finally {
    await client.end();
  }
}

describePostgres('PostgresEngine: opening and format version', () => {
  const databases: PostgresTestDatabase[] = [];
  const fresh = async () => {
    const db = await freshPostgresDatabase();
    databases.push(db);
    return db;
  };
  afterAll(async () => {
    await Promise.all(databases.map((db) => db.drop()));
  });

  it('migrates a fresh database to the current format version, and reopens idempotently', async () => {
    expect(CURRENT_FORMAT_VERSION).toBe(13);
    const db = await fresh();
    const engine = await PostgresEngine.open({ connectionString: db.url });
    expect(engine.dialect).toBe('postgres');
    expect(engine.capabilities.rowLevelSecurity).toBe(true);
    await engine.close();
    expect(await formatVersion(db.url)).toBe(String(CURRENT_FORMAT_VERSION));

    const admin = await connect(db.adminUrl);
    try {
      const policies = async () =>
        (
          await admin.query<{ tablename: string; owner: string; forced: boolean }>(
            `SELECT c.relname AS tablename, pg_get_userbyid(c.relowner) AS owner, c.relforcerowsecurity AS forced
             FROM pg_class c JOIN pg_policies p ON p.tablename = c.relname AND p.schemaname = 'public'
             WHERE c.relnamespace = 'public'::regnamespace ORDER BY c.relname`,
          )
        ).rows;
      const before = await policies();
      // Every tenant table has its policy, forced, on tables the application role owns.
      expect(before.map((p) => p.tablename).sort()).toEqual(GUARDED.map((g) => g.table).sort());
      expect(before.every((p) => p.forced && p.owner === APP_ROLE)).toBe(true);
      // And every table but the store's own format record is a tenant table: a feature that forgets to
      // declare one of its tables row-secured (its tables.ts) fails here.
      const tables = (
        await admin.query<{ tablename: string }>(
          "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'cairn_meta'",
        )
      ).rows.map((r) => r.tablename);
      expect(tables.sort()).toEqual(GUARDED.map((g) => g.table).sort());

      const again = await PostgresEngine.open({ connectionString: db.url });
      await again.close();
      const third = await PostgresEngine.open({ connectionString: db.url });
      await third.close();
      expect(await formatVersion(db.url)).toBe(String(CURRENT_FORMAT_VERSION));
      expect(await policies()).toEqual(before);
    } finally {
      await admin.end();
    }
  });

  it('lets replicas that start together migrate a fresh database once', async () => {
    const db = await fresh();
    const engines = await Promise.all(
      Array.from({ length: 6 }, () => PostgresEngine.open({ connectionString: db.url, max: 2 })),
    );
    await Promise.all(engines.map((engine) => engine.close()));
    expect(await formatVersion(db.url)).toBe(String(CURRENT_FORMAT_VERSION));
  });

  it('refuses a store written by a newer Cairn (UNSUPPORTED_FORMAT)', async () => {
    const db = await fresh();
    const engine = await PostgresEngine.open({ connectionString: db.url });
    await engine.close();
    const client = await connect(db.url);
    await client.query("UPDATE cairn_meta SET value = '999' WHERE key = 'format_version'");
    await client.end();
    const error = await expectCairnError(
      PostgresEngine.open({ connectionString: db.url }),
      'UNSUPPORTED_FORMAT',
    );
    expect(error.data).toMatchObject({ storeVersion: 999, supportedVersion: CURRENT_FORMAT_VERSION });
    expect(await formatVersion(db.url)).toBe('999');
  });

  it('refuses a superuser connection (FORBIDDEN), before touching the schema', async () => {
    const db = await fresh();
    const error = await expectCairnError(PostgresEngine.open({ connectionString: db.adminUrl }), 'FORBIDDEN');
    expect(error.message).toMatch(/SUPERUSER|BYPASSRLS/);
    const admin = await connect(db.adminUrl);
    try {
      const { rows } = await admin.query("SELECT to_regclass('public.cairn_meta') AS meta");
      expect(rows[0].meta).toBeNull();
    } finally {
      await admin.end();
    }
  });

  it('refuses a BYPASSRLS role that is not a superuser (FORBIDDEN)', async () => {
    const db = await fresh();
    const role = `${db.name}_bypass`;
    // Roles belong to the cluster: create and drop this one from the administrator's own database.
    const admin = await connect(PG_ADMIN_URL);
    try {
      await admin.query(`CREATE ROLE "${role}" LOGIN NOSUPERUSER BYPASSRLS`);
      const url = new URL(db.url);
      url.username = role;
      await expectCairnError(PostgresEngine.open({ connectionString: url.toString() }), 'FORBIDDEN');
    } finally {
      await db.drop();
      await admin.query(`DROP ROLE IF EXISTS "${role}"`);
      await admin.end();
    }
  });

  it('reports an unreachable server as UNAVAILABLE', async () => {
    const error = await expectCairnError(
      PostgresEngine.open({ connectionString: 'postgres://cairn_app@127.0.0.1:1/nowhere' }),
      'UNAVAILABLE',
    );
    expect(error.message).toMatch(/reachable/);
  });
});

interface TenantWorld {
  tenant: string;
  who: Identity;
  fabric: EmbeddedFabric;
  session: string;
  blob: string;
}

describePostgres('PostgresEngine: row-level security, blobs and concurrency', () => {
  let db: PostgresTestDatabase;
  let engine: PostgresEngine;
  let store: Store;
  let blobs: PostgresBlobStore;
  let a: TenantWorld;
  let b: TenantWorld;
  const cleanups: (() => void)[] = [];

  async function world(name: string): Promise<TenantWorld> {
    const created = await store.createTenant(name);
    const who = await store.authenticate(created.token.token);
    expect(who.tenant).toBe(created.tenant);
    const fabric = store.fabric(who);
    const session = await fabric.createSession({ title: `${name}'s session` });
    let head = '';
    for (let i = 0; i < 3; i++) {
      head = (await fabric.append({ session: session.id, kind: 'message', payload: { tenant: name, i } })).id;
    }
    await fabric.fork({ session: session.id, at: head, name: 'attempt' });
    await fabric.append({ session: session.id, branch: 'attempt', kind: 'note', payload: { tenant: name } });
    // An erasure (its row, tombstones in the chain) of a session of its own (before the blob no row names, which its sweep would take).
    const spare = await fabric.createSession({ title: `${name} spare` });
    await fabric.append({ session: spare.id, kind: 'note', payload: { text: `${name} gone` } });
    await fabric.erase({ subject: `session:${spare.id}` });
    // A redaction policy (its one row).
    await fabric.setRedactionPolicy({ enabled: true, kinds: ['email'] });
    const blob = await blobs.put(created.tenant, Buffer.from(`blob of tenant ${name}`));
    // Desk rows too: a workspace, its snapshots, objects and packs (inline and as blobs).
    const dir = mkdtempSync(join(tmpdir(), `cairn-pg-desk-${name}-`));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const desk = store.desk(who, { stateDir: join(dir, '.state'), host: 'pg-test' });
    const work = join(dir, 'work');
    mkdirSync(work);
    writeFileSync(join(work, 'small.txt'), `small file of tenant ${name}\n`);
    const { workspace } = await desk.attach({ dir: work, session: session.id });
    writeFileSync(join(work, 'big.bin'), randomBytes(300 * 1024));
    await desk.checkpoint(workspace.id);
    await desk.close();
    // A pack stored ahead of its snapshot: its objects are staged (desk_staged) until a commit names it.
    const staged = Buffer.from(`staged object of tenant ${name}`);
    const pack = Buffer.concat([
      randomBytes(PACK_SALT),
      staged,
      packIndex([{ digest: digestOf(staged), kind: 'chunk', off: PACK_SALT, len: staged.length }]),
    ]);
    await fabric.deskPutPack({ digest: digestOf(pack), bytes: pack });
    // Keys rows too: a credential, a grant, a handle and a held write (an approval).
    const keys = store.keys(who, { masterKey: MasterKey.generate() });
    await keys.addCredential({
      name: 'billing',
      kind: 'bearer',
      upstream: 'http://127.0.0.1:9/api',
      value: Buffer.from(`secret-${name}`),
    });
    await keys.grant({
      session: session.id,
      branch: 'main',
      credential: 'billing',
      mode: 'live',
      approval: 'each-write',
    });
    const { handle } = await keys.issueHandle({ session: session.id, branch: 'main' });
    const held = await keys.authorizeRequest({
      handle,
      credential: 'billing',
      method: 'POST',
      pathAndQuery: '/x',
      body: Buffer.alloc(0),
    });
    expect(held.outcome).toBe('hold');
    // Memory: a record in the session (its anchor) and one made from it (a derivation edge).
    const memory = store.memory(who);
    const noted = await memory.remember({
      scope: { session: session.id },
      text: `${name} noted`,
      source: 'person',
    });
    await memory.remember({ scope: { user: 'u' }, text: `${name} derived`, derivedFrom: [noted.id] });
    // Artifacts: one made from another (chunk, input rows), under a quota of the tenant's own.
    const first = await fabric.publishArtifact({
      session: session.id,
      name: 'a.txt',
      bytes: Buffer.from(name),
    });
    await fabric.publishArtifact({
      session: session.id,
      name: 'b.txt',
      bytes: Buffer.from(`${name}!`),
      inputs: [first.id],
    });
    await fabric.setArtifactQuota({ bytes: 1_000_000 });
    // The audit tree: its tiles and a signed checkpoint, which verify against the entries on this engine too.
    await fabric.auditCheckpoint({});
    expect((await fabric.verifyAudit({})).ok).toBe(true);
    return { tenant: created.tenant, who, fabric, session: session.id, blob };
  }

  beforeAll(async () => {
    db = await freshPostgresDatabase();
    engine = await PostgresEngine.open({ connectionString: db.url });
    blobs = new PostgresBlobStore(engine);
    store = new Store(engine, blobs);
    a = await world('a');
    b = await world('b');
  });

  afterAll(async () => {
    await store?.close();
    await db?.drop();
    for (const cleanup of cleanups.splice(0)) cleanup();
  });

  describe('row-level security, seen through a raw connection of the application role', () => {
    let client: pg.Client;
    beforeAll(async () => {
      client = await connect(db.url);
      const { rows } = await client.query('SELECT current_user AS role');
      expect(rows[0].role).toBe(APP_ROLE);
    });
    afterAll(async () => {
      await client?.end();
    });

    it.each(GUARDED)(
      "with cairn.tenant = A, SELECT * FROM $table shows only A's rows",
      async ({ table, column }) => {
        const rows = await inTransaction(
          client,
          a.tenant,
          async () => (await client.query(`SELECT * FROM ${table}`)).rows,
        );
        expect(rows.length).toBeGreaterThan(0);
        expect(rows.filter((row) => row[column] !== a.tenant)).toEqual([]);
        // And B's rows do exist: B sees its own.
        const theirs = await inTransaction(
          client,
          b.tenant,
          async () => (await client.query(`SELECT * FROM ${table}`)).rows,
        );
        expect(theirs.length).toBeGreaterThan(0);
        expect(theirs.every((row) => row[column] === b.tenant)).toBe(true);
      },
    );

    it.each(GUARDED)('with no cairn.tenant at all, SELECT * FROM $table shows nothing', async ({ table }) => {
      const fresh = await connect(db.url);
      try {
        const { rows } = await fresh.query(`SELECT * FROM ${table}`);
        expect(rows).toEqual([]);
      } finally {
        await fresh.end();
      }
      // A connection whose earlier transaction set the tenant locally is back to none afterwards.
      await inTransaction(client, a.tenant, async () => {});
      expect((await client.query(`SELECT * FROM ${table}`)).rows).toEqual([]);
      expect(
        await inTransaction(client, '', async () => (await client.query(`SELECT * FROM ${table}`)).rows),
      ).toEqual([]);
    });

    it("rejects inserting tenant B's row while cairn.tenant = A", async () => {
      const insert = inTransaction(client, a.tenant, () =>
        client.query(
          `INSERT INTO events (tenant, id, session, branch, line, seq, parent, kind, payload, actor, owner, at, idem_key)
           VALUES ($1, 'ev_00000000000000000000000000', $2, 'main', 'ln_00000000000000000000000000', 99, '', 'note', 'null', 'x', 'x', 0, NULL)`,
          [b.tenant, b.session],
        ),
      );
      const error = (await rejection(insert)) as { code?: string; message: string };
      expect(error.code).toBe('42501');
      expect(error.message).toMatch(/row-level security/);
      const count = await inTransaction(client, b.tenant, async () => {
        const { rows } = await client.query(
          "SELECT COUNT(*)::int AS n FROM events WHERE id = 'ev_00000000000000000000000000'",
        );
        return rows[0].n;
      });
      expect(count).toBe(0);
    });

    it("cannot update, delete or re-tenant B's rows while cairn.tenant = A", async () => {
      await inTransaction(client, a.tenant, async () => {
        expect(
          (await client.query('UPDATE events SET payload = $1 WHERE tenant = $2', ['"x"', b.tenant]))
            .rowCount,
        ).toBe(0);
        expect((await client.query('DELETE FROM blobs WHERE tenant = $1', [b.tenant])).rowCount).toBe(0);
      });
      const moved = inTransaction(client, a.tenant, () =>
        client.query('UPDATE sessions SET tenant = $1 WHERE tenant = $2', [b.tenant, a.tenant]),
      );
      expect(((await rejection(moved)) as { code?: string }).code).toBe('42501');
      const left = await inTransaction(
        client,
        b.tenant,
        async () => (await client.query('SELECT COUNT(*)::int AS n FROM events')).rows[0].n,
      );
      expect(left).toBe(9); // 4 appended + 2 desk checkpoint events + 1 memory write + 2 artifacts
    });

    it('the engine itself scopes an unfiltered query to the transaction tenant', async () => {
      const rows = await engine.read(a.tenant, (tx) =>
        tx.all<{ tenant: string }>('SELECT tenant FROM events'),
      );
      expect(rows).toHaveLength(9); // 4 appended + 2 desk checkpoint events + 1 memory write + 2 artifacts
      expect(rows.every((row) => row.tenant === a.tenant)).toBe(true);
      expect(await engine.read(NO_TENANT, (tx) => tx.all('SELECT * FROM events'))).toEqual([]);
      expect(await engine.write(NO_TENANT, (tx) => tx.all('SELECT * FROM principals'))).toEqual([]);
    });

    it("a fabric of tenant A cannot reach B's session", async () => {
      await expectCairnError(a.fabric.getSession({ session: b.session }), 'NOT_FOUND');
      await expectCairnError(a.fabric.append({ session: b.session, kind: 'note' }), 'NOT_FOUND');
      expect((await a.fabric.verifyAudit()).ok).toBe(true);
      expect((await b.fabric.verifyAudit()).ok).toBe(true);
    });
  });

  describe('transactions and errors', () => {
    const blobCount = (tenant: string) =>
      engine.read(tenant, async (tx) => (await tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM blobs'))!.n);

    it('leaves nothing behind when the function throws', async () => {
      const before = await blobCount(a.tenant);
      const boom = new Error('boom');
      const error = await rejection(
        engine.write(a.tenant, async (tx) => {
          await tx.run('INSERT INTO blobs (tenant, digest, size, bytes) VALUES (?, ?, ?, ?)', [
            a.tenant,
            'f'.repeat(64),
            0,
            Buffer.alloc(0),
          ]);
          throw boom;
        }),
      );
      expect(error).toBe(boom);
      expect(await blobCount(a.tenant)).toBe(before);
    });

    it('reports a statement the policy rejects as INTERNAL, with its SQLSTATE', async () => {
      const error = await expectCairnError(
        engine.write(a.tenant, (tx) =>
          tx.run(
            'INSERT INTO sessions (tenant, id, owner, title, meta, created_at) VALUES (?, ?, ?, ?, ?, ?)',
            [b.tenant, 'ss_00000000000000000000000000', 'x', '', '{}', 0],
          ),
        ),
        'INTERNAL',
      );
      expect(error.data).toEqual({ sqlState: '42501' });
      expect(error.message).toMatch(/row-level security/);
    });

    it('does not report success when a failed statement was caught inside the transaction', async () => {
      const before = await blobCount(a.tenant);
      await expectCairnError(
        engine.write(a.tenant, async (tx) => {
          await tx.run('INSERT INTO blobs (tenant, digest, size, bytes) VALUES (?, ?, ?, ?)', [
            a.tenant,
            'e'.repeat(64),
            0,
            Buffer.alloc(0),
          ]);
          await tx.run('SELECT * FROM no_such_table').catch(() => 0);
        }),
        'INTERNAL',
      );
      expect(await blobCount(a.tenant)).toBe(before);
    });

    it('reports a connection lost mid-transaction as UNAVAILABLE, and recovers', async () => {
      const single = await PostgresEngine.open({ connectionString: db.url, max: 1 });
      const admin = await connect(db.adminUrl);
      try {
        await expectCairnError(
          single.write(a.tenant, async (tx) => {
            const { pid } = (await tx.get<{ pid: number }>('SELECT pg_backend_pid() AS pid'))!;
            await admin.query('SELECT pg_terminate_backend($1)', [pid]);
            await tx.run('SELECT 1');
          }),
          'UNAVAILABLE',
        );
        // The dead connection was discarded: the one-connection pool still works.
        expect(
          await single.read(a.tenant, async (tx) => (await tx.all('SELECT id FROM sessions')).length),
        ).toBe(1);
      } finally {
        await admin.end();
        await single.close();
      }
    });

    it('refuses work after close', async () => {
      const other = await PostgresEngine.open({ connectionString: db.url, max: 1 });
      await other.close();
      await expectCairnError(
        other.read(a.tenant, (tx) => tx.all('SELECT 1')),
        'UNAVAILABLE',
      );
    });
  });

  describe('PostgresBlobStore', () => {
    it('puts, gets, has and deletes', async () => {
      const bytes = Buffer.from('hello, postgres blobs');
      const digest = await blobs.put(a.tenant, bytes);
      expect(digest).toBe(sha256Hex(bytes));
      expect(await blobs.put(a.tenant, bytes)).toBe(digest);
      expect(await blobs.has(a.tenant, digest)).toBe(true);
      expect(Buffer.compare(await blobs.get(a.tenant, digest), bytes)).toBe(0);
      await blobs.delete(a.tenant, digest);
      expect(await blobs.has(a.tenant, digest)).toBe(false);
      await expectCairnError(blobs.get(a.tenant, digest), 'NOT_FOUND');
      await blobs.delete(a.tenant, digest);

      const empty = await blobs.put(a.tenant, new Uint8Array());
      expect((await blobs.get(a.tenant, empty)).length).toBe(0);
      const big = Buffer.alloc(3 * 1024 * 1024, 7);
      const bigDigest = await blobs.put(a.tenant, big);
      expect(Buffer.compare(await blobs.get(a.tenant, bigDigest), big)).toBe(0);
      // A view into a larger buffer stores only its own bytes.
      const slice = new Uint8Array(Buffer.from('xxinsidexx')).subarray(2, 8);
      expect(await blobs.put(a.tenant, slice)).toBe(sha256Hex(Buffer.from('inside')));
    });

    it('refuses bad tenants and digests', async () => {
      await expectCairnError(blobs.put('', Buffer.from('x')), 'INVALID_ARGUMENT');
      await expectCairnError(blobs.get(a.tenant, 'not-a-digest'), 'INVALID_ARGUMENT');
    });

    it('reports a tampered row as CORRUPT, never repairing it', async () => {
      const digest = await blobs.put(a.tenant, Buffer.from('original bytes'));
      const client = await connect(db.url);
      try {
        const changed = await inTransaction(
          client,
          a.tenant,
          async () =>
            (
              await client.query('UPDATE blobs SET bytes = $1 WHERE tenant = $2 AND digest = $3', [
                Buffer.from('tampered bytes'),
                a.tenant,
                digest,
              ])
            ).rowCount,
        );
        expect(changed).toBe(1);
      } finally {
        await client.end();
      }
      const error = await expectCairnError(blobs.get(a.tenant, digest), 'CORRUPT');
      expect(error.data).toMatchObject({
        tenant: a.tenant,
        digest,
        actual: sha256Hex(Buffer.from('tampered bytes')),
      });
      expect(await blobs.has(a.tenant, digest)).toBe(true);
      await expectCairnError(blobs.get(a.tenant, digest), 'CORRUPT');
    });

    it("keeps tenants apart: A cannot read, see or delete B's blob", async () => {
      await expectCairnError(blobs.get(a.tenant, b.blob), 'NOT_FOUND');
      expect(await blobs.has(a.tenant, b.blob)).toBe(false);
      await blobs.delete(a.tenant, b.blob);
      expect(await blobs.get(b.tenant, b.blob)).toEqual(Buffer.from('blob of tenant b'));
      // The same bytes in two tenants are two objects.
      const shared = Buffer.from('same bytes, two tenants');
      const digest = await blobs.put(a.tenant, shared);
      expect(await blobs.has(b.tenant, digest)).toBe(false);
      await blobs.put(b.tenant, shared);
      await blobs.delete(a.tenant, digest);
      expect(await blobs.get(b.tenant, digest)).toEqual(shared);
    });
  });

  describe('concurrency', () => {
    it('16 concurrent appenders × 50 appends to one branch: 800 events, contiguous seq, audit ok', async () => {
      const session = await a.fabric.createSession({ title: 'contention' });
      const writers = 16;
      const each = 50;
      const results = await Promise.all(
        Array.from({ length: writers }, async (_, w) => {
          const ids: string[] = [];
          for (let i = 0; i < each; i++) {
            const event = await a.fabric.append({ session: session.id, kind: 'message', payload: { w, i } });
            expect(event.deduplicated).toBe(false);
            ids.push(event.id);
          }
          return ids;
        }),
      );
      const appended = results.flat();
      expect(appended).toHaveLength(writers * each);
      expect(new Set(appended).size).toBe(writers * each);

      const page = await a.fabric.readBranch({ session: session.id, limit: 10_000 });
      expect(page.headSeq).toBe(writers * each);
      expect(page.next).toBeNull();
      expect(page.events.map((e) => e.seq)).toEqual(Array.from({ length: writers * each }, (_, i) => i + 1));
      expect(new Set(page.events.map((e) => e.id))).toEqual(new Set(appended));
      page.events.forEach((event, i) => {
        expect(event.parent).toBe(i === 0 ? '' : page.events[i - 1]!.id);
      });
      expect(page.head).toBe(page.events.at(-1)!.id);
      // Each writer's own appends stay in its order.
      for (let w = 0; w < writers; w++) {
        const mine = page.events
          .filter((e) => (e.payload as { w: number }).w === w)
          .map((e) => (e.payload as { i: number }).i);
        expect(mine).toEqual(Array.from({ length: each }, (_, i) => i));
      }

      const audit = await a.fabric.verifyAudit();
      expect(audit.ok).toBe(true);
      expect(audit.firstBreak).toBeNull();
      expect(audit.events).toBeGreaterThanOrEqual(writers * each);
    }, 120_000);

    it('concurrent appends with one idempotency key produce one event', async () => {
      const session = await a.fabric.createSession({ title: 'idempotency' });
      await a.fabric.append({ session: session.id, kind: 'message', payload: 'first' });
      const answers = await Promise.all(
        Array.from({ length: 16 }, () =>
          a.fabric.append({
            session: session.id,
            kind: 'tool.intent',
            payload: { call: 'charge' },
            idempotencyKey: 'charge-1',
          }),
        ),
      );
      expect(new Set(answers.map((e) => e.id)).size).toBe(1);
      expect(answers.filter((e) => !e.deduplicated)).toHaveLength(1);
      expect(answers.every((e) => e.seq === 2 && e.idempotencyKey === 'charge-1')).toBe(true);

      const page = await a.fabric.readBranch({ session: session.id });
      expect(page.events.map((e) => e.seq)).toEqual([1, 2]);
      expect(page.head).toBe(answers[0]!.id);

      // A different append under the same key is a conflict, not a second event.
      await expectCairnError(
        a.fabric.append({
          session: session.id,
          kind: 'tool.intent',
          payload: { call: 'refund' },
          idempotencyKey: 'charge-1',
        }),
        'CONFLICT',
      );
      expect((await a.fabric.readBranch({ session: session.id })).headSeq).toBe(2);
      expect((await a.fabric.verifyAudit()).ok).toBe(true);
    });
  });
});
