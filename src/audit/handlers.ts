/** The handlers of the audit log's operations (the contract: ./contract.ts). */
import type { Handlers } from '../ops/op.js';
import { verifyAuditChain } from './audit-verify.js';
import type { AUDIT_CONTRACT } from './contract.js';
import { consistencyProof, inclusionProof } from './proofs.js';
import { publicKey } from './signing-key.js';
import { checkpointNow } from './tree.js';

export const AUDIT_HANDLERS: Handlers<typeof AUDIT_CONTRACT> = {
  verifyAudit: (ctx) => verifyAuditChain(ctx.engine, ctx.who.tenant, ctx.auditKey),
  auditCheckpoint: (ctx) => checkpointNow(ctx.write, ctx.who.tenant, ctx.auditKey),
  auditProof: (ctx, input) => ctx.read((tx) => inclusionProof(tx, ctx.who.tenant, input.entry, input.size)),
  auditConsistency: (ctx, input) =>
    ctx.read((tx) => consistencyProof(tx, ctx.who.tenant, input.from, input.to)),
  auditKey: (ctx) => ctx.read((tx) => publicKey(tx, ctx.who.tenant)),
};
