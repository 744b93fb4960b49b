import type { AuditAction } from '../audit/actions.js';
import { actorChain, appendAudit } from '../audit/audit-chain.js';
import { forbidden, notFound } from '../errors.js';
import { branchOwner } from '../log/session-log.js';
import type { Engine, SqlExecutor } from '../storage/engine.js';
import type { Identity } from '../types.js';
import type { Grant } from './grants.js';

/**
 * What every module of the keys layer shares: the engine, the caller, the
 * clock, and the rules that hold across them — every change and use is an
 * audit entry in the caller's transaction, and a member acts only on the
 * keys of branches it owns.
 */
export class KeysContext {
  readonly engine: Engine;
  readonly who: Identity;
  readonly now: () => number;

  constructor(options: { engine: Engine; who: Identity; now: () => number }) {
    this.engine = options.engine;
    this.who = options.who;
    this.now = options.now;
  }

  get tenant(): string {
    return this.who.tenant;
  }

  audit(
    tx: SqlExecutor,
    action: AuditAction,
    resourceType: string,
    resourceId: string,
    payload: Record<string, unknown>,
    actor = this.who.principal,
  ): Promise<number> {
    return appendAudit(tx, {
      tenant: this.tenant,
      actor,
      // The chain is the caller's when the caller acts (the proxy may name another actor: then it alone).
      ...(actor === this.who.principal ? { chain: actorChain(this.who) } : {}),
      action,
      resourceType,
      resourceId,
      payload,
      at: this.now(),
    });
  }

  /**
   * The branch must exist; and a member acts on the keys of branches it
   * owns only: it may narrow a grant of its branch into another of its
   * branches, take a handle for, or revoke a grant of, a branch it owns. An
   * admin (the person) acts on any.
   */
  async requireBranch(tx: SqlExecutor, session: string, branch: string, what: string): Promise<void> {
    const owner = await branchOwner(tx, this.tenant, session, branch);
    if (owner === null) throw notFound('branch', `${session}/${branch}`);
    if (this.who.role !== 'admin' && owner !== this.who.principal)
      throw forbidden(
        `principal ${this.who.principal} does not own branch ${branch}: only its owner or an admin may ${what}`,
        { branch, principal: this.who.principal },
      );
  }

  /** Who an audit entry about a grant's use names: user → agent → branch, and the credential. */
  attribution(grant: Grant, agent = this.who.principal) {
    return {
      user: grant.onBehalfOf,
      agent,
      session: grant.session,
      branch: grant.branch,
      credential: grant.credential,
    };
  }
}
