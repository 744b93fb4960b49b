/**
 * The keys' operations that need no master key: approvals (a person's
 * decision on a held request) and grants (what each branch may do).
 */
import * as log from '../log/session-log.js';
import * as schema from '../schema.js';
import { op } from './op.js';
import * as shape from './shapes.js';

/** Values travel as text in the JSON body; the library seals bytes. */
const bytes = (text: string) => Buffer.from(text, 'utf8');

export const KEYS_OPS = {
  listCredentials: op({
    name: 'listCredentials',
    summary: 'Credentials of the vault: names, kinds, upstreams, versions — never values',
    effect: 'read',
    callers: 'any',
    runs: 'anywhere',
    input: schema.ListCredentialsInput,
    output: shape.CredentialList,
    http: { method: 'GET', path: '/v1/credentials' },
    run: async (ctx) => ({ credentials: await ctx.keys().listCredentials() }),
  }),
  addCredential: op({
    name: 'addCredential',
    summary:
      "Seal a credential into the vault (admin; the value only in the body; needs the server's master key)",
    effect: 'write',
    callers: 'admin',
    runs: 'anywhere',
    input: schema.AddCredentialInput,
    output: shape.Credential,
    http: { method: 'POST', path: '/v1/credentials', status: 201 },
    run: (ctx, input) =>
      ctx.keys().addCredential({
        name: input.name,
        kind: input.kind,
        upstream: input.upstream ?? '',
        header: input.header,
        value: bytes(input.value),
        ...(input.sandbox
          ? { sandbox: { upstream: input.sandbox.upstream, value: bytes(input.sandbox.value) } }
          : {}),
        allowHeaders: input.allowHeaders,
        maxBodyBytes: input.maxBodyBytes,
      }),
  }),
  rotateCredential: op({
    name: 'rotateCredential',
    summary: 'Replace a credential’s live or sandbox value under a fresh data key; grants stay (admin)',
    effect: 'write',
    callers: 'admin',
    runs: 'anywhere',
    input: schema.RotateCredentialInput,
    output: shape.Credential,
    http: { method: 'POST', path: '/v1/credentials/{name}/rotate' },
    run: (ctx, input) =>
      ctx.keys().rotateCredential(input.name, {
        ...(input.value !== undefined ? { value: bytes(input.value) } : {}),
        ...(input.sandbox !== undefined ? { sandbox: bytes(input.sandbox) } : {}),
      }),
  }),
  deleteCredential: op({
    name: 'deleteCredential',
    summary: 'Delete a credential: its sealed values are erased and every grant on it revoked (admin)',
    effect: 'write',
    callers: 'admin',
    runs: 'anywhere',
    input: schema.DeleteCredentialInput,
    output: shape.DeletedCredential,
    http: { method: 'POST', path: '/v1/credentials/{name}/delete' },
    run: (ctx, input) => ctx.keys().deleteCredential(input.name),
  }),
  addGrant: op({
    name: 'addGrant',
    summary:
      'Grant a branch use of a credential: a root grant (admin), or one narrowing `parent`; a fork never copies one',
    effect: 'write',
    callers: 'any',
    runs: 'anywhere',
    input: schema.AddGrantInput,
    output: shape.Grant,
    http: { method: 'POST', path: '/v1/grants', status: 201 },
    run: (ctx, input) => ctx.keys().grant(input),
  }),
  listApprovals: op({
    name: 'listApprovals',
    summary: 'Requests held for a person (branch, credential, method, URL, redacted body preview)',
    effect: 'read',
    callers: 'any',
    runs: 'anywhere',
    input: schema.ListApprovalsInput,
    output: shape.ApprovalList,
    http: { method: 'GET', path: '/v1/approvals' },
    run: async (ctx, input) => ({ approvals: await ctx.keys().listApprovals({ state: input.state }) }),
  }),
  getApproval: op({
    name: 'getApproval',
    summary: 'Get one approval',
    effect: 'read',
    callers: 'any',
    runs: 'anywhere',
    input: schema.GetApprovalInput,
    output: shape.Approval,
    http: { method: 'GET', path: '/v1/approvals/{approval}' },
    run: (ctx, input) => ctx.keys().getApproval(input.approval),
  }),
  approve: op({
    name: 'approve',
    summary: 'Approve exactly one held request (admin; once)',
    effect: 'write',
    callers: 'person-admin',
    runs: 'anywhere',
    input: schema.DecisionInput,
    output: shape.Approval,
    http: { method: 'POST', path: '/v1/approvals/{approval}/approve' },
    run: (ctx, input) => ctx.keys().decide(input.approval, 'approve', input.note),
  }),
  deny: op({
    name: 'deny',
    summary: 'Deny one held request: the agent gets 403, nothing is sent (admin; once)',
    effect: 'write',
    callers: 'person-admin',
    runs: 'anywhere',
    input: schema.DecisionInput,
    output: shape.Approval,
    http: { method: 'POST', path: '/v1/approvals/{approval}/deny' },
    run: (ctx, input) => ctx.keys().decide(input.approval, 'deny', input.note),
  }),
  getGrant: op({
    name: 'getGrant',
    summary: 'Get one grant',
    effect: 'read',
    callers: 'any',
    runs: 'anywhere',
    input: schema.GetGrantInput,
    output: shape.Grant,
    http: { method: 'GET', path: '/v1/grants/{grant}' },
    run: (ctx, input) => ctx.keys().getGrant(input.grant),
  }),
  checkGrant: op({
    name: 'checkGrant',
    summary:
      'Check a grant a branch still to be made would get: refused as addGrant would refuse it; issues nothing',
    effect: 'read',
    callers: 'any',
    runs: 'anywhere',
    input: schema.CheckGrantInput,
    output: shape.Done,
    http: { method: 'POST', path: '/v1/grants/check' },
    run: async (ctx, input) => {
      await ctx.read('session.read', (tx) => log.getSession(tx, ctx.who, input.session));
      await ctx.keys().checkGrant(input);
      return { ok: true as const };
    },
  }),
  listGrants: op({
    name: 'listGrants',
    summary: 'Grants with their state, optionally of one session branch',
    effect: 'read',
    callers: 'any',
    runs: 'anywhere',
    input: schema.ListGrantsInput,
    output: shape.GrantList,
    http: { method: 'GET', path: '/v1/grants' },
    run: async (ctx, input) => ({ grants: await ctx.keys().listGrants(input) }),
  }),
  revokeGrant: op({
    name: 'revokeGrant',
    summary: 'Revoke a grant and every grant narrowed from it',
    effect: 'write',
    callers: 'any',
    runs: 'anywhere',
    input: schema.RevokeGrantInput,
    output: shape.RevokedGrants,
    http: { method: 'POST', path: '/v1/grants/{grant}/revoke' },
    run: (ctx, input) => ctx.keys().revoke(input.grant, input.reason),
  }),
};
