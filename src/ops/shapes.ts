/**
 * What operations answer, as zod schemas: the public nouns' one declaration.
 * The TypeScript types (`types.ts`) are inferred from these, the OpenAPI
 * document's response schemas are generated from them, and the tests check
 * live answers against them.
 */
import { z } from 'zod';
import { ERROR_CODES } from '../errors.js';
import type { EventId, SessionId, SnapshotId, WorkspaceId } from '../ids.js';
import { Bytes } from '../schema.js';

export const at = z.number().int().describe('milliseconds since the epoch');

/** A string that is an id of one kind, typed so (ids.ts): an answer's field, not checked again. */
export const idOf = <T extends string>() => z.string() as unknown as z.ZodType<T, T>;

export const Identity = z.object({
  tenant: z.string(),
  principal: z.string(),
  kind: z.enum(['user', 'agent', 'service']),
  role: z.enum(['admin', 'member']),
});

export const Session = z.object({
  id: idOf<SessionId>(),
  tenant: z.string(),
  owner: z.string(),
  title: z.string(),
  meta: z.record(z.string(), z.unknown()),
  createdAt: at,
});

export const SessionPage = z.object({
  sessions: z.array(Session),
  next: z.string().nullable().describe('cursor to pass as `after` for the next page; null on the last page'),
});

export const Branch = z.object({
  id: z.string(),
  session: idOf<SessionId>(),
  name: z.string(),
  owner: z.string(),
  head: idOf<EventId | ''>().describe("id of the head event; '' while the branch is empty"),
  headSeq: z
    .number()
    .int()
    .describe('sequence number of the head event (its depth from the root); 0 while empty'),
  forkedFrom: idOf<EventId | ''>().describe(
    "event the branch was forked at; '' for a session's first branch",
  ),
  createdAt: at,
  updatedAt: at,
});

export const BranchList = z.array(Branch);

export const CairnEvent = z.object({
  id: idOf<EventId>(),
  session: idOf<SessionId>(),
  branch: z.string().describe('name of the branch the event was appended on'),
  parent: idOf<EventId | ''>().describe("id of the previous event on its path; '' for a root event"),
  seq: z.number().int().describe('position on its path from the root, starting at 1'),
  kind: z.string(),
  payload: z.unknown(),
  actor: z.string(),
  owner: z.string(),
  at,
  idempotencyKey: z.string().nullable(),
});

export const AppendResult = CairnEvent.extend({
  deduplicated: z.boolean().describe('true when an earlier append with the same idempotency key answered'),
});

export const EventPage = z.object({
  events: z.array(CairnEvent),
  next: z
    .number()
    .int()
    .nullable()
    .describe('sequence number to pass as `from` for the next page; null after the head'),
  head: idOf<EventId | ''>(),
  headSeq: z.number().int(),
});

export const RefLogEntry = z.object({
  branch: z.string(),
  op: z.enum(['create', 'fork', 'rewind', 'move']),
  headBefore: z.string(),
  headAfter: z.string(),
  by: z.string(),
  at,
});

export const RefLog = z.array(RefLogEntry);

export const CreatedToken = z.object({
  id: z.string(),
  token: z.string().describe('the secret bearer token, shown once: Cairn keeps only its hash'),
  tenant: z.string(),
  principal: z.string(),
  label: z.string(),
});

export const RevokedToken = z.object({
  id: z.string(),
  principal: z.string(),
  revokedAt: at.describe('when it was revoked (the first revocation, if it was revoked before)'),
});

export const AuditBreak = z.object({ seq: z.number().int(), reason: z.string() });

export const AuditReport = z.object({
  tenant: z.string(),
  ok: z.boolean(),
  entries: z.number().int(),
  events: z.number().int(),
  firstBreak: AuditBreak.nullable().describe('the first broken link, when `ok` is false'),
});

export const Approval = z.object({
  id: z.string(),
  grant: z.string(),
  session: z.string(),
  branch: z.string(),
  credential: z.string(),
  method: z.string(),
  url: z.string(),
  bodyDigest: z.string(),
  bodyBytes: z.number().int(),
  preview: z
    .string()
    .describe('the body with every value that looks secret (and every vault value) replaced'),
  state: z.enum(['pending', 'approved', 'denied', 'expired', 'used']),
  requestedBy: z.string(),
  requestedAt: at,
  expiresAt: at,
  decidedBy: z.string(),
  decidedAt: at.nullable(),
  usedAt: at.nullable(),
});

export const ApprovalList = z.object({ approvals: z.array(Approval) });

export const Grant = z.object({
  id: z.string(),
  parent: z.string().describe("the grant this one narrows; '' for a root grant"),
  session: z.string(),
  branch: z.string(),
  credential: z.string(),
  mode: z.enum(['read', 'sandbox', 'live']),
  approval: z.enum(['none', 'each-write']),
  allow: z.object({
    hosts: z.array(z.string()),
    methods: z.array(z.string()),
    pathPrefixes: z.array(z.string()),
  }),
  expiresAt: at.nullable(),
  maxUses: z.number().int().nullable(),
  uses: z.number().int(),
  onBehalfOf: z.string().describe('the person the branch acts for (the principal who issued the root grant)'),
  createdBy: z.string(),
  createdAt: at,
  revokedAt: at.nullable(),
  revokedBy: z.string(),
  revokeReason: z.string(),
});

export const GrantWithState = Grant.extend({ state: z.enum(['active', 'revoked', 'expired', 'exhausted']) });

export const GrantList = z.object({ grants: z.array(GrantWithState) });

export const RevokedGrants = z.object({
  revoked: z.array(z.string()).describe('the grant and every grant narrowed from it'),
});

export const Credential = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(['bearer', 'basic', 'header', 'env']),
  header: z.string().describe('header name (kind header) or variable name (kind env)'),
  upstream: z.string(),
  sandboxUpstream: z.string().describe("'' when the credential has no sandbox (test account) variant"),
  version: z.number().int(),
  masterKeyId: z.string(),
  createdBy: z.string(),
  createdAt: at,
  rotatedAt: at,
  allowHeaders: z.array(z.string()),
  maxBodyBytes: z.number().int().nullable(),
});

export const CredentialList = z.object({ credentials: z.array(Credential) });

export const DeletedCredential = z.object({
  credential: z.string(),
  revokedGrants: z.array(z.string()).describe('every grant on it, revoked'),
});

/** The one error body, on every surface. */
export const ErrorBody = z.object({
  code: z.enum(ERROR_CODES),
  message: z.string(),
  data: z.record(z.string(), z.unknown()),
});

/** One durable step of a branch's journal (docs/design/steps-and-units.md). */
export const StepRecord = z.object({
  position: z.number().int().describe('its place among the branch’s steps, from 1'),
  name: z.string(),
  key: z.string().describe('the idempotency key the step’s effect was given'),
  argsDigest: z.string(),
  policy: z.enum(['retry-same-key', 'probe', 'escalate']),
  compensate: z.object({ name: z.string(), args: z.unknown().optional() }).optional(),
  effect: z.enum(['local', 'external']),
  event: idOf<EventId>().describe('the event of its intent'),
  state: z.enum(['done', 'failed', 'in-doubt']),
  result: z.unknown().optional(),
  error: z.object({ message: z.string(), name: z.string().optional() }).optional(),
  settledBy: z.enum(['retry-same-key', 'probe', 'person']).optional(),
  resolvedBy: z
    .string()
    .optional()
    .describe('the principal (a person) whose resolveStep settled it, or allowed its rerun'),
});

/** A directory bound to a session branch (on the host that holds it). */
export const Workspace = z.object({
  id: idOf<WorkspaceId>(),
  dir: z.string().describe('the directory, on its host'),
  host: z.string(),
  session: idOf<SessionId>(),
  branch: z.string(),
  driver: z.enum(['plain', 'copy', 'overlay']),
  state: z.enum(['attached', 'detached']),
  baseSnapshot: idOf<SnapshotId>().describe(
    'the snapshot it started from (its fork point, or its first checkpoint)',
  ),
  headSnapshot: idOf<SnapshotId>(),
  forkedFrom: idOf<WorkspaceId | ''>().describe(
    "the workspace it was forked from; '' when attached directly",
  ),
  createdAt: at,
});

export const WorkspaceList = z.object({ items: z.array(Workspace) });

export const Snapshot = z.object({
  id: idOf<SnapshotId>(),
  workspace: idOf<WorkspaceId>(),
  kind: z.enum(['checkpoint', 'restore', 'merge']),
  root: z.string().describe('digest of the root tree'),
  parent: idOf<SnapshotId | ''>().describe("the snapshot it followed; '' for a workspace's first"),
  event: idOf<EventId>().describe("the log event that records it on the workspace's branch"),
  files: z.number().int(),
  bytes: z.number().int(),
  addedBytes: z.number().int().describe('bytes of new objects it stored'),
  createdAt: at,
});

export const SnapshotList = z.object({ items: z.array(Snapshot) });

export const WorkspaceHead = z.object({ workspace: Workspace, head: Snapshot });

export const DeskCommitted = z.object({
  snapshot: Snapshot,
  workspace: Workspace,
  appended: CairnEvent.optional(),
});

export const MissingObjects = z.object({ missing: z.array(z.string()) });

export const StoredPack = z.object({ pack: z.string(), objects: z.number().int() });

export const Done = z.object({ ok: z.literal(true) });

/** Object bytes, in the order asked (HTTP: application/octet-stream, each a u32 BE length and its bytes). */
export const ObjectBytes = z.array(Bytes);
