import { corrupt, forbidden, invalidArgument as invalid, notFound } from '../errors.js';
import { authorize } from '../identity/access-gate.js';
import { newId } from '../ids.js';
import { BranchName } from '../schema.js';
import { placeholders, RetryTransaction, type SqlExecutor } from '../storage/engine.js';
import { parseInput } from '../validate.js';
import type { KeysContext } from './context.js';
import { type Grant, type GrantRequest, type GrantState, grantState, narrowedGrant } from './grants.js';
import { type CredentialRow, GRANT_COLUMNS, type GrantRow, toGrant } from './rows.js';
import type { Vault } from './vault.js';

/** A grant as asked for, before its branch is named (what a fork checks before it makes the branch). */
export type GrantCheck = { session: string; credential: string; parent?: string } & GrantRequest;

/** A grant to issue to a branch. */
export type NewGrant = {
  session: string;
  branch: string;
  credential: string;
  parent?: string;
} & GrantRequest;

/**
 * Grants as stored: issuing (root or narrowed), revoking down the chain,
 * reading, and counting uses. What a grant allows is decided by the pure
 * functions of `grants.ts`.
 */
export class GrantStore {
  private readonly context: KeysContext;
  private readonly vault: Vault;

  constructor(context: KeysContext, vault: Vault) {
    this.context = context;
    this.vault = vault;
  }

  /** A branch's grants on one credential, oldest first. */
  async branchGrants(tx: SqlExecutor, session: string, branch: string, credential: string): Promise<Grant[]> {
    const rows = await tx.all<GrantRow>(
      `SELECT ${GRANT_COLUMNS} FROM key_grants WHERE tenant = ? AND session = ? AND branch = ? AND credential = ? ORDER BY id`,
      [this.context.tenant, session, branch, credential],
    );
    return rows.map(toGrant);
  }

  async grantRow(tx: SqlExecutor, id: string): Promise<Grant | undefined> {
    const row = await tx.get<GrantRow>(
      `SELECT ${GRANT_COLUMNS} FROM key_grants WHERE tenant = ? AND id = ?`,
      [this.context.tenant, id],
    );
    return row ? toGrant(row) : undefined;
  }

  /** The grant and its ancestors, leaf first. */
  async chain(tx: SqlExecutor, grant: Grant): Promise<Grant[]> {
    const chain = [grant];
    let at = grant;
    while (at.parent !== '') {
      const parent = await this.grantRow(tx, at.parent);
      if (!parent) throw corrupt(`grant ${at.id} names a missing parent ${at.parent}`);
      chain.push(parent);
      at = parent;
    }
    return chain;
  }

  /**
   * Everything a grant must satisfy besides its target branch existing: the
   * credential exists and can serve the mode; the parent (if any) is on the
   * same credential and session, is active with all its ancestors, belongs
   * to a branch the caller may narrow from, and the grant only narrows it.
   * Returns the grant's shape; writes nothing.
   */
  private async planGrant(
    tx: SqlExecutor,
    input: GrantCheck,
    at: number,
  ): Promise<{ cred: CredentialRow; parent: Grant | null; shape: ReturnType<typeof narrowedGrant> }> {
    const cred = await this.vault.credentialRow(tx, input.credential);
    if (!cred) throw notFound('credential', input.credential);
    let parent: Grant | null = null;
    if (input.parent) {
      parent = (await this.grantRow(tx, input.parent)) ?? null;
      if (!parent) throw notFound('grant', input.parent);
      await this.context.requireBranch(tx, parent.session, parent.branch, 'narrow its grants');
      if (parent.credential !== input.credential)
        throw invalid(`grant ${parent.id} is for credential ${parent.credential}, not ${input.credential}`);
      if (parent.session !== input.session)
        throw invalid(`grant ${parent.id} belongs to another session`, { parent: parent.id });
      const ended = (await this.chain(tx, parent)).find((g) => grantState(g, at) !== 'active');
      if (ended)
        throw forbidden(`grant ${ended.id} is ${grantState(ended, at)}: it cannot be narrowed`, {
          grant: ended.id,
        });
    }
    if (input.mode === 'sandbox' && cred.sandbox_sealed === null)
      throw invalid(`credential ${cred.name} has no sandbox variant: add one before a sandbox grant`);
    if (cred.kind === 'env' && input.approval === 'each-write')
      throw invalid(
        `credential ${cred.name} goes into a process's environment, where no single write can be held for approval: grant it without each-write, or use an HTTP credential through the proxy`,
      );
    const hosts = [cred.upstream, cred.sandbox_upstream].filter((u) => u !== '').map((u) => new URL(u).host);
    return {
      cred,
      parent,
      shape: narrowedGrant(parent, input, hosts.length > 0 ? hosts : ['localhost'], at),
    };
  }

  /**
   * Checks a grant that a branch still to be made would get (a fork checks
   * every grant before it makes anything): throws as `grant` would; writes nothing.
   */
  async checkGrant(input: GrantCheck): Promise<void> {
    authorize(this.context.who, input.parent ? 'keys.grant.narrow' : 'keys.grant.root');
    await this.context.engine.read(this.context.tenant, (tx) =>
      this.planGrant(tx, input, this.context.now()),
    );
  }

  /**
   * Issues a grant to a branch. With `parent`, it narrows that grant (which
   * must be active, on the same credential, and belong to the same session);
   * without, it is a root grant, for an admin: the person the branch acts for.
   */
  async grant(input: NewGrant): Promise<Grant> {
    const { who, tenant } = this.context;
    authorize(who, input.parent ? 'keys.grant.narrow' : 'keys.grant.root');
    parseInput(BranchName, input.branch, 'grant');
    return this.context.engine.write(tenant, async (tx) => {
      const at = this.context.now();
      await this.context.requireBranch(tx, input.session, input.branch, 'be given a grant by a member');
      const { cred, parent, shape } = await this.planGrant(tx, input, at);
      const grant: Grant = {
        id: newId('grant', at),
        parent: parent?.id ?? '',
        session: input.session,
        branch: input.branch,
        credential: cred.name,
        ...shape,
        uses: 0,
        onBehalfOf: parent?.onBehalfOf ?? who.onBehalfOf ?? who.principal,
        createdBy: who.principal,
        createdAt: at,
        revokedAt: null,
        revokedBy: '',
        revokeReason: '',
      };
      await tx.run(`INSERT INTO key_grants (tenant, ${GRANT_COLUMNS}) VALUES (${placeholders(18)})`, [
        tenant,
        grant.id,
        grant.parent,
        grant.session,
        grant.branch,
        grant.credential,
        grant.mode,
        grant.approval,
        JSON.stringify(grant.allow),
        grant.expiresAt,
        grant.maxUses,
        0,
        grant.onBehalfOf,
        grant.createdBy,
        grant.createdAt,
        null,
        '',
        '',
      ]);
      await this.context.audit(tx, 'keys.grant.create', 'grant', grant.id, {
        ...this.context.attribution(grant),
        parent: grant.parent,
        mode: grant.mode,
        approval: grant.approval,
        allow: grant.allow,
        expiresAt: grant.expiresAt,
        maxUses: grant.maxUses,
      });
      return grant;
    });
  }

  /** Revokes a grant and every grant narrowed from it, at any depth, in one transaction. */
  async revoke(id: string, reason = ''): Promise<{ revoked: string[] }> {
    const { who, tenant } = this.context;
    authorize(who, 'keys.grant.narrow');
    return this.context.engine.write(tenant, async (tx) => {
      const grant = await this.grantRow(tx, id);
      if (!grant) throw notFound('grant', id);
      await this.context.requireBranch(tx, grant.session, grant.branch, 'revoke its grants');
      const at = this.context.now();
      const revoked: string[] = [];
      const queue = [grant.id];
      while (queue.length > 0) {
        const next = queue.shift() as string;
        const changed = await tx.run(
          'UPDATE key_grants SET revoked_at = ?, revoked_by = ?, revoke_reason = ? WHERE tenant = ? AND id = ? AND revoked_at IS NULL',
          [at, who.principal, next === id ? reason : `parent ${id} revoked`, tenant, next],
        );
        if (changed > 0) revoked.push(next);
        const children = await tx.all<{ id: string }>(
          'SELECT id FROM key_grants WHERE tenant = ? AND parent = ?',
          [tenant, next],
        );
        queue.push(...children.map((c) => c.id));
      }
      await this.context.audit(tx, 'keys.grant.revoke', 'grant', id, {
        ...this.context.attribution(grant),
        reason,
        revoked,
      });
      return { revoked };
    });
  }

  async getGrant(id: string): Promise<Grant> {
    authorize(this.context.who, 'keys.read');
    const grant = await this.context.engine.read(this.context.tenant, (tx) => this.grantRow(tx, id));
    if (!grant) throw notFound('grant', id);
    return grant;
  }

  async listGrants(
    filter: { session?: string; branch?: string } = {},
  ): Promise<(Grant & { state: GrantState })[]> {
    authorize(this.context.who, 'keys.read');
    const tenant = this.context.tenant;
    const where = [
      'tenant = ?',
      ...(filter.session === undefined ? [] : ['session = ?']),
      ...(filter.branch === undefined ? [] : ['branch = ?']),
    ];
    const params = [tenant, ...[filter.session, filter.branch].filter((v) => v !== undefined)];
    const rows = await this.context.engine.read(tenant, (tx) =>
      tx.all<GrantRow>(
        `SELECT ${GRANT_COLUMNS} FROM key_grants WHERE ${where.join(' AND ')} ORDER BY id`,
        params,
      ),
    );
    const now = this.context.now();
    return rows.map(toGrant).map((g) => ({ ...g, state: grantState(g, now) }));
  }

  /**
   * Counts one use on every grant of the chain, each only while it is still
   * active. Another transaction may have used up or revoked one since it was
   * read (PostgreSQL runs writers concurrently): then the whole decision is
   * taken again, and this time refused.
   */
  async countUse(tx: SqlExecutor, chain: readonly Grant[]): Promise<void> {
    for (const g of chain) {
      const changed = await tx.run(
        'UPDATE key_grants SET uses = uses + 1 WHERE tenant = ? AND id = ? AND revoked_at IS NULL AND (max_uses IS NULL OR uses < max_uses)',
        [this.context.tenant, g.id],
      );
      if (changed !== 1) throw new RetryTransaction(`grant ${g.id} changed while a use was counted`);
    }
  }
}
