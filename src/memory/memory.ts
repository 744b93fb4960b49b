/**
 * Memory, the mind's long-term layer: records partitioned by tenant where
 * they are written, each a chain of versions with its provenance and trust,
 * found by full-text recall. A record written in a session is anchored at
 * the log event that wrote it: a branch sees it while that event is on the
 * branch's path (so a fork inherits it, a sibling does not, and a restore
 * to an earlier checkpoint hides it until a restore forward). Every function
 * runs inside a transaction of the caller's tenant; inputs were validated by
 * the operation's schema (memory/schema.ts). See docs/design/memory.md.
 */
import { appendAudit } from '../audit/audit-chain.js';
import { forbidden, invalidArgument, notFound } from '../errors.js';
import { newId, type SessionId } from '../ids.js';
import * as log from '../log/session-log.js';
import type { Dialect, SqlExecutor, SqlParam } from '../storage/engine.js';
import type { Identity } from '../types.js';
import { indexRecord, matchClause, queryWords, unindex, vectorColumn, vectorValue } from './fulltext.js';
import type {
  ForgetAnswer,
  MemoryRecord,
  MemoryScope,
  MemorySource,
  RecallItem,
  TrustTier,
  ValidForget,
  ValidList,
  ValidRecall,
  ValidRemember,
} from './schema.js';
import { TRUST_TIERS } from './schema.js';
import { countVectors, type EmbeddingFunction, indexVector, nearest, unindexVectors } from './vectors.js';

/** The trust tier each source's records arrive with; the store's policy may lower any of them. */
export type TrustPolicy = Partial<Record<MemorySource, TrustTier>>;

export const DEFAULT_TRUST: Readonly<Record<MemorySource, TrustTier>> = {
  person: 'trusted',
  agent: 'untrusted',
  tool: 'untrusted',
  import: 'untrusted',
};

/** A text's vector and the function that made it (the caller embeds before the transaction). */
export interface QueryVector {
  embedding: EmbeddingFunction;
  bytes: Buffer;
}

/** Reciprocal rank fusion's constant: a rank r adds 1 / (RRF_K + r). */
const RRF_K = 60;

/** The log event a record written in a session leaves on its branch (no text: forgetting removes that). */
export const MEMORY_EVENT = 'cairn.memory.remember';

interface RecordRow {
  tenant: string;
  id: string;
  version: number;
  n: number;
  kind: MemoryRecord['kind'];
  text: string;
  data: string;
  tags: string;
  scope_user: string;
  scope_agent: string;
  scope_project: string;
  scope_session: string;
  branch: string;
  event: string;
  principal: string;
  source: MemorySource;
  trust: TrustTier;
  derived_from: string;
  valid_from: number;
  valid_to: number | null;
  recorded_at: number;
}

const COLUMNS =
  'r.tenant, r.id, r.version, r.n, r.kind, r.text, r.data, r.tags, r.scope_user, r.scope_agent, r.scope_project, r.scope_session, r.branch, r.event, r.principal, r.source, r.trust, r.derived_from, r.valid_from, r.valid_to, r.recorded_at';

function toRecord(r: RecordRow): MemoryRecord {
  const scope: MemoryRecord['scope'] = {};
  if (r.scope_user !== '') scope.user = r.scope_user;
  if (r.scope_agent !== '') scope.agent = r.scope_agent;
  if (r.scope_project !== '') scope.project = r.scope_project;
  if (r.scope_session !== '') scope.session = r.scope_session;
  return {
    id: r.id as MemoryRecord['id'],
    version: Number(r.version),
    kind: r.kind,
    text: r.text,
    data: JSON.parse(r.data) as Record<string, unknown>,
    tags: JSON.parse(r.tags) as string[],
    scope,
    provenance: {
      principal: r.principal,
      source: r.source,
      trust: r.trust,
      session: r.scope_session,
      branch: r.branch,
      event: r.event,
      derivedFrom: JSON.parse(r.derived_from) as string[],
    },
    validFrom: Number(r.valid_from),
    validTo: r.valid_to === null ? null : Number(r.valid_to),
    recordedAt: Number(r.recorded_at),
  };
}

/** The lower of two trust tiers: what is made from an untrusted record is no more trusted than it. */
function lowest(a: TrustTier, b: TrustTier): TrustTier {
  return TRUST_TIERS.indexOf(a) >= TRUST_TIERS.indexOf(b) ? a : b;
}

async function latest(tx: SqlExecutor, tenant: string, id: string): Promise<RecordRow | undefined> {
  return tx.get<RecordRow>(
    `SELECT ${COLUMNS} FROM memory_records r WHERE r.tenant = ? AND r.id = ? ORDER BY r.version DESC LIMIT 1`,
    [tenant, id],
  );
}

function audit(tx: SqlExecutor, who: Identity, action: string, id: string, payload: object, now: number) {
  return appendAudit(tx, {
    tenant: who.tenant,
    actor: who.principal,
    action,
    resourceType: 'memory',
    resourceId: id,
    payload: payload as Record<string, unknown>,
    at: now,
  });
}

/** Writes a record (or, with `supersedes`, a new version of one). The caller's secret check ran before. */
export async function remember(
  tx: SqlExecutor,
  dialect: Dialect,
  who: Identity,
  input: ValidRemember,
  now: number,
  policy: TrustPolicy = {},
  vector?: QueryVector,
): Promise<MemoryRecord> {
  const tenant = who.tenant;
  let trust = policy[input.source] ?? DEFAULT_TRUST[input.source];
  for (const ref of input.derivedFrom) {
    if (ref.startsWith('ev_')) {
      await log.getEvent(tx, who, ref);
      continue;
    }
    const made = await latest(tx, tenant, ref);
    if (!made) throw notFound('memory record', ref);
    trust = lowest(trust, made.trust);
  }
  let id = newId('memory', now) as string;
  let version = 1;
  if (input.supersedes !== undefined) {
    const before = await latest(tx, tenant, input.supersedes);
    if (!before) throw notFound('memory record', input.supersedes);
    const same = (a: string, b: string | undefined) => a === (b ?? '');
    const { scope } = input;
    if (
      !same(before.scope_user, scope.user) ||
      !same(before.scope_agent, scope.agent) ||
      !same(before.scope_project, scope.project) ||
      !same(before.scope_session, scope.session)
    )
      throw invalidArgument(
        `a new version of ${input.supersedes} keeps its scope: remember under another scope as a new record`,
        { record: input.supersedes },
      );
    id = before.id;
    version = Number(before.version) + 1;
    trust = lowest(trust, before.trust === 'quarantined' ? 'quarantined' : trust);
  }
  const session = input.scope.session ?? '';
  let anchor: { event: string; line: string; seq: number } | null = null;
  if (session !== '') {
    const event = await log.appendEvent(
      tx,
      who,
      { session: input.scope.session as SessionId, branch: input.branch, kind: MEMORY_EVENT, payload: null },
      log.encodePayload({ record: id, version, kind: input.kind, source: input.source, trust }),
      now,
    );
    anchor = { event: event.id, ...(await log.eventPosition(tx, who, event.id)) };
  }
  // The audit head is the tenant's write lock: numbering the version below cannot race another writer.
  await audit(
    tx,
    who,
    'memory.remember',
    id,
    { version, kind: input.kind, source: input.source, trust },
    now,
  );
  const n =
    Number(
      (
        await tx.get<{ n: number | null }>('SELECT MAX(n) AS n FROM memory_records WHERE tenant = ?', [
          tenant,
        ])
      )?.n ?? 0,
    ) + 1;
  const tsv = vectorColumn(dialect);
  const row: RecordRow = {
    tenant,
    id,
    version,
    n,
    kind: input.kind,
    text: input.text,
    data: JSON.stringify(input.data),
    tags: JSON.stringify(input.tags),
    scope_user: input.scope.user ?? '',
    scope_agent: input.scope.agent ?? '',
    scope_project: input.scope.project ?? '',
    scope_session: session,
    branch: session === '' ? '' : input.branch,
    event: anchor?.event ?? '',
    principal: who.principal,
    source: input.source,
    trust,
    derived_from: JSON.stringify(input.derivedFrom),
    valid_from: input.validFrom ?? now,
    valid_to: input.validTo ?? null,
    recorded_at: now,
  };
  const values = Object.values(row) as SqlParam[];
  await tx.run(
    `INSERT INTO memory_records (${COLUMNS.replace(/r\./g, '')}${tsv.column}) VALUES (${values.map(() => '?').join(', ')}${tsv.value})`,
    [...values, ...vectorValue(dialect, input.text, input.tags)],
  );
  await indexRecord(tx, dialect, tenant, n, input.text, input.tags);
  if (vector) await indexVector(tx, tenant, vector.embedding, n, vector.bytes);
  if (anchor)
    await tx.run(
      'INSERT INTO memory_anchors (tenant, id, version, event, line, seq) VALUES (?, ?, ?, ?, ?, ?)',
      [tenant, id, version, anchor.event, anchor.line, anchor.seq],
    );
  for (const ref of new Set(input.derivedFrom))
    await tx.run('INSERT INTO memory_derived (tenant, id, source) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', [
      tenant,
      id,
      ref,
    ]);
  return toRecord(row);
}

/** The newest version of a record, whatever branch wrote it. */
export async function getRecord(tx: SqlExecutor, who: Identity, id: string): Promise<MemoryRecord> {
  const row = await latest(tx, who.tenant, id);
  if (!row) throw notFound('memory record', id);
  return toRecord(row);
}

/** Every version of a record, oldest first. */
export async function history(tx: SqlExecutor, who: Identity, id: string): Promise<MemoryRecord[]> {
  const rows = await tx.all<RecordRow>(
    `SELECT ${COLUMNS} FROM memory_records r WHERE r.tenant = ? AND r.id = ? ORDER BY r.version`,
    [who.tenant, id],
  );
  if (rows.length === 0) throw notFound('memory record', id);
  return rows.map(toRecord);
}

/**
 * Which record versions `r` a reader in `scope` (on `branch`) may see: the
 * scope's user, agent and project must match; a version written in a session
 * is seen only with that session in the scope and its anchor on the branch's
 * path. Outside any session (no session in the scope) only records outside
 * sessions are seen.
 */
async function visibility(
  tx: SqlExecutor,
  who: Identity,
  scope: MemoryScope,
  branch: string,
  alias: string,
): Promise<{ sql: string; params: SqlParam[] }> {
  const parts: string[] = [`${alias}.tenant = ?`];
  const params: SqlParam[] = [who.tenant];
  for (const [field, column] of [
    ['user', 'scope_user'],
    ['agent', 'scope_agent'],
    ['project', 'scope_project'],
  ] as const) {
    const value = scope[field];
    if (value !== undefined) {
      parts.push(`${alias}.${column} = ?`);
      params.push(value);
    }
  }
  const anchored = (segments: log.Segment[]) => {
    if (segments.length === 0) return { sql: '0 = 1', params: [] as SqlParam[] };
    const ranges = segments.map(() => '(a.line = ? AND a.seq BETWEEN ? AND ?)').join(' OR ');
    return {
      sql: `EXISTS (SELECT 1 FROM memory_anchors a WHERE a.tenant = ${alias}.tenant AND a.id = ${alias}.id AND a.version = ${alias}.version AND (${ranges}))`,
      params: segments.flatMap((s) => [s.line, s.lo, s.hi] as SqlParam[]),
    };
  };
  if (scope.session === undefined) {
    parts.push(`${alias}.scope_session = ''`);
  } else {
    const onPath = anchored(await log.branchPath(tx, who, scope.session, branch));
    const onlySession = scope.user === undefined && scope.agent === undefined && scope.project === undefined;
    parts.push(
      onlySession
        ? `(${alias}.scope_session = ? AND ${onPath.sql})`
        : `(${alias}.scope_session = '' OR (${alias}.scope_session = ? AND ${onPath.sql}))`,
    );
    params.push(scope.session, ...onPath.params);
  }
  return { sql: parts.join(' AND '), params };
}

/** Versions recorded by `asOf` (record time); every version when it is left out. */
function recordedBy(alias: string, asOf: number | undefined): { sql: string; params: SqlParam[] } {
  return asOf === undefined
    ? { sql: '1 = 1', params: [] }
    : { sql: `${alias}.recorded_at <= ?`, params: [asOf] };
}

/** The current version of each record the reader sees: no newer version of it is visible to them. */
async function currentFilter(
  tx: SqlExecutor,
  who: Identity,
  scope: MemoryScope,
  branch: string,
  asOf: number | undefined,
): Promise<{ sql: string; params: SqlParam[] }> {
  const seen = await visibility(tx, who, scope, branch, 'r');
  const newer = await visibility(tx, who, scope, branch, 'n2');
  const by = recordedBy('r', asOf);
  const newerBy = recordedBy('n2', asOf);
  return {
    sql: `${seen.sql} AND ${by.sql} AND NOT EXISTS (SELECT 1 FROM memory_records n2 WHERE n2.id = r.id AND n2.version > r.version AND ${newer.sql} AND ${newerBy.sql})`,
    params: [...seen.params, ...by.params, ...newer.params, ...newerBy.params],
  };
}

function trustFilter(minTrust: TrustTier): { sql: string; params: SqlParam[] } {
  const tiers = TRUST_TIERS.slice(0, TRUST_TIERS.indexOf(minTrust) + 1);
  return { sql: `r.trust IN (${tiers.map(() => '?').join(', ')})`, params: tiers };
}

/**
 * Ranked records for a query, as the reader sees them: by full text, by
 * vector (nearest by cosine), or both fused by reciprocal rank.
 */
export async function recall(
  tx: SqlExecutor,
  dialect: Dialect,
  who: Identity,
  input: ValidRecall,
  vector?: QueryVector,
): Promise<RecallItem[]> {
  const mode = input.mode === 'auto' ? (vector ? 'hybrid' : 'text') : input.mode;
  const current = await currentFilter(tx, who, input.scope, input.branch, input.asOf);
  const trust = trustFilter(input.minTrust);
  const where = [current.sql, trust.sql];
  const params: SqlParam[] = [...current.params, ...trust.params];
  if (input.kinds && input.kinds.length > 0) {
    where.push(`r.kind IN (${input.kinds.map(() => '?').join(', ')})`);
    params.push(...input.kinds);
  }
  // Tags are checked on the ranked rows: fetch more when they will thin the list.
  const fetch = input.tags && input.tags.length > 0 ? input.k * 8 : input.k;
  const lists: RecallItem[][] = [];
  if (mode === 'text' || mode === 'hybrid') {
    const match = await matchClause(tx, dialect, who.tenant, queryWords(input.query));
    if (match) {
      const rows = await tx.all<RecordRow & { score: number }>(
        `SELECT ${COLUMNS}, ${match.score} AS score FROM ${match.from} WHERE ${[match.where, ...where].join(' AND ')} ORDER BY score DESC, r.n DESC LIMIT ?`,
        [...match.scoreParams, ...match.fromParams, ...match.whereParams, ...params, fetch],
      );
      lists.push(rows.map((row) => ({ ...toRecord(row), score: Number(row.score) })));
    } else lists.push([]);
  }
  if (mode === 'vector' || mode === 'hybrid') {
    if (!vector) throw new Error('a vector recall needs the query vector');
    // The index is the tenant's own; what the reader may not see is dropped below, so look further.
    const near = await nearest(tx, who.tenant, vector.embedding, vector.bytes, Math.min(4096, fetch * 8));
    const distance = new Map(near.map((v) => [v.n, v.distance]));
    const rows =
      near.length === 0
        ? []
        : await tx.all<RecordRow>(
            `SELECT ${COLUMNS} FROM memory_records r WHERE ${where.join(' AND ')} AND r.n IN (${near.map(() => '?').join(', ')})`,
            [...params, ...near.map((v) => v.n)],
          );
    lists.push(
      rows
        .map((row) => ({ ...toRecord(row), score: 1 - (distance.get(Number(row.n)) ?? 1) }))
        .sort((x, y) => y.score - x.score)
        .slice(0, fetch),
    );
  }
  const wanted = input.tags ?? [];
  const keep = (item: RecallItem) => wanted.every((t) => item.tags.includes(t));
  if (lists.length === 1) return (lists[0] ?? []).filter(keep).slice(0, input.k);
  // Reciprocal rank fusion: each list adds 1 / (60 + rank) to an item's score.
  const fused = new Map<string, RecallItem>();
  for (const list of lists)
    list.filter(keep).forEach((item, rank) => {
      const key = `${item.id}/${item.version}`;
      const seen = fused.get(key);
      fused.set(key, { ...item, score: (seen?.score ?? 0) + 1 / (RRF_K + rank + 1) });
    });
  return [...fused.values()].sort((x, y) => y.score - x.score).slice(0, input.k);
}

/** The current records of a scope, newest first (no ranking, no query). */
export async function list(tx: SqlExecutor, who: Identity, input: ValidList): Promise<MemoryRecord[]> {
  const current = await currentFilter(tx, who, input.scope, input.branch, undefined);
  const rows = await tx.all<RecordRow>(
    `SELECT ${COLUMNS} FROM memory_records r WHERE ${current.sql} ORDER BY r.recorded_at DESC, r.n DESC LIMIT ?`,
    [...current.params, input.limit],
  );
  return rows.map(toRecord);
}

/**
 * Quarantine a record (hidden from recall unless asked for) with everything
 * made from it, transitively; or promote it (trusted: a person's call — the
 * records made from it keep their own tier).
 */
export async function setTrust(
  tx: SqlExecutor,
  who: Identity,
  id: string,
  trust: TrustTier,
  now: number,
): Promise<MemoryRecord> {
  if (trust === 'trusted' && who.kind !== 'user')
    throw forbidden(
      `promoting ${id} to trusted is a person's decision: ${who.principal} is an ${who.kind}; ask a user of the tenant`,
      { action: 'memory.promote', principal: who.principal },
    );
  if (!(await latest(tx, who.tenant, id))) throw notFound('memory record', id);
  const records = trust === 'quarantined' ? await closure(tx, who.tenant, id, true) : [id];
  await tx.run(
    `UPDATE memory_records SET trust = ? WHERE tenant = ? AND id IN (${records.map(() => '?').join(', ')})`,
    [trust, who.tenant, ...records],
  );
  await audit(
    tx,
    who,
    trust === 'trusted' ? 'memory.promote' : 'memory.quarantine',
    id,
    { trust, records },
    now,
  );
  return getRecord(tx, who, id);
}

/** The record and, with `derived`, every record made from it, transitively (ids). */
async function closure(tx: SqlExecutor, tenant: string, id: string, derived: boolean): Promise<string[]> {
  const found = new Set([id]);
  let frontier = [id];
  while (derived && frontier.length > 0) {
    const rows = await tx.all<{ id: string }>(
      `SELECT id FROM memory_derived WHERE tenant = ? AND source IN (${frontier.map(() => '?').join(', ')})`,
      [tenant, ...frontier],
    );
    frontier = rows.map((r) => r.id).filter((r) => !found.has(r));
    for (const r of frontier) found.add(r);
  }
  return [...found];
}

/** What removing these records takes with them: versions, index entries, vectors, anchors. */
async function removal(
  tx: SqlExecutor,
  dialect: Dialect,
  tenant: string,
  records: string[],
  preview: boolean,
): Promise<ForgetAnswer> {
  const marks = records.map(() => '?').join(', ');
  const versions =
    records.length === 0
      ? []
      : await tx.all<{ n: number }>(`SELECT n FROM memory_records WHERE tenant = ? AND id IN (${marks})`, [
          tenant,
          ...records,
        ]);
  const anchors =
    records.length === 0
      ? 0
      : Number(
          (
            await tx.get<{ count: number }>(
              `SELECT COUNT(*) AS count FROM memory_anchors WHERE tenant = ? AND id IN (${marks})`,
              [tenant, ...records],
            )
          )?.count ?? 0,
        );
  const numbers = versions.map((v) => Number(v.n));
  const answer = {
    preview,
    records,
    versions: versions.length,
    indexEntries: versions.length,
    vectorEntries: await countVectors(tx, dialect, tenant, numbers),
    anchors,
  };
  if (preview || records.length === 0) return answer;
  const indexEntries = await unindex(tx, dialect, tenant, numbers);
  const vectorEntries = await unindexVectors(tx, dialect, tenant, numbers);
  for (const table of ['memory_records', 'memory_anchors', 'memory_derived'])
    await tx.run(`DELETE FROM ${table} WHERE tenant = ? AND id IN (${marks})`, [tenant, ...records]);
  return { ...answer, indexEntries, vectorEntries };
}

/**
 * Forgets a record — every version, its index entries and anchors — and
 * with `derived` everything made from it; `preview` lists what would go and
 * removes nothing. The log keeps its write events (they hold no text).
 */
export async function forget(
  tx: SqlExecutor,
  dialect: Dialect,
  who: Identity,
  input: ValidForget,
  now: number,
): Promise<ForgetAnswer> {
  if (!(await latest(tx, who.tenant, input.record))) throw notFound('memory record', input.record);
  const records = await closure(tx, who.tenant, input.record, input.derived);
  const answer = await removal(tx, dialect, who.tenant, records, input.preview);
  if (!input.preview)
    await audit(tx, who, 'memory.forget', input.record, { records, versions: answer.versions }, now);
  return answer;
}

/**
 * An abandoned branch's memory goes with it: every record of the session
 * seen on `branch` and on none of `keepFor` (the session's branches still in
 * use) is forgotten.
 */
export async function dropBranch(
  tx: SqlExecutor,
  dialect: Dialect,
  who: Identity,
  input: { session: string; branch: string; keepFor: string[] },
  now: number,
): Promise<ForgetAnswer> {
  const scope = { session: input.session as SessionId };
  const on = await visibility(tx, who, scope, input.branch, 'r');
  const where = [on.sql];
  const params = [...on.params];
  for (const branch of input.keepFor) {
    const kept = await visibility(tx, who, scope, branch, 'r');
    where.push(`NOT (${kept.sql})`);
    params.push(...kept.params);
  }
  const rows = await tx.all<{ id: string }>(
    `SELECT DISTINCT r.id FROM memory_records r WHERE ${where.join(' AND ')}`,
    params,
  );
  const answer = await removal(
    tx,
    dialect,
    who.tenant,
    rows.map((r) => r.id),
    false,
  );
  if (answer.records.length > 0)
    await audit(
      tx,
      who,
      'memory.drop-branch',
      input.session,
      { branch: input.branch, records: answer.records },
      now,
    );
  return answer;
}

/** The log event that carries a kept branch's records to its parent (ids counted, no text). */
export const MEMORY_CARRY_EVENT = 'cairn.memory.carry';

/**
 * What a kept branch remembered becomes its parent's: every version of the
 * session seen on `from` and not on `to` is anchored, from now, at one new
 * event on `to` (so a restore of `to` to before it hides them again).
 */
export async function carry(
  tx: SqlExecutor,
  who: Identity,
  input: { session: string; from: string; to: string },
  now: number,
): Promise<{ records: string[]; event: string }> {
  if (input.from === input.to)
    throw invalidArgument('a branch carries its memory to another branch, not to itself', {
      branch: input.from,
    });
  const seen = async (branch: string) =>
    visibility(tx, who, { session: input.session as SessionId }, branch, 'r');
  const onFrom = await seen(input.from);
  const onTo = await seen(input.to);
  const rows = await tx.all<{ id: string; version: number }>(
    `SELECT r.id, r.version FROM memory_records r WHERE ${onFrom.sql} AND NOT (${onTo.sql}) ORDER BY r.n`,
    [...onFrom.params, ...onTo.params],
  );
  if (rows.length === 0) return { records: [], event: '' };
  const records = [...new Set(rows.map((r) => r.id))];
  const event = await log.appendEvent(
    tx,
    who,
    { session: input.session as SessionId, branch: input.to, kind: MEMORY_CARRY_EVENT, payload: null },
    log.encodePayload({ from: input.from, records: records.length, versions: rows.length }),
    now,
  );
  const at = await log.eventPosition(tx, who, event.id);
  for (const row of rows)
    await tx.run(
      'INSERT INTO memory_anchors (tenant, id, version, event, line, seq) VALUES (?, ?, ?, ?, ?, ?)',
      [who.tenant, row.id, row.version, event.id, at.line, at.seq],
    );
  await audit(tx, who, 'memory.carry', event.id, { from: input.from, to: input.to, records }, now);
  return { records, event: event.id };
}
