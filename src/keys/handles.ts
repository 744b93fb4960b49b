import { timingSafeEqual } from 'node:crypto';
import { sha256Hex } from '../digest.js';
import { invalidArgument as invalid, notFound } from '../errors.js';
import { authorize } from '../identity/access-gate.js';
import { newId, newSecret } from '../ids.js';
import type { SqlExecutor } from '../storage/engine.js';
import type { KeysContext } from './context.js';
import { type HandleRow, num, numOrNull } from './rows.js';
import type { Handle } from './types.js';

/** `cbh.<tenant>.<handle id>.<secret>`: only the secret's hash is stored. */
const HANDLE_PATTERN = /^cbh\.(tn_[0-9a-z]{26})\.(hd_[0-9a-z]{26})\.([0-9a-z]{52})$/;

/** The tenant a handle names (the proxy serves every tenant of its store). */
export function handleTenant(handle: string): string | undefined {
  return HANDLE_PATTERN.exec(handle)?.[1];
}

/** Branch handles: issuing and revoking them, and resolving the one a request presents. */
export class Handles {
  private readonly context: KeysContext;

  constructor(context: KeysContext) {
    this.context = context;
  }

  /**
   * A branch handle: what a branch's process presents to the proxy. It is
   * returned once; only its hash is stored. It gives exactly what the
   * branch's grants give, and nothing after they end or it is revoked.
   */
  async issueHandle(input: {
    session: string;
    branch: string;
    ttlMs?: number;
  }): Promise<{ handle: string } & Handle> {
    const { who, tenant } = this.context;
    authorize(who, 'keys.handle');
    if (input.ttlMs !== undefined && (!Number.isSafeInteger(input.ttlMs) || input.ttlMs < 1))
      throw invalid('a handle ttl is a whole number of milliseconds ≥ 1');
    const at = this.context.now();
    const id = newId('handle', at);
    const secret = newSecret();
    const expiresAt = input.ttlMs === undefined ? null : at + input.ttlMs;
    await this.context.engine.write(tenant, async (tx) => {
      await this.context.requireBranch(tx, input.session, input.branch, 'take a handle for it');
      await tx.run(
        'INSERT INTO key_handles (tenant, id, session, branch, principal, secret_hash, created_at, expires_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL)',
        [tenant, id, input.session, input.branch, who.principal, sha256Hex(secret), at, expiresAt],
      );
      await this.context.audit(tx, 'keys.handle.issue', 'handle', id, {
        agent: who.principal,
        session: input.session,
        branch: input.branch,
        expiresAt,
      });
    });
    return {
      handle: `cbh.${tenant}.${id}.${secret}`,
      id,
      session: input.session,
      branch: input.branch,
      principal: who.principal,
      createdAt: at,
      expiresAt,
      revokedAt: null,
    };
  }

  async revokeHandle(id: string): Promise<void> {
    const { who, tenant } = this.context;
    authorize(who, 'keys.handle');
    await this.context.engine.write(tenant, async (tx) => {
      const changed = await tx.run(
        `UPDATE key_handles SET revoked_at = ? WHERE tenant = ? AND id = ? AND revoked_at IS NULL${who.role === 'admin' ? '' : ' AND principal = ?'}`,
        [this.context.now(), tenant, id, ...(who.role === 'admin' ? [] : [who.principal])],
      );
      if (changed === 0) throw notFound('handle', id);
      await this.context.audit(tx, 'keys.handle.revoke', 'handle', id, {});
    });
  }

  /** The handle a presented string names if it is valid at `at`; else why not, as a sentence. */
  async resolveHandle(tx: SqlExecutor, handle: string, at: number): Promise<Handle | string> {
    const tenant = this.context.tenant;
    const match = HANDLE_PATTERN.exec(handle);
    if (!match || match[1] !== tenant) return 'the branch handle is missing or malformed';
    const row = await tx.get<HandleRow>(
      'SELECT id, session, branch, principal, secret_hash, created_at, expires_at, revoked_at FROM key_handles WHERE tenant = ? AND id = ?',
      [tenant, match[2] as string],
    );
    if (!row) return 'the branch handle is unknown';
    const expected = Buffer.from(row.secret_hash, 'hex');
    if (!timingSafeEqual(expected, Buffer.from(sha256Hex(match[3] as string), 'hex')))
      return 'the branch handle is unknown';
    if (row.revoked_at !== null) return `branch handle ${row.id} was revoked`;
    if (row.expires_at !== null && num(row.expires_at) <= at) return `branch handle ${row.id} expired`;
    return {
      id: row.id,
      session: row.session,
      branch: row.branch,
      principal: row.principal,
      createdAt: num(row.created_at),
      expiresAt: numOrNull(row.expires_at),
      revokedAt: null,
    };
  }
}
