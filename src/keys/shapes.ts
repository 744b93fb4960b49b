/** What the keys' operations answer, as zod schemas: credentials (never values), grants, approvals. */
import { z } from 'zod';
import { at } from '../shapes.js';

export const Approval = z.object({
  id: z.string(),
  grant: z.string(),
  session: z.string(),
  branch: z.string(),
  credential: z.string(),
  method: z.string(),
  url: z.string(),
  bodyDigest: z.string(),
  bodyBytes: z.number().int(),
  preview: z
    .string()
    .describe('the body with every value that looks secret (and every vault value) replaced'),
  state: z.enum(['pending', 'approved', 'denied', 'expired', 'used']),
  requestedBy: z.string(),
  requestedAt: at,
  expiresAt: at,
  decidedBy: z.string(),
  decidedAt: at.nullable(),
  usedAt: at.nullable(),
});

export const ApprovalList = z.object({ approvals: z.array(Approval) });

export const Grant = z.object({
  id: z.string(),
  parent: z.string().describe("the grant this one narrows; '' for a root grant"),
  session: z.string(),
  branch: z.string(),
  credential: z.string(),
  mode: z.enum(['read', 'sandbox', 'live']),
  approval: z.enum(['none', 'each-write']),
  allow: z.object({
    hosts: z.array(z.string()),
    methods: z.array(z.string()),
    pathPrefixes: z.array(z.string()),
  }),
  expiresAt: at.nullable(),
  maxUses: z.number().int().nullable(),
  uses: z.number().int(),
  onBehalfOf: z.string().describe('the person the branch acts for (the principal who issued the root grant)'),
  createdBy: z.string(),
  createdAt: at,
  revokedAt: at.nullable(),
  revokedBy: z.string(),
  revokeReason: z.string(),
});

export const GrantWithState = Grant.extend({ state: z.enum(['active', 'revoked', 'expired', 'exhausted']) });

export const GrantList = z.object({ grants: z.array(GrantWithState) });

export const RevokedGrants = z.object({
  revoked: z.array(z.string()).describe('the grant and every grant narrowed from it'),
});

export const Credential = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(['bearer', 'basic', 'header', 'env']),
  header: z.string().describe('header name (kind header) or variable name (kind env)'),
  upstream: z.string(),
  sandboxUpstream: z.string().describe("'' when the credential has no sandbox (test account) variant"),
  version: z.number().int(),
  masterKeyId: z.string(),
  createdBy: z.string(),
  createdAt: at,
  rotatedAt: at,
  allowHeaders: z.array(z.string()),
  maxBodyBytes: z.number().int().nullable(),
});

export const CredentialList = z.object({ credentials: z.array(Credential) });

export const DeletedCredential = z.object({
  credential: z.string(),
  revokedGrants: z.array(z.string()).describe('every grant on it, revoked'),
});
