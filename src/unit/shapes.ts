/**
 * What the unit's operations answer, as zod schemas (the contract's outputs,
 * OpenAPI's and MCP's descriptions); the unit's TypeScript types are
 * inferred from these, so each noun is declared once.
 */
import { z } from 'zod';
import { Snapshot, Workspace } from '../desk/shapes.js';
import type { EventId, SessionId, SnapshotId, WorkspaceId } from '../ids.js';
import { CairnEvent } from '../log/shapes.js';
import { at, idOf } from '../shapes.js';

export const GitEvidence = z.object({
  revision: z.string().describe('the HEAD commit'),
  branch: z.string().nullable().describe('the checked-out branch; null when HEAD is detached'),
  dirty: z.boolean().describe('uncommitted changes or untracked files'),
});

export const CheckResult = z.object({
  command: z.string(),
  exit: z.number().int(),
  outputDigest: z.string().describe('sha256 of stdout followed by stderr'),
  durationMs: z.number(),
  passed: z.boolean(),
  outputTail: z
    .string()
    .optional()
    .describe("the last lines of a failed check's output (at most 4 KiB): returned, never recorded"),
});

export const GrantRef = z.object({
  id: z.string(),
  credential: z.string(),
  mode: z.string(),
  approval: z.string(),
});

const StepAt = z.object({ position: z.number().int(), name: z.string(), key: z.string() });

export const UnitCheckpoint = z.object({
  id: idOf<EventId>().describe("the checkpoint's event id"),
  session: idOf<SessionId>(),
  branch: z.string(),
  label: z.string(),
  head: idOf<EventId | ''>().describe('the log head the checkpoint covers (the event before it)'),
  workspace: idOf<WorkspaceId>(),
  snapshot: idOf<SnapshotId>(),
  root: z.string(),
  inDoubt: z.array(StepAt),
  evidence: z.object({ git: GitEvidence.optional(), checks: z.array(CheckResult) }),
  accepted: z.boolean().describe('every check passed'),
  grants: z
    .array(GrantRef)
    .optional()
    .describe("the branch's active grants when the checkpoint was taken (absent when the unit has no keys)"),
  createdAt: at,
});

export const StepEffect = StepAt.extend({
  state: z.enum(['done', 'failed', 'in-doubt']),
  compensate: z.object({ name: z.string(), args: z.unknown().optional() }).optional(),
});

export const PathChange = z.object({
  path: z.string(),
  change: z.enum(['added', 'changed', 'removed']),
  kind: z.enum(['file', 'dir', 'symlink']),
});

export const UnitRestorePreview = z.object({
  checkpoint: UnitCheckpoint,
  workspace: idOf<WorkspaceId>().describe('the workspace the restore changes'),
  dir: z.string().describe("the workspace's directory"),
  head: idOf<EventId | ''>().describe('the branch head the restore moves from'),
  eventsAfter: z
    .array(CairnEvent)
    .describe(
      "events the restore takes off the branch's path: they stay in the log, readable and restorable",
    ),
  eventsBack: z.array(CairnEvent).describe("events the restore puts back on the branch's path (a redo)"),
  files: z.array(PathChange),
  grants: z
    .array(GrantRef.extend({ state: z.string() }))
    .describe(
      'the grants the checkpoint recorded, with their state now: a restore never re-issues one that ended',
    ),
  steps: z.object({
    undone: z.array(StepEffect).describe('local-only steps: the restore puts back what they changed'),
    compensation: z
      .array(StepEffect)
      .describe('external effects with a registered compensation (listed, never run)'),
    cannotUndo: z.array(StepEffect).describe('external effects nothing undoes: an email sent stays sent'),
  }),
});

export const UnitRestored = UnitRestorePreview.extend({
  before: UnitCheckpoint.describe('the checkpoint taken first: restoring it undoes this restore'),
  undo: z.string().describe('the command that undoes this restore'),
});

export const UnitRestoreAnswer = z.union([UnitRestored, UnitRestorePreview]);

export const UnitForked = z.object({
  checkpoint: UnitCheckpoint,
  branches: z.array(z.object({ branch: z.string(), workspace: Workspace, grants: z.array(GrantRef) })),
});

export const UnitStatus = z.object({
  workspace: z.string(),
  session: z.string(),
  branch: z.string(),
  unrecordedChanges: z.array(z.object({ path: z.string(), change: z.string() })),
  inDoubt: z.array(StepAt),
  contradicted: z.array(StepAt.extend({ recorded: z.enum(['done', 'failed']), happened: z.boolean() })),
  endedGrants: z
    .array(z.object({ id: z.string(), credential: z.string(), mode: z.string(), state: z.string() }))
    .describe('grants the branch relied on that were revoked, expired or used up'),
  clean: z.boolean(),
});

/** One checkpoint as a listing shows it: where it is, and what it holds. */
export const CheckpointEntry = z.object({
  id: idOf<EventId>().describe("the checkpoint's id (ev_…): what a restore or a fork takes"),
  label: z.string(),
  createdAt: at,
  session: idOf<SessionId>(),
  branch: z.string().describe('the branch it was taken on'),
  workspace: idOf<WorkspaceId>().describe('the workspace whose files it holds: it is restored there'),
  onBranchPath: z
    .boolean()
    .describe(
      "whether its branch's path holds it now: false once a restore went back before it (restoring it goes forward again)",
    ),
  accepted: z.boolean().describe('every check passed'),
  head: idOf<EventId | ''>().describe('the log head it covers (the event before it)'),
  snapshot: idOf<SnapshotId>(),
  files: z.number().int().describe('files in its snapshot'),
  bytes: z.number().int().describe('the bytes of those files'),
  inDoubt: z.number().int().describe('steps in doubt when it was taken'),
  checks: z.array(z.object({ command: z.string(), passed: z.boolean() })),
  git: GitEvidence.optional(),
});

export const CheckpointList = z.object({
  items: z.array(CheckpointEntry).describe('newest first'),
  next: idOf<EventId>()
    .nullable()
    .describe('older checkpoints exist: pass this as `before` for them; null when there are none'),
});

/** A credential the desk's guard found in a directory: where, by which rule, and what it did about it. */
export const SecretFinding = z.object({
  path: z.string(),
  line: z.number().int().describe('1-based; 0 for a finding on the path alone'),
  rule: z.string(),
  confidence: z.enum(['high', 'low']),
  action: z
    .enum(['withheld', 'redacted', 'kept'])
    .describe(
      "withheld: left out of the snapshot; redacted: stored with the secret x'd out; kept: low confidence, stored as is",
    ),
});

export const UnitAttached = z.object({
  workspace: Workspace,
  snapshot: Snapshot.describe('its first snapshot'),
  findings: z
    .array(SecretFinding)
    .describe('credentials found in its files (the files on disk are untouched)'),
  unsupported: z
    .array(z.string())
    .describe('entries a snapshot cannot hold (sockets, FIFOs, devices), left out'),
});
