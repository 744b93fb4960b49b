/**
 * The unit of work's operations. Those that act on a workspace directory
 * (attach, checkpoint, restore, fork, status) run where it is (`runs:
 * 'caller'`) — in the library with a desk, the CLI, or `cairn mcp`, the
 * store local or a server's — and are never routed over HTTP (a server
 * cannot reach the caller's directory). Listing checkpoints reads the log
 * only, so it runs anywhere; where the caller is, a workspace named by its
 * directory (or none) is settled there first. Where no workspace is named,
 * the workspace is the caller's (for `cairn mcp`, the directory it started
 * in).
 */
import { z } from 'zod';
import { spec } from '../contract/spec.js';
import * as logShape from '../log/shapes.js';
import * as schema from '../schema.js';
import * as unit from './shapes.js';

export const WorkspaceRef = z
  .string()
  .min(1)
  .max(4096)
  .optional()
  .describe("a workspace id (ws_…) or directory; default: the caller's workspace");

/** What the unit's answers hold is described in docs/design/steps-and-units.md; structured, not fixed here yet. */

export const UnitBranch = z.object({ session: schema.SessionId, branch: schema.BranchName }).strict();

/** A unit checkpoint's payload, as Units writes it (unit.ts `UnitCheckpoint` without its event's fields). */
export const CheckpointPayload = z
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
export const UNIT_CONTRACT = {
  // The unit's own events (Cairn's kinds, refused to `append`): Units writes them through these, on any fabric.
  recordCheckpoint: spec({
    name: 'recordCheckpoint',
    summary:
      "Record a unit checkpoint of a branch whose workspace did not change (a changed one's rides with its snapshot)",
    effect: 'write',
    callers: 'any',
    access: 'log.append',
    runs: 'anywhere',
    input: UnitBranch.extend({ payload: CheckpointPayload }).strict(),
    output: logShape.AppendResult,
    http: { method: 'POST', path: '/v1/sessions/{session}/branches/{branch}/unit/checkpoints', status: 201 },
  }),
  keepBranch: spec({
    name: 'keepBranch',
    summary:
      "Mark a fork's branch the one kept: its workspace stays (what it remembered is carried separately)",
    effect: 'write',
    callers: 'any',
    access: 'log.append',
    runs: 'anywhere',
    input: UnitBranch.extend({ workspace: schema.WorkspaceId }).strict(),
    output: logShape.AppendResult,
    http: { method: 'POST', path: '/v1/sessions/{session}/branches/{branch}/unit/keep', status: 201 },
  }),
  abandonBranch: spec({
    name: 'abandonBranch',
    summary:
      "Mark a fork's branch abandoned (its owner, or a person who is an admin): after expiresAt its workspace is reclaimed by its own host's desk, then the branch is swept with what only it holds",
    effect: 'write',
    callers: 'any',
    access: 'log.append',
    runs: 'anywhere',
    input: UnitBranch.extend({
      workspace: schema.WorkspaceId,
      expiresAt: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).describe('ms since the epoch'),
    }).strict(),
    output: logShape.AppendResult,
    http: { method: 'POST', path: '/v1/sessions/{session}/branches/{branch}/unit/abandon', status: 201 },
  }),
  attachWorkspace: spec({
    name: 'attachWorkspace',
    mcp: {
      name: 'workspace_attach',
      description:
        'Attach a directory on this machine (the one the Cairn MCP server runs on) as your workspace: it is bound to a session branch (a new session unless you name one) and its files are snapshotted, so workspace_checkpoint, workspace_restore, workspace_fork and workspace_status can act on it. Returns the workspace (pass its id as workspace to those tools, unless the directory is the one the server started in) and its first snapshot. Attaching changes no file, and credential files are left out of the snapshot. It cannot be undone: the copy of the files stays in the store, and a later workspace_restore rewrites files in this directory. A directory already attached is refused.',
    },
    summary:
      "Attach a directory of the caller's host to a session branch (a new session unless named) and take its first snapshot",
    effect: 'write',
    callers: 'any',
    access: 'desk.write',
    runs: 'caller',
    input: z
      .object({
        dir: z
          .string()
          .min(1)
          .max(4096)
          .describe(
            'the directory to attach, on the machine this server runs on: an absolute path, or one relative to the directory the server started in',
          ),
        session: schema.SessionId.optional().describe(
          'the session (ss_…) to bind it to, e.g. the one you are working in; default: a new session',
        ),
        branch: schema.BranchName.optional().describe(
          'a branch of that session to bind it to, one that exists (session_fork makes one); default main',
        ),
      })
      .strict(),
    output: unit.UnitAttached,
  }),
  listCheckpoints: spec({
    name: 'listCheckpoints',
    mcp: {
      name: 'workspace_checkpoints',
      description:
        "List the checkpoints of your workspace (or of a whole session), newest first: each one's id, label, time, branch, whether its checks passed, and what it holds (files and bytes of its snapshot, steps in doubt, checks, git revision). Checkpoints a restore went back before are listed too (onBranchPath false): restore one of them to go forward again. Use it to find the id workspace_restore or workspace_fork takes. Read-only.",
    },
    summary:
      "A workspace's or a session's unit checkpoints, newest first, with what each holds (those a restore went back before included)",
    effect: 'read',
    callers: 'any',
    access: 'log.read',
    runs: 'anywhere',
    input: z
      .object({
        workspace: WorkspaceRef.describe(
          "the workspace whose checkpoints to list: its id (ws_…), or its directory where the server runs on the workspace's machine; default: yours, unless a session is named",
        ),
        session: schema.SessionId.optional().describe(
          "list the checkpoints of every workspace of this session (ss_…) instead of one workspace's",
        ),
        branch: schema.BranchName.optional().describe('only the checkpoints taken on this branch'),
        before: schema.EventId.optional().describe(
          'only checkpoints older than this one: the next of an earlier answer, for the page after it',
        ),
        limit: z.number().int().min(1).max(100).default(20).describe('how many at most'),
      })
      .strict(),
    output: unit.CheckpointList,
    http: { method: 'GET', path: '/v1/checkpoints' },
  }),
  checkpoint: spec({
    name: 'checkpoint',
    mcp: {
      name: 'workspace_checkpoint',
      description:
        "Checkpoint your unit of work: the session branch's head, a snapshot of the workspace's files, the steps in doubt, and the outcome of the checks you name (shell commands; it is accepted when all pass). A failed check makes this call a tool error (the checkpoint is kept, not accepted). A snapshot holds files, not running processes. Go back to it with workspace_restore.",
    },
    summary:
      'Checkpoint the unit: log head, workspace snapshot, steps in doubt, evidence; accepted when every check passes',
    effect: 'write',
    callers: 'any',
    access: 'desk.write',
    runs: 'caller',
    input: z
      .object({
        workspace: WorkspaceRef,
        label: z.string().max(200).optional().describe('a few words to find it by later'),
        checks: z
          .array(z.string().min(1).max(4000))
          .max(20)
          .optional()
          .describe('shell commands whose success accepts it'),
      })
      .strict(),
    output: unit.UnitCheckpoint,
    failureOf: (cp) =>
      cp.accepted
        ? undefined
        : `checkpoint ${cp.id} is recorded but not accepted: ${cp.evidence.checks
            .filter((c) => !c.passed)
            .map(
              (c) =>
                `\`${c.command}\` exited ${c.exit}${c.outputTail ? `: ${c.outputTail.trim().split('\n').slice(-3).join(' / ')}` : ''}`,
            )
            .join('; ')}; fix what the check says, then checkpoint again`,
  }),
  restore: spec({
    name: 'restore',
    mcp: {
      name: 'workspace_restore',
      description:
        "Put the unit back at a checkpoint: the branch head moves there and the workspace's files follow; a checkpoint of the state before is taken first, so this can itself be undone. It cannot undo effects outside the workspace (an email sent, a payment made): it lists them. Run with preview=true first to see which files and events change.",
    },
    summary:
      'Restore the unit to a checkpoint of its session (the log head moves there, the workspace follows; prints its undo), or preview what would change',
    effect: 'write',
    callers: 'any',
    access: 'desk.write',
    runs: 'caller',
    input: z
      .object({
        checkpoint: schema.EventId.describe("the checkpoint's id (ev_…), from workspace_checkpoint"),
        preview: z.boolean().default(false).describe('list what would change; change nothing'),
        workspace: WorkspaceRef,
        allowUnaccepted: z.boolean().default(false).describe('restore a checkpoint whose checks failed'),
      })
      .strict(),
    output: unit.UnitRestoreAnswer,
  }),
  forkUnit: spec({
    name: 'forkUnit',
    mcp: {
      name: 'workspace_fork',
      description:
        'Fork the unit at a checkpoint into new branches, each with its own log branch and its own copy of the workspace beside the original, to try alternatives side by side. The new branches get no credentials of their own. Returns each branch with its workspace directory.',
    },
    summary:
      'Fork the unit at a checkpoint into branches, each with its own log branch and workspace beside the forked one, and no grants',
    effect: 'write',
    callers: 'any',
    access: 'desk.write',
    runs: 'caller',
    input: z
      .object({
        checkpoint: schema.EventId.describe("the checkpoint's id (ev_…) to fork at"),
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
        allowUnaccepted: z.boolean().default(false).describe('fork a checkpoint whose checks failed'),
      })
      .strict()
      .refine((v) => v.branches === undefined || v.names === undefined, {
        message: 'pass either branches (a number) or names, not both',
        path: ['names'],
      }),
    output: unit.UnitForked,
  }),
  status: spec({
    name: 'status',
    mcp: {
      name: 'workspace_status',
      description:
        'What the unit holds that no checkpoint does: files changed since the last checkpoint, steps in doubt, grants that ended. Call it before checkpointing or restoring. Read-only.',
    },
    summary:
      'What the unit holds that no checkpoint does: unrecorded file changes, steps in doubt, grants that ended',
    effect: 'read',
    callers: 'any',
    access: 'desk.read',
    runs: 'caller',
    input: z.object({ workspace: WorkspaceRef }).strict(),
    output: unit.UnitStatus,
  }),
};
