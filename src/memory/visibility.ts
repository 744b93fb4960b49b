import * as log from '../log/session-log.js';
import { placeholders, type SqlExecutor, type SqlParam } from '../storage/engine.js';
import type { Identity } from '../types.js';
import type { MemoryScope, TrustTier } from './schema.js';
import { TRUST_TIERS } from './schema.js';

/** The scope's user, agent and project, each to equal its column of `alias` (what it leaves out matches any). */
function scopeColumns(scope: MemoryScope, alias: string): { parts: string[]; params: SqlParam[] } {
  const parts: string[] = [];
  const params: SqlParam[] = [];
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
  return { parts, params };
}

/**
 * The part of a recall's filter that SQLite's narrow recall table `s` holds
 * (see migration 7): the scope's names, outside sessions or not, trust and
 * kinds, and — when `current` — the newest version only. With a session in
 * the scope or an as-of time, what is current also needs the branch's
 * anchors: the caller adds `currentFilter` on the records.
 */
export function narrowFilter(
  scope: MemoryScope,
  minTrust: TrustTier,
  kinds: readonly string[] | undefined,
  current: boolean,
  alias: string,
): { sql: string; params: SqlParam[] } {
  const named = scopeColumns(scope, alias);
  const parts = [...named.parts];
  const params = [...named.params];
  if (scope.session === undefined) parts.push(`${alias}.scope_session = ''`);
  if (current) parts.push(`${alias}.latest = 1`);
  const trust = trustFilter(minTrust, alias);
  parts.push(trust.sql);
  params.push(...trust.params);
  if (kinds && kinds.length > 0) {
    parts.push(`${alias}.kind IN (${placeholders(kinds.length)})`);
    params.push(...kinds);
  }
  return { sql: parts.join(' AND '), params };
}

/** Whether the newest version is the current one for this reader: outside sessions and without an as-of time. */
export function currentIsLatest(scope: MemoryScope, asOf: number | undefined): boolean {
  return scope.session === undefined && asOf === undefined;
}

/**
 * Which record versions `r` a reader in `scope` (on `branch`) may see: the
 * scope's user, agent and project must match; a version written in a session
 * is seen only with that session in the scope and its anchor on the branch's
 * path. Outside any session (no session in the scope) only records outside
 * sessions are seen.
 */
export async function visibility(
  tx: SqlExecutor,
  who: Identity,
  scope: MemoryScope,
  branch: string,
  alias: string,
): Promise<{ sql: string; params: SqlParam[] }> {
  const named = scopeColumns(scope, alias);
  const parts: string[] = [`${alias}.tenant = ?`, ...named.parts];
  const params: SqlParam[] = [who.tenant, ...named.params];
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
export async function currentFilter(
  tx: SqlExecutor,
  who: Identity,
  scope: MemoryScope,
  branch: string,
  asOf: number | undefined,
): Promise<{ sql: string; params: SqlParam[] }> {
  const seen = await visibility(tx, who, scope, branch, 'r');
  // Outside sessions every version is seen, so the current one is the newest: a column, not a search.
  if (currentIsLatest(scope, asOf)) return { sql: `${seen.sql} AND r.latest = 1`, params: seen.params };
  const newer = await visibility(tx, who, scope, branch, 'n2');
  const by = recordedBy('r', asOf);
  const newerBy = recordedBy('n2', asOf);
  return {
    sql: `${seen.sql} AND ${by.sql} AND NOT EXISTS (SELECT 1 FROM memory_records n2 WHERE n2.id = r.id AND n2.version > r.version AND ${newer.sql} AND ${newerBy.sql})`,
    params: [...seen.params, ...by.params, ...newer.params, ...newerBy.params],
  };
}

function trustFilter(minTrust: TrustTier, alias: string): { sql: string; params: SqlParam[] } {
  const tiers = TRUST_TIERS.slice(0, TRUST_TIERS.indexOf(minTrust) + 1);
  return { sql: `${alias}.trust IN (${placeholders(tiers.length)})`, params: tiers };
}
