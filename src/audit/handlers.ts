/** The handlers of the audit chain's operations (the contract: ./contract.ts). */
import { authorize } from '../identity/access-gate.js';
import type { Handlers } from '../ops/op.js';
import { verifyAuditChain } from './audit-verify.js';
import type { AUDIT_CONTRACT } from './contract.js';

export const AUDIT_HANDLERS: Handlers<typeof AUDIT_CONTRACT> = {
  verifyAudit: async (ctx) => {
    authorize(ctx.who, 'audit.verify');
    return verifyAuditChain(ctx.engine, ctx.who.tenant);
  },
};
