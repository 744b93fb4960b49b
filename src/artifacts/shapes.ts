/** What artifacts' operations answer, as zod schemas (docs/design/artifacts.md). */
import { z } from 'zod';
import type { ArtifactId, EventId, SessionId, SnapshotId } from '../ids.js';
import { Bytes } from '../schema.js';
import { at, idOf } from '../shapes.js';

/** Where an artifact came from, as recorded when it was published (each part checked then). */
export const Lineage = z.object({
  session: idOf<SessionId>(),
  branch: z.string(),
  checkpoint: idOf<EventId | ''>().describe("the unit checkpoint (its event) it came from; '' for none"),
  snapshot: idOf<SnapshotId | ''>().describe(
    "the workspace snapshot holding its bytes at `path`; '' for none",
  ),
  path: z.string().describe("its path in `snapshot`; '' for none"),
  step: z.number().int().nullable().describe('the durable step (its position on the branch) that made it'),
  stepEvent: idOf<EventId | ''>().describe("that step's intent event; '' for none"),
  event: idOf<EventId | ''>().describe("the event (a tool call) that made it; '' for none"),
  inputs: z.array(idOf<ArtifactId>()).describe('the artifacts it was made from'),
  inputFiles: z
    .array(z.object({ snapshot: idOf<SnapshotId>(), path: z.string() }))
    .describe('the snapshot files it was made from'),
});

export const Artifact = z.object({
  id: idOf<ArtifactId>(),
  name: z.string(),
  mediaType: z.string(),
  description: z.string(),
  size: z.number().int().describe('its length in bytes'),
  digest: z.string().describe('sha256 of its bytes, hex: the ETag of its downloads'),
  event: idOf<EventId>().describe('the `cairn.artifact` event that records it on its branch'),
  lineage: Lineage,
  owner: z.string().describe('the principal that published it'),
  createdAt: at,
  expiresAt: z
    .number()
    .int()
    .nullable()
    .describe('when it goes, in ms since the epoch; null: kept until removed'),
});

export const ArtifactPage = z.object({
  artifacts: z.array(Artifact),
  next: z.string().nullable().describe('cursor to pass as `after` for the next page; null on the last page'),
});

export const ArtifactLineageAnswer = z.object({
  artifact: Artifact,
  ancestors: z.array(Artifact).describe('the artifacts it was made from, and theirs, nearest first'),
  descendants: z.array(Artifact).describe('the artifacts made from it, and from those, nearest first'),
});

/** A range of an artifact's bytes (over HTTP: the body, and its headers; contract/spec.ts `ContentAnswer`). */
export const ArtifactContent = z.object({
  bytes: Bytes,
  offset: z.number().int().describe('where the bytes start in the artifact'),
  size: z.number().int().describe("the artifact's length"),
  mediaType: z.string(),
  digest: z.string().describe('sha256 of the whole artifact, hex'),
});

export const ArtifactQuota = z.object({
  limit: z.number().int().describe("the tenant's quota for artifacts, in bytes"),
  used: z.number().int().describe('the bytes its artifacts hold now (each counted at its full size)'),
  artifacts: z.number().int(),
});

export const ArtifactSweep = z.object({
  expired: z.number().int().describe('artifacts removed for their TTL'),
  abandoned: z.number().int().describe('publications a killed writer left half-done, removed'),
  freedBytes: z.number().int().describe('bytes of chunks no artifact holds any more, deleted'),
});
