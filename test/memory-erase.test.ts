/**
 * Memory's part of the erasure cascade (src/memory/erase.ts) on real stores.
 * One tenant holds records of two users, an agent, two sessions (one of them
 * with a side branch) and a project, some made from others or from a log
 * event, each with marker words and phrases of its own. Erasing the user
 * alice with her session takes her records, what was made from them
 * (transitively) and from her session's events; then:
 *
 * - what is kept still recalls, by full text and (SQLite) by vector;
 * - a preview counts what the erasure then erases, and changes no row;
 * - a second erasure finds nothing;
 * - SQLite: the FTS5 shadow tables hold no erased term (fts5vocab, the
 *   `%_data` segment blobs, the `%_idx` separators, `%_content`), the vector
 *   chunks none of their vectors; and once the database is vacuumed and its
 *   log checkpointed (the cascade's compaction, not this part's), no byte of
 *   the store's files holds an erased marker or vector;
 * - PostgreSQL: no row, tsvector lexeme (ts_stat) or edge of them is left.
 *
 * And on SQLite: an agent's erasure, a session's, and one of 2,200 records
 * (more than a statement binds) whose words began leaf pages of the index:
 * no separator of theirs stays in `%_idx` (FTS5's secure-delete leaves them).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErasedRows, ErasureScope } from '../src/erasure/part.js';
import type { Memory } from '../src/memory/contract.js';
import { MEMORY_ERASURE } from '../src/memory/erase.js';
import type { EmbeddingFunction } from '../src/memory/vectors.js';
import { Store } from '../src/store.js';
import { expectCode } from '../src/testing/expect-code.js';
import type { Identity } from '../src/types.js';
import { describePostgres } from './support/postgres.js';
import { postgresStore, tempDir } from './support/stores.js';

/** The test's embedding: a text's SHA-256 as 16 numbers (deterministic, one vector per text, no two alike). */
function vectorOf(text: string): Float32Array {
  const digest = createHash('sha256').update(text).digest();
  return Float32Array.from({ length: 16 }, (_, i) => digest.readInt16BE(i * 2) / 32768 + (i === 0 ? 2 : 0));
}
const EMBEDDING: EmbeddingFunction = {
  model: 'erase-test-sha256',
  dimensions: 16,
  embed: async (texts) => texts.map(vectorOf),
};
const vectorBytes = (text: string) => Buffer.from(vectorOf(text).buffer);

/** Each record's text holds marker words (single tokens) and phrases found nowhere else. */
const ERASED = {
  a1: 'Alice keeps qzvorlak7731 in the cellar',
  a1v2: 'Alice moved qzvorlak7732 to the attic',
  a2: 'Alice remembers plovern quistal marrowbeck from her trip',
  session: 'Session note sessmarker8817 about the hyrandel meeting',
  side: 'A side branch idea sidebranch6620 worth keeping',
  agent: 'Helper learned agentderived3391 from what alice said',
  project: 'Atlas note projectderived4472 made from the helper',
  fromEvent: 'Atlas summary eventderived5583 of the chat',
};
const ERASED_TAG = 'tagplumbeous4410';
const ERASED_DATA = 'xendrith5502';
const KEPT = {
  bob: 'Bob keeps zelkova9902 in the garage',
  bobDerived: 'Bob recalls ambergrist tollmere quayside bobderived7714',
  agent: 'Helper keeps agentkept2205 for everyone',
  bobSession: 'Bob session note bobsession3306',
};
/** A record of bob's forgotten before the erasure: the erasure's index rewrite clears its terms too. */
const FORGOTTEN = 'Bob once said forgotten9184 aloud';

/** The words only erased (or forgotten) records hold, and their multi-word phrases. */
const ERASED_WORDS = [
  ...'qzvorlak7731 qzvorlak7732 plovern quistal marrowbeck sessmarker8817 hyrandel sidebranch6620'.split(' '),
  ...'agentderived3391 projectderived4472 eventderived5583'.split(' '),
  ERASED_TAG,
];
const ERASED_PHRASES = ['plovern quistal marrowbeck', 'about the hyrandel meeting'];
const KEPT_WORDS = ['zelkova9902', 'ambergrist', 'tollmere', 'quayside', 'bobderived7714', 'agentkept2205'];

interface World {
  store: Store;
  who: Identity;
  memory: Memory;
  /** Alice's scope as the cascade resolves it: her session and its branches. */
  scope: ErasureScope;
  erasedIds: string[];
  kept: Record<keyof typeof KEPT, string>;
  sessions: { alice: string; bob: string };
}

/** Writes the records (SQLite with vectors) and resolves alice's scope. */
async function seed(store: Store, vectors: boolean): Promise<World> {
  const who = await store.authenticate((await store.createTenant('erase')).token.token);
  const memory = store.memory(who, vectors ? { embedding: EMBEDDING } : {});
  const fabric = store.fabric(who);
  const alice = (await fabric.createSession({ title: 'alice chat' })).id;
  const bob = (await fabric.createSession({ title: 'bob chat' })).id;
  const said = await fabric.append({ session: alice, kind: 'message', payload: 'hello' });
  await fabric.fork({ session: alice, at: said.id, name: 'side' });
  const put = (scope: Record<string, string>, text: string, more: object = {}) =>
    memory.remember({ scope, text, source: 'person', ...more });

  const a1 = await put({ user: 'alice' }, ERASED.a1, { tags: [ERASED_TAG] });
  await put({ user: 'alice' }, ERASED.a1v2, { tags: [ERASED_TAG], supersedes: a1.id });
  const a2 = await put({ user: 'alice' }, ERASED.a2, { data: { note: ERASED_DATA } });
  const inSession = await put({ session: alice }, ERASED.session);
  const onSide = await put({ session: alice }, ERASED.side, { branch: 'side' });
  const agent = await put({ agent: 'helper' }, ERASED.agent, { derivedFrom: [a1.id], source: 'agent' });
  const project = await put({ project: 'atlas' }, ERASED.project, { derivedFrom: [agent.id] });
  const fromEvent = await put({ project: 'atlas' }, ERASED.fromEvent, { derivedFrom: [said.id] });

  const b1 = await put({ user: 'bob' }, KEPT.bob);
  const b2 = await put({ user: 'bob' }, KEPT.bobDerived, { derivedFrom: [b1.id] });
  const g1 = await put({ agent: 'helper' }, KEPT.agent, { source: 'agent' });
  const bs = await put({ session: bob }, KEPT.bobSession);
  const gone = await put({ user: 'bob' }, FORGOTTEN);
  await memory.forgetMemory({ record: gone.id });

  const branches = await store.engine.read(who.tenant, (tx) =>
    tx.all<{ id: string }>('SELECT id FROM branches WHERE tenant = ? AND session = ?', [who.tenant, alice]),
  );
  expect(branches).toHaveLength(2);
  return {
    store,
    who,
    memory,
    scope: {
      tenant: who.tenant,
      subject: { kind: 'user', id: 'alice' },
      principals: [],
      sessions: [alice],
      branches: branches.map((b) => b.id),
    },
    erasedIds: [a1, a2, inSession, onSide, agent, project, fromEvent].map((r) => r.id).sort(),
    kept: { bob: b1.id, bobDerived: b2.id, agent: g1.id, bobSession: bs.id },
    sessions: { alice, bob },
  };
}

/** Every row of memory's tables, as text (SQLite: its FTS5 and vector shadow tables too), to see a preview change nothing. */
async function memoryRows(world: World): Promise<string> {
  const { store, who } = world;
  return store.engine.read(who.tenant, async (tx) => {
    const tables =
      store.engine.dialect === 'sqlite'
        ? (
            await tx.all<{ name: string }>(
              "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'mem%' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name",
            )
          ).map((t) => t.name)
        : ['memory_records', 'memory_anchors', 'memory_derived'];
    const out: unknown[] = [];
    for (const table of tables) out.push(table, await tx.all(`SELECT * FROM ${table} ORDER BY 1, 2`));
    out.push(await tx.all('SELECT COUNT(*) AS n FROM audit_entries WHERE tenant = ?', [who.tenant]));
    return JSON.stringify(out, (_, v) => (v?.type === 'Buffer' ? Buffer.from(v.data).toString('hex') : v));
  });
}

type Mode = 'text' | 'vector';
const texts = (items: { text: string }[]) => items.map((i) => i.text);
const listed = async (memory: Memory, scope: Record<string, string>) =>
  texts((await memory.listMemory({ scope })).items);
const found = async (memory: Memory, query: string, scope: Record<string, string>, mode: Mode = 'text') =>
  texts((await memory.recall({ query, scope, mode, k: 5 })).items);

/** The erasure's expectations, on either engine. */
function erasureSuite(open: () => Promise<{ world: World; vectors: boolean; close(): Promise<void> }>) {
  let world: World;
  let vectors: boolean;
  let close: () => Promise<void>;
  let preview: ErasedRows;
  let before: string;
  let afterPreview: string;
  let erased: ErasedRows;

  beforeAll(async () => {
    ({ world, vectors, close } = await open());
    before = await memoryRows(world);
    preview = await world.store.engine.read(world.who.tenant, (tx) =>
      MEMORY_ERASURE.erase(tx, world.scope, true, world.store.engine.dialect),
    );
    afterPreview = await memoryRows(world);
    erased = await world.store.engine.write(world.who.tenant, (tx) =>
      MEMORY_ERASURE.erase(tx, world.scope, false, world.store.engine.dialect),
    );
  });
  afterAll(async () => close?.());

  it('counts every version, index entry, vector, anchor and edge of the scope and what was made from it', () => {
    expect(erased.counts).toEqual({
      records: 7,
      versions: 8,
      indexEntries: 8,
      vectorEntries: vectors ? 8 : 0,
      anchors: 2,
      derivations: 3,
    });
    expect([...erased.resources].sort()).toEqual(world.erasedIds);
  });

  it('a preview counts the same and changed nothing', () => {
    expect(preview.counts).toEqual(erased.counts);
    expect([...preview.resources].sort()).toEqual(world.erasedIds);
    expect(afterPreview).toBe(before);
  });

  it("keeps the others' records, found by full text and by vector", async () => {
    const { memory, kept, sessions } = world;
    const recall = (query: string, scope: Record<string, string>, mode?: Mode) =>
      found(memory, query, scope, mode);
    expect(await recall('zelkova9902', { user: 'bob' })).toEqual([KEPT.bob]);
    expect(await recall('tollmere quayside', { user: 'bob' })).toEqual([KEPT.bobDerived]);
    expect(await recall('agentkept2205', { agent: 'helper' })).toEqual([KEPT.agent]);
    expect(await recall('bobsession3306', { session: sessions.bob })).toEqual([KEPT.bobSession]);
    if (vectors)
      for (const [text, scope] of [
        [KEPT.bob, { user: 'bob' }],
        [KEPT.bobDerived, { user: 'bob' }],
        [KEPT.agent, { agent: 'helper' }],
      ] as const)
        expect((await recall(text, scope, 'vector'))[0]).toBe(text);
    expect((await memory.getMemory({ record: kept.bobDerived })).provenance.derivedFrom).toEqual([kept.bob]);
    // Alice's, and what was made from hers, are gone.
    for (const id of world.erasedIds) await expectCode(memory.getMemory({ record: id }), 'NOT_FOUND');
    expect(await recall('qzvorlak7732 plovern', { user: 'alice' })).toEqual([]);
    expect(await listed(memory, { agent: 'helper' })).toEqual([KEPT.agent]);
    expect(await listed(memory, { project: 'atlas' })).toEqual([]);
    expect(await listed(memory, { session: sessions.alice })).toEqual([]);
  });

  it('leaves no row, edge or anchor naming an erased record', async () => {
    const { store, who, erasedIds } = world;
    const marks = erasedIds.map(() => '?').join(', ');
    const left = await store.engine.read(who.tenant, async (tx) => {
      const count = async (sql: string, params: string[]) =>
        Number((await tx.get<{ n: number }>(sql, params))?.n ?? 0);
      return {
        records: await count(`SELECT COUNT(*) AS n FROM memory_records WHERE id IN (${marks})`, erasedIds),
        anchors: await count(`SELECT COUNT(*) AS n FROM memory_anchors WHERE id IN (${marks})`, erasedIds),
        edges: await count(
          `SELECT COUNT(*) AS n FROM memory_derived WHERE id IN (${marks}) OR source IN (${marks})`,
          [...erasedIds, ...erasedIds],
        ),
        texts: await count(
          `SELECT COUNT(*) AS n FROM memory_records WHERE ${ERASED_WORDS.map(() => 'text LIKE ?').join(' OR ')}`,
          ERASED_WORDS.map((w) => `%${w}%`),
        ),
      };
    });
    expect(left).toEqual({ records: 0, anchors: 0, edges: 0, texts: 0 });
  });

  it('finds nothing the second time', async () => {
    const again = await world.store.engine.write(world.who.tenant, (tx) =>
      MEMORY_ERASURE.erase(tx, world.scope, false, world.store.engine.dialect),
    );
    expect(again).toEqual({
      counts: { records: 0, versions: 0, indexEntries: 0, vectorEntries: 0, anchors: 0, derivations: 0 },
      resources: [],
    });
  });

  return { world: () => world };
}

/** The byte windows a vector of 64 bytes leaves whole in a file whichever page boundary splits it. */
const vectorWindows = (text: string) => {
  const bytes = vectorBytes(text);
  return [bytes.subarray(0, 16), bytes.subarray(48)];
};

/** Whether any file of the folder holds the bytes. */
function inFiles(files: readonly Buffer[], needle: Buffer | string): boolean {
  return files.some((f) => f.includes(needle));
}

/** The bytes of every file under dir. */
function filesOf(dir: string): Buffer[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesOf(join(dir, e.name)) : e.isFile() ? [readFileSync(join(dir, e.name))] : [],
  );
}

describe('memory erasure on SQLite', () => {
  const temp = tempDir('cairn-memory-erase-');
  let tenant = '';
  const suite = erasureSuite(async () => {
    const store = await Store.openDir(temp.dir);
    const world = await seed(store, true);
    tenant = world.who.tenant;
    return { world, vectors: true, close: async () => store.close() };
  });
  afterAll(() => temp.remove());

  it('leaves no erased term in the FTS5 shadow tables, no erased vector in the vector chunks, and no byte of either in the files once vacuumed', async () => {
    await suite.world().store.close();
    const db = new Database(join(temp.dir, 'cairn.db'));
    try {
      const fts = `memfts_${tenant}`;
      db.exec(`CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, ${fts}, 'row')`);
      const vocab = new Set(db.prepare('SELECT term FROM temp.vocab').pluck().all() as string[]);
      for (const word of KEPT_WORDS) expect(vocab.has(word), word).toBe(true);
      for (const word of [...ERASED_WORDS, 'forgotten9184']) expect(vocab.has(word), word).toBe(false);

      // The segments' bytes: a term is stored prefix-compressed against its neighbour, so its tail is looked for too.
      const blobs = (sql: string) =>
        (db.prepare(sql).pluck().all() as (Buffer | null)[]).filter((b) => b !== null);
      const data = blobs(`SELECT block FROM ${fts}_data`);
      const inSegments = (word: string) =>
        (word.length >= 8 ? [word, word.slice(3)] : [word]).some((t) => inFiles(data, t));
      for (const word of KEPT_WORDS.filter((w) => w.length > 9)) expect(inSegments(word), word).toBe(true);
      for (const word of [...ERASED_WORDS, 'forgotten9184']) expect(inSegments(word), word).toBe(false);
      // The segment b-tree's separators (a leaf page's first term, shortened): a deleted term that began a page would stay.
      const separators = blobs(`SELECT term FROM ${fts}_idx`).map((t) =>
        Buffer.from(t).toString('latin1').slice(1),
      );
      const ofErased = (s: string) =>
        ERASED_WORDS.some((w) => w.startsWith(s)) && ![...vocab].some((w) => w.startsWith(s));
      expect(separators.filter((s) => s.length > 3 && ofErased(s))).toEqual([]);
      const content = db.prepare(`SELECT c0 FROM ${fts}_content`).pluck().all() as string[];
      expect(content.sort()).toEqual(Object.values(KEPT).sort());
      expect(db.prepare(`SELECT COUNT(*) FROM ${fts}_docsize`).pluck().get()).toBe(4);

      const chunks = db
        .prepare("SELECT name FROM sqlite_master WHERE name LIKE 'memvec%vector_chunks00'")
        .pluck()
        .all() as string[];
      expect(chunks).toHaveLength(1);
      const vectorsHeld = blobs(`SELECT vectors FROM ${chunks[0]}`);
      for (const text of Object.values(KEPT))
        expect(inFiles(vectorsHeld, vectorBytes(text)), text).toBe(true);
      for (const text of Object.values(ERASED))
        expect(inFiles(vectorsHeld, vectorBytes(text)), text).toBe(false);

      // The cascade's compaction: the freed pages and the log.
      db.exec('VACUUM');
      db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      db.close();
    }
    const files = filesOf(temp.dir);
    for (const word of KEPT_WORDS) expect(inFiles(files, word), word).toBe(true);
    for (const marker of [...ERASED_WORDS, ...ERASED_PHRASES, ...Object.values(ERASED), ERASED_DATA])
      expect(inFiles(files, marker), marker).toBe(false);
    for (const text of Object.values(ERASED))
      for (const window of vectorWindows(text)) expect(inFiles(files, window), text).toBe(false);
    for (const text of Object.values(KEPT))
      expect(
        vectorWindows(text).some((w) => inFiles(files, w)),
        text,
      ).toBe(true);
  });
});

describe('memory erasure of an agent, of a session, and of more records than a statement binds', () => {
  let world: World;
  let dir: string;
  let cleanup: () => void;
  const erase = (scope: ErasureScope, preview = false) =>
    world.store.engine.write(world.who.tenant, (tx) =>
      MEMORY_ERASURE.erase(tx, scope, preview, world.store.engine.dialect),
    );

  beforeAll(async () => {
    const temp = tempDir('cairn-memory-erase-');
    const store = await Store.openDir(temp.dir);
    world = await seed(store, true);
    dir = temp.dir;
    cleanup = () => temp.remove();
  });
  afterAll(async () => {
    await world?.store.close();
    cleanup?.();
  });

  it("an agent's records and what was made from them go; what they were made from stays", async () => {
    const { tenant } = world.scope;
    const erased = await erase({
      tenant,
      subject: { kind: 'agent', id: 'helper' },
      principals: [],
      sessions: [],
      branches: [],
    });
    // Its own two, and the project note made from the one made from alice's.
    expect(erased.counts).toMatchObject({ records: 3, versions: 3, vectorEntries: 3, derivations: 2 });
    expect(await listed(world.memory, { agent: 'helper' })).toEqual([]);
    expect((await listed(world.memory, { user: 'alice' })).sort()).toEqual([ERASED.a1v2, ERASED.a2].sort());
    expect(await found(world.memory, 'zelkova9902', { user: 'bob' })).toEqual([KEPT.bob]);
  });

  it("a session's records go with their anchors, on every branch", async () => {
    const { tenant } = world.scope;
    const scope: ErasureScope = {
      tenant,
      subject: { kind: 'session', id: world.sessions.alice },
      principals: [],
      sessions: [world.sessions.alice],
      branches: world.scope.branches,
    };
    // The session note, the side branch's, and the summary made from the session's event.
    const { counts } = await erase(scope);
    expect(counts).toMatchObject({ records: 3, versions: 3, anchors: 2, derivations: 1 });
    expect(await listed(world.memory, { user: 'alice' })).toHaveLength(2);
    expect(await listed(world.memory, { session: world.sessions.bob })).toEqual([KEPT.bobSession]);
  });

  it('erases 1,200 records and 1,000 made from them (bound a slice at a time); no separator of their terms stays', async () => {
    const { tenant } = world.scope;
    const many = world.store.memory(world.who, { embedding: EMBEDDING });
    // Carol's words (odd numbers) and dave's (even) interleave: the index's leaf pages begin with either.
    const word = (n: number) => `uniq${String(n).padStart(5, '0')}secret`;
    const made = [];
    for (const [user, odd, from] of [
      ['carol', 1, 0],
      ['dave', 0, 0],
      ['carol', 1, 600],
      ['dave', 0, 600],
    ] as const) {
      const records = Array.from({ length: 600 }, (_, i) => ({
        scope: { user },
        text: `${user} note ${word(2 * (from + i) + odd)}`,
        source: 'person' as const,
      }));
      const { items } = await many.rememberMany({ records });
      if (odd) made.push(...items);
    }
    await many.rememberMany({
      records: made.slice(0, 1000).map((r, i) => ({
        scope: { project: 'carol-derived' },
        text: `made from ${r.id} carolmade${i}`,
        source: 'agent' as const,
        derivedFrom: [r.id],
      })),
    });
    // A leaf page's first term, shortened to what tells it from the page before, is its separator in `%_idx`;
    // one that names an odd number could only have begun with carol's word.
    const carolsSeparators = () => {
      const db = new Database(join(dir, 'cairn.db'), { readonly: true });
      try {
        return (db.prepare(`SELECT term FROM memfts_${tenant}_idx`).pluck().all() as (Buffer | null)[])
          .map((t) =>
            Buffer.from(t ?? '')
              .toString('latin1')
              .slice(1),
          )
          .filter((t) => /^uniq\d{5}/.test(t) && Number(t.slice(4, 9)) % 2 === 1);
      } finally {
        db.close();
      }
    };
    expect(carolsSeparators().length).toBeGreaterThan(0);
    const scope: ErasureScope = {
      tenant,
      subject: { kind: 'user', id: 'carol' },
      principals: [],
      sessions: [],
      branches: [],
    };
    const preview = await erase(scope, true);
    const erased = await erase(scope);
    expect(erased.counts).toEqual({
      records: 2200,
      versions: 2200,
      indexEntries: 2200,
      vectorEntries: 2200,
      anchors: 0,
      derivations: 1000,
    });
    expect(preview.counts).toEqual(erased.counts);
    expect(carolsSeparators()).toEqual([]);
    expect(await found(many, word(5), { user: 'carol' })).toEqual([]);
    expect(await found(many, word(6), { user: 'dave' })).toEqual([`dave note ${word(6)}`]);
    expect(await found(many, 'zelkova9902', { user: 'bob' })).toEqual([KEPT.bob]);
    expect(await listed(many, { project: 'carol-derived' })).toEqual([]);
  });
});

describePostgres('memory erasure on PostgreSQL', () => {
  let tenant = '';
  const suite = erasureSuite(async () => {
    const { store, cleanup } = await postgresStore();
    const world = await seed(store, false);
    tenant = world.who.tenant;
    return { world, vectors: false, close: cleanup };
  });

  it("leaves no lexeme of theirs in the records' tsvectors", async () => {
    const { store } = suite.world();
    const lexemes = await store.engine.read(tenant, async (tx) =>
      (await tx.all<{ word: string }>("SELECT word FROM ts_stat('SELECT tsv FROM memory_records')")).map(
        (r) => r.word,
      ),
    );
    for (const word of KEPT_WORDS) expect(lexemes, word).toContain(word);
    for (const word of ERASED_WORDS) expect(lexemes, word).not.toContain(word);
  });
});
