import type { Engine } from '../storage/engine.js';
import type { Identity } from '../types.js';
import { Approvals } from './approvals.js';
import { KeysContext } from './context.js';
import type { MasterKey } from './crypto.js';
import { EnvInjection } from './env-injection.js';
import { type GrantCheck, GrantStore, type NewGrant } from './grant-store.js';
import type { Grant, GrantState } from './grants.js';
import { Handles, handleTenant } from './handles.js';
import type { RefusalRecord } from './proxy/flood.js';
import { type AuthorizeOptions, type ProxyPreflight, RequestDecision } from './request-decision.js';
import type { Approval, Credential, Handle, ProxyDecision, ProxyRequest } from './types.js';
import { type NewCredential, Vault } from './vault.js';

export { DEFAULT_APPROVAL_TIMEOUT_MS } from './approvals.js';
export type { GrantState } from './grants.js';
export { redactPreview } from './request-decision.js';
export type {
  Approval,
  Credential,
  CredentialKind,
  Handle,
  ProxyDecision,
  ProxyOptionsOfCredential,
  ProxyRefusalRule,
  ProxyRequest,
} from './types.js';

export interface KeysOptions {
  engine: Engine;
  who: Identity;
  /** Needed to add, rotate and use credentials; listing, granting and approving work without it. */
  masterKey?: MasterKey;
  now?: () => number;
}

/**
 * The keys layer (DESIGN §6): a vault of credentials sealed under the
 * operator's master key, grants bound to one branch each, branch handles,
 * and approvals of single requests. Every change and every use is an audit
 * entry in the same transaction, attributed user → agent → branch.
 *
 * A credential's values are opened only to inject them into one outgoing
 * request (`authorizeRequest`) or one child process (`envForChild`); they
 * never enter an event, an audit payload, an error or a return value meant
 * for display.
 *
 * `Keys` is the facade: each concern lives in its own module (`vault.ts`,
 * `grant-store.ts`, `handles.ts`, `request-decision.ts`, `approvals.ts`,
 * `env-injection.ts`), sharing one `KeysContext` (engine, caller, clock, audit).
 */
export class Keys {
  readonly who: Identity;
  private readonly vault: Vault;
  private readonly grants: GrantStore;
  private readonly handles: Handles;
  private readonly approvals: Approvals;
  private readonly requests: RequestDecision;
  private readonly env: EnvInjection;

  constructor(options: KeysOptions) {
    this.who = options.who;
    const context = new KeysContext({
      engine: options.engine,
      who: options.who,
      now: options.now ?? Date.now,
    });
    this.vault = new Vault(context, options.masterKey);
    this.grants = new GrantStore(context, this.vault);
    this.handles = new Handles(context);
    this.approvals = new Approvals(context, this.grants);
    this.requests = new RequestDecision(context, {
      vault: this.vault,
      grants: this.grants,
      handles: this.handles,
      approvals: this.approvals,
    });
    this.env = new EnvInjection(context, this.vault, this.grants);
  }

  // ---- credentials (vault.ts) -----------------------------------------------------------------

  /** Adds a credential; its values are sealed before the transaction and only the sealed forms are stored. */
  addCredential(input: NewCredential): Promise<Credential> {
    return this.vault.addCredential(input);
  }

  /** Replaces a credential's values (live, sandbox or both) under a fresh data key. Grants stay. */
  rotateCredential(name: string, input: { value?: Buffer; sandbox?: Buffer }): Promise<Credential> {
    return this.vault.rotateCredential(name, input);
  }

  /** Deletes a credential: its sealed values are erased and every grant on it is revoked. */
  deleteCredential(name: string): Promise<{ credential: string; revokedGrants: string[] }> {
    return this.vault.deleteCredential(name);
  }

  listCredentials(): Promise<Credential[]> {
    return this.vault.listCredentials();
  }

  // ---- grants (grant-store.ts) ----------------------------------------------------------------

  /** Checks a grant that a branch still to be made would get: throws as `grant` would; writes nothing. */
  checkGrant(input: GrantCheck): Promise<void> {
    return this.grants.checkGrant(input);
  }

  /** Issues a grant to a branch: narrowed from `parent`, or a root grant (admin only). */
  grant(input: NewGrant): Promise<Grant> {
    return this.grants.grant(input);
  }

  /** Revokes a grant and every grant narrowed from it, at any depth, in one transaction. */
  revoke(id: string, reason?: string): Promise<{ revoked: string[] }> {
    return this.grants.revoke(id, reason);
  }

  getGrant(id: string): Promise<Grant> {
    return this.grants.getGrant(id);
  }

  listGrants(filter?: { session?: string; branch?: string }): Promise<(Grant & { state: GrantState })[]> {
    return this.grants.listGrants(filter);
  }

  // ---- handles (handles.ts) -------------------------------------------------------------------

  /** A branch handle for the proxy, returned once (only its hash is stored). */
  issueHandle(input: {
    session: string;
    branch: string;
    ttlMs?: number;
  }): Promise<{ handle: string } & Handle> {
    return this.handles.issueHandle(input);
  }

  revokeHandle(id: string): Promise<void> {
    return this.handles.revokeHandle(id);
  }

  /** The tenant a handle names (the proxy serves every tenant of its store). */
  static handleTenant(handle: string): string | undefined {
    return handleTenant(handle);
  }

  // ---- the proxy's decision (request-decision.ts) ---------------------------------------------

  /** Decides one proxied request in one transaction: forward (secret injected), hold for approval, or deny. */
  authorizeRequest(request: ProxyRequest, options?: AuthorizeOptions): Promise<ProxyDecision> {
    return this.requests.authorizeRequest(request, options);
  }

  /** What the proxy checks before it reads a body: the handle, the credential's options, whether the body matters. */
  proxyPreflight(
    handle: string,
    credential: string,
    request?: { method: string; pathAndQuery: string },
  ): Promise<ProxyPreflight> {
    return this.requests.proxyPreflight(handle, credential, request);
  }

  /** Audits refusals of requests without a valid handle, one or a window's count. */
  recordHandleRefusal(record: RefusalRecord): Promise<void> {
    return this.requests.recordHandleRefusal(record);
  }

  /** Audits what the proxy refused or cut after (or without) a decision: `keys.deny` or `keys.leak`. */
  recordProxyEvent(
    action: 'keys.deny' | 'keys.leak',
    request: Pick<ProxyRequest, 'handle' | 'credential' | 'method' | 'pathAndQuery'>,
    details: Record<string, unknown>,
  ): Promise<void> {
    return this.requests.recordProxyEvent(action, request, details);
  }

  // ---- approvals (approvals.ts) ---------------------------------------------------------------

  getApproval(id: string): Promise<Approval> {
    return this.approvals.getApproval(id);
  }

  /** Approvals, pending ones by default; a pending approval past its time is shown as expired. */
  listApprovals(filter?: { state?: Approval['state'] | 'all' }): Promise<Approval[]> {
    return this.approvals.listApprovals(filter);
  }

  /** A person's decision on a pending approval, once; deciding twice or after expiry is CONFLICT. */
  decide(id: string, verdict: 'approve' | 'deny', note?: string): Promise<Approval> {
    return this.approvals.decide(id, verdict, note);
  }

  /** Marks a pending approval expired (the proxy stopped holding its request); a no-op once decided. */
  expireApproval(id: string): Promise<void> {
    return this.approvals.expireApproval(id);
  }

  // ---- environment injection (env-injection.ts) -----------------------------------------------

  /** The value of an `env` credential for one child process of a branch, allowed by an active grant. */
  envForChild(input: {
    session: string;
    branch: string;
    credential: string;
  }): Promise<{ variable: string; value: string; grant: string }> {
    return this.env.envForChild(input);
  }
}
