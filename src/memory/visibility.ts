import { pathsUnion } from '../log/path-query.js';
import type { Segment } from '../log/session-log.js';
import { type Dialect, placeholders, type SqlExecutor, type SqlParam } from '../storage/engine.js';
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
 * A path as rows `p(line, lo, hi)` from one JSON parameter: joined, not one
 * expression per segment, so a path thousands of segments long stays one
 * small statement (an expression per segment failed SQLite past ~450).
 */
function pathRows(dialect: Dialect): string {
  return dialect === 'sqlite'
    ? "(SELECT value->>'line' AS line, value->>'lo' AS lo, value->>'hi' AS hi FROM json_each(?)) p"
    : 'jsonb_to_recordset(?::jsonb) AS p(line text, lo bigint, hi bigint)';
}

/**
 * Which record versions `r` a reader in `scope` (on any of `branches`) may
 * see: the scope's user, agent and project must match; a version written in
 * a session is seen only with that session in the scope and its anchor on
 * one of the branches' paths. Outside any session (no session in the scope)
 * only records outside sessions are seen.
 */
export async function visibility(
  tx: SqlExecutor,
  dialect: Dialect,
  who: Identity,
  scope: MemoryScope,
  branches: readonly string[],
  alias: string,
): Promise<{ sql: string; params: SqlParam[] }> {
  return seenOn(dialect, who, scope, await pathOf(tx, who, scope, branches), alias);
}

/** The union of the branches' paths in the scope's session (none outside a session). */
async function pathOf(
  tx: SqlExecutor,
  who: Identity,
  scope: MemoryScope,
  branches: readonly string[],
): Promise<Segment[]> {
  return scope.session === undefined ? [] : pathsUnion(tx, who, scope.session, branches);
}

/** `visibility` over a path already read. */
function seenOn(
  dialect: Dialect,
  who: Identity,
  scope: MemoryScope,
  path: readonly Segment[],
  alias: string,
): { sql: string; params: SqlParam[] } {
  const named = scopeColumns(scope, alias);
  const parts: string[] = [`${alias}.tenant = ?`, ...named.parts];
  const params: SqlParam[] = [who.tenant, ...named.params];
  if (scope.session === undefined) {
    parts.push(`${alias}.scope_session = ''`);
  } else {
    // Uncorrelated: the anchors on the path are found once a statement, through (tenant, line, seq).
    const onPath = `(${alias}.id, ${alias}.version) IN (SELECT a.id, a.version FROM ${pathRows(dialect)} JOIN memory_anchors a ON a.tenant = ? AND a.line = p.line AND a.seq BETWEEN p.lo AND p.hi)`;
    const onlySession = scope.user === undefined && scope.agent === undefined && scope.project === undefined;
    parts.push(
      onlySession
        ? `(${alias}.scope_session = ? AND ${onPath})`
        : `(${alias}.scope_session = '' OR (${alias}.scope_session = ? AND ${onPath}))`,
    );
    params.push(scope.session, JSON.stringify(path), who.tenant);
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
  dialect: Dialect,
  who: Identity,
  scope: MemoryScope,
  branch: string,
  asOf: number | undefined,
): Promise<{ sql: string; params: SqlParam[] }> {
  const path = await pathOf(tx, who, scope, [branch]);
  const seen = seenOn(dialect, who, scope, path, 'r');
  // Outside sessions every version is seen, so the current one is the newest: a column, not a search.
  if (currentIsLatest(scope, asOf)) return { sql: `${seen.sql} AND r.latest = 1`, params: seen.params };
  const newer = seenOn(dialect, who, scope, path, 'n2');
  const by = recordedBy('r', asOf);
  const newerBy = recordedBy('n2', asOf);
  return {
    sql: `${seen.sql} AND ${by.sql} AND NOT EXISTS (SELECT 1 FROM memory_records n2 WHERE n2.id = r.id AND n2.version > r.version AND ${newer.sql} AND ${newerBy.sql})`,
    params: [...seen.params, ...by.params, ...newer.params, ...newerBy.params],
  };
}

/** Tiers from trusted down to `minTrust`. */
export function trustFilter(minTrust: TrustTier, alias: string): { sql: string; params: SqlParam[] } {
  const tiers = TRUST_TIERS.slice(0, TRUST_TIERS.indexOf(minTrust) + 1);
  return { sql: `${alias}.trust IN (${placeholders(tiers.length)})`, params: tiers };
}
