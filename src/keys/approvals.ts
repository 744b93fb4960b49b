import { conflict, notFound } from '../errors.js';
import { authorize } from '../identity/access-gate.js';
import { newId } from '../ids.js';
import { placeholders, RetryTransaction, type SqlExecutor } from '../storage/engine.js';
import type { KeysContext } from './context.js';
import type { GrantStore } from './grant-store.js';
import type { Grant } from './grants.js';
import type { BodyRef } from './proxy/spool.js';
import { APPROVAL_COLUMNS, type ApprovalRow, num, toApproval } from './rows.js';
import type { Approval } from './types.js';

export const DEFAULT_APPROVAL_TIMEOUT_MS = 5 * 60 * 1000;

/**
 * Approvals of single requests: a write held for a person's decision is
 * recorded pending, decided once (approve or deny), and an approved one is
 * used by exactly the request it was given for, once.
 */
export class Approvals {
  private readonly context: KeysContext;
  private readonly grants: GrantStore;

  constructor(context: KeysContext, grants: GrantStore) {
    this.context = context;
    this.grants = grants;
  }

  /** Records a pending approval for a held request; `preview` is already redacted. */
  async requestApproval(
    tx: SqlExecutor,
    grant: Grant,
    agent: string,
    input: {
      method: string;
      url: string;
      body: BodyRef;
      preview: string;
      timeoutMs: number;
    },
  ): Promise<Approval> {
    const at = this.context.now();
    const row: ApprovalRow = {
      id: newId('approval', at),
      grant_id: grant.id,
      session: grant.session,
      branch: grant.branch,
      credential: grant.credential,
      method: input.method,
      url: input.url,
      body_digest: input.body.digest,
      body_bytes: input.body.bytes,
      preview: input.preview,
      state: 'pending',
      requested_by: agent,
      requested_at: at,
      expires_at: at + input.timeoutMs,
      decided_by: '',
      decided_at: null,
      used_at: null,
    };
    await tx.run(`INSERT INTO key_approvals (tenant, ${APPROVAL_COLUMNS}) VALUES (${placeholders(18)})`, [
      this.context.tenant,
      row.id,
      row.grant_id,
      row.session,
      row.branch,
      row.credential,
      row.method,
      row.url,
      row.body_digest,
      row.body_bytes,
      row.preview,
      row.state,
      row.requested_by,
      row.requested_at,
      row.expires_at,
      '',
      null,
      null,
    ]);
    await this.context.audit(
      tx,
      'keys.approval.request',
      'approval',
      row.id,
      {
        ...this.context.attribution(grant, agent),
        grant: grant.id,
        method: row.method,
        url: row.url,
        bodyDigest: row.body_digest,
      },
      agent,
    );
    return toApproval(row);
  }

  /** Marks an approved approval used for exactly this request; a reason string when it cannot be. */
  async consumeApproval(
    tx: SqlExecutor,
    id: string,
    grant: string,
    method: string,
    url: string,
    bodyDigest: string,
    at: number,
  ): Promise<string | undefined> {
    const row = await tx.get<ApprovalRow>(
      `SELECT ${APPROVAL_COLUMNS} FROM key_approvals WHERE tenant = ? AND id = ?`,
      [this.context.tenant, id],
    );
    if (!row) return `approval ${id} is unknown`;
    if (row.state === 'used') return `approval ${id} was already used: an approval is good for one request`;
    if (row.state !== 'approved') return `approval ${id} is ${row.state}, not approved`;
    if (num(row.expires_at) <= at) return `approval ${id} expired`;
    if (row.grant_id !== grant || row.method !== method || row.url !== url || row.body_digest !== bodyDigest)
      return `approval ${id} was given for another request (method, URL and body must match exactly)`;
    const changed = await tx.run(
      "UPDATE key_approvals SET state = 'used', used_at = ? WHERE tenant = ? AND id = ? AND state = 'approved'",
      [at, this.context.tenant, id],
    );
    // Another request took it first: decide again, and this time see it used.
    if (changed !== 1) throw new RetryTransaction(`approval ${id} was used meanwhile`);
    return undefined;
  }

  async getApproval(id: string): Promise<Approval> {
    authorize(this.context.who, 'keys.read');
    const row = await this.context.engine.read(this.context.tenant, (tx) =>
      tx.get<ApprovalRow>(`SELECT ${APPROVAL_COLUMNS} FROM key_approvals WHERE tenant = ? AND id = ?`, [
        this.context.tenant,
        id,
      ]),
    );
    if (!row) throw notFound('approval', id);
    return toApproval(row);
  }

  /** Approvals, pending ones by default; a pending approval past its time is shown as expired. */
  async listApprovals(filter: { state?: Approval['state'] | 'all' } = {}): Promise<Approval[]> {
    authorize(this.context.who, 'keys.read');
    const state = filter.state ?? 'pending';
    const now = this.context.now();
    // A pending approval past its time counts as expired.
    const [where, params]: [string, (string | number)[]] =
      state === 'all'
        ? ['', []]
        : state === 'pending'
          ? [" AND state = 'pending' AND expires_at > ?", [now]]
          : state === 'expired'
            ? [" AND (state = 'expired' OR (state = 'pending' AND expires_at <= ?))", [now]]
            : [' AND state = ?', [state]];
    const rows = await this.context.engine.read(this.context.tenant, (tx) =>
      tx.all<ApprovalRow>(
        `SELECT ${APPROVAL_COLUMNS} FROM key_approvals WHERE tenant = ?${where} ORDER BY id`,
        [this.context.tenant, ...params],
      ),
    );
    return rows
      .map(toApproval)
      .map((a) => (a.state === 'pending' && a.expiresAt <= now ? { ...a, state: 'expired' as const } : a));
  }

  /**
   * A person's decision on a pending approval. Deciding twice, or after the
   * approval expired, is CONFLICT: an approval is single-use and never replayed.
   */
  async decide(id: string, verdict: 'approve' | 'deny', note = ''): Promise<Approval> {
    const { who, tenant } = this.context;
    authorize(who, 'keys.approve');
    return this.context.engine.write(tenant, async (tx) => {
      const row = await tx.get<ApprovalRow>(
        `SELECT ${APPROVAL_COLUMNS} FROM key_approvals WHERE tenant = ? AND id = ? ${tx.lockRows}`,
        [tenant, id],
      );
      if (!row) throw notFound('approval', id);
      const at = this.context.now();
      const state = row.state === 'pending' && num(row.expires_at) <= at ? 'expired' : row.state;
      if (state !== 'pending')
        throw conflict(`approval ${id} is ${state}: only a pending approval can be decided, once`, {
          approval: id,
          state,
        });
      const next = verdict === 'approve' ? 'approved' : 'denied';
      const changed = await tx.run(
        "UPDATE key_approvals SET state = ?, decided_by = ?, decided_at = ? WHERE tenant = ? AND id = ? AND state = 'pending'",
        [next, who.principal, at, tenant, id],
      );
      if (changed !== 1) throw new RetryTransaction(`approval ${id} was decided meanwhile`);
      const grant = await this.grants.grantRow(tx, row.grant_id);
      await this.context.audit(tx, `keys.approval.${verdict}`, 'approval', id, {
        ...(grant ? this.context.attribution(grant, row.requested_by) : {}),
        approver: who.principal,
        method: row.method,
        url: row.url,
        bodyDigest: row.body_digest,
        note,
      });
      return toApproval({ ...row, state: next, decided_by: who.principal, decided_at: at });
    });
  }

  /** Marks a pending approval expired (the proxy stopped holding its request); a no-op once decided. */
  async expireApproval(id: string): Promise<void> {
    await this.context.engine.write(this.context.tenant, async (tx) => {
      const changed = await tx.run(
        "UPDATE key_approvals SET state = 'expired', decided_at = ? WHERE tenant = ? AND id = ? AND state = 'pending'",
        [this.context.now(), this.context.tenant, id],
      );
      if (changed > 0) await this.context.audit(tx, 'keys.approval.expire', 'approval', id, {});
    });
  }
}
