import { corrupt, forbidden, invalidArgument as invalid, notFound } from '../errors.js';
import { authorize } from '../identity/access-gate.js';
import type { KeysContext } from './context.js';
import type { GrantStore } from './grant-store.js';
import { grantState } from './grants.js';
import type { Vault } from './vault.js';

/**
 * Environment injection: an `env` credential's value handed to one child
 * process of a branch (`cairn exec --env-cred`), where no proxy stands
 * between the process and the secret.
 */
export class EnvInjection {
  private readonly context: KeysContext;
  private readonly vault: Vault;
  private readonly grants: GrantStore;

  constructor(context: KeysContext, vault: Vault, grants: GrantStore) {
    this.context = context;
    this.vault = vault;
    this.grants = grants;
  }

  /**
   * The value of an `env` credential for one child process of a branch,
   * allowed only by an active grant of that branch on it; the use is audited.
   */
  async envForChild(input: {
    session: string;
    branch: string;
    credential: string;
  }): Promise<{ variable: string; value: string; grant: string }> {
    authorize(this.context.who, 'keys.handle');
    return this.context.engine.write(this.context.tenant, async (tx) => {
      const at = this.context.now();
      await this.context.requireBranch(tx, input.session, input.branch, 'inject its credentials');
      const cred = await this.vault.credentialRow(tx, input.credential);
      if (!cred) throw notFound('credential', input.credential);
      if (cred.kind !== 'env')
        throw invalid(
          `credential ${cred.name} is a ${cred.kind} credential: it is used through the proxy, never put in an environment`,
        );
      const grants = await this.grants.branchGrants(tx, input.session, input.branch, cred.name);
      for (const grant of grants) {
        const chain = await this.grants.chain(tx, grant);
        // Read-only or approve-each-write cannot be enforced on a value handed to a process.
        if (grant.mode === 'read' || grant.approval === 'each-write') continue;
        if (chain.some((g) => grantState(g, at) !== 'active')) continue;
        await this.grants.countUse(tx, chain);
        await this.context.audit(tx, 'keys.use', 'grant', grant.id, {
          ...this.context.attribution(grant),
          grant: grant.id,
          mode: grant.mode,
          injected: cred.header,
        });
        const values = this.vault.openRow(cred);
        // Never the live value in place of a missing sandbox one (a sandbox grant needs one to exist).
        const value = grant.mode === 'sandbox' ? values.sandbox : values.live;
        if (value === '') throw corrupt(`credential ${cred.name} has no sandbox value to inject`);
        return { variable: cred.header, value, grant: grant.id };
      }
      throw forbidden(
        `branch ${input.branch} holds no active sandbox or live grant without each-write on ${cred.name}: grant one before injecting it`,
        { credential: cred.name, branch: input.branch },
      );
    });
  }
}
