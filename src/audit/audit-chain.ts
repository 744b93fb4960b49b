import { canonicalJson, sha256Hex, tupleDigest } from '../digest.js';
import { randomHex } from '../ids.js';
import type { SqlExecutor } from '../storage/engine.js';
import type { Identity } from '../types.js';
import type { AuditAction } from './actions.js';

/**
 * Audit chain, format 1. Per tenant, entries are numbered from 1; each entry's
 * hash covers its fields and the previous entry's hash. The payload lives in
 * its own table with a random salt; the entry keeps only the salted
 * commitment, so a payload can later be erased while the chain still verifies.
 * See docs/design/audit-chain.md.
 */
export const GENESIS_HASH = '0'.repeat(64);

export interface AuditInput {
  tenant: string;
  actor: string;
  /**
   * The actor chain, person → agent → branch, when it is more than the actor
   * alone (`actorChain`): the person an agent acts for, the actor, the branch
   * acted on. Ids only.
   */
  chain?: readonly string[];
  action: AuditAction;
  resourceType: string;
  resourceId: string;
  payload: Record<string, unknown>;
  at: number;
}

export interface AuditEntryRow {
  tenant: string;
  seq: number;
  at: number;
  actor: string;
  action: string;
  resource_type: string;
  resource_id: string;
  commitment: string;
  /** The actor chain as canonical JSON, or '' (the actor alone; every entry before format 12). */
  chain: string;
  prev_hash: string;
  hash: string;
}

export function payloadCommitment(salt: string, payloadText: string): string {
  return sha256Hex(`${salt}\n${payloadText}`);
}

/** An entry's values in AUDIT_COLUMNS order, without its hash: what is inserted is what is hashed. */
function entryValues(entry: Omit<AuditEntryRow, 'hash'>): Array<string | number> {
  return [
    entry.tenant,
    entry.seq,
    entry.at,
    entry.actor,
    entry.action,
    entry.resource_type,
    entry.resource_id,
    entry.commitment,
    entry.prev_hash,
  ];
}

const AUDIT_COLUMNS =
  'tenant, seq, at, actor, action, resource_type, resource_id, commitment, prev_hash, hash, chain';

/** An entry's hash: over its fields and the previous hash; with an actor chain, the chain too (v2). */
export function entryHash(entry: Omit<AuditEntryRow, 'hash'>): string {
  if (entry.chain === '') return tupleDigest(['cairn.audit.v1', ...entryValues(entry)]);
  return tupleDigest(['cairn.audit.v2', ...entryValues(entry), entry.chain]);
}

/**
 * The actor chain of who acts, on `branch` if any: the person an agent acts
 * for (`onBehalfOf`, derived from its token), the actor, the branch's id.
 * Undefined when it would be the actor alone.
 */
export function actorChain(who: Identity, branch?: string): string[] | undefined {
  if (who.onBehalfOf === undefined && !branch) return undefined;
  return [...(who.onBehalfOf ? [who.onBehalfOf] : []), who.principal, ...(branch ? [branch] : [])];
}

/** Starts a tenant's chain; runs in the transaction that creates the tenant. */
export async function startChain(tx: SqlExecutor, tenant: string): Promise<void> {
  await tx.run('INSERT INTO audit_heads (tenant, seq, hash) VALUES (?, 0, ?)', [tenant, GENESIS_HASH]);
}

/**
 * Takes the tenant's chain head for the rest of the transaction (on
 * PostgreSQL a row lock; SQLite has one writer): what is numbered after it,
 * up to the entry that records it, cannot race another writer of the tenant.
 */
export async function lockChain(tx: SqlExecutor, tenant: string): Promise<void> {
  if (!(await tx.get(`SELECT seq FROM audit_heads WHERE tenant = ? ${tx.lockRows}`, [tenant])))
    throw new Error(`tenant ${tenant} has no audit chain`);
}

/** Appends one entry in the caller's transaction, so it commits with the mutation or not at all. */
/** How many entries of each action starting with `prefix` a tenant's chain holds. */
export async function actionCounts(
  tx: SqlExecutor,
  tenant: string,
  prefix: string,
): Promise<Record<string, number>> {
  const rows = await tx.all<{ action: string; n: number }>(
    'SELECT action, COUNT(*) AS n FROM audit_entries WHERE tenant = ? AND substr(action, 1, ?) = ? GROUP BY action ORDER BY action',
    [tenant, prefix.length, prefix],
  );
  return Object.fromEntries(rows.map((r) => [r.action, Number(r.n)]));
}

export async function appendAudit(tx: SqlExecutor, input: AuditInput): Promise<number> {
  const head = await tx.get<{ seq: number; hash: string }>(
    `SELECT seq, hash FROM audit_heads WHERE tenant = ? ${tx.lockRows}`,
    [input.tenant],
  );
  if (!head) throw new Error(`tenant ${input.tenant} has no audit chain`);
  const salt = randomHex(16);
  const payloadText = canonicalJson(input.payload);
  const entry = {
    tenant: input.tenant,
    seq: head.seq + 1,
    at: input.at,
    actor: input.actor,
    action: input.action,
    resource_type: input.resourceType,
    resource_id: input.resourceId,
    commitment: payloadCommitment(salt, payloadText),
    chain: input.chain && input.chain.length > 0 ? canonicalJson(input.chain) : '',
    prev_hash: head.hash,
  };
  const hash = entryHash(entry);
  await tx.run(`INSERT INTO audit_entries (${AUDIT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
    ...entryValues(entry),
    hash,
    entry.chain,
  ]);

  await tx.run('INSERT INTO audit_payloads (tenant, seq, salt, payload) VALUES (?, ?, ?, ?)', [
    input.tenant,
    entry.seq,
    salt,
    payloadText,
  ]);
  await tx.run('UPDATE audit_heads SET seq = ?, hash = ? WHERE tenant = ?', [entry.seq, hash, input.tenant]);
  return entry.seq;
}
