/** Memory's rows: a record version as stored, and what every module reads and writes of it. */
import type { AuditAction } from '../audit/actions.js';
import { actorChain, appendAudit } from '../audit/audit-chain.js';
import type { Dialect, SqlExecutor } from '../storage/engine.js';
import type { Identity } from '../types.js';
import type { MemoryRecord, MemorySource, TrustTier } from './schema.js';

export interface RecordRow {
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
  /** 1 while no newer version of the record exists (the newest of its chain), else 0. */
  latest: number;
}

export const COLUMNS =
  'r.tenant, r.id, r.version, r.n, r.kind, r.text, r.data, r.tags, r.scope_user, r.scope_agent, r.scope_project, r.scope_session, r.branch, r.event, r.principal, r.source, r.trust, r.derived_from, r.valid_from, r.valid_to, r.recorded_at, r.latest';

export function toRecord(r: RecordRow): MemoryRecord {
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

/**
 * The records `r`, to be read by their numbers: on SQLite through the
 * `(tenant, n)` index by name — left to itself, with filters on other
 * columns, the planner walks every record of the tenant instead.
 */
export function recordsByNumber(dialect: Dialect): string {
  return dialect === 'sqlite' ? 'memory_records r INDEXED BY memory_records_by_n' : 'memory_records r';
}

export async function latest(tx: SqlExecutor, tenant: string, id: string): Promise<RecordRow | undefined> {
  return tx.get<RecordRow>(
    `SELECT ${COLUMNS} FROM memory_records r WHERE r.tenant = ? AND r.id = ? ORDER BY r.version DESC LIMIT 1`,
    [tenant, id],
  );
}

export function audit(
  tx: SqlExecutor,
  who: Identity,
  action: AuditAction,
  id: string,
  payload: object,
  now: number,
) {
  return appendAudit(tx, {
    tenant: who.tenant,
    actor: who.principal,
    chain: actorChain(who),
    action,
    resourceType: 'memory',
    resourceId: id,
    payload: payload as Record<string, unknown>,
    at: now,
  });
}
