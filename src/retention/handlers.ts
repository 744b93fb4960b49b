/** The handler of retention's operation (the contract: ./contract.ts). */
import type { Handlers } from '../ops/op.js';
import type { RETENTION_CONTRACT } from './contract.js';
import { sweepBranches } from './sweep.js';

export const RETENTION_HANDLERS: Handlers<typeof RETENTION_CONTRACT> = {
  sweepBranches: (ctx, input) =>
    sweepBranches({ engine: ctx.engine, who: ctx.who, auditKey: ctx.auditKey }, input.dryRun),
};
