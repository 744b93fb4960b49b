import { sha256Hex } from '../digest.js';
import { type Approvals, DEFAULT_APPROVAL_TIMEOUT_MS } from './approvals.js';
import type { KeysContext } from './context.js';
import type { GrantStore } from './grant-store.js';
import { decide, type GrantMode, type RequestShape } from './grants.js';
import type { Handles } from './handles.js';
import type { RefusalRecord } from './proxy/flood.js';
import { judgePath, truncatePath } from './proxy/paths.js';
import type { BodyRef } from './proxy/spool.js';
import { type CredentialRow, proxyOptionsOf } from './rows.js';
import type { ProxyDecision, ProxyOptionsOfCredential, ProxyRefusalRule, ProxyRequest } from './types.js';
import type { Vault } from './vault.js';

/** How `authorizeRequest` audits refusals and treats a body it has not read. */
export interface AuthorizeOptions {
  approvalTimeoutMs?: number;
  /**
   * false: a refusal for a missing, unknown, revoked or expired handle is
   * returned (rule `handle`) but not audited — the caller audits such
   * refusals in bounded form (the proxy's RefusalLimiter). Default true.
   */
  auditHandleRefusals?: boolean;
  /**
   * The request carries a body not read yet: a refusal is decided and
   * audited as usual, but where a grant would forward or hold it the
   * answer is `read_body` and nothing is written.
   */
  bodyUnread?: boolean;
  /**
   * Asked before a refusal of a valid handle is audited: false means the
   * caller counted it into a bounded summary instead (the proxy's
   * per-handle RefusalLimiter). Default: every refusal is audited.
   */
  auditDenial?: (rule: ProxyRefusalRule, message: string) => boolean;
}

/** What `proxyPreflight` answers: the handle is valid and what the body can change, or why the handle is not. */
export type ProxyPreflight =
  | { handle: 'ok'; options: ProxyOptionsOfCredential | null; bodyMatters: boolean }
  | { handle: string };

const PREVIEW_HEAD_BYTES = 8 * 1024;
const PREVIEW_BYTES = 2048;

function bodyRefOf(body: Buffer | BodyRef): BodyRef {
  return Buffer.isBuffer(body)
    ? { bytes: body.length, digest: sha256Hex(body), head: body.subarray(0, PREVIEW_HEAD_BYTES) }
    : body;
}

const SECRET_FIELD = /pass|secret|token|key|auth|card|cvv|iban|ssn|cookie|session/i;

/**
 * A body preview a person can read without seeing secrets: JSON values under
 * secret-looking keys are replaced, and so is every vault value the caller
 * names; the text is cut at PREVIEW_BYTES.
 */
export function redactPreview(body: Buffer, secrets: readonly string[]): string {
  let text = body.subarray(0, PREVIEW_BYTES * 4).toString('utf8');
  try {
    const redact = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.map(redact);
      if (v && typeof v === 'object')
        return Object.fromEntries(
          Object.entries(v).map(([k, x]) => [k, SECRET_FIELD.test(k) ? '[redacted]' : redact(x)]),
        );
      return v;
    };
    text = JSON.stringify(redact(JSON.parse(text)));
  } catch {
    // Not JSON: only the vault values are replaced.
  }
  for (const s of secrets) if (s.length >= 4) text = text.split(s).join('[redacted]');
  return text.length > PREVIEW_BYTES ? `${text.slice(0, PREVIEW_BYTES)}…` : text;
}

/**
 * The upstream URL for a path, refused when the path is ambiguous to an
 * upstream (`judgePath`) or would leave the upstream's base path.
 */
function targetUrl(
  upstream: URL,
  pathAndQuery: string,
): { url: URL; path: string; decodedPath: string } | { reason: string; rule: ProxyRefusalRule } {
  const [rawPath = '/', query] = pathAndQuery.split(/\?(.*)/s, 2);
  const verdict = judgePath(rawPath);
  if (!verdict.ok) return { reason: verdict.reason, rule: 'path_not_plain' };
  const base = upstream.pathname.endsWith('/') ? upstream.pathname : `${upstream.pathname}/`;
  const url = new URL(upstream.href);
  url.pathname = base + rawPath.slice(1);
  url.search = query ? `?${query}` : '';
  if (url.origin !== upstream.origin || !url.pathname.startsWith(base))
    return {
      reason: `path ${truncatePath(rawPath)} leaves the credential's upstream`,
      rule: 'path_leaves_upstream',
    };
  return { url, path: `/${url.pathname.slice(base.length)}`, decodedPath: verdict.decoded };
}

/**
 * The proxy's side of the keys layer: the decision on one proxied request
 * (forward with the secret injected, hold for approval, or refuse), the
 * check before a body is read, and the audit entries of what the proxy
 * refused or cut on its own.
 */
export class RequestDecision {
  private readonly context: KeysContext;
  private readonly vault: Vault;
  private readonly grants: GrantStore;
  private readonly handles: Handles;
  private readonly approvals: Approvals;

  constructor(
    context: KeysContext,
    parts: { vault: Vault; grants: GrantStore; handles: Handles; approvals: Approvals },
  ) {
    this.context = context;
    this.vault = parts.vault;
    this.grants = parts.grants;
    this.handles = parts.handles;
    this.approvals = parts.approvals;
  }

  /**
   * Decides one proxied request, in one transaction: resolves the handle,
   * the credential and the branch's grants on it, applies the mode and
   * allow-list, counts the use and audits it — or audits the denial. A
   * write that needs approval is recorded as a pending approval and held;
   * with `approval` set, that approval is consumed if it matches exactly.
   */
  async authorizeRequest(request: ProxyRequest, options: AuthorizeOptions = {}): Promise<ProxyDecision> {
    const method = request.method.toUpperCase();
    const body = bodyRefOf(request.body);
    const bodyDigest = body.digest;
    const hasBody = request.hasBody ?? body.bytes > 0;
    const dropped = request.droppedHeaders?.length ? { droppedHeaders: request.droppedHeaders } : {};
    return this.context.engine.write(this.context.tenant, async (tx) => {
      const at = this.context.now();
      const handle = await this.handles.resolveHandle(tx, request.handle, at);
      const deny = async (
        message: string,
        rule: ProxyRefusalRule,
        extra: Record<string, unknown>,
        status: 403 | 404 = 403,
      ): Promise<ProxyDecision> => {
        const refusal = {
          outcome: 'deny',
          status,
          code: status === 404 ? 'NOT_FOUND' : 'FORBIDDEN',
          message,
          rule,
        } as const;
        if (rule === 'handle' && options.auditHandleRefusals === false) return refusal;
        if (rule !== 'handle' && options.auditDenial && !options.auditDenial(rule, message)) return refusal;
        await this.context.audit(
          tx,
          'keys.deny',
          'credential',
          request.credential,
          {
            ...(typeof handle === 'string'
              ? { agent: '' }
              : { agent: handle.principal, session: handle.session, branch: handle.branch }),
            credential: request.credential,
            method,
            path: truncatePath(request.pathAndQuery.split('?')[0] ?? ''),
            ...(options.bodyUnread ? { bodyUnread: true } : { bodyDigest }),
            bodyBytes: body.bytes,
            reason: message,
            rule,
            ...dropped,
            ...extra,
          },
          typeof handle === 'string' ? this.context.who.principal : handle.principal,
        );
        return refusal;
      };
      if (typeof handle === 'string')
        return deny(
          `${handle}: pass the handle from \`cairn exec --branch\` as x-cairn-handle`,
          'handle',
          {},
        );
      const cred = await this.vault.credentialRow(tx, request.credential);
      if (!cred)
        return deny(
          `credential ${request.credential} is unknown: see \`cairn cred ls\``,
          'credential_unknown',
          {},
          404,
        );
      if (cred.kind === 'env')
        return deny(
          `credential ${cred.name} is an environment credential: it is injected by \`cairn exec --env-cred\`, not proxied`,
          'credential_env',
          {},
        );
      const grants = await this.grants.branchGrants(tx, handle.session, handle.branch, cred.name);
      if (grants.length === 0)
        return deny(
          `branch ${handle.branch} holds no grant on credential ${cred.name}: a fork never copies a grant`,
          'no_grant',
          {},
        );
      // Try each grant of the branch on this credential; the first that allows the request is used.
      let reason = '';
      let reasonRule: ProxyRefusalRule = 'no_grant';
      for (const grant of grants) {
        const upstream = new URL(grant.mode === 'sandbox' ? cred.sandbox_upstream : cred.upstream);
        const routed = targetUrl(upstream, request.pathAndQuery);
        if ('reason' in routed) return deny(routed.reason, routed.rule, { grant: grant.id });
        const { url: target, path, decodedPath } = routed;
        const chain = await this.grants.chain(tx, grant);
        const shape: RequestShape = { method, host: target.host, path, decodedPath, hasBody };
        const decision = decide(chain, shape, at);
        if (!decision.allowed) {
          if (!reason) {
            reason = decision.reason;
            reasonRule = decision.rule;
          }
          continue;
        }
        if (options.bodyUnread) return { outcome: 'read_body' };
        const who = this.context.attribution(grant, handle.principal);
        const described = {
          ...who,
          grant: grant.id,
          mode: grant.mode,
          method,
          url: target.href,
          bodyDigest,
          ...(hasBody ? { bodyBytes: body.bytes } : {}),
          ...dropped,
        };
        let approvalId: string | undefined;
        if (decision.needsApproval) {
          if (request.approval === undefined) {
            const values = this.vault.openRow(cred);
            const approval = await this.approvals.requestApproval(tx, grant, handle.principal, {
              method,
              url: target.href,
              body,
              preview: redactPreview(body.head, [values.live, values.sandbox]),
              timeoutMs: options.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS,
            });
            return { outcome: 'hold', approval, grant: grant.id };
          }
          const problem = await this.approvals.consumeApproval(
            tx,
            request.approval,
            grant.id,
            method,
            target.href,
            bodyDigest,
            at,
          );
          if (problem) return deny(problem, 'approval', { grant: grant.id, approval: request.approval });
          approvalId = request.approval;
        }
        await this.grants.countUse(tx, chain);
        await this.context.audit(
          tx,
          'keys.use',
          'grant',
          grant.id,
          { ...described, ...(approvalId ? { approval: approvalId } : {}) },
          handle.principal,
        );
        return {
          outcome: 'forward',
          url: target.href,
          inject: this.inject(cred, grant.mode),
          grant: grant.id,
          ...(approvalId ? { approval: approvalId } : {}),
          options: proxyOptionsOf(cred),
          attribution: { ...who, grant: grant.id, mode: grant.mode },
        };
      }
      return deny(reason, reasonRule, { grants: grants.map((g) => g.id) });
    });
  }

  /**
   * What the proxy checks before it reads a body, in one read: the handle is
   * valid (else the reason, for a bounded audit by the caller), the
   * credential's proxy options (its body limit), and whether the body can
   * change the answer at all — false when the request is refused whatever
   * it carries (unknown credential, a path no grant allows, a grant that can
   * never write: `read`). Writes nothing; the refusal itself is decided and
   * audited by `authorizeRequest` with `bodyUnread`.
   */
  async proxyPreflight(
    handle: string,
    credential: string,
    request?: { method: string; pathAndQuery: string },
  ): Promise<ProxyPreflight> {
    return this.context.engine.read(this.context.tenant, async (tx) => {
      const at = this.context.now();
      const resolved = await this.handles.resolveHandle(tx, handle, at);
      if (typeof resolved === 'string') return { handle: resolved };
      const cred = await this.vault.credentialRow(tx, credential);
      if (!cred) return { handle: 'ok' as const, options: null, bodyMatters: false };
      const options = proxyOptionsOf(cred);
      if (!request) return { handle: 'ok' as const, options, bodyMatters: true };
      let bodyMatters = false;
      if (cred.kind !== 'env')
        for (const grant of await this.grants.branchGrants(
          tx,
          resolved.session,
          resolved.branch,
          cred.name,
        )) {
          const upstream = new URL(grant.mode === 'sandbox' ? cred.sandbox_upstream : cred.upstream);
          const routed = targetUrl(upstream, request.pathAndQuery);
          if ('reason' in routed) break;
          const shape: RequestShape = {
            method: request.method.toUpperCase(),
            host: routed.url.host,
            path: routed.path,
            decodedPath: routed.decodedPath,
            hasBody: true,
          };
          if (decide(await this.grants.chain(tx, grant), shape, at).allowed) {
            bodyMatters = true;
            break;
          }
        }
      return { handle: 'ok' as const, options, bodyMatters };
    });
  }

  /** Audits refusals of requests without a valid handle, one or a window's count (the proxy's RefusalLimiter). */
  async recordHandleRefusal(record: RefusalRecord): Promise<void> {
    await this.context.engine.write(this.context.tenant, async (tx) => {
      await this.context.audit(tx, 'keys.deny', 'credential', record.credential.slice(0, 64), {
        agent: '',
        rule: 'handle',
        ...record,
        credential: record.credential.slice(0, 64),
      });
    });
  }

  /**
   * Audits what the proxy refused or cut after (or without) a decision: a
   * body over the limit (`keys.deny`), an upstream answer that echoed the
   * secret (`keys.leak`). Attributed to the handle's branch when it is valid.
   */
  async recordProxyEvent(
    action: 'keys.deny' | 'keys.leak',
    request: Pick<ProxyRequest, 'handle' | 'credential' | 'method' | 'pathAndQuery'>,
    details: Record<string, unknown>,
  ): Promise<void> {
    await this.context.engine.write(this.context.tenant, async (tx) => {
      const handle = await this.handles.resolveHandle(tx, request.handle, this.context.now());
      const who =
        typeof handle === 'string'
          ? { agent: '' }
          : { agent: handle.principal, session: handle.session, branch: handle.branch };
      await this.context.audit(
        tx,
        action,
        'credential',
        request.credential,
        {
          ...who,
          credential: request.credential,
          method: request.method.toUpperCase(),
          path: truncatePath(request.pathAndQuery.split('?')[0] ?? ''),
          ...details,
        },
        typeof handle === 'string' ? this.context.who.principal : handle.principal,
      );
    });
  }

  /** The headers that carry a credential's secret for a grant's mode. */
  private inject(cred: CredentialRow, mode: GrantMode): Record<string, string> {
    const values = this.vault.openRow(cred);
    const secret = mode === 'sandbox' ? values.sandbox : values.live;
    switch (cred.kind) {
      case 'bearer':
        return { authorization: `Bearer ${secret}` };
      case 'basic':
        return { authorization: `Basic ${Buffer.from(secret).toString('base64')}` };
      default:
        return { [cred.header]: secret };
    }
  }
}
