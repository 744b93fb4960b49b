/**
 * Memory under kill -9: every acknowledged remember survives, recallable, and
 * the indexes agree with the records.
 *
 * A child process (test/fixtures/memory-remember-child.mjs, which imports the
 * built dist/) remembers records from WRITERS concurrent writers — scoped to
 * a user, to an agent and project, to a session or to a user in it (on branch
 * main or side), some made from earlier records or log events, some new
 * versions of earlier records; in most rounds with an embedding function, so
 * each version gets a vector too — printing each remember before it is
 * called and each acknowledgement. The test SIGKILLs it at a random moment,
 * ROUNDS times on one store; every FRESH_EVERY-th round writes into a tenant
 * of its own and is killed around its first commit (the one that creates the
 * tenant's full-text and vector tables). After each kill it reopens the store
 * and checks, for the round's tenant:
 *
 * - every acknowledged version is there, with its text, scope, branch, kind,
 *   tags, source and derivedFrom, through memoryHistory and getMemory; a
 *   recall of its record's marker word in the scope (and on the branch) it was
 *   written in finds the record at its newest version, and so does a vector
 *   recall of that version's text;
 * - a version nobody acknowledged is one whose remember was in flight at the
 *   kill, and it is whole: the row with the input it was begun with, its
 *   full-text entry, vector, anchor, log event, derivedFrom edges and audit
 *   entry;
 * - the indexes agree with the records: the tenant's FTS5 table holds exactly
 *   one row per version (rowid = `memory_records.n`, body = text and tags),
 *   its vector table one vector per version written with the embedding (the
 *   vector of its text), every anchor names an existing version and the log
 *   event at its line and sequence, every `cairn.memory.remember` event has
 *   its version, every `memory_derived` row an existing record and source,
 *   one audit entry per version; and the audit chain verifies.
 *
 * The API checks (history, get, recall) cover the records the round touched
 * (seeded, written or found); every FULL_EVERY-th round and the last cover
 * every record of every tenant, add a sibling-branch recall (a session's
 * record is not seen on the other branch), SQLite's integrity_check and the
 * FTS5 tables' own integrity-check. Run `npx tsc -p tsconfig.json` first.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { Memory } from '../src/memory/contract.js';
import type { MemoryRecord } from '../src/memory/schema.js';
import type { EmbeddingFunction } from '../src/memory/vectors.js';
import type { SqlParam } from '../src/storage/engine.js';
import { Store } from '../src/store.js';
import { hashingEmbedding } from '../src/testing/embedding.js';
import { randomInt, runToKill, STALL_MS, scratchRoot, spawnChild } from './support/kill.js';
import { checkMemoryIndexes, type RecordRow, sameSet } from './support/memory-indexes.js';

const CHILD = fileURLToPath(new URL('./fixtures/memory-remember-child.mjs', import.meta.url));

/** SIGKILLs, all on one store: each round starts on the store the last kill left. */
const ROUNDS = 50;
const WRITERS = 3;
/** Every FRESH_EVERY-th round writes into a tenant of its own, killed within its first remembers. */
const FRESH_EVERY = 5;
/** Every FULL_EVERY-th round, and the last, checks every record of every tenant. */
const FULL_EVERY = 10;
/** Earlier records handed to each child to supersede or derive from. */
const SEEDS = 24;

/** The child's embedding function, when a round has one (the fixture's). */
const EMBEDDING = hashingEmbedding(32);

const root = scratchRoot('cairn-memory-crash-');

// ---------------------------------------------------------------------------
// What the child was asked to remember and what it acknowledged.

interface Scope {
  user?: string;
  agent?: string;
  project?: string;
  session?: string;
}

/** A remember as the child began it (its input, as sent). */
interface Begun {
  m: string;
  input: {
    scope: Scope;
    branch: string;
    text: string;
    kind: MemoryRecord['kind'];
    source: MemoryRecord['provenance']['source'];
    tags: string[];
    derivedFrom: string[];
    supersedes?: string;
  };
}

interface Acked {
  m: string;
  id: string;
  version: number;
  event: string;
}

/** One version the store must hold from now on. */
interface Version {
  begun: Begun;
  event: string;
  /** How the test learnt of it. */
  how: 'acknowledged' | 'committed, not acknowledged';
  /** Written with the embedding function: it has a vector. */
  vector: boolean;
}

interface KnownRecord {
  id: string;
  /** The marker word of its first version, which every version's text carries. */
  m: string;
  scope: Scope;
  branch: string;
  versions: Map<number, Version>;
}

interface TenantState {
  name: string;
  tenant: string;
  token: string;
  session: string;
  /** Memory as the tenant's admin, with the child's embedding function or without one (recall by full text). */
  memory: (store: Store, embedding?: EmbeddingFunction) => Promise<Memory>;
  records: Map<string, KnownRecord>;
}

interface KillPlan {
  after: 'ready' | 'begin' | 'ack';
  nth: number;
  delayMs: number;
}

/** The line that lets a child go. */
interface Go {
  token: string;
  session: string;
  /** Its markers' prefix. */
  tag: string;
  /** Whether its memory has the embedding function. */
  vectors: boolean;
  seeds: Seed[];
}

interface Round {
  plan: KillPlan;
  vectors: boolean;
  begun: Map<string, Begun>;
  acked: Acked[];
}

const tally = {
  kills: 0,
  byPlan: new Map<string, number>(),
  acks: 0,
  /** Kills with remembers begun and not acknowledged, and how many such remembers. */
  killedInFlight: 0,
  inFlight: 0,
  /** In-flight remembers the next open found committed (whole). */
  committedUnacked: 0,
  /** Rounds in a fresh tenant killed with its first remembers in flight, none committed; and those with some committed. */
  freshNoneCommitted: 0,
  freshSomeCommitted: 0,
  recalls: 0,
  vectorRecalls: 0,
  fullChecks: 0,
  ftsChecks: 0,
  childMs: 0,
  checkMs: 0,
};

function parseRound(lines: readonly string[], plan: KillPlan, vectors: boolean): Round {
  if (lines[0] !== 'ready')
    throw new Error(`child did not start with a ready line: ${JSON.stringify(lines[0])}`);
  const round: Round = { plan, vectors, begun: new Map(), acked: [] };
  for (const line of lines.slice(1)) {
    if (line.startsWith('begin ')) {
      const begun = JSON.parse(line.slice(6)) as Begun;
      round.begun.set(begun.m, begun);
    } else if (line.startsWith('ack ')) {
      const acked = JSON.parse(line.slice(4)) as Acked;
      if (!round.begun.has(acked.m)) throw new Error(`child acknowledged ${acked.m}, which it had not begun`);
      round.acked.push(acked);
    } else throw new Error(`child printed a malformed line: ${JSON.stringify(line)}`);
  }
  return round;
}

function killPlan(fresh: boolean): KillPlan {
  // In a fresh tenant: before, inside or just after its first commit, which creates the tenant's
  // FTS5 and vector tables (a process's first remembers take some 60–120 ms here).
  if (fresh) return { after: 'begin', nth: 1, delayMs: randomInt(0, 150) };
  const r = Math.random();
  if (r < 0.35) return { after: 'ready', nth: 1, delayMs: randomInt(0, 250) };
  if (r < 0.7) return { after: 'ack', nth: randomInt(1, 40), delayMs: randomInt(0, 3) };
  return { after: 'begin', nth: randomInt(1, 40), delayMs: randomInt(0, 2) };
}

interface SpareChild {
  run(plan: KillPlan, go: Go): Promise<Round>;
  discard(): Promise<void>;
}

/** A child that loads the library and waits on stdin, so the next round's process starts while this one is checked. */
function spareChild(dir: string): SpareChild {
  const child = spawnChild('child', CHILD, [dir, String(WRITERS)]);
  return {
    discard: () => child.discard(),
    async run(plan, go) {
      let seen = 0;
      await runToKill(child, `${JSON.stringify(go)}\n`, {
        after: (line) => (line === plan.after || line.startsWith(`${plan.after} `)) && ++seen >= plan.nth,
        delayMs: plan.delayMs,
        stallMs: STALL_MS,
        stall: `did not reach its kill point (${JSON.stringify(plan)}) within ${STALL_MS} ms`,
      });
      if (child.err !== '') throw new Error(`child wrote to stderr: ${child.err}`);
      return parseRound(child.lines, plan, go.vectors);
    },
  };
}

/** An earlier record handed to a child, which may supersede it or derive from it (or its event). */
interface Seed {
  id: string;
  m: string;
  scope: Scope;
  branch: string;
  event: string;
}

/** Seeds for the next child: a sample of the tenant's records, each with its newest version's event. */
function seedsOf(t: TenantState): Seed[] {
  const all = [...t.records.values()];
  const chosen = new Set<KnownRecord>();
  while (chosen.size < Math.min(SEEDS, all.length)) chosen.add(all[randomInt(0, all.length - 1)]!);
  return [...chosen].map((r) => ({
    id: r.id,
    m: r.m,
    scope: r.scope,
    branch: r.branch,
    event: r.versions.get(Math.max(...r.versions.keys()))!.event,
  }));
}

/** Adds a version to what the store must hold; returns its record's id. */
function learn(t: TenantState, id: string, version: number, v: Version, where: string): string {
  const { input } = v.begun;
  let record = t.records.get(id);
  if (input.supersedes === undefined) {
    expect(version, `${where}: ${v.begun.m} is a new record`).toBe(1);
    expect(record, `${where}: ${v.begun.m} got the id of an earlier record, ${id}`).toBeUndefined();
    record = { id, m: v.begun.m, scope: input.scope, branch: input.branch, versions: new Map() };
    t.records.set(id, record);
  } else {
    expect(id, `${where}: ${v.begun.m} superseded ${input.supersedes}`).toBe(input.supersedes);
    expect(version, `${where}: ${v.begun.m} is a new version`).toBeGreaterThan(1);
    if (!record) expect.fail(`${where}: ${v.begun.m} superseded ${id}, which the test does not know`);
    expect(input.text.startsWith(`${record.m} `), `${where}: ${v.begun.m} text`).toBe(true);
  }
  if (record.versions.has(version)) expect.fail(`${where}: ${id} version ${version} was written twice`);
  expect(v.event === '', `${where}: ${v.begun.m} event ${v.event}`).toBe(input.scope.session === undefined);
  record.versions.set(version, v);
  return id;
}

// ---------------------------------------------------------------------------
// The checks.

/** What a row must hold for a remember begun with `b` (and, in a session, recorded by `event`). */
function expectRow(row: RecordRow, b: Begun, where: string): void {
  const s = b.input.scope;
  expect(
    {
      text: row.text,
      kind: row.kind,
      tags: JSON.parse(row.tags),
      scope: [row.scope_user, row.scope_agent, row.scope_project, row.scope_session],
      branch: row.branch,
      source: row.source,
      derivedFrom: JSON.parse(row.derived_from),
    },
    `${where}: ${row.id} version ${row.version} (${b.m})`,
  ).toEqual({
    text: b.input.text,
    kind: b.input.kind,
    tags: b.input.tags,
    scope: [s.user ?? '', s.agent ?? '', s.project ?? '', s.session ?? ''],
    branch: s.session === undefined ? '' : b.input.branch,
    source: b.input.source,
    derivedFrom: b.input.derivedFrom,
  });
}

/**
 * The tables of one tenant, read raw: rows against what is known (a row
 * nobody acknowledged is learnt if the round had begun it), and the full-text
 * table, anchors, log events, derivedFrom edges and audit entries against the
 * rows. Returns the ids of the records it learnt.
 */
async function checkTables(
  store: Store,
  t: TenantState,
  round: Round | null,
  where: string,
): Promise<string[]> {
  const q = <T>(sql: string, params: SqlParam[] = [t.tenant]) =>
    store.engine.read(t.tenant, (tx) => tx.all<T>(sql, params));
  const rows = await q<RecordRow>(
    'SELECT id, version, n, kind, text, tags, scope_user, scope_agent, scope_project, scope_session, branch, event, source, derived_from FROM memory_records WHERE tenant = ? ORDER BY n',
  );
  const byKey = new Map(rows.map((r) => [`${r.id}#${r.version}`, r]));
  const byN = new Map(rows.map((r) => [Number(r.n), r]));
  const learnt: string[] = [];
  const inFlight = new Map(
    round
      ? [...round.begun.values()]
          .filter((b) => !round.acked.some((a) => a.m === b.m))
          .map((b) => [b.input.text, b])
      : [],
  );
  for (const row of rows) {
    const known = t.records.get(row.id)?.versions.get(Number(row.version));
    if (known) {
      expectRow(row, known.begun, where);
      expect(row.event, `${where}: ${row.id} version ${row.version} event`).toBe(known.event);
      continue;
    }
    // Only a remember in flight at the kill may have committed without its acknowledgement.
    const begun = inFlight.get(row.text);
    if (!begun)
      expect.fail(
        `${where}: ${row.id} version ${row.version} is in the store, but no remember of it was in flight`,
      );
    expectRow(row, begun, where);
    learnt.push(
      learn(
        t,
        row.id,
        Number(row.version),
        { begun, event: row.event, how: 'committed, not acknowledged', vector: round!.vectors },
        where,
      ),
    );
    tally.committedUnacked++;
  }
  // Every known version has its row.
  for (const record of t.records.values())
    for (const [version, v] of record.versions)
      if (!byKey.has(`${record.id}#${version}`))
        expect.fail(`${where}: ${record.id} version ${version} (${v.begun.m}, ${v.how}) is missing`);

  // The vector index (one model, one table): a vector per version written with the embedding, of its text.
  const prefix = `memvec_${t.tenant}_`;
  const vectorTables = await q<{ name: string }>(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%' AND substr(name, 1, ?) = ?",
    [prefix.length, prefix],
  );
  const withVector = rows.filter((r) => t.records.get(r.id)?.versions.get(Number(r.version))?.vector);
  if (withVector.length === 0) expect(vectorTables, `${where}: vector tables without vectors`).toEqual([]);
  else {
    expect(vectorTables.length, `${where}: vector tables`).toBe(1);
    const stored = await q<{ n: number; embedding: Buffer }>(
      `SELECT rowid AS n, embedding FROM ${vectorTables[0]!.name}`,
      [],
    );
    sameSet(
      stored.map((v) => Number(v.n)),
      withVector.map((r) => Number(r.n)),
      `${where}: vector rowids against the versions written with the embedding`,
    );
    for (const v of stored) {
      const row = byN.get(Number(v.n))!;
      if (!Buffer.from(v.embedding).equals(await vectorOf(row.text)))
        expect.fail(`${where}: the vector of ${row.id} version ${row.version} is not its text's`);
    }
  }

  await checkMemoryIndexes(q, t.tenant, rows, where);

  // One audit entry per version, and the chain verifies.
  const audited = await q<{ id: string; count: number }>(
    "SELECT resource_id AS id, COUNT(*) AS count FROM audit_entries WHERE tenant = ? AND action = 'memory.remember' GROUP BY resource_id",
  );
  const versions = new Map<string, number>();
  for (const r of rows) versions.set(r.id, (versions.get(r.id) ?? 0) + 1);
  sameSet(
    audited.map((a) => `${a.id} ×${a.count}`),
    [...versions].map(([id, count]) => `${id} ×${count}`),
    `${where}: memory.remember audit entries against the versions`,
  );
  const [report] = await store.verifyTenants([t.tenant]);
  expect(report?.ok, `${where}: audit chain ${JSON.stringify(report)}`).toBe(true);
  return learnt;
}

const vectorCache = new Map<string, Buffer>();

/** The vector the child's embedding function gives a text, as the index stores it (float32). */
async function vectorOf(text: string): Promise<Buffer> {
  let bytes = vectorCache.get(text);
  if (!bytes) {
    const [vector] = await EMBEDDING.embed([text]);
    const floats = Float32Array.from(vector!);
    bytes = Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength);
    vectorCache.set(text, bytes);
  }
  return bytes;
}

/**
 * Through the library: every version of each record in `ids`, with its text
 * and provenance; its newest version; and a recall of its marker word in its
 * scope (on its branch) finds exactly it, at that version. With `sibling`, a
 * session's record is not recalled on the other branch. With `vectorMemory`
 * (memory with the embedding function), a vector recall of a newest version's
 * text (when it fits a query, 1,000 characters) finds it first.
 */
async function checkRecords(
  memory: Memory,
  t: TenantState,
  ids: Iterable<string>,
  sibling: boolean,
  where: string,
  vectorMemory?: Memory,
): Promise<void> {
  for (const id of ids) {
    const record = t.records.get(id)!;
    const newest = Math.max(...record.versions.keys());
    const at = `${where}: ${id} (${record.m})`;
    const history = (await memory.memoryHistory({ record: id as MemoryRecord['id'] })).items;
    expect(
      history.map((h) => h.version),
      `${at}: versions`,
    ).toEqual(Array.from({ length: newest }, (_, i) => i + 1));
    for (const h of history) {
      const v = record.versions.get(h.version);
      if (!v) expect.fail(`${at}: version ${h.version} is in the store, unknown to the test`);
      const { input } = v.begun;
      expect(
        {
          text: h.text,
          kind: h.kind,
          tags: h.tags,
          scope: h.scope,
          source: h.provenance.source,
          branch: h.provenance.branch,
          event: h.provenance.event,
          derivedFrom: h.provenance.derivedFrom,
        },
        `${at} version ${h.version} (${v.how})`,
      ).toEqual({
        text: input.text,
        kind: input.kind,
        tags: input.tags,
        scope: input.scope,
        source: input.source,
        branch: input.scope.session === undefined ? '' : input.branch,
        event: v.event,
        derivedFrom: input.derivedFrom,
      });
    }
    const got = await memory.getMemory({ record: id as MemoryRecord['id'] });
    expect([got.version, got.text], `${at}: getMemory`).toEqual([
      newest,
      record.versions.get(newest)!.begun.input.text,
    ]);
    const found = await memory.recall({ query: record.m, scope: record.scope, branch: record.branch, k: 5 });
    tally.recalls++;
    expect(
      found.items.map((item) => [item.id, item.version, item.text]),
      `${at}: recall of ${record.m} in ${JSON.stringify(record.scope)} on ${record.branch}`,
    ).toEqual([[id, newest, record.versions.get(newest)!.begun.input.text]]);
    if (sibling && record.scope.session !== undefined) {
      const other = record.branch === 'main' ? 'side' : 'main';
      const there = await memory.recall({ query: record.m, scope: record.scope, branch: other, k: 5 });
      tally.recalls++;
      expect(there.items, `${at}: recalled on the sibling branch ${other}`).toEqual([]);
    }
    const last = record.versions.get(newest)!;
    if (vectorMemory && last.vector && last.begun.input.text.length <= 1000) {
      const near = await vectorMemory.recall({
        query: last.begun.input.text,
        scope: record.scope,
        branch: record.branch,
        mode: 'vector',
        k: 1,
      });
      tally.vectorRecalls++;
      expect(
        near.items.map((item) => [item.id, item.version]),
        `${at}: vector recall of its text`,
      ).toEqual([[id, newest]]);
    }
  }
}

/** SQLite's integrity_check and each tenant's FTS5 integrity-check, on the closed store's file. */
function checkFiles(dir: string, tenants: TenantState[], where: string): void {
  const db = new Database(join(dir, 'cairn.db'), { fileMustExist: true });
  try {
    expect(db.pragma('integrity_check', { simple: true }), `${where}: integrity_check`).toBe('ok');
    for (const t of tenants) {
      const table = `memfts_${t.tenant}`;
      if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table)) {
        db.prepare(`INSERT INTO ${table} (${table}) VALUES ('integrity-check')`).run();
        tally.ftsChecks++;
      }
    }
  } finally {
    db.close();
  }
}

// ---------------------------------------------------------------------------

async function setUp(dir: string, names: string[]): Promise<TenantState[]> {
  const store = await Store.openDir(dir);
  try {
    const tenants: TenantState[] = [];
    for (const name of names) {
      const created = await store.createTenant(name);
      const who = await store.authenticate(created.token.token);
      const fabric = store.fabric(who);
      const session = (await fabric.createSession({ title: `memory crash ${name}` })).id;
      const start = await fabric.append({ session, kind: 'crash.start', payload: null });
      await fabric.fork({ session, at: start.id, name: 'side' });
      tenants.push({
        name,
        tenant: created.tenant,
        token: created.token.token,
        session,
        memory: async (s, embedding) =>
          s.memory(await s.authenticate(created.token.token), embedding ? { embedding } : {}),
        records: new Map(),
      });
    }
    return tenants;
  } finally {
    await store.close();
  }
}

describe('kill -9 during bulk remember', () => {
  it(`keeps every acknowledged record recallable and the indexes agreeing (${ROUNDS} SIGKILLs, ${WRITERS} writers)`, async () => {
    const started = Date.now();
    const dir = join(root(), 'store');
    const fresh = Array.from({ length: ROUNDS / FRESH_EVERY }, (_, i) => `fresh-${i}`);
    const [main, ...others] = await setUp(dir, ['main', ...fresh]);
    const tenants = [main!, ...others];
    let next = spareChild(dir);
    try {
      for (let r = 0; r < ROUNDS; r++) {
        const isFresh = r % FRESH_EVERY === FRESH_EVERY - 1;
        const t = isFresh ? others[Math.floor(r / FRESH_EVERY)]! : main!;
        const plan = killPlan(isFresh);
        const seeds = seedsOf(t);
        const t0 = Date.now();
        // Most rounds embed what they remember (fresh tenants always: their first commit creates both indexes).
        const vectors = isFresh || r % 3 !== 2;
        const go = { token: t.token, session: t.session, tag: `k${r}`, vectors, seeds };
        const round = await next.run(plan, go);
        next = spareChild(dir);
        const t1 = Date.now();
        const where = `round ${r} (${t.name}, ${JSON.stringify(plan)}, ${round.acked.length} acks)`;
        tally.kills++;
        tally.byPlan.set(plan.after, (tally.byPlan.get(plan.after) ?? 0) + 1);
        tally.acks += round.acked.length;
        const pending = round.begun.size - round.acked.length;
        tally.inFlight += pending;
        if (pending > 0) tally.killedInFlight++;

        const touched = new Set(seeds.map((s) => s.id));
        for (const a of round.acked)
          touched.add(
            learn(
              t,
              a.id,
              a.version,
              { begun: round.begun.get(a.m)!, event: a.event, how: 'acknowledged', vector: round.vectors },
              where,
            ),
          );
        const full = (r + 1) % FULL_EVERY === 0;
        const store = await Store.openDir(dir);
        try {
          for (const id of await checkTables(store, t, round, where)) touched.add(id);
          await checkRecords(
            await t.memory(store),
            t,
            touched,
            false,
            where,
            await t.memory(store, EMBEDDING),
          );
          if (full) {
            tally.fullChecks++;
            for (const u of tenants) {
              if (u !== t) await checkTables(store, u, null, `${where}, full check of ${u.name}`);
              await checkRecords(
                await u.memory(store),
                u,
                u.records.keys(),
                true,
                `${where}, full check of ${u.name}`,
              );
            }
          }
        } finally {
          await store.close();
        }
        if (full) checkFiles(dir, tenants, where);
        if (isFresh && t.records.size > 0) tally.freshSomeCommitted++;
        else if (isFresh && pending > 0) tally.freshNoneCommitted++;
        tally.childMs += t1 - t0;
        tally.checkMs += Date.now() - t1;
      }
    } finally {
      await next.discard();
    }

    const records = tenants.reduce((sum, t) => sum + t.records.size, 0);
    const versions = tenants.reduce(
      (sum, t) => sum + [...t.records.values()].reduce((s, r) => s + r.versions.size, 0),
      0,
    );
    const list = (m: Map<string, number>) => [...m].map(([k, n]) => `${n} after ${k}`).join(', ');
    console.log(
      `memory: ${tally.kills} SIGKILLs in ${((Date.now() - started) / 1000).toFixed(1)} s (${list(tally.byPlan)}); ` +
        `${tally.acks} remembers acknowledged; ${tally.killedInFlight} kills with remembers in flight ` +
        `(${tally.inFlight} in all, ${tally.committedUnacked} found committed and whole); ` +
        `${records} records, ${versions} versions in ${tenants.length} tenants; ${tally.recalls} recalls checked (and ${tally.vectorRecalls} by vector), ` +
        `${tally.fullChecks} full checks (${tally.ftsChecks} FTS5 integrity-checks); fresh tenants killed in their first ` +
        `remembers: ${tally.freshNoneCommitted} with none committed, ${tally.freshSomeCommitted} with some; ${tally.childMs} ms in children, ${tally.checkMs} ms checking`,
    );
    expect(tally.kills).toBeGreaterThanOrEqual(50);
    expect(tally.acks).toBeGreaterThan(ROUNDS);
    expect(tally.killedInFlight).toBeGreaterThan(ROUNDS / 2);
    // The main tenant's store holds every kind of record the child writes.
    const mainRecords = [...main!.records.values()];
    const hasVersion = (pred: (v: Version) => boolean) =>
      mainRecords.some((r) => [...r.versions.values()].some(pred));
    expect(
      mainRecords.some((r) => r.versions.size > 1),
      'records with several versions',
    ).toBe(true);
    expect(
      hasVersion((v) => v.begun.input.derivedFrom.some((d) => d.startsWith('mr_'))),
      'derived records',
    ).toBe(true);
    expect(
      hasVersion((v) => v.begun.input.derivedFrom.some((d) => d.startsWith('ev_'))),
      'made from events',
    ).toBe(true);
    expect(
      mainRecords.some((r) => r.scope.session !== undefined && r.branch === 'side'),
      'on side',
    ).toBe(true);
  });
});
