/**
 * Cairn's contract: every operation of every feature, as data (contract/spec.ts).
 * One line per feature; a feature's handlers are registered against its part
 * on the server side (ops/registry.ts).
 */
import { ARTIFACT_CONTRACT } from '../artifacts/contract.js';
import { AUDIT_CONTRACT } from '../audit/contract.js';
import { DESK_CONTRACT } from '../desk/contract.js';
import { ERASURE_CONTRACT } from '../erasure/contract.js';
import { IDENTITY_CONTRACT } from '../identity/contract.js';
import { KEYS_CONTRACT } from '../keys/contract.js';
import { LOG_CONTRACT } from '../log/contract.js';
import { MEMORY_CONTRACT } from '../memory/contract.js';
import { REDACTION_CONTRACT } from '../redaction/contract.js';
import { RETENTION_CONTRACT } from '../retention/contract.js';
import { STEP_CONTRACT } from '../steps/contract.js';
import { UNIT_CONTRACT } from '../unit/contract.js';
import type { SpecTable } from './spec.js';

/** Each feature's part of the contract, by the feature's name. */
export const CONTRACT_PARTS = {
  identity: IDENTITY_CONTRACT,
  log: LOG_CONTRACT,
  audit: AUDIT_CONTRACT,
  keys: KEYS_CONTRACT,
  desk: DESK_CONTRACT,
  steps: STEP_CONTRACT,
  memory: MEMORY_CONTRACT,
  unit: UNIT_CONTRACT,
  artifacts: ARTIFACT_CONTRACT,
  erasure: ERASURE_CONTRACT,
  retention: RETENTION_CONTRACT,
  redaction: REDACTION_CONTRACT,
} satisfies Record<string, SpecTable>;
export type Feature = keyof typeof CONTRACT_PARTS;
export type ContractParts = typeof CONTRACT_PARTS;

type Merged<P> = (P extends unknown ? (part: P) => void : never) extends (part: infer M) => void ? M : never;

/** Every operation of every feature, by name. */
export const CONTRACT = Object.assign({}, ...Object.values(CONTRACT_PARTS)) as Merged<ContractParts[Feature]>;
export type Contract = typeof CONTRACT;

const declared = Object.values(CONTRACT_PARTS).flatMap((part) => Object.keys(part));
if (new Set(declared).size !== declared.length)
  throw new Error('two features declare an operation of one name');
