export { type BlobConformanceTarget, describeBlobConformance } from './blob-conformance.js';
export {
  describeLogConformance,
  type LogConformanceOptions,
  type LogConformanceTarget,
} from './log-conformance.js';
