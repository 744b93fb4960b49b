/** The audit log's operations (contract/spec.ts; docs/design/audit.md). */
import { z } from 'zod';
import { spec } from '../contract/spec.js';
import * as schema from '../schema.js';
import * as shape from './shapes.js';

const TreeSize = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

export const AUDIT_CONTRACT = {
  verifyAudit: spec({
    name: 'verifyAudit',
    summary: "Verify the tenant's audit chain",
    effect: 'read',
    callers: 'any',
    access: 'audit.verify',
    runs: 'anywhere',
    input: schema.NoInput,
    output: shape.AuditReport,
    http: { method: 'GET', path: '/v1/audit/verify' },
  }),
  auditCheckpoint: spec({
    name: 'auditCheckpoint',
    summary:
      "The tenant's latest signed audit checkpoint, taking in every entry committed before the request (tree size, root, signed note)",
    effect: 'read',
    callers: 'any',
    access: 'audit.verify',
    runs: 'anywhere',
    input: schema.NoInput,
    output: shape.AuditCheckpoint,
    http: { method: 'GET', path: '/v1/audit/checkpoint' },
    cli: { command: ['audit', 'checkpoint'], example: 'cairn audit checkpoint --json' },
  }),
  auditProof: spec({
    name: 'auditProof',
    summary: 'An inclusion proof of one audit entry in the tree of a signed checkpoint',
    effect: 'read',
    callers: 'any',
    access: 'audit.verify',
    runs: 'anywhere',
    input: z.object({
      entry: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).describe('the entry, numbered from 0'),
      size: TreeSize.optional().describe(
        "the tree size to prove it in; the latest checkpoint's when left out",
      ),
    }),
    output: shape.InclusionProof,
    http: { method: 'GET', path: '/v1/audit/proof' },
    cli: { command: ['audit', 'proof'], args: ['entry'], example: 'cairn audit proof 0 --size 3 --json' },
  }),
  auditConsistency: spec({
    name: 'auditConsistency',
    summary: 'A consistency proof: the tree of `from` entries is a prefix of the tree of `to`',
    effect: 'read',
    callers: 'any',
    access: 'audit.verify',
    runs: 'anywhere',
    input: z.object({
      from: TreeSize.describe('the smaller tree size (at least 1)'),
      to: TreeSize.optional().describe("the larger tree size; the latest checkpoint's when left out"),
    }),
    output: shape.ConsistencyProof,
    http: { method: 'GET', path: '/v1/audit/consistency' },
    cli: { command: ['audit', 'consistency'], example: 'cairn audit consistency --from 1 --to 3 --json' },
  }),
  auditKey: spec({
    name: 'auditKey',
    summary: 'The public key the audit checkpoints are signed with (Ed25519) and its note verifier key',
    effect: 'read',
    callers: 'any',
    access: 'audit.verify',
    runs: 'anywhere',
    input: schema.NoInput,
    output: shape.AuditPublicKey,
    http: { method: 'GET', path: '/v1/audit/key' },
    cli: { command: ['audit', 'key'], example: 'cairn audit key --json' },
  }),
};
