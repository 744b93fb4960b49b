/** The handlers of artifacts' operations (the contract: ./contract.ts; the rules: ./artifacts.ts). */
import { basename } from 'node:path';
import type { z } from 'zod';
import { runsAtCaller } from '../contract/spec.js';
import type { Handlers, OpContext } from '../ops/op.js';
import * as artifacts from './artifacts.js';
import type { ARTIFACT_CONTRACT, PublishWorkspaceFileInput } from './contract.js';
import { lineageOf } from './lineage.js';
import { openWorkspaceFile } from './workspace-file.js';

/**
 * A file of the caller's workspace: a checkpoint of the workspace first (the
 * lineage it names), then its bytes, read where the workspace is, published
 * through the caller's fabric — the store checks they are the checkpoint's.
 */
async function publishWorkspaceFile(ctx: OpContext, input: z.output<typeof PublishWorkspaceFileInput>) {
  const caller = ctx.caller;
  if (!caller) throw runsAtCaller('artifact publish');
  const ws = await caller.workspace(input.workspace);
  const checkpoint = await caller.units.checkpoint({
    workspace: ws.id,
    label: input.label ?? `publish ${input.path}`,
  });
  return caller.fabric.publishArtifact({
    session: ws.session,
    branch: ws.branch,
    name: input.name ?? basename(input.path),
    mediaType: input.mediaType,
    description: input.description,
    ...(await openWorkspaceFile(ws.dir, input.path, ws.id)),
    checkpoint: checkpoint.id,
    path: input.path,
    inputs: input.inputs,
    ...(input.ttlMs === undefined ? {} : { ttlMs: input.ttlMs }),
  });
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
  artifactQuota: (ctx) => artifacts.quota(ctx),
  setArtifactQuota: (ctx, input) => artifacts.setQuota(ctx, input.bytes),
};
