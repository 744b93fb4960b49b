export { describeLogConformance, type LogConformanceOptions, type LogConformanceTarget } from './log-conformance.js';
