/** `cairn/memory`: memory's schemas, policy and embedding types (its methods are `store.memory(who)` and the fabric's). */

export { MEMORY_CONTRACT, type Memory } from '../memory/contract.js';
export { DEFAULT_TRUST, MEMORY_EVENT, type TrustPolicy } from '../memory/memory.js';
export {
  MEMORY_KINDS,
  MEMORY_SOURCES,
  type MemoryKind,
  type MemoryRecord,
  type MemoryScope,
  type MemorySource,
  RECALL_MODES,
  type RecallItem,
  TRUST_TIERS,
  type TrustTier,
} from '../memory/schema.js';
export type { EmbeddingFunction } from '../memory/vectors.js';
