/**
 * The session log's share of the branch sweep (docs/design/retention.md):
 * which branches of a session there are, what a branch last decided about
 * itself (an event of a given kind it appended on its own path), which of
 * a set of branches other branches still reach, and — for the branches
 * swept — their events, their lines, their rows and ref logs deleted.
 *
 * An event belongs to the branch that appended it (`events.branch`, and a
 * line holds one branch's events): a swept branch's events are exactly
 * those it appended, none of which another branch's path reaches (the
 * sweep leaves a branch that another one reaches, see `reachedFrom`).
 */
import type { RetentionPart } from '../retention/part.js';
import { inBatches, placeholders, type SqlExecutor } from '../storage/engine.js';
import { deleteWhereIn } from '../storage/rows-in.js';
import { BRANCH_COLUMNS, type BranchRow } from './rows.js';
import { pathSegments, type Segment } from './session-log.js';

/** The session's branches, locked against appends and moves for the rest of the transaction (`lock`). */
export async function sessionBranches(
  tx: SqlExecutor,
  tenant: string,
  session: string,
  lock: boolean,
): Promise<BranchRow[]> {
  return tx.all<BranchRow>(
    `SELECT ${BRANCH_COLUMNS} FROM branches WHERE tenant = ? AND session = ? ORDER BY id ${lock ? tx.lockRows : ''}`,
    [tenant, session],
  );
}

/**
 * The sessions with an event of `kind`, in id order: one pass over the
 * tenant's events (no index on kinds, which every append would pay for),
 * so a sweep visits only the sessions where a branch decided something.
 */
export async function sessionsWithKind(tx: SqlExecutor, tenant: string, kind: string): Promise<string[]> {
  const rows = await tx.all<{ session: string }>(
    'SELECT DISTINCT session FROM events WHERE tenant = ? AND kind = ? ORDER BY session',
    [tenant, kind],
  );
  return rows.map((r) => r.session);
}

function covers(segments: readonly Segment[], line: string, seq: number): boolean {
  return segments.some((s) => s.line === line && seq >= s.lo && seq <= s.hi);
}

/**
 * Per branch, the newest event of one of `kinds` that the branch itself
 * appended and its path still holds (a fork inherits its parent's decisions
 * on its path, and they are not its own), with its payload text.
 */
export async function ownLatestOfKinds(
  tx: SqlExecutor,
  tenant: string,
  session: string,
  branches: readonly BranchRow[],
  kinds: readonly string[],
): Promise<Map<string, { kind: string; payload: string }>> {
  const rows = await tx.all<{ branch: string; line: string; seq: number; kind: string; payload: string }>(
    `SELECT branch, line, seq, kind, payload FROM events
     WHERE tenant = ? AND session = ? AND kind IN (${placeholders(kinds.length)}) ORDER BY seq DESC`,
    [tenant, session, ...kinds],
  );
  const latest = new Map<string, { kind: string; payload: string }>();
  for (const b of branches) {
    const mine = rows.filter((r) => r.branch === b.name);
    if (mine.length === 0) continue;
    const path = await pathSegments(tx, tenant, b);
    const found = mine.find((r) => covers(path, r.line, Number(r.seq)));
    if (found) latest.set(b.name, { kind: found.kind, payload: found.payload });
  }
  return latest;
}

/**
 * Of `doomed` (branch names), those another branch still reaches: a path of
 * one of `live` holds an event a doomed branch appended, or a line of
 * events the doomed did not append starts from one of its lines (a branch
 * forked from it, even if its head moved away since). Their events stay,
 * so they are not swept.
 */
export async function reachedFrom(
  tx: SqlExecutor,
  tenant: string,
  session: string,
  doomed: readonly string[],
  live: readonly BranchRow[],
): Promise<Set<string>> {
  const reached = new Set<string>();
  if (doomed.length === 0) return reached;
  const owned = await tx.all<{ id: string; branch: string }>(
    `SELECT DISTINCT line AS id, branch FROM events WHERE tenant = ? AND session = ? AND branch IN (${placeholders(doomed.length)})`,
    [tenant, session, ...doomed],
  );
  const ownerOf = new Map(owned.map((l) => [l.id, l.branch]));
  for (const b of live) {
    for (const s of await pathSegments(tx, tenant, b)) {
      const owner = ownerOf.get(s.line);
      if (owner === undefined) continue;
      // The segment reaches the owner's events only where it holds one of them.
      const held = await tx.get<{ n: number }>(
        'SELECT COUNT(*) AS n FROM events WHERE tenant = ? AND line = ? AND seq >= ? AND seq <= ? AND branch = ?',
        [tenant, s.line, s.lo, s.hi, owner],
      );
      if (Number(held?.n ?? 0) > 0) reached.add(owner);
    }
  }
  const lines = [...ownerOf.keys()];
  await inBatches(lines, async (slice) => {
    const based = await tx.all<{ base_line: string }>(
      `SELECT l.base_line FROM lines l WHERE l.tenant = ? AND l.base_line IN (${placeholders(slice.length)})
       AND NOT EXISTS (SELECT 1 FROM events e WHERE e.tenant = l.tenant AND e.line = l.id AND e.branch IN (${placeholders(doomed.length)}))`,
      [tenant, ...slice, ...doomed],
    );
    for (const r of based) reached.add(ownerOf.get(r.base_line) as string);
  });
  return reached;
}

/** What a sweep of some branches of a session deletes in the log: read before any part runs. */
export interface LogSweep {
  /** The swept branches' ids (their rows and ref logs go). */
  branches: string[];
  /** Every event they appended. */
  events: string[];
  /** The lines those events are on. */
  lines: string[];
}

export async function logSweepOf(
  tx: SqlExecutor,
  tenant: string,
  session: string,
  branches: readonly BranchRow[],
): Promise<LogSweep> {
  const names = branches.map((b) => b.name);
  const rows =
    names.length === 0
      ? []
      : await tx.all<{ id: string; line: string }>(
          `SELECT id, line FROM events WHERE tenant = ? AND session = ? AND branch IN (${placeholders(names.length)})`,
          [tenant, session, ...names],
        );
  return {
    branches: branches.map((b) => b.id),
    events: rows.map((r) => r.id),
    lines: [...new Set(rows.map((r) => r.line))],
  };
}

/** Every event the session's `branches` (names) appended, each with its branch's name. */
export async function eventsOfBranches(
  tx: SqlExecutor,
  tenant: string,
  session: string,
  branches: readonly string[],
): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  await inBatches(branches, async (slice) => {
    for (const r of await tx.all<{ id: string; branch: string }>(
      `SELECT id, branch FROM events WHERE tenant = ? AND session = ? AND branch IN (${placeholders(slice.length)})`,
      [tenant, session, ...slice],
    ))
      found.set(r.id, r.branch);
  });
  return found;
}

/** How many of `events` have one of `kinds` (the steps count their journal's). */
export async function countOfKinds(
  tx: SqlExecutor,
  tenant: string,
  events: readonly string[],
  kinds: readonly string[],
): Promise<number> {
  let n = 0;
  await inBatches(events, async (slice) => {
    const row = await tx.get<{ n: number }>(
      `SELECT COUNT(*) AS n FROM events WHERE tenant = ? AND kind IN (${placeholders(kinds.length)}) AND id IN (${placeholders(slice.length)})`,
      [tenant, ...kinds, ...slice],
    );
    n += Number(row?.n ?? 0);
  });
  return n;
}

/** Deletes the swept branches (first: an append waiting on one then finds none), their ref logs, events and lines. */
export const LOG_RETENTION: RetentionPart = {
  feature: 'log',
  async sweep(tx, scope, dryRun) {
    const { tenant, log: sweep } = scope;
    const counts = {
      branches: await deleteWhereIn(tx, 'branches', tenant, 'id', sweep.branches, dryRun),
      branchMoves: await deleteWhereIn(tx, 'ref_log', tenant, 'branch', sweep.branches, dryRun),
      events: await deleteWhereIn(tx, 'events', tenant, 'id', sweep.events, dryRun),
      lines: await deleteWhereIn(tx, 'lines', tenant, 'id', sweep.lines, dryRun),
    };
    return { counts, resources: [...sweep.branches, ...sweep.events] };
  },
};
