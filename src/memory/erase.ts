/**
 * Memory's part of the erasure cascade (src/erasure/part.ts): the records a
 * scope owns go as a forget with `derived` takes them — every version, its
 * full-text entry, vectors, anchors and derivation edges (removal in
 * memory.ts, the one deletion path) — and the tenant's full-text index is
 * then rewritten so no term of theirs stays in its segments (purgeIndex).
 * sqlite-vec zeroes a deleted vector in its chunk; PostgreSQL's tsvector is a
 * column of the row. What the deleted rows' pages still hold is the
 * cascade's to compact (vacuum and checkpoint), after the commit.
 */
import { lockChain } from '../audit/audit-chain.js';
import type { ErasedRows, ErasurePart, ErasureScope } from '../erasure/part.js';
import { eventsOf } from '../log/erase.js';
import { type Dialect, inBatches, placeholders, type SqlExecutor } from '../storage/engine.js';
import { valuesWhereIn } from '../storage/rows-in.js';
import { purgeIndex } from './fulltext.js';
import { closure, removal } from './memory.js';

/** The records made from an event of the sessions (their derivedFrom names it; the log says which events). */
async function madeFromEvents(tx: SqlExecutor, tenant: string, sessions: readonly string[]) {
  return valuesWhereIn(tx, 'memory_derived', tenant, 'source', await eventsOf(tx, tenant, sessions));
}

/**
 * The records the scope owns, before what was made from them: those scoped to
 * the subject user or agent, those of its sessions, and those made from an
 * event of its sessions. A record written on one of their branches is of its
 * session: its `branch` is the branch's name, meaningful only within that
 * session (`scope.branches` are branch ids), so the sessions reach it.
 */
async function owned(tx: SqlExecutor, scope: ErasureScope): Promise<string[]> {
  const { tenant, subject } = scope;
  const of = (column: string, values: readonly string[]) =>
    valuesWhereIn(tx, 'memory_records', tenant, column, values);
  const scoped = { user: 'scope_user', agent: 'scope_agent', session: undefined }[subject.kind];
  const ids = [
    ...(scoped ? await of(scoped, [subject.id]) : []),
    ...(await of('scope_session', scope.sessions)),
    ...(await madeFromEvents(tx, tenant, scope.sessions)),
  ];
  return [...new Set(ids)];
}

/** How many derivation edges name the records, as the made or the made-from (each edge once). */
async function edges(tx: SqlExecutor, tenant: string, records: readonly string[]): Promise<number> {
  const seen = new Set<string>();
  for (const column of ['id', 'source'])
    await inBatches(records, async (slice) => {
      const rows = await tx.all<{ id: string; source: string }>(
        `SELECT id, source FROM memory_derived WHERE tenant = ? AND ${column} IN (${placeholders(slice.length)})`,
        [tenant, ...slice],
      );
      for (const r of rows) seen.add(`${r.id}\n${r.source}`);
    });
  return seen.size;
}

/**
 * Memory's rows of an erased scope. Every record made from one of them goes
 * too, transitively (the closure a forget with `derived` takes), so an edge
 * that names one from either side goes with the record it was written for.
 * Its resources are the records, which memory's audit entries of them name
 * (remember, forget, quarantine, promote); its entries that name a session
 * (drop-branch), a carry event or a principal (a refused source claim) are
 * the log's and identity's resources.
 */
export const MEMORY_ERASURE: ErasurePart = {
  feature: 'memory',
  async erase(tx: SqlExecutor, scope: ErasureScope, preview: boolean, dialect: Dialect): Promise<ErasedRows> {
    const { tenant } = scope;
    // The tenant's write lock, as setTrust takes it: no record is made from one of these meanwhile.
    if (!preview) await lockChain(tx, tenant);
    const records = await closure(tx, tenant, await owned(tx, scope), true);
    const derivations = await edges(tx, tenant, records);
    const answer = await removal(tx, dialect, tenant, records, preview);
    // Also clears what earlier forgets left in the index; a no-op once it is one segment.
    if (!preview) await purgeIndex(tx, dialect, tenant);
    return {
      counts: {
        records: records.length,
        versions: answer.versions,
        indexEntries: answer.indexEntries,
        vectorEntries: answer.vectorEntries,
        anchors: answer.anchors,
        derivations,
      },
      resources: records,
    };
  },
};
