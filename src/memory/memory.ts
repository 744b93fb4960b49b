import { lockChain } from '../audit/audit-chain.js';
import { type CairnError, forbidden, invalidArgument, notFound } from '../errors.js';
import { newId, type SessionId } from '../ids.js';
import * as log from '../log/session-log.js';
import { type PiiCounts, piiField } from '../redaction/pii.js';
import { type Dialect, inBatches, placeholders, type SqlExecutor, type SqlParam } from '../storage/engine.js';
import type { Identity } from '../types.js';
import { indexRecords, unindex, vectorColumn, vectorValue } from './fulltext.js';
import type { QueryVector } from './recall.js';
import { audit, COLUMNS, latest, type RecordRow, toRecord } from './rows.js';
import type {
  ForgetAnswer,
  MemoryRecord,
  MemorySource,
  TrustTier,
  ValidForget,
  ValidRemember,
} from './schema.js';
import { AGENT_SOURCES, MEMORY_SOURCES, TRUST_TIERS } from './schema.js';
import { countVectors, indexVector, unindexVectors } from './vectors.js';

/** The trust tier each source's records arrive with; the store's policy may lower any of them. */
export type TrustPolicy = Partial<Record<MemorySource, TrustTier>>;

export const DEFAULT_TRUST: Readonly<Record<MemorySource, TrustTier>> = {
  person: 'trusted',
  agent: 'untrusted',
  tool: 'untrusted',
  import: 'untrusted',
};

/**
 * The sources a principal of each kind may name (its token says its kind,
 * never the request): a person's word is a user's alone, so only a person's
 * record arrives trusted by source.
 */
export const SOURCES_OF: Readonly<Record<Identity['kind'], readonly MemorySource[]>> = {
  user: MEMORY_SOURCES,
  agent: AGENT_SOURCES,
  service: AGENT_SOURCES,
};

/** The refusal of a source the writer may not name, or undefined. */
export function claimRefusal(who: Identity, input: Pick<ValidRemember, 'source'>): CairnError | undefined {
  const may = SOURCES_OF[who.kind];
  if (may.includes(input.source)) return undefined;
  return forbidden(
    `source ${input.source} is not yours to claim: ${who.principal} is ${who.kind === 'agent' ? 'an' : 'a'} ${who.kind} and may remember with source ${may.join(', ')} (a person's record is written with a person's own token)`,
    { field: 'source', source: input.source, principal: who.principal, kind: who.kind },
  );
}

/** The log event a record written in a session leaves on its branch (no text: forgetting removes that). */
export const MEMORY_EVENT = 'cairn.memory.remember';

/** The lower of two trust tiers: what is made from an untrusted record is no more trusted than it. */
function lowest(a: TrustTier, b: TrustTier): TrustTier {
  return TRUST_TIERS.indexOf(a) >= TRUST_TIERS.indexOf(b) ? a : b;
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
  /** What the tenant's redaction policy replaced in its text and data (counted in the audit entry). */
  pii: PiiCounts = {},
): Promise<MemoryRecord> {
  // A record whose trust follows another's reads it under the tenant's write lock, as quarantine does.
  if (namesRecords(input)) await lockChain(tx, who.tenant);
  const planned = await plan(tx, who, input, now, policy, vector, async (id, version, trust) => {
    // The audit head is the tenant's write lock: numbering the version after it cannot race another writer.
    await audit(
      tx,
      who,
      'memory.remember',
      id,
      { version, kind: input.kind, source: input.source, trust, ...piiField(pii) },
      now,
    );
    return (await highestNumber(tx, who.tenant)) + 1;
  });
  await store(tx, dialect, who.tenant, [planned]);
  return toRecord(planned.row);
}

/**
 * Writes records in order, all or none, as one audit entry listing them
 * (the chain's head is locked first, so their numbering cannot race).
 * Each is checked as `remember` checks it; two records of a batch that
 * supersede the same record make two versions, in order. Rows are written
 * several to a statement.
 */
export async function rememberMany(
  tx: SqlExecutor,
  dialect: Dialect,
  who: Identity,
  inputs: readonly ValidRemember[],
  now: number,
  policy: TrustPolicy = {},
  vectors: readonly (QueryVector | undefined)[] = [],
  /** What the tenant's redaction policy replaced in the batch (counted in its audit entry). */
  pii: PiiCounts = {},
): Promise<MemoryRecord[]> {
  await lockChain(tx, who.tenant);
  let n = await highestNumber(tx, who.tenant);
  const pending: Planned[] = [];
  const records: MemoryRecord[] = [];
  for (const [i, input] of inputs.entries()) {
    // What it supersedes or was made from may have a version earlier in the batch: write those first.
    if (namesRecords(input)) await store(tx, dialect, who.tenant, pending.splice(0));
    const planned = await plan(tx, who, input, now, policy, vectors[i], async () => ++n);
    pending.push(planned);
    records.push(toRecord(planned.row));
  }
  await store(tx, dialect, who.tenant, pending);
  const first = records[0];
  if (first)
    await audit(
      tx,
      who,
      'memory.remember',
      first.id,
      {
        records: records.map((r) => ({
          id: r.id,
          version: r.version,
          kind: r.kind,
          source: r.provenance.source,
          trust: r.provenance.trust,
        })),
        ...piiField(pii),
      },
      now,
    );
  return records;
}

/** Whether a record's trust follows other records' (what it supersedes or was made from). */
function namesRecords(input: ValidRemember): boolean {
  return input.supersedes !== undefined || input.derivedFrom.some((ref) => !ref.startsWith('ev_'));
}

async function highestNumber(tx: SqlExecutor, tenant: string): Promise<number> {
  const row = await tx.get<{ n: number | null }>('SELECT MAX(n) AS n FROM memory_records WHERE tenant = ?', [
    tenant,
  ]);
  return Number(row?.n ?? 0);
}

/** A version ready to be written: its row and what is written with it. */
interface Planned {
  row: RecordRow;
  input: ValidRemember;
  vector: QueryVector | undefined;
  anchor: { event: string; line: string; seq: number } | null;
}

/**
 * Checks a record against what it names (what it was made from, what it
 * supersedes), sets its trust, appends its log event when it is written in a
 * session, and numbers it (`number` is called once its id and trust are
 * known, and takes the tenant's write lock when the caller has not).
 */
async function plan(
  tx: SqlExecutor,
  who: Identity,
  input: ValidRemember,
  now: number,
  policy: TrustPolicy,
  vector: QueryVector | undefined,
  number: (id: string, version: number, trust: TrustTier) => Promise<number>,
): Promise<Planned> {
  const tenant = who.tenant;
  const refused = claimRefusal(who, input);
  if (refused) throw refused;
  // The writer's own tier: a new version of a trusted record by an agent is the agent's, not inherited.
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
  let anchor: Planned['anchor'] = null;
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
  const n = await number(id, version, trust);
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
    latest: 1,
  };
  return { row, input, vector, anchor };
}

/** Writes planned versions: rows several to a statement, then what goes with each (index, vector, anchor, edges). */
async function store(
  tx: SqlExecutor,
  dialect: Dialect,
  tenant: string,
  planned: readonly Planned[],
): Promise<void> {
  if (planned.length === 0) return;
  const tsv = vectorColumn(dialect);
  const columns = COLUMNS.replace(/r\./g, '');
  const perRow = Object.keys(planned[0]!.row).length;
  const values = `(${placeholders(perRow)}${tsv.value})`;
  await inBatches(
    planned,
    async (slice) => {
      await tx.run(
        `INSERT INTO memory_records (${columns}${tsv.column}) VALUES ${slice.map(() => values).join(', ')}`,
        slice.flatMap((p) => [
          ...(Object.values(p.row) as SqlParam[]),
          ...vectorValue(dialect, p.input.text, p.input.tags),
        ]),
      );
    },
    perRow + (tsv.column === '' ? 0 : 1),
    (p) => p.row.text.length + p.row.data.length,
  );
  for (const { row } of planned)
    if (row.version > 1)
      await tx.run('UPDATE memory_records SET latest = 0 WHERE tenant = ? AND id = ? AND version < ?', [
        tenant,
        row.id,
        row.version,
      ]);
  await indexRecords(
    tx,
    dialect,
    tenant,
    planned.map((p) => ({ n: p.row.n, text: p.input.text, tags: p.input.tags })),
  );
  for (const { row, input, vector, anchor } of planned) {
    if (vector) await indexVector(tx, tenant, vector.embedding, row.n, vector.bytes);
    if (anchor)
      await tx.run(
        'INSERT INTO memory_anchors (tenant, id, version, event, line, seq) VALUES (?, ?, ?, ?, ?, ?)',
        [tenant, row.id, row.version, anchor.event, anchor.line, anchor.seq],
      );
    for (const ref of new Set(input.derivedFrom))
      await tx.run(
        'INSERT INTO memory_derived (tenant, id, source) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
        [tenant, row.id, ref],
      );
  }
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
  // Serialized with every write that reads a record's trust (the tenant's write lock, taken first):
  // a record made from this one meanwhile is either seen by the closure or sees the new tier.
  await lockChain(tx, who.tenant);
  if (!(await latest(tx, who.tenant, id))) throw notFound('memory record', id);
  const records = trust === 'quarantined' ? await closure(tx, who.tenant, [id], true) : [id];
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

/**
 * The records and, with `derived`, every record made from any of them,
 * transitively (ids, the given first); the frontier is read a slice at a
 * time, however many records it holds.
 */
export async function closure(
  tx: SqlExecutor,
  tenant: string,
  ids: readonly string[],
  derived: boolean,
): Promise<string[]> {
  const found = new Set(ids);
  let frontier = [...found];
  while (derived && frontier.length > 0) {
    const next: string[] = [];
    await inBatches(frontier, async (slice) => {
      const rows = await tx.all<{ id: string }>(
        `SELECT id FROM memory_derived WHERE tenant = ? AND source IN (${placeholders(slice.length)})`,
        [tenant, ...slice],
      );
      for (const { id } of rows)
        if (!found.has(id)) {
          found.add(id);
          next.push(id);
        }
    });
    frontier = next;
  }
  return [...found];
}

/**
 * What removing these records takes with them: versions, index entries,
 * vectors, anchors, and the edges to what they were made from (a record made
 * from one of them keeps its edge unless it goes too). The ids are bound a
 * slice at a time, however many there are.
 */
export async function removal(
  tx: SqlExecutor,
  dialect: Dialect,
  tenant: string,
  records: string[],
  preview: boolean,
): Promise<ForgetAnswer> {
  const numbers: number[] = [];
  let anchors = 0;
  await inBatches(records, async (slice) => {
    const marks = placeholders(slice.length);
    const versions = await tx.all<{ n: number }>(
      `SELECT n FROM memory_records WHERE tenant = ? AND id IN (${marks})`,
      [tenant, ...slice],
    );
    for (const v of versions) numbers.push(Number(v.n));
    const anchored = await tx.get<{ count: number }>(
      `SELECT COUNT(*) AS count FROM memory_anchors WHERE tenant = ? AND id IN (${marks})`,
      [tenant, ...slice],
    );
    anchors += Number(anchored?.count ?? 0);
  });
  const answer = {
    preview,
    records,
    versions: numbers.length,
    indexEntries: numbers.length,
    vectorEntries: await countVectors(tx, dialect, tenant, numbers),
    anchors,
  };
  if (preview || records.length === 0) return answer;
  const indexEntries = await unindex(tx, dialect, tenant, numbers);
  const vectorEntries = await unindexVectors(tx, dialect, tenant, numbers);
  await inBatches(records, async (slice) => {
    for (const table of ['memory_records', 'memory_anchors', 'memory_derived'])
      await tx.run(`DELETE FROM ${table} WHERE tenant = ? AND id IN (${placeholders(slice.length)})`, [
        tenant,
        ...slice,
      ]);
  });
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
  const records = await closure(tx, who.tenant, [input.record], input.derived);
  const answer = await removal(tx, dialect, who.tenant, records, input.preview);
  if (!input.preview)
    await audit(tx, who, 'memory.forget', input.record, { records, versions: answer.versions }, now);
  return answer;
}
