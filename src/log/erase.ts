/**
 * The session log's part of an erasure (docs/design/erasure.md): the
 * sessions a scope names go whole — their branches (and ref logs), lines and
 * events (the steps' journal among them: steps/erase.ts counts those). Branches are deleted first: on PostgreSQL that waits for an append
 * in flight on one of them, whose event the later deletes then see.
 */
import type { ErasedRows, ErasurePart, ErasureScope } from '../erasure/part.js';
import { inBatches, placeholders, type SqlExecutor } from '../storage/engine.js';
import { deleteWhereIn, valuesWhereIn } from '../storage/rows-in.js';

/** The sessions a principal owns (created), for resolving a user or agent subject. */
export async function sessionsOwnedBy(tx: SqlExecutor, tenant: string, principal: string): Promise<string[]> {
  return valuesWhereIn(tx, 'sessions', tenant, 'owner', [principal]);
}

/** Of `sessions`, those the tenant has. */
export async function sessionsFound(tx: SqlExecutor, tenant: string, sessions: readonly string[]) {
  return valuesWhereIn(tx, 'sessions', tenant, 'id', sessions);
}

/** Every branch of the sessions. */
export async function branchesOf(tx: SqlExecutor, tenant: string, sessions: readonly string[]) {
  return valuesWhereIn(tx, 'branches', tenant, 'session', sessions);
}

/** The ids of every event of the sessions (for the features whose records name events: memory's derivations). */
export async function eventsOf(
  tx: SqlExecutor,
  tenant: string,
  sessions: readonly string[],
): Promise<string[]> {
  return valuesWhereIn(tx, 'events', tenant, 'session', sessions);
}

/** How many events of the sessions have one of `kinds` (for the features whose records are events: steps). */
export async function countEventsOfKinds(
  tx: SqlExecutor,
  tenant: string,
  sessions: readonly string[],
  kinds: readonly string[],
): Promise<number> {
  let count = 0;
  await inBatches(sessions, async (slice) => {
    const row = await tx.get<{ n: number }>(
      `SELECT COUNT(*) AS n FROM events WHERE tenant = ? AND kind IN (${placeholders(kinds.length)}) AND session IN (${placeholders(slice.length)})`,
      [tenant, ...kinds, ...slice],
    );
    count += Number(row?.n ?? 0);
  });
  return count;
}

export const LOG_ERASURE: ErasurePart = {
  feature: 'log',
  async erase(tx: SqlExecutor, scope: ErasureScope, preview: boolean): Promise<ErasedRows> {
    const { tenant, sessions } = scope;
    const branches = await branchesOf(tx, tenant, sessions);
    const events = await eventsOf(tx, tenant, sessions);
    const counts = {
      branches: await deleteWhereIn(tx, 'branches', tenant, 'session', sessions, preview),
      branchMoves: await deleteWhereIn(tx, 'ref_log', tenant, 'branch', branches, preview),
      events: await deleteWhereIn(tx, 'events', tenant, 'session', sessions, preview),
      lines: await deleteWhereIn(tx, 'lines', tenant, 'session', sessions, preview),
      sessions: await deleteWhereIn(tx, 'sessions', tenant, 'id', sessions, preview),
    };
    return { counts, resources: [...sessions, ...branches, ...events] };
  },
};
