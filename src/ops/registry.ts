/**
 * Each feature's operations — its part of the contract with its handlers
 * registered — loaded on first use: one line per feature. A process loads
 * the features it calls (a CLI command, one of eight); the server's table
 * (ops/table.ts) is all of them.
 */
import type { ContractParts, Feature } from '../contract/index.js';
import { UNIT_AT_CALLER } from '../unit/at-caller.js';
import { type Bound, type OpTable, withHandlers } from './op.js';

/** What a step the caller's side settles first is, per feature, known before the feature loads (ops/table.ts). */
export const AT_CALLER: { [F in Feature]?: Parameters<typeof withHandlers<ContractParts[F]>>[2] } = {
  unit: UNIT_AT_CALLER,
};

type Loaders = { [F in Feature]: () => Promise<Bound<ContractParts[F]>> };

const LOADERS: Loaders = {
  identity: async () =>
    withHandlers(
      (await import('../identity/contract.js')).IDENTITY_CONTRACT,
      (await import('../identity/handlers.js')).IDENTITY_HANDLERS,
    ),
  log: async () =>
    withHandlers(
      (await import('../log/contract.js')).LOG_CONTRACT,
      (await import('../log/handlers.js')).LOG_HANDLERS,
    ),
  audit: async () =>
    withHandlers(
      (await import('../audit/contract.js')).AUDIT_CONTRACT,
      (await import('../audit/handlers.js')).AUDIT_HANDLERS,
    ),
  keys: async () =>
    withHandlers(
      (await import('../keys/contract.js')).KEYS_CONTRACT,
      (await import('../keys/handlers.js')).KEYS_HANDLERS,
    ),
  desk: async () =>
    withHandlers(
      (await import('../desk/contract.js')).DESK_CONTRACT,
      (await import('../desk/handlers.js')).DESK_HANDLERS,
    ),
  steps: async () =>
    withHandlers(
      (await import('../steps/contract.js')).STEP_CONTRACT,
      (await import('../steps/handlers.js')).STEP_HANDLERS,
    ),
  memory: async () =>
    withHandlers(
      (await import('../memory/contract.js')).MEMORY_CONTRACT,
      (await import('../memory/handlers.js')).MEMORY_HANDLERS,
    ),
  unit: async () =>
    withHandlers(
      (await import('../unit/contract.js')).UNIT_CONTRACT,
      (await import('../unit/handlers.js')).UNIT_HANDLERS,
      AT_CALLER.unit,
    ),
  artifacts: async () =>
    withHandlers(
      (await import('../artifacts/contract.js')).ARTIFACT_CONTRACT,
      (await import('../artifacts/handlers.js')).ARTIFACT_HANDLERS,
    ),
  erasure: async () =>
    withHandlers(
      (await import('../erasure/contract.js')).ERASURE_CONTRACT,
      (await import('../erasure/handlers.js')).ERASURE_HANDLERS,
    ),
  retention: async () =>
    withHandlers(
      (await import('../retention/contract.js')).RETENTION_CONTRACT,
      (await import('../retention/handlers.js')).RETENTION_HANDLERS,
    ),
  redaction: async () =>
    withHandlers(
      (await import('../redaction/contract.js')).REDACTION_CONTRACT,
      (await import('../redaction/handlers.js')).REDACTION_HANDLERS,
    ),
};

const loaded = new Map<Feature, Promise<OpTable>>();

/** A feature's operations, loaded once per process. */
export function featureOperations(feature: Feature): Promise<OpTable> {
  let table = loaded.get(feature);
  if (!table) {
    table = LOADERS[feature]() as Promise<OpTable>;
    loaded.set(feature, table);
  }
  return table;
}
