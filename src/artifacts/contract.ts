/**
 * Artifacts' operations (docs/design/artifacts.md): a deliverable's bytes
 * with a name, a media type and a lineage that was checked when it was
 * published, kept by its own retention — not its workspace's.
 */
import { z } from 'zod';
import { spec } from '../contract/spec.js';
import * as schema from '../schema.js';
import * as shared from '../shapes.js';
import * as shape from './shapes.js';

export const ArtifactId = schema.id('af').describe("an artifact's id (af_…)");

/** A media type as RFC 6838 writes one (`type/subtype`, parameters after `;`). */
const MediaType = z
  .string()
  .max(200)
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}([ \t]*;[ -~]*)?$/,
    'a media type like text/markdown or application/pdf',
  );
/** A path inside a workspace snapshot: relative, slash-separated. */
const SnapshotPath = schema
  .text(1, 4096)
  .refine(
    (p) => !p.startsWith('/') && !p.split('/').includes('..'),
    'a path relative to the workspace root, without ..',
  );
const DAY_MS = 24 * 60 * 60 * 1000;
/** The largest publication over HTTP (streamed, never held whole); a tenant's quota is the bound that matters. */
export const MAX_PUBLISH_BYTES = 1024 * 1024 * 1024 * 1024;

/**
 * Content: bytes, or a stream of them (a Node Readable without an encoding,
 * a web ReadableStream, any async iterable of Uint8Array), read as it comes.
 */
const Content = z.custom<Uint8Array | AsyncIterable<Uint8Array>>(
  (value) =>
    value instanceof Uint8Array ||
    (typeof value === 'object' &&
      value !== null &&
      typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'),
  'expected bytes (a Uint8Array) or a stream of them (an async iterable of Uint8Array)',
);

/** An artifact's own retention: at least a second, at most a century; left out, kept until removed. */
const TtlMs = z
  .number()
  .int()
  .min(1000)
  .max(100 * 365 * DAY_MS)
  .optional();
/** The artifacts one was made from. */
const Inputs = z.array(ArtifactId).max(100).default([]);

export const PublishArtifactInput = z
  .object({
    session: schema.SessionId.describe(
      'the session it belongs to: its publication is an event on a branch of it',
    ),
    branch: schema.BranchName.default('main').describe('the branch the publication is recorded on'),
    name: schema.text(1, 255).describe('its file name, as a person will see it (report.pdf)'),
    mediaType: MediaType.default('application/octet-stream').describe('its media type (application/pdf)'),
    description: schema.text(0, 2000).default('').describe('what it is, in a sentence'),
    bytes: Content.describe('its content: bytes, or a stream of them'),
    size: z
      .number()
      .int()
      .min(0)
      .max(Number.MAX_SAFE_INTEGER)
      .optional()
      .describe(
        'its size in bytes, when known before the content arrives: past the quota it is refused before anything is stored, and content of another size is refused',
      ),
    checkpoint: schema.EventId.optional().describe(
      'the unit checkpoint (its event, ev_…) it came from; its snapshot is taken as `snapshot` when that is left out',
    ),
    snapshot: schema.SnapshotId.optional().describe(
      'a workspace snapshot (sn_…) that holds these very bytes at `path`',
    ),
    path: SnapshotPath.optional().describe('where the bytes are in the snapshot (out/report.pdf)'),
    step: z
      .number()
      .int()
      .min(1)
      .max(1_000_000_000)
      .optional()
      .describe('the durable step (its position on the branch) that made it'),
    event: schema.EventId.optional().describe('the event (a tool call) that made it'),
    inputs: Inputs.describe('artifacts it was made from'),
    inputFiles: z
      .array(z.object({ snapshot: schema.SnapshotId, path: SnapshotPath }).strict())
      .max(100)
      .default([])
      .describe('snapshot files it was made from'),
    ttlMs: TtlMs.describe(
      'keep it this long (ms), whatever happens to its workspace; default: until removed',
    ),
  })
  .strict()
  .refine((v) => v.path === undefined || v.snapshot !== undefined || v.checkpoint !== undefined, {
    message: 'a path names a file of a snapshot: pass snapshot or checkpoint with it',
    path: ['path'],
  })
  .refine((v) => v.snapshot === undefined || v.path !== undefined, {
    message: 'a snapshot is lineage through one of its files: pass path with it',
    path: ['snapshot'],
  });

const ArtifactRef = z.object({ artifact: ArtifactId }).strict();

/** A file of the caller's workspace published: its bytes read there, its lineage a checkpoint taken first. */
export const PublishWorkspaceFileInput = z
  .object({
    path: SnapshotPath.describe(
      'the file to publish, relative to the workspace root, e.g. out/report.pdf (a regular file: not a link, not a directory)',
    ),
    workspace: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .describe('the workspace: its id (ws_…) or directory; default: the one you work in'),
    name: schema
      .text(1, 255)
      .optional()
      .describe("its name as a person will see it; default: the file's name"),
    mediaType: MediaType.default('application/octet-stream').describe(
      'its media type, e.g. application/pdf or text/markdown',
    ),
    description: schema
      .text(0, 2000)
      .default('')
      .describe('what it is, in a sentence, for the person who receives it'),
    inputs: Inputs.describe('artifacts (af_…) it was made from, if any'),
    ttlMs: TtlMs.describe('keep it this many milliseconds; default: until someone removes it'),
    label: schema
      .text(0, 200)
      .optional()
      .describe('a label for the checkpoint taken first; default: publish and the path'),
  })
  .strict();

export const ARTIFACT_CONTRACT = {
  publishArtifact: spec({
    name: 'publishArtifact',
    summary:
      'Publish a deliverable: its bytes, name, media type and checked lineage, kept by its own retention (not its workspace’s)',
    effect: 'write',
    callers: 'any',
    access: 'artifact.write',
    runs: 'anywhere',
    input: PublishArtifactInput,
    output: shape.Artifact,
    // The bytes are the body; the other fields travel as JSON in the `cairn-input` header.
    http: {
      method: 'POST',
      path: '/v1/artifacts',
      status: 201,
      body: 'stream',
      maxBodyBytes: MAX_PUBLISH_BYTES,
    },
  }),
  publishWorkspaceFile: spec({
    name: 'publishWorkspaceFile',
    mcp: {
      name: 'artifact_publish',
      description:
        "Publish a file of your workspace as an artifact: a deliverable for the person you work for (a report, a CSV, a build), kept after the workspace is gone. It first takes a checkpoint of the workspace (as workspace_checkpoint does), so the artifact's lineage names the exact state it came from, then stores the file's bytes with its name and media type on your session branch. Returns the artifact: its id (af_…), size, digest and lineage. A file the secret guard redacted in the checkpoint is refused: its stored copy is not the file. A restore does not take an artifact back; only its publisher or an admin can remove it.",
    },
    summary:
      "Publish a file of the caller's workspace as an artifact, after a checkpoint of the workspace that its lineage names",
    effect: 'write',
    callers: 'any',
    access: 'artifact.write',
    runs: 'caller',
    input: PublishWorkspaceFileInput,
    output: shape.Artifact,
  }),
  getArtifact: spec({
    name: 'getArtifact',
    summary: "An artifact's record: name, media type, size, digest, lineage, retention",
    effect: 'read',
    callers: 'any',
    access: 'artifact.read',
    runs: 'anywhere',
    input: ArtifactRef,
    output: shape.Artifact,
    cli: {
      command: ['artifact', 'show'],
      args: ['artifact'],
      summary: "show an artifact's record and lineage",
      example: 'cairn artifact show af_…',
    },
    http: { method: 'GET', path: '/v1/artifacts/{artifact}' },
  }),
  readArtifact: spec({
    name: 'readArtifact',
    summary: "An artifact's bytes, or a range of them (each chunk re-hashed as it is read)",
    effect: 'read',
    callers: 'any',
    access: 'artifact.read',
    runs: 'anywhere',
    input: z
      .object({
        artifact: ArtifactId,
        offset: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0).describe('the first byte'),
        length: z
          .number()
          .int()
          .min(0)
          .max(64 * 1024 * 1024)
          .optional()
          .describe('how many bytes; default: to the end, at most 64 MiB'),
      })
      .strict(),
    output: shape.ArtifactContent,
    // The bytes are the body, with Content-Type, ETag and (a range) Content-Range; `Range: bytes=…` works too.
    http: { method: 'GET', path: '/v1/artifacts/{artifact}/content', answer: 'content' },
  }),
  listArtifacts: spec({
    name: 'listArtifacts',
    summary: "The tenant's artifacts (or a session's), oldest first",
    effect: 'read',
    callers: 'any',
    access: 'artifact.read',
    runs: 'anywhere',
    input: z
      .object({
        session: schema.SessionId.optional().describe("only this session's artifacts"),
        limit: z.number().int().min(1).max(1000).default(100).describe('how many at most'),
        after: ArtifactId.optional().describe('the last artifact of the previous page: the page after it'),
      })
      .strict(),
    output: shape.ArtifactPage,
    cli: {
      command: ['artifact', 'ls'],
      summary: 'list artifacts: id, size, media type, name',
      example: 'cairn artifact ls --session ss_…',
    },
    http: { method: 'GET', path: '/v1/artifacts' },
  }),
  artifactLineage: spec({
    name: 'artifactLineage',
    summary: 'Where an artifact came from and what was made from it, both ways',
    effect: 'read',
    callers: 'any',
    access: 'artifact.read',
    runs: 'anywhere',
    input: z
      .object({
        artifact: ArtifactId,
        depth: z.number().int().min(1).max(100).default(20).describe('how many generations to walk each way'),
      })
      .strict(),
    output: shape.ArtifactLineageAnswer,
    cli: {
      command: ['artifact', 'lineage'],
      args: ['artifact'],
      summary: 'show where an artifact came from and what was made from it',
      example: 'cairn artifact lineage af_…',
    },
    http: { method: 'GET', path: '/v1/artifacts/{artifact}/lineage' },
  }),
  removeArtifact: spec({
    name: 'removeArtifact',
    summary:
      'Remove an artifact (its publisher or an admin): its record goes, and its bytes when nothing else holds them',
    effect: 'write',
    callers: 'any',
    access: 'artifact.write',
    runs: 'anywhere',
    input: ArtifactRef,
    output: shared.Done,
    cli: {
      command: ['artifact', 'rm'],
      args: ['artifact'],
      summary: 'remove an artifact (its publisher or an admin)',
      example: 'cairn artifact rm af_…',
    },
    http: { method: 'POST', path: '/v1/artifacts/{artifact}/remove' },
  }),
  sweepArtifacts: spec({
    name: 'sweepArtifacts',
    summary:
      'Retention: remove artifacts past their TTL, and publications a killed writer left half-done, with the chunks only they held (an admin; `cairn gc` runs it)',
    effect: 'write',
    callers: 'admin',
    access: 'artifact.sweep',
    runs: 'anywhere',
    input: z
      .object({
        graceMs: z
          .number()
          .int()
          .min(0)
          .max(Number.MAX_SAFE_INTEGER)
          .default(60 * 60 * 1000)
          .describe('a publication still being written is taken only after this long (ms)'),
      })
      .strict(),
    output: shape.ArtifactSweep,
    http: { method: 'POST', path: '/v1/artifacts/sweep' },
  }),
  artifactQuota: spec({
    name: 'artifactQuota',
    summary: "The tenant's artifact quota and what its artifacts hold now",
    effect: 'read',
    callers: 'any',
    access: 'artifact.read',
    runs: 'anywhere',
    input: schema.NoInput,
    output: shape.ArtifactQuota,
    cli: {
      command: ['artifact', 'quota'],
      summary: "show the tenant's artifact quota and use",
      example: 'cairn artifact quota',
    },
    http: { method: 'GET', path: '/v1/artifact-quota' },
  }),
  setArtifactQuota: spec({
    name: 'setArtifactQuota',
    summary: "Set the tenant's artifact quota in bytes (a person who is an admin)",
    effect: 'write',
    callers: 'person-admin',
    access: 'artifact.quota',
    runs: 'anywhere',
    input: z
      .object({ bytes: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).describe('the quota, in bytes') })
      .strict(),
    output: shape.ArtifactQuota,
    cli: {
      command: ['artifact', 'set-quota'],
      args: ['bytes'],
      summary: "set the tenant's artifact quota, in bytes",
      example: 'cairn artifact set-quota 10737418240',
    },
    http: { method: 'PUT', path: '/v1/artifact-quota' },
  }),
};
