/**
 * Whether memory's indexes agree with its records, read through `q` (a
 * tenant's read): the FTS5 table, SQLite's recall filter, the anchors and
 * the log's remember events, the derivation edges. Used after every kill in
 * test/memory-crash.test.ts.
 */
import { expect } from 'vitest';
import { MEMORY_EVENT } from '../../src/memory/memory.js';
import type { RecordRow as StoredRow } from '../../src/memory/rows.js';
import { RECALL_KEY_SPAN } from '../../src/memory/tables.js';
import type { SqlParam } from '../../src/storage/engine.js';

export type Query = <T>(sql: string, params?: SqlParam[]) => Promise<T[]>;

/** The columns of `memory_records` the checks read. */
export type RecordRow = Pick<
  StoredRow,
  | 'id'
  | 'version'
  | 'n'
  | 'kind'
  | 'text'
  | 'tags'
  | 'scope_user'
  | 'scope_agent'
  | 'scope_project'
  | 'scope_session'
  | 'branch'
  | 'event'
  | 'source'
  | 'derived_from'
>;

/** Fails naming what `got` lacks and what it has too many of (a few of each), unless it is `want`. */
export function sameSet<T>(got: Iterable<T>, want: Iterable<T>, what: string): void {
  const g = new Set(got);
  const w = new Set(want);
  const missing = [...w].filter((x) => !g.has(x));
  const extra = [...g].filter((x) => !w.has(x));
  if (missing.length > 0 || extra.length > 0)
    expect.fail(
      `${what}: ${missing.length} missing (${missing.slice(0, 5).join(', ')}), ${extra.length} too many (${extra.slice(0, 5).join(', ')})`,
    );
}

/** Fails unless every index of the tenant holds exactly its records' versions (`rows`, in `n` order). */
export async function checkMemoryIndexes(
  q: Query,
  tenant: string,
  rows: readonly RecordRow[],
  where: string,
): Promise<void> {
  const byKey = new Map(rows.map((r) => [`${r.id}#${r.version}`, r]));
  const byN = new Map(rows.map((r) => [Number(r.n), r]));
  // The full-text table: one row per version, rowid = n, body = text and tags.
  const table = `memfts_${tenant}`;
  const exists = await q<{ name: string }>(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?",
    [table],
  );
  if (exists.length === 0) {
    expect(rows.length, `${where}: records but no full-text table`).toBe(0);
  } else {
    const entries = await q<{ n: number; body: string }>(
      `SELECT rowid AS n, body FROM ${table} ORDER BY rowid`,
      [],
    );
    const bodies = new Map(entries.map((e) => [Number(e.n), e.body]));
    sameSet(bodies.keys(), byN.keys(), `${where}: full-text rowids against memory_records.n`);
    for (const [n, row] of byN) {
      const tags = JSON.parse(row.tags) as string[];
      if (bodies.get(n) !== (tags.length === 0 ? row.text : `${row.text}\n${tags.join(' ')}`))
        expect.fail(`${where}: full-text entry ${n} does not hold ${row.id} version ${row.version}`);
    }
  }

  // The narrow recall table (migration 7): one row per version, its filter columns the record's.
  const filters = await q<{ n: number; row: string; record: string }>(
    `SELECT s.key - t.no * ${RECALL_KEY_SPAN} AS n,
       json_array(s.latest, s.trust, s.kind, s.scope_user, s.scope_agent, s.scope_project, s.scope_session) AS row,
       json_array(r.latest, r.trust, r.kind, r.scope_user, r.scope_agent, r.scope_project, r.scope_session) AS record
     FROM memory_tenants t JOIN memory_recall s ON s.key BETWEEN t.no * ${RECALL_KEY_SPAN} AND (t.no + 1) * ${RECALL_KEY_SPAN} - 1
     LEFT JOIN memory_records r ON r.tenant = t.tenant AND r.n = s.key - t.no * ${RECALL_KEY_SPAN}
     WHERE t.tenant = ?`,
  );
  sameSet(
    filters.map((f) => Number(f.n)),
    byN.keys(),
    `${where}: memory_recall keys against memory_records.n`,
  );
  for (const f of filters)
    if (f.row !== f.record)
      expect.fail(`${where}: memory_recall row ${f.n} is ${f.row}, its record ${f.record}`);

  // Anchors: exactly one per version written in a session, at the event that recorded it.
  const anchors = await q<{
    id: string;
    version: number;
    event: string;
    line: string;
    seq: number;
    e_id: string | null;
    e_line: string;
    e_seq: number;
    e_session: string;
    e_branch: string;
    e_kind: string;
    e_payload: string;
  }>(
    `SELECT a.id, a.version, a.event, a.line, a.seq, e.id AS e_id, e.line AS e_line, e.seq AS e_seq,
            e.session AS e_session, e.branch AS e_branch, e.kind AS e_kind, e.payload AS e_payload
       FROM memory_anchors a LEFT JOIN events e ON e.tenant = a.tenant AND e.id = a.event
      WHERE a.tenant = ?`,
  );
  const anchored = new Set<string>();
  for (const a of anchors) {
    const key = `${a.id}#${a.version}`;
    const row = byKey.get(key);
    if (!row) expect.fail(`${where}: anchor of ${key} names no version`);
    if (anchored.has(key)) expect.fail(`${where}: ${key} has two anchors`);
    anchored.add(key);
    expect(row.scope_session, `${where}: anchor of ${key}, written outside a session`).not.toBe('');
    expect(a.event, `${where}: anchor of ${key}`).toBe(row.event);
    if (a.e_id === null)
      expect.fail(`${where}: anchor of ${key} names event ${a.event}, which is not in the log`);
    expect(
      { line: a.e_line, seq: Number(a.e_seq), session: a.e_session, branch: a.e_branch, kind: a.e_kind },
      `${where}: the event anchoring ${key}`,
    ).toEqual({
      line: a.line,
      seq: Number(a.seq),
      session: row.scope_session,
      branch: row.branch,
      kind: MEMORY_EVENT,
    });
    expect(JSON.parse(a.e_payload), `${where}: the event anchoring ${key}`).toMatchObject({
      record: row.id,
      version: Number(row.version),
    });
  }
  for (const row of rows)
    if (row.scope_session !== '' && !anchored.has(`${row.id}#${row.version}`))
      expect.fail(`${where}: ${row.id} version ${row.version}, written in a session, has no anchor`);
  // Every remember event of the log has its version (a rolled-back remember leaves no event).
  const events = await q<{ id: string }>('SELECT id FROM events WHERE tenant = ? AND kind = ?', [
    tenant,
    MEMORY_EVENT,
  ]);
  sameSet(
    events.map((e) => e.id),
    rows.map((r) => r.event).filter((e) => e !== ''),
    `${where}: remember events of the log against the versions' events`,
  );

  // derivedFrom edges: exactly the sources named by a record's versions, each existing.
  const edges = await q<{ id: string; source: string }>(
    'SELECT id, source FROM memory_derived WHERE tenant = ?',
  );
  const ids = new Set(rows.map((r) => r.id));
  const logIds = new Set(
    (await q<{ id: string }>('SELECT id FROM events WHERE tenant = ?')).map((e) => e.id),
  );
  const want = new Set(
    rows.flatMap((r) => (JSON.parse(r.derived_from) as string[]).map((s) => `${r.id}<${s}`)),
  );
  for (const edge of edges) {
    if (!ids.has(edge.id)) expect.fail(`${where}: derivedFrom edge of ${edge.id}, which is not a record`);
    if (!(edge.source.startsWith('ev_') ? logIds : ids).has(edge.source))
      expect.fail(`${where}: ${edge.id} is derived from ${edge.source}, which does not exist`);
  }
  sameSet(
    edges.map((e) => `${e.id}<${e.source}`),
    want,
    `${where}: derivedFrom edges against the versions' derivedFrom`,
  );
}
