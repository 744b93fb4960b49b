/**
 * The unit of work's operations: they act on a workspace directory, so they
 * run where it is (`runs: 'caller'`) — in the library with a desk, the CLI,
 * or `cairn mcp`, the store local or a server's — and are never routed over
 * HTTP (a server cannot reach the caller's directory). Where no workspace is
 * named, the workspace is the caller's (for `cairn mcp`, the directory it
 * started in).
 */
import { z } from 'zod';
import { invalidArgument } from '../errors.js';
import type { SessionId } from '../ids.js';
import * as log from '../log/session-log.js';
import * as schema from '../schema.js';
import type { Identity } from '../types.js';
import { defaultForkRoot, UNIT_ABANDON_EVENT, UNIT_CHECKPOINT_EVENT, UNIT_KEEP_EVENT } from '../unit/unit.js';
import { type CallerSide, type OpContext, op, runsAtCaller } from './op.js';
import * as shape from './shapes.js';

/** The caller's side of a context, or the error that says where the operation runs. */
function callerOf(ctx: OpContext, command: string): CallerSide {
  if (ctx.caller) return ctx.caller;
  throw runsAtCaller(command);
}

const WorkspaceRef = z
  .string()
  .min(1)
  .max(4096)
  .optional()
  .describe("a workspace id (ws_…) or directory; default: the caller's workspace");

/** What the unit's answers hold is described in docs/design/steps-and-units.md; structured, not fixed here yet. */
const UnitAnswer = z.custom<object>((v) => typeof v === 'object' && v !== null);

const UnitBranch = z.object({ session: schema.SessionId, branch: schema.BranchName }).strict();

/** A unit checkpoint's payload, as Units writes it (unit.ts `UnitCheckpoint` without its event's fields). */
const CheckpointPayload = z
  .object({
    label: z.string().max(200),
    head: z.union([schema.EventId, z.literal('')]),
    workspace: schema.WorkspaceId,
    snapshot: schema.SnapshotId,
    root: z.string().max(128),
    inDoubt: z
      .array(z.object({ position: z.number().int().min(1), name: z.string(), key: z.string() }).strict())
      .max(100_000),
    evidence: z
      .record(z.string(), z.unknown())
      .describe('git state and each check: exit code, output digest'),
    accepted: z.boolean(),
    grants: z
      .array(
        z.object({ id: z.string(), credential: z.string(), mode: z.string(), approval: z.string() }).strict(),
      )
      .max(10_000)
      .optional(),
  })
  .strict();

/**
 * Appends one of the unit's events for `workspace` on a branch, after
 * checking the store binds that workspace to that session branch.
 */
async function unitEvent(
  ctx: OpContext,
  input: { session: SessionId; branch: string; workspace: string },
  kind: string,
  payload: Record<string, unknown>,
) {
  const ws = await ctx.desk().workspace(input.workspace);
  if (ws.session !== input.session || ws.branch !== input.branch)
    throw invalidArgument(
      `workspace ${ws.id} is bound to branch ${ws.branch} of session ${ws.session}, not ${input.branch} of ${input.session}: name the workspace of that branch`,
      { workspace: ws.id },
    );
  const who: Identity = ctx.who;
  return ctx.write('log.append', (tx, now) =>
    log.appendOwnEvent(
      tx,
      who,
      { session: input.session, branch: input.branch, kind, payload: null },
      log.encodePayload(payload),
      now,
    ),
  );
}

export const UNIT_OPS = {
  // The unit's own events (Cairn's kinds, refused to `append`): Units writes them through these, on any fabric.
  recordCheckpoint: op({
    name: 'recordCheckpoint',
    summary:
      "Record a unit checkpoint of a branch whose workspace did not change (a changed one's rides with its snapshot)",
    effect: 'write',
    callers: 'any',
    runs: 'anywhere',
    input: UnitBranch.extend({ payload: CheckpointPayload }).strict(),
    output: shape.AppendResult,
    http: { method: 'POST', path: '/v1/sessions/{session}/branches/{branch}/unit/checkpoints', status: 201 },
    run: (ctx, input) =>
      unitEvent(ctx, { ...input, workspace: input.payload.workspace }, UNIT_CHECKPOINT_EVENT, input.payload),
  }),
  keepBranch: op({
    name: 'keepBranch',
    summary:
      "Mark a fork's branch the one kept: its workspace stays (what it remembered is carried separately)",
    effect: 'write',
    callers: 'any',
    runs: 'anywhere',
    input: UnitBranch.extend({ workspace: schema.WorkspaceId }).strict(),
    output: shape.AppendResult,
    http: { method: 'POST', path: '/v1/sessions/{session}/branches/{branch}/unit/keep', status: 201 },
    run: (ctx, input) => unitEvent(ctx, input, UNIT_KEEP_EVENT, { workspace: input.workspace }),
  }),
  abandonBranch: op({
    name: 'abandonBranch',
    summary:
      "Mark a fork's branch abandoned: after expiresAt its workspace may be reclaimed by its own host's desk",
    effect: 'write',
    callers: 'any',
    runs: 'anywhere',
    input: UnitBranch.extend({
      workspace: schema.WorkspaceId,
      expiresAt: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).describe('ms since the epoch'),
    }).strict(),
    output: shape.AppendResult,
    http: { method: 'POST', path: '/v1/sessions/{session}/branches/{branch}/unit/abandon', status: 201 },
    run: (ctx, input) =>
      unitEvent(ctx, input, UNIT_ABANDON_EVENT, { workspace: input.workspace, expiresAt: input.expiresAt }),
  }),
  checkpoint: op({
    name: 'checkpoint',
    mcp: 'checkpoint',
    summary:
      'Checkpoint the unit: log head, workspace snapshot, steps in doubt, evidence; accepted when every check passes',
    effect: 'write',
    callers: 'any',
    runs: 'caller',
    input: z
      .object({
        workspace: WorkspaceRef,
        label: z.string().max(200).optional(),
        checks: z
          .array(z.string().min(1).max(4000))
          .max(20)
          .optional()
          .describe('shell commands whose success accepts it'),
      })
      .strict(),
    output: UnitAnswer,
    run: async (ctx, input) => {
      const caller = callerOf(ctx, 'checkpoint');
      const ws = await caller.workspace(input.workspace);
      return caller.units.checkpoint({ workspace: ws.id, label: input.label, checks: input.checks });
    },
  }),
  restore: op({
    name: 'restore',
    mcp: 'restore',
    summary:
      'Restore the unit to a checkpoint of its session (the log head moves there, the workspace follows; prints its undo), or preview what would change',
    effect: 'write',
    callers: 'any',
    runs: 'caller',
    input: z
      .object({
        checkpoint: schema.EventId,
        preview: z.boolean().default(false),
        workspace: WorkspaceRef,
        allowUnaccepted: z.boolean().default(false),
      })
      .strict(),
    output: UnitAnswer,
    run: async (ctx, input) => {
      const caller = callerOf(ctx, 'restore');
      const ws = await caller.workspace(input.workspace);
      const options = { workspace: ws.id, allowUnaccepted: input.allowUnaccepted };
      if (input.preview) return caller.units.previewRestore(input.checkpoint, options);
      const done = await caller.units.restore(input.checkpoint, options);
      return { ...done.preview, before: done.before, undo: done.undo };
    },
  }),
  forkUnit: op({
    name: 'forkUnit',
    mcp: 'fork',
    summary:
      'Fork the unit at a checkpoint into branches, each with its own log branch and workspace beside the forked one, and no grants',
    effect: 'write',
    callers: 'any',
    runs: 'caller',
    input: z
      .object({
        checkpoint: schema.EventId,
        branches: z.number().int().min(1).max(16).optional().describe('how many branches (default 1)'),
        names: z
          .array(schema.BranchName)
          .min(1)
          .max(16)
          .optional()
          .describe('the branches, by name (instead of branches)'),
        driver: z
          .enum(['copy', 'overlay'])
          .optional()
          .describe('how the workspaces are made (default: overlay where it works)'),
        allowUnaccepted: z.boolean().default(false),
      })
      .strict()
      .refine((v) => v.branches === undefined || v.names === undefined, {
        message: 'pass either branches (a number) or names, not both',
        path: ['names'],
      }),
    output: UnitAnswer,
    run: async (ctx, input) => {
      const caller = callerOf(ctx, 'fork');
      const checkpoint = await caller.units.get(input.checkpoint);
      const ws = await caller.workspace(checkpoint.workspace);
      return caller.units.fork(input.checkpoint, {
        branches: input.names ?? input.branches ?? 1,
        dirRoot: defaultForkRoot(ws),
        driver: input.driver,
        allowUnaccepted: input.allowUnaccepted,
      });
    },
  }),
  status: op({
    name: 'status',
    mcp: 'status',
    summary:
      'What the unit holds that no checkpoint does: unrecorded file changes, steps in doubt, grants that ended',
    effect: 'read',
    callers: 'any',
    runs: 'caller',
    input: z.object({ workspace: WorkspaceRef }).strict(),
    output: UnitAnswer,
    run: async (ctx, input) => {
      const caller = callerOf(ctx, 'status');
      const ws = await caller.workspace(input.workspace);
      return caller.units.status(ws.id);
    },
  }),
};
