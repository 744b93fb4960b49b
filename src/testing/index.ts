export { type BlobConformanceTarget, describeBlobConformance } from './blob-conformance.js';
export {
  type DeskConformanceOptions,
  type DeskConformanceTarget,
  describeDeskConformance,
} from './desk-conformance.js';
export { hashingEmbedding } from './embedding.js';
export { expectCode } from './expect-code.js';
export {
  describeKeysConformance,
  type HeldWriteRequest,
  type KeysConformanceOptions,
  type KeysConformanceTarget,
} from './keys-conformance.js';
export {
  describeLogConformance,
  type LogConformanceOptions,
  type LogConformanceTarget,
} from './log-conformance.js';
