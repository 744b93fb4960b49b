/** The handlers of artifacts' operations (the contract: ./contract.ts; the rules: ./artifacts.ts). */
import type { z } from 'zod';
import { runsAtCaller } from '../contract/spec.js';
import type { Handlers, OpContext } from '../ops/op.js';
import * as artifacts from './artifacts.js';
import type { ARTIFACT_CONTRACT, PublishWorkspaceFileInput } from './contract.js';
import { lineageOf } from './lineage.js';
import { quota, setQuota } from './quota.js';
import { publishFromWorkspace } from './workspace-file.js';

/** A file of the caller's workspace, published where the workspace is (./workspace-file.ts). */
async function publishWorkspaceFile(ctx: OpContext, input: z.output<typeof PublishWorkspaceFileInput>) {
  const caller = ctx.caller;
  if (!caller) throw runsAtCaller('artifact publish');
  const { path, workspace, label, ...fields } = input;
  return publishFromWorkspace(caller, await caller.workspace(workspace), path, fields, label);
}

export const ARTIFACT_HANDLERS: Handlers<typeof ARTIFACT_CONTRACT> = {
  publishArtifact: (ctx, input) => artifacts.publish(ctx, input),
  publishWorkspaceFile,
  getArtifact: (ctx, input) => artifacts.getArtifact(ctx, input.artifact),
  readArtifact: (ctx, input) => artifacts.readArtifact(ctx, input),
  listArtifacts: (ctx, input) => artifacts.listArtifacts(ctx, input),
  artifactLineage: (ctx, input) => lineageOf(ctx, input),
  removeArtifact: (ctx, input) => artifacts.removeArtifact(ctx, input.artifact),
  sweepArtifacts: (ctx, input) => artifacts.sweepArtifacts(ctx, input),
  artifactQuota: (ctx) => quota(ctx),
  setArtifactQuota: (ctx, input) => setQuota(ctx, input.bytes),
};
