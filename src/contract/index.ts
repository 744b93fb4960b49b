/**
 * Cairn's contract: every operation of every feature, as data (contract/spec.ts).
 * One line per feature; a feature's handlers are registered against its part
 * on the server side (ops/table.ts).
 */
import { AUDIT_CONTRACT } from '../audit/contract.js';
import { DESK_CONTRACT } from '../desk/contract.js';
import { IDENTITY_CONTRACT } from '../identity/contract.js';
import { KEYS_CONTRACT } from '../keys/contract.js';
import { LOG_CONTRACT } from '../log/contract.js';
import { MEMORY_CONTRACT } from '../memory/contract.js';
import { STEP_CONTRACT } from '../steps/contract.js';
import { UNIT_CONTRACT } from '../unit/contract.js';
import type { SpecTable } from './spec.js';

export const CONTRACT = {
  ...IDENTITY_CONTRACT,
  ...LOG_CONTRACT,
  ...AUDIT_CONTRACT,
  ...KEYS_CONTRACT,
  ...DESK_CONTRACT,
  ...STEP_CONTRACT,
  ...MEMORY_CONTRACT,
  ...UNIT_CONTRACT,
} satisfies SpecTable;
export type Contract = typeof CONTRACT;
