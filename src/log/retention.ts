/**
 * The session log's share of the branch sweep (docs/design/retention.md):
 * which branches of a session there are, what a branch last decided about
 * itself (an event of a given kind it appended on its own path), which of
 * a set of branches other branches still reach, and — for the branches
 * swept — their events, their lines, their rows and ref logs deleted.
 *
 * An event belongs to the branch that appended it (`events.branch`), and a
 * line holds one branch's events, so a line has an owner: the branch of its
 * first event. A swept branch's events are exactly those on the lines it
 * owns, none of which a branch that stays reaches (the sweep keeps a branch
 * another one reaches, see `reachedFrom`). Everything here reads a
 * session's lines by their index and each line's events by the (tenant,
 * line, seq) key: never a scan of the tenant's events, but for
 * `sessionsWithKind`, once a sweep.
 */
import type { RetentionPart } from '../retention/part.js';
import { inBatches, placeholders, type SqlExecutor } from '../storage/engine.js';
import { deleteWhereIn } from '../storage/rows-in.js';
import { BRANCH_COLUMNS, type BranchRow } from './rows.js';
import { pathSegments } from './session-log.js';

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

/** A line of a session, with the branch that appended its events. */
export interface SessionLine {
  id: string;
  baseLine: string;
  baseSeq: number;
  /** The name of the branch whose events it holds. */
  owner: string;
}

/** The session's lines (by the `lines_by_session` index), each with its owner (its first event's branch). */
export async function sessionLines(tx: SqlExecutor, tenant: string, session: string): Promise<SessionLine[]> {
  const rows = await tx.all<{ id: string; base_line: string; base_seq: number; owner: string | null }>(
    `SELECT l.id, l.base_line, l.base_seq,
            (SELECT e.branch FROM events e WHERE e.tenant = l.tenant AND e.line = l.id AND e.seq = l.base_seq + 1) AS owner
     FROM lines l WHERE l.tenant = ? AND l.session = ? ORDER BY l.id`,
    [tenant, session],
  );
  return rows.map((r) => ({
    id: r.id,
    baseLine: r.base_line,
    baseSeq: Number(r.base_seq),
    owner: r.owner ?? '',
  }));
}

/**
 * Per branch, the newest event of one of `kinds` that the branch itself
 * appended and its path still holds (a fork inherits its parent's decisions
 * on its path, and they are not its own), with its payload text: read on
 * the segments of its path that lie on its own lines.
 */
export async function ownLatestOfKinds(
  tx: SqlExecutor,
  tenant: string,
  branches: readonly BranchRow[],
  lines: readonly SessionLine[],
  kinds: readonly string[],
): Promise<Map<string, { kind: string; payload: string }>> {
  const ownerOf = new Map(lines.map((l) => [l.id, l.owner]));
  const latest = new Map<string, { kind: string; payload: string }>();
  for (const b of branches) {
    const own = (await pathSegments(tx, tenant, b)).filter((s) => ownerOf.get(s.line) === b.name).reverse();
    for (const s of own) {
      const found = await tx.get<{ kind: string; payload: string }>(
        `SELECT kind, payload FROM events WHERE tenant = ? AND line = ? AND seq >= ? AND seq <= ?
         AND kind IN (${placeholders(kinds.length)}) ORDER BY seq DESC LIMIT 1`,
        [tenant, s.line, s.lo, s.hi, ...kinds],
      );
      if (found) {
        latest.set(b.name, found);
        break;
      }
    }
  }
  return latest;
}

/**
 * Of `doomed` (branch names), those another branch still reaches: a path of
 * one of `live` holds an event on a doomed branch's line, or a line of
 * another branch starts from one of its lines (a branch forked from it,
 * even if its head moved away since). Their events stay, so they are not
 * swept.
 */
export async function reachedFrom(
  tx: SqlExecutor,
  tenant: string,
  doomed: readonly string[],
  live: readonly BranchRow[],
  lines: readonly SessionLine[],
): Promise<Set<string>> {
  const reached = new Set<string>();
  const going = new Set(doomed);
  const ownerOf = new Map(lines.filter((l) => going.has(l.owner)).map((l) => [l.id, l.owner]));
  if (ownerOf.size === 0) return reached;
  for (const b of live)
    for (const s of await pathSegments(tx, tenant, b)) {
      const owner = ownerOf.get(s.line);
      // A segment of a line holds its events from the line's first on: any such segment reaches one.
      if (owner !== undefined && s.hi >= s.lo) reached.add(owner);
    }
  for (const l of lines) {
    const owner = ownerOf.get(l.baseLine);
    if (owner !== undefined && !going.has(l.owner)) reached.add(owner);
  }
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
  /** The audit seq of the earliest entry about them (their creation): no entry before it names one. */
  firstAuditSeq: number;
}

/** Every event on the lines the session's `branches` (names) own, each with its branch's name. */
export async function eventsOfBranches(
  tx: SqlExecutor,
  tenant: string,
  branches: readonly string[],
  lines: readonly SessionLine[],
): Promise<Map<string, string>> {
  const named = new Set(branches);
  const ownerOf = new Map(lines.filter((l) => named.has(l.owner)).map((l) => [l.id, l.owner]));
  const found = new Map<string, string>();
  await inBatches([...ownerOf.keys()], async (slice) => {
    for (const r of await tx.all<{ id: string; line: string }>(
      `SELECT id, line FROM events WHERE tenant = ? AND line IN (${placeholders(slice.length)})`,
      [tenant, ...slice],
    ))
      found.set(r.id, ownerOf.get(r.line) as string);
  });
  return found;
}

export async function logSweepOf(
  tx: SqlExecutor,
  tenant: string,
  branches: readonly BranchRow[],
  lines: readonly SessionLine[],
): Promise<LogSweep> {
  const names = new Set(branches.map((b) => b.name));
  const ids = branches.map((b) => b.id);
  const events = await eventsOfBranches(tx, tenant, [...names], lines);
  let first = Number.MAX_SAFE_INTEGER;
  await inBatches(ids, async (slice) => {
    const row = await tx.get<{ seq: number | null }>(
      `SELECT MIN(audit_seq) AS seq FROM ref_log WHERE tenant = ? AND branch IN (${placeholders(slice.length)})`,
      [tenant, ...slice],
    );
    if (row?.seq != null) first = Math.min(first, Number(row.seq));
  });
  return {
    branches: ids,
    events: [...events.keys()],
    lines: lines.filter((l) => names.has(l.owner)).map((l) => l.id),
    firstAuditSeq: first === Number.MAX_SAFE_INTEGER ? 1 : first,
  };
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
