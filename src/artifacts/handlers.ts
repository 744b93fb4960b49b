/** The handlers of artifacts' operations (the contract: ./contract.ts; the rules: ./artifacts.ts). */
import type { Handlers } from '../ops/op.js';
import * as artifacts from './artifacts.js';
import type { ARTIFACT_CONTRACT } from './contract.js';

export const ARTIFACT_HANDLERS: Handlers<typeof ARTIFACT_CONTRACT> = {
  publishArtifact: (ctx, input) => artifacts.publish(ctx, input),
  getArtifact: (ctx, input) => artifacts.getArtifact(ctx, input.artifact),
  readArtifact: (ctx, input) => artifacts.readArtifact(ctx, input),
  listArtifacts: (ctx, input) => artifacts.listArtifacts(ctx, input),
  artifactLineage: (ctx, input) => artifacts.lineageOf(ctx, input),
  removeArtifact: (ctx, input) => artifacts.removeArtifact(ctx, input.artifact),
  sweepArtifacts: (ctx, input) => artifacts.sweepArtifacts(ctx, input),
  artifactQuota: (ctx) => artifacts.quota(ctx),
  setArtifactQuota: (ctx, input) => artifacts.setQuota(ctx, input.bytes),
};
