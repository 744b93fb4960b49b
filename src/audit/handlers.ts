/** The handlers of the audit log's operations (the contract: ./contract.ts). */
import { internal } from '../errors.js';
import type { Handlers } from '../ops/op.js';
import { verifyAuditChain } from './audit-verify.js';
import type { AUDIT_CONTRACT } from './contract.js';
import { consistencyProof, inclusionProof } from './proofs.js';
import { publicKey } from './signing-key.js';
import { integrate } from './tree.js';

export const AUDIT_HANDLERS: Handlers<typeof AUDIT_CONTRACT> = {
  verifyAudit: (ctx) => verifyAuditChain(ctx.engine, ctx.who.tenant, ctx.auditKey),
  auditCheckpoint: async (ctx) => {
    // A batch per transaction, until every entry committed before this request is in.
    for (;;) {
      const { checkpoint, more } = await ctx.write((tx, now) =>
        integrate(tx, ctx.who.tenant, now, ctx.auditKey),
      );
      if (!more) {
        if (!checkpoint) throw internal('an integration signed no checkpoint');
        return checkpoint;
      }
    }
  },
  auditProof: (ctx, input) => ctx.read((tx) => inclusionProof(tx, ctx.who.tenant, input.entry, input.size)),
  auditConsistency: (ctx, input) =>
    ctx.read((tx) => consistencyProof(tx, ctx.who.tenant, input.from, input.to)),
  auditKey: (ctx) => ctx.read((tx) => publicKey(tx, ctx.who.tenant)),
};
