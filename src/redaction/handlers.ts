/** The handlers of the redaction policy's operations (the contract: ./contract.ts). */
import type { Handlers } from '../ops/op.js';
import type { REDACTION_CONTRACT } from './contract.js';
import { getPolicy, setPolicy } from './policy.js';

export const REDACTION_HANDLERS: Handlers<typeof REDACTION_CONTRACT> = {
  setRedactionPolicy: (ctx, input) => ctx.write((tx, now) => setPolicy(tx, ctx.who, input, now)),
  getRedactionPolicy: (ctx) => ctx.read((tx) => getPolicy(tx, ctx.who.tenant)),
};
