/**
 * The unit of work's operations: they act on a workspace directory, so they
 * run where it is (`runs: 'caller'`) — in the library with a desk, the CLI,
 * or `cairn mcp`, the store local or a server's — and are never routed over
 * HTTP (a server cannot reach the caller's directory). Where no workspace is
 * named, the workspace is the caller's (for `cairn mcp`, the directory it
 * started in).
 */
import { z } from 'zod';
import * as schema from '../schema.js';
import { defaultForkRoot } from '../unit/unit.js';
import { type CallerSide, type OpContext, op, runsAtCaller } from './op.js';

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

export const UNIT_OPS = {
  checkpoint: op({
    name: 'checkpoint',
    mcp: 'checkpoint',
    summary:
      'Checkpoint the unit: log head, workspace snapshot, steps in doubt, evidence; accepted when every check passes',
    effect: 'write',
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
