/**
 * The erasure cascade (docs/design/erasure.md). A subject — a user, an
 * agent, or one session — is resolved once to the principals, sessions and
 * branches it owns; then each feature erases what that scope owns in it
 * (its part, ./parts.ts), one feature per transaction, and in that same
 * transaction the audit payloads of what went are deleted, each leaving a
 * signed tombstone in the tree. The erasure's row records each finished
 * feature with its counts, so an erasure cut short (a crash, a kill) goes on
 * where it stopped when asked again. Then the bytes outside the rows go
 * (blobs no row names, the desk's packs, the database's free pages), the
 * tree takes in the tombstones, and a receipt is signed.
 */

import type { z } from 'zod';
import { actorChain, appendAudit } from '../audit/audit-chain.js';
import type { AuditKey } from '../audit/note.js';
import { tenantKey } from '../audit/signing-key.js';
import { entriesNaming, erasePayloads } from '../audit/tombstones.js';
import { integrate } from '../audit/tree.js';
import { workspacesOf } from '../desk/erase.js';
import { conflict, internal, invalidArgument, notFound } from '../errors.js';
import { principalKind, revokeTokensOf } from '../identity/erase.js';
import { lockTenant } from '../identity/identity-store.js';
import { newId } from '../ids.js';
import { branchesOf, sessionsFound, sessionsOwnedBy } from '../log/erase.js';
import type { Dialect, Engine, SqlExecutor } from '../storage/engine.js';
import type { Identity } from '../types.js';
import type { ErasureScope, Subject } from './part.js';
import { ERASURE_PARTS } from './parts.js';
import { type Counts, receiptBody } from './receipt.js';
import type * as shape from './shapes.js';

/** What the cascade needs from where it runs. */
export interface ErasureContext {
  engine: Engine;
  who: Identity;
  auditKey?: AuditKey;
  /**
   * After every feature's rows are gone: deletes the bytes no row names any
   * more (blobs, the desk's packs), as the store that runs the erasure can.
   * Counts per kind of thing removed.
   */
  sweep(scope: ErasureScope): Promise<Record<string, number>>;
}

/** The erasure document (shapes.ts: what every surface answers). */
export type ErasureResult = z.output<typeof shape.Erasure>;

interface ErasureRow {
  tenant: string;
  id: string;
  subject: string;
  scope: string;
  state: 'running' | 'done';
  done_parts: string;
  counts: string;
  by_principal: string;
  started_at: number;
  finished_at: number | null;
  receipt: string | null;
}

/** The steps' names in `done_parts` besides the features': every part once more, then the finishing entry. */
const AGAIN = 'again';
const FINISHED = 'finish';

/** Counts added kind by kind. */
function add(into: Record<string, number> | undefined, more: Record<string, number>): Record<string, number> {
  const sum = { ...into };
  for (const [kind, n] of Object.entries(more)) sum[kind] = (sum[kind] ?? 0) + n;
  return sum;
}

export function parseSubject(text: string): Subject {
  const colon = text.indexOf(':');
  const kind = text.slice(0, colon);
  if (kind !== 'user' && kind !== 'agent' && kind !== 'session')
    throw invalidArgument(`subject "${text}": expected user:ID, agent:ID or session:ID`, {
      field: 'subject',
    });
  return { kind, id: text.slice(colon + 1) };
}

/**
 * Erases `subject` (or, with `preview`, counts what an erasure would take
 * and changes nothing). Asked again for a subject already erased, with
 * nothing of it left, answers the same receipt; an erasure cut short goes
 * on.
 */
export async function erase(
  ctx: ErasureContext,
  subjectText: string,
  preview: boolean,
): Promise<ErasureResult> {
  const { engine, who } = ctx;
  const tenant = who.tenant;
  const subject = parseSubject(subjectText);
  if (subject.id === who.principal)
    throw invalidArgument(
      `principal ${who.principal} cannot erase itself: ask another admin of the tenant to erase ${subjectText}`,
      { field: 'subject' },
    );
  if (preview) {
    return engine.read(tenant, async (tx) => {
      const scope = await resolve(tx, tenant, subject);
      const found = scope && (await eraseParts(tx, scope, true, engine.dialect));
      if (!found || (found.empty && !(await erasedBefore(tx, tenant, subjectText)))) throw unknownSubject();
      return {
        erasure: '',
        subject: subjectText,
        preview: true,
        counts: found.counts,
        startedAt: Date.now(),
      };
    });
  }
  const started = await engine.write(tenant, (tx) => start(tx, ctx, subject, subjectText));
  if ('done' in started) return started.done;
  let row = started.row;
  let scope = JSON.parse(row.scope) as ErasureScope;
  // Each feature in its own transaction, then all of them again in one (AGAIN): what was written into the
  // scope while the cascade ran (before the log's part ended its sessions) goes too.
  for (const step of [...ERASURE_PARTS.map((p) => p.feature), AGAIN]) {
    if (doneParts(row).includes(step)) continue;
    row = await engine.write(tenant, async (tx) => {
      const current = await lockRunning(tx, tenant, row.id);
      // Another caller of the same erasure (a retry) may have done this step meanwhile.
      if (doneParts(current).includes(step)) return current;
      if (step === AGAIN) scope = await widened(tx, JSON.parse(current.scope) as ErasureScope);
      const key = await tenantKey(tx, tenant, Date.now(), ctx.auditKey);
      const parts = step === AGAIN ? ERASURE_PARTS : ERASURE_PARTS.filter((p) => p.feature === step);
      const counts = JSON.parse(current.counts) as Counts;
      for (const part of parts) {
        const erased = await part.erase(tx, scope, false, engine.dialect);
        const payloads = await erasePayloads(tx, {
          tenant,
          resources: new Set(erased.resources),
          basis: `erasure ${row.id}`,
          by: who.principal,
          chain: actorChain(who),
          at: Date.now(),
          key,
        });
        counts[part.feature] = add(counts[part.feature], erased.counts);
        counts.audit = add(counts.audit, { payloads });
      }
      return saveProgress(
        tx,
        { ...current, scope: JSON.stringify(scope) },
        [...doneParts(current), step],
        counts,
      );
    });
    scope = JSON.parse(row.scope) as ErasureScope;
  }
  const swept = await ctx.sweep(scope);
  const database = await engine.reclaim();
  if (!doneParts(row).includes(FINISHED))
    row = await engine.write(tenant, async (tx) => {
      const current = await lockRunning(tx, tenant, row.id);
      if (doneParts(current).includes(FINISHED)) return current;
      await appendAudit(tx, {
        tenant,
        actor: who.principal,
        chain: actorChain(who),
        action: 'erasure.finish',
        resourceType: 'erasure',
        resourceId: row.id,
        payload: { subject: subjectText, counts: JSON.parse(current.counts) },
        at: Date.now(),
      });
      return saveProgress(tx, current, [...doneParts(current), FINISHED], JSON.parse(current.counts));
    });
  // The tree takes in every tombstone (a batch a transaction), then the receipt names its checkpoint.
  for (;;) {
    const { more } = await engine.write(tenant, (tx) => integrate(tx, tenant, Date.now(), ctx.auditKey));
    if (!more) break;
  }
  return engine.write(tenant, async (tx) => {
    const current = await lockRunning(tx, tenant, row.id);
    const now = Date.now();
    const { checkpoint } = await integrate(tx, tenant, now, ctx.auditKey);
    if (!checkpoint) throw internal('an integration signed no checkpoint');
    const key = await tenantKey(tx, tenant, now, ctx.auditKey);
    const counts = JSON.parse(current.counts) as Counts;
    const result: ErasureResult = {
      erasure: current.id,
      subject: subjectText,
      preview: false,
      counts,
      reclaimed: { swept, database },
      startedAt: Number(current.started_at),
      finishedAt: now,
      checkpoint,
    };
    result.receipt = key.signNote(receiptBody(tenant, result, checkpoint, current.by_principal));
    await tx.run(
      "UPDATE erasures SET state = 'done', finished_at = ?, receipt = ? WHERE tenant = ? AND id = ?",
      [now, JSON.stringify(result), tenant, current.id],
    );
    return result;
  });
}

/** Every feature's part, in order, in one transaction (a preview's counts). */
async function eraseParts(tx: SqlExecutor, scope: ErasureScope, preview: boolean, dialect: Dialect) {
  const counts: Counts = {};
  const resources = new Set<string>();
  for (const part of ERASURE_PARTS) {
    const erased = await part.erase(tx, scope, preview, dialect);
    counts[part.feature] = erased.counts;
    for (const r of erased.resources) resources.add(r);
  }
  counts.audit = { payloads: (await entriesNaming(tx, scope.tenant, resources)).length };
  return { counts, empty: Object.values(counts).every((c) => Object.values(c).every((n) => n === 0)) };
}

/**
 * The erasure to carry on: one of this subject already running (resumed),
 * or a new one. A subject erased before with nothing of it left answers that
 * erasure's receipt; one with new data since gets a new erasure.
 */
async function start(
  tx: SqlExecutor,
  ctx: ErasureContext,
  subject: Subject,
  subjectText: string,
): Promise<{ row: ErasureRow } | { done: ErasureResult }> {
  const { who } = ctx;
  const tenant = who.tenant;
  await lockTenant(tx, tenant);
  const earlier = await tx.all<ErasureRow>(
    'SELECT * FROM erasures WHERE tenant = ? AND subject = ? ORDER BY started_at DESC, id DESC',
    [tenant, subjectText],
  );
  const running = earlier.find((e) => e.state === 'running');
  if (running) return { row: running };
  const scope = await resolve(tx, tenant, subject);
  if (!scope || (await eraseParts(tx, scope, true, ctx.engine.dialect)).empty) {
    // Nothing of it here: erased before (the same receipt), or never here (another tenant's, or a typo).
    const last = earlier.find((e) => e.state === 'done');
    if (last) return { done: JSON.parse(last.receipt ?? 'null') as ErasureResult };
    throw unknownSubject();
  }
  // The signing key first: without it nothing is erased (its tombstones could not be signed).
  await tenantKey(tx, tenant, Date.now(), ctx.auditKey);
  const row: ErasureRow = {
    tenant,
    id: newId('erasure'),
    subject: subjectText,
    scope: JSON.stringify(scope),
    state: 'running',
    done_parts: '[]',
    counts: '{}',
    by_principal: who.principal,
    started_at: Date.now(),
    finished_at: null,
    receipt: null,
  };
  // The subject stops acting at once: its tokens are revoked now (identity's part deletes them later).
  await revokeTokensOf(tx, tenant, scope.principals, row.started_at);
  await tx.run(
    'INSERT INTO erasures (tenant, id, subject, scope, state, done_parts, counts, by_principal, started_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    [
      tenant,
      row.id,
      row.subject,
      row.scope,
      row.state,
      row.done_parts,
      row.counts,
      row.by_principal,
      row.started_at,
    ],
  );
  return { row };
}

/**
 * The scope of a subject of the tenant. A user or agent subject names a
 * principal of the tenant (its id), or a name memory is scoped to (a
 * harness's own user or agent id), or both; its scope may then find nothing
 * (the caller tells). A session subject the tenant does not have: undefined.
 */
async function resolve(tx: SqlExecutor, tenant: string, subject: Subject): Promise<ErasureScope | undefined> {
  if (subject.kind === 'session') {
    const sessions = await sessionsFound(tx, tenant, [subject.id]);
    if (sessions.length === 0) return undefined;
    return {
      tenant,
      subject,
      principals: [],
      sessions,
      branches: await branchesOf(tx, tenant, sessions),
      workspaces: await workspacesOf(tx, tenant, sessions),
    };
  }
  // A principal whose row is gone (erased before) still names what it owned: its sessions, its artifacts.
  const kind = await principalKind(tx, tenant, subject.id);
  if (kind !== undefined && kind !== subject.kind)
    throw invalidArgument(
      `principal ${subject.id} is a ${kind}, not a ${subject.kind}: erase ${kind}:${subject.id}`,
      {
        field: 'subject',
      },
    );
  const sessions = await sessionsOwnedBy(tx, tenant, subject.id);
  return {
    tenant,
    subject,
    principals: [subject.id],
    sessions,
    branches: await branchesOf(tx, tenant, sessions),
    workspaces: await workspacesOf(tx, tenant, sessions),
  };
}

async function erasedBefore(tx: SqlExecutor, tenant: string, subject: string): Promise<boolean> {
  const row = await tx.get(
    "SELECT 1 AS one FROM erasures WHERE tenant = ? AND subject = ? AND state = 'done'",
    [tenant, subject],
  );
  return row !== undefined;
}

/**
 * The scope with what was written into it since it was resolved (AGAIN):
 * sessions the subject made before its tokens were revoked, workspaces
 * attached meanwhile.
 */
async function widened(tx: SqlExecutor, scope: ErasureScope): Promise<ErasureScope> {
  const now = await resolve(tx, scope.tenant, scope.subject);
  if (!now) return scope;
  const union = (a: readonly string[], b: readonly string[]) => [...new Set([...a, ...b])];
  const sessions = union(scope.sessions, now.sessions);
  return {
    ...scope,
    sessions,
    branches: union(scope.branches, await branchesOf(tx, scope.tenant, sessions)),
    workspaces: union(scope.workspaces, await workspacesOf(tx, scope.tenant, sessions)),
  };
}

function unknownSubject() {
  // The subject is not echoed: another tenant's id must read as nothing at all.
  return notFound('this tenant has no such subject (nor an erasure of it): check the kind and the id', {
    resource: 'subject',
  });
}

function doneParts(row: ErasureRow): string[] {
  return JSON.parse(row.done_parts) as string[];
}

/** The erasure's row, locked, if it is still running (another caller may have finished it meanwhile). */
async function lockRunning(tx: SqlExecutor, tenant: string, id: string): Promise<ErasureRow> {
  const row = await tx.get<ErasureRow>(`SELECT * FROM erasures WHERE tenant = ? AND id = ? ${tx.lockRows}`, [
    tenant,
    id,
  ]);
  if (!row) throw internal(`erasure ${id} is gone`);
  if (row.state !== 'running')
    throw conflict(`erasure ${id} was finished by another caller: ask again for its receipt`, {
      resource: id,
    });
  return row;
}

async function saveProgress(
  tx: SqlExecutor,
  row: ErasureRow,
  parts: string[],
  counts: Counts,
): Promise<ErasureRow> {
  const next = { ...row, done_parts: JSON.stringify(parts), counts: JSON.stringify(counts) };
  await tx.run('UPDATE erasures SET scope = ?, done_parts = ?, counts = ? WHERE tenant = ? AND id = ?', [
    next.scope,
    next.done_parts,
    next.counts,
    row.tenant,
    row.id,
  ]);
  return next;
}
