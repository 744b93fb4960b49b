/**
 * The keys' operations that need no master key: approvals (a person's
 * decision on a held request) and grants (what each branch may do).
 */
import * as schema from '../schema.js';
import { op } from './op.js';
import * as shape from './shapes.js';

export const KEYS_OPS = {
  listApprovals: op({
    name: 'listApprovals',
    summary: 'Requests held for a person (branch, credential, method, URL, redacted body preview)',
    effect: 'read',
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
    runs: 'anywhere',
    input: schema.DecisionInput,
    output: shape.Approval,
    http: { method: 'POST', path: '/v1/approvals/{approval}/deny' },
    run: (ctx, input) => ctx.keys().decide(input.approval, 'deny', input.note),
  }),
  listGrants: op({
    name: 'listGrants',
    summary: 'Grants with their state, optionally of one session branch',
    effect: 'read',
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
    runs: 'anywhere',
    input: schema.RevokeGrantInput,
    output: shape.RevokedGrants,
    http: { method: 'POST', path: '/v1/grants/{grant}/revoke' },
    run: (ctx, input) => ctx.keys().revoke(input.grant, input.reason),
  }),
};
