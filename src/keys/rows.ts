import type { Allow, ApprovalPolicy, Grant, GrantMode } from './grants.js';
import type { Approval, Credential, CredentialKind, ProxyOptionsOfCredential } from './types.js';

/** Row shapes of the keys tables, their column lists, and their mapping to the public nouns. */
export interface CredentialRow {
  id: string;
  name: string;
  kind: CredentialKind;
  header: string;
  upstream: string;
  sandbox_upstream: string;
  master_key_id: string;
  wrapped_key: Buffer | null;
  live_sealed: Buffer | null;
  sandbox_sealed: Buffer | null;
  version: number;
  created_by: string;
  created_at: number;
  rotated_at: number;
  proxy_options: string;
}

export interface GrantRow {
  id: string;
  parent: string;
  session: string;
  branch: string;
  credential: string;
  mode: GrantMode;
  approval: ApprovalPolicy;
  allow: string;
  expires_at: number | null;
  max_uses: number | null;
  uses: number;
  on_behalf_of: string;
  created_by: string;
  created_at: number;
  revoked_at: number | null;
  revoked_by: string;
  revoke_reason: string;
}

export interface ApprovalRow {
  id: string;
  grant_id: string;
  session: string;
  branch: string;
  credential: string;
  method: string;
  url: string;
  body_digest: string;
  body_bytes: number;
  preview: string;
  state: Approval['state'];
  requested_by: string;
  requested_at: number;
  expires_at: number;
  decided_by: string;
  decided_at: number | null;
  used_at: number | null;
}

export interface HandleRow {
  id: string;
  session: string;
  branch: string;
  principal: string;
  secret_hash: string;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
}

export const GRANT_COLUMNS =
  'id, parent, session, branch, credential, mode, approval, allow, expires_at, max_uses, uses, on_behalf_of, created_by, created_at, revoked_at, revoked_by, revoke_reason';
export const CREDENTIAL_COLUMNS =
  'id, name, kind, header, upstream, sandbox_upstream, master_key_id, wrapped_key, live_sealed, sandbox_sealed, version, created_by, created_at, rotated_at, proxy_options';
export const APPROVAL_COLUMNS =
  'id, grant_id, session, branch, credential, method, url, body_digest, body_bytes, preview, state, requested_by, requested_at, expires_at, decided_by, decided_at, used_at';

export const num = (v: unknown): number => Number(v);
export const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

export function toGrant(r: GrantRow): Grant {
  return {
    id: r.id,
    parent: r.parent,
    session: r.session,
    branch: r.branch,
    credential: r.credential,
    mode: r.mode,
    approval: r.approval,
    allow: JSON.parse(r.allow) as Allow,
    expiresAt: numOrNull(r.expires_at),
    maxUses: numOrNull(r.max_uses),
    uses: num(r.uses),
    onBehalfOf: r.on_behalf_of,
    createdBy: r.created_by,
    createdAt: num(r.created_at),
    revokedAt: numOrNull(r.revoked_at),
    revokedBy: r.revoked_by,
    revokeReason: r.revoke_reason,
  };
}

export function proxyOptionsOf(r: CredentialRow): ProxyOptionsOfCredential {
  const parsed = JSON.parse(r.proxy_options || '{}') as Partial<ProxyOptionsOfCredential>;
  return { allowHeaders: parsed.allowHeaders ?? [], maxBodyBytes: parsed.maxBodyBytes ?? null };
}

export function toCredential(r: CredentialRow): Credential {
  return {
    ...proxyOptionsOf(r),
    id: r.id,
    name: r.name,
    kind: r.kind,
    header: r.header,
    upstream: r.upstream,
    sandboxUpstream: r.sandbox_upstream,
    version: num(r.version),
    masterKeyId: r.master_key_id,
    createdBy: r.created_by,
    createdAt: num(r.created_at),
    rotatedAt: num(r.rotated_at),
  };
}

export function toApproval(r: ApprovalRow): Approval {
  return {
    id: r.id,
    grant: r.grant_id,
    session: r.session,
    branch: r.branch,
    credential: r.credential,
    method: r.method,
    url: r.url,
    bodyDigest: r.body_digest,
    bodyBytes: num(r.body_bytes),
    preview: r.preview,
    state: r.state,
    requestedBy: r.requested_by,
    requestedAt: num(r.requested_at),
    expiresAt: num(r.expires_at),
    decidedBy: r.decided_by,
    decidedAt: numOrNull(r.decided_at),
    usedAt: numOrNull(r.used_at),
  };
}
