/**
 * The branch sweep (docs/design/retention.md): a branch whose own last
 * decision is `abandon` with its time run out goes, with every event it
 * appended (none of which a branch that stays reaches), the steps and
 * memory that lived only there, its workspaces' rows and snapshots and its
 * keys; each feature says what that is (its part, ./parts.ts). One
 * transaction a session, so a kill leaves a session swept or untouched.
 * Before it decides anything it holds the tenant, the session's branches
 * and the tenant's audit chain, in the order writers take them (a desk
 * commit: tenant, branch, chain); every writer takes the chain before it
 * commits, so whatever committed before is seen, and a fork or head move
 * that read a swept event before the sweep's commit finds it gone after
 * (log/session-log.ts `stillThere`) and answers NOT_FOUND. The audit
 * payloads of what went are removed, each leaving a signed tombstone, as
 * an erasure's: the tree still verifies.
 */
import type { z } from 'zod';
import { branchesWithArtifacts, namedByArtifacts } from '../artifacts/retention.js';
import { actorChain, appendAudit, lockChain } from '../audit/audit-chain.js';
import type { AuditKey } from '../audit/note.js';
import { tenantKey } from '../audit/signing-key.js';
import { erasePayloads } from '../audit/tombstones.js';
import { blockedBranches, snapshotsOfBranches } from '../desk/retention.js';
import { lockTenant } from '../identity/identity-store.js';
import { narrowedElsewhere } from '../keys/retention.js';
import {
  eventsOfBranches,
  logSweepOf,
  ownLatestOfKinds,
  reachedFrom,
  type SessionLine,
  sessionBranches,
  sessionLines,
  sessionsWithKind,
} from '../log/retention.js';
import type { BranchRow } from '../log/rows.js';
import type { Engine, SqlExecutor } from '../storage/engine.js';
import type { Identity } from '../types.js';
import { UNIT_ABANDON_EVENT, UNIT_KEEP_EVENT } from '../unit/unit.js';
import type { BranchSweepScope } from './part.js';
import { RETENTION_PARTS } from './parts.js';
import type * as shape from './shapes.js';

export type BranchSweepResult = z.output<typeof shape.BranchSweep>;
type KeptReason = z.output<typeof shape.KeptReason>;
type Counts = Record<string, Record<string, number>>;

export interface SweepContext {
  engine: Engine;
  who: Identity;
  auditKey?: AuditKey;
}

function addCounts(into: Counts, more: Counts): void {
  for (const [feature, kinds] of Object.entries(more)) {
    const sum = { ...into[feature] };
    for (const [kind, n] of Object.entries(kinds)) sum[kind] = (sum[kind] ?? 0) + n;
    into[feature] = sum;
  }
}

/** Sweeps every session of the caller's tenant where a branch was abandoned (or, `dryRun`, says what would go). */
export async function sweepBranches(
  ctx: SweepContext,
  dryRun: boolean,
  now = Date.now(),
): Promise<BranchSweepResult> {
  const { engine, who } = ctx;
  const tenant = who.tenant;
  const result: BranchSweepResult = { dryRun, swept: [], kept: [], counts: {} };
  const sessions = await engine.read(tenant, (tx) => sessionsWithKind(tx, tenant, UNIT_ABANDON_EVENT));
  for (const session of sessions) {
    const run = (tx: SqlExecutor) => sweepSession(tx, ctx, session, dryRun, now);
    const one = dryRun ? await engine.read(tenant, run) : await engine.write(tenant, run);
    result.kept.push(...one.kept);
    if (one.branches.length === 0) continue;
    result.swept.push({ session, branches: one.branches, counts: one.counts });
    addCounts(result.counts, one.counts);
  }
  return result;
}

/** The abandoned branches of a session whose time ran out: the branch's own last decision is `abandon`, expired. */
async function expiredOf(
  tx: SqlExecutor,
  tenant: string,
  branches: readonly BranchRow[],
  lines: readonly SessionLine[],
  now: number,
): Promise<BranchRow[]> {
  const decided = await ownLatestOfKinds(tx, tenant, branches, lines, [UNIT_ABANDON_EVENT, UNIT_KEEP_EVENT]);
  return branches.filter((b) => {
    const last = decided.get(b.name);
    if (last?.kind !== UNIT_ABANDON_EVENT) return false;
    const { expiresAt, sweepsBranch } = JSON.parse(last.payload) as {
      expiresAt?: unknown;
      sweepsBranch?: unknown;
    };
    // An abandon written before the sweep existed meant its workspace only: its branch stays.
    return sweepsBranch === true && typeof expiresAt === 'number' && expiresAt <= now;
  });
}

/**
 * Of the expired branches, those that go: each feature's reasons to keep
 * one are asked again until none is new, since a branch kept stays in use
 * and may reach another (its path holds that one's events).
 */
async function whatGoes(
  tx: SqlExecutor,
  tenant: string,
  session: string,
  branches: readonly BranchRow[],
  expired: readonly BranchRow[],
  lines: readonly SessionLine[],
): Promise<{ going: BranchRow[]; kept: Map<string, KeptReason> }> {
  const kept = new Map<string, KeptReason>();
  for (const b of expired) if (b.name === 'main') kept.set(b.name, 'main');
  for (;;) {
    const going = expired.filter((b) => !kept.has(b.name));
    const names = going.map((b) => b.name);
    const live = branches.filter((b) => !names.includes(b.name));
    // The first reason found is the one reported: the desk's, artifacts', keys', then the log's.
    const found = new Map<string, KeptReason>();
    const keep = (name: string, why: KeptReason) => {
      if (!found.has(name)) found.set(name, why);
    };
    for (const [name, why] of await blockedBranches(tx, tenant, session, names)) keep(name, why);
    for (const name of await branchesWithArtifacts(tx, tenant, session, names)) keep(name, 'artifacts');
    // An artifact of another branch (or session) may name one of their events or snapshots in its lineage.
    const owner = new Map([
      ...(await eventsOfBranches(tx, tenant, names, lines)),
      ...(await snapshotsOfBranches(tx, tenant, session, names)),
    ]);
    for (const id of await namedByArtifacts(tx, tenant, [...owner.keys()]))
      keep(owner.get(id) as string, 'artifacts');
    for (const name of await narrowedElsewhere(tx, tenant, session, names)) keep(name, 'grants');
    for (const name of await reachedFrom(tx, tenant, names, live, lines)) keep(name, 'reached');
    if (found.size === 0) return { going, kept };
    for (const [name, why] of found) kept.set(name, why);
  }
}

async function sweepSession(
  tx: SqlExecutor,
  ctx: SweepContext,
  session: string,
  dryRun: boolean,
  now: number,
): Promise<{ branches: string[]; counts: Counts; kept: BranchSweepResult['kept'] }> {
  const tenant = ctx.who.tenant;
  if (!dryRun) await lockTenant(tx, tenant);
  const branches = await sessionBranches(tx, tenant, session, !dryRun);
  if (!dryRun) {
    await lockChain(tx, tenant);
    // A branch made while this waited for the chain (a fork, committed meanwhile) is in use too.
    branches.splice(0, branches.length, ...(await sessionBranches(tx, tenant, session, true)));
  }
  const lines = await sessionLines(tx, tenant, session);
  const expired = await expiredOf(tx, tenant, branches, lines, now);
  if (expired.length === 0) return { branches: [], counts: {}, kept: [] };
  const { going, kept } = await whatGoes(tx, tenant, session, branches, expired, lines);
  const keptList = [...kept].map(([branch, reason]) => ({ session, branch, reason }));
  if (going.length === 0) return { branches: [], counts: {}, kept: keptList };
  const swept = going.map((b) => b.name);
  const scope: BranchSweepScope = { tenant, session, swept, log: await logSweepOf(tx, tenant, going, lines) };
  const counts: Counts = {};
  // Resources named only after the swept branches were made (their first entry on), and the others.
  const recent = new Set<string>();
  const older = new Set<string>();
  for (const part of RETENTION_PARTS) {
    const gone = await part.sweep(tx, scope, dryRun, ctx.engine.dialect);
    counts[part.feature] = gone.counts;
    for (const id of gone.resources) (part.olderThanBranches ? older : recent).add(id);
  }
  if (!dryRun) {
    const erase = async (resources: Set<string>, fromSeq: number) =>
      resources.size === 0
        ? 0
        : erasePayloads(tx, {
            tenant,
            resources,
            fromSeq,
            basis: `retention: abandoned branches of session ${session} past their time`,
            by: ctx.who.principal,
            chain: actorChain(ctx.who),
            at: now,
            key: await tenantKey(tx, tenant, now, ctx.auditKey),
          });
    // The chain is read from the swept branches' first entry on, and from its start only for what may be older.
    const payloads = (await erase(recent, scope.log.firstAuditSeq)) + (await erase(older, 1));
    counts.audit = { payloads };
    await appendAudit(tx, {
      tenant,
      actor: ctx.who.principal,
      chain: actorChain(ctx.who),
      action: 'retention.sweep',
      resourceType: 'session',
      resourceId: session,
      payload: { branches: swept, counts },
      at: now,
    });
  }
  return { branches: swept, counts, kept: keptList };
}
