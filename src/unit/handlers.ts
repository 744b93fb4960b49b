/** The handlers of the unit's operations (the contract: ./contract.ts): they act through the caller's side. */
import { runsAtCaller } from '../contract/spec.js';
import { deskStoreOf } from '../desk/store-side.js';
import { forbidden, invalidArgument } from '../errors.js';
import type { SessionId } from '../ids.js';
import * as log from '../log/session-log.js';
import type { CallerSide, Handlers, OpContext } from '../ops/op.js';
import type { SqlExecutor } from '../storage/engine.js';
import type { Identity } from '../types.js';
import { defaultForkRoot, UNIT_ABANDON_EVENT, UNIT_CHECKPOINT_EVENT, UNIT_KEEP_EVENT } from '../unit/unit.js';
import { listCheckpoints } from './checkpoints.js';
import type { UNIT_CONTRACT } from './contract.js';

/** The caller's side of a context, or the error that says where the operation runs. */
function callerOf(ctx: OpContext, command: string): CallerSide {
  if (ctx.caller) return ctx.caller;
  throw runsAtCaller(command);
}

/**
 * Appends one of the unit's events for `workspace` on a branch, after
 * checking the store binds that workspace to that session branch.
 */
async function unitEvent(
  ctx: OpContext,
  input: { session: SessionId; branch: string; workspace: string },
  kind: string,
  payload: Record<string, unknown>,
  /** Checked in the append's transaction, before it: may the caller decide this for the branch? */
  allowed?: (tx: SqlExecutor) => Promise<void>,
) {
  const ws = await deskStoreOf(ctx).workspace(input.workspace);
  if (ws.session !== input.session || ws.branch !== input.branch)
    throw invalidArgument(
      `workspace ${ws.id} is bound to branch ${ws.branch} of session ${ws.session}, not ${input.branch} of ${input.session}: name the workspace of that branch`,
      { workspace: ws.id },
    );
  const who: Identity = ctx.who;
  return ctx.write(async (tx, now) => {
    await allowed?.(tx);
    return log.appendOwnEvent(
      tx,
      who,
      { session: input.session, branch: input.branch, kind, payload: null },
      log.encodePayload(payload),
      now,
    );
  });
}

/**
 * Abandoning a branch schedules its deletion (docs/design/retention.md), so
 * it is the branch owner's decision, or a person's who is an admin: an agent
 * cannot abandon another principal's branch, even with an admin token.
 */
async function mayAbandon(tx: SqlExecutor, ctx: OpContext, session: string, branch: string): Promise<void> {
  const { who } = ctx;
  const owner = await log.branchOwner(tx, who.tenant, session, branch);
  if (owner === null || owner === who.principal) return;
  if (who.role === 'admin' && who.kind === 'user') return;
  throw forbidden(
    `branch ${branch} of session ${session} is ${owner}'s: only its owner or a person who is an admin abandons it (its history is then deleted when its time is up)`,
    { branch, owner },
  );
}

export const UNIT_HANDLERS: Handlers<typeof UNIT_CONTRACT> = {
  recordCheckpoint: (ctx, input) =>
    unitEvent(ctx, { ...input, workspace: input.payload.workspace }, UNIT_CHECKPOINT_EVENT, input.payload),
  keepBranch: (ctx, input) => unitEvent(ctx, input, UNIT_KEEP_EVENT, { workspace: input.workspace }),
  abandonBranch: (ctx, input) =>
    unitEvent(
      ctx,
      input,
      UNIT_ABANDON_EVENT,
      // `sweepsBranch`: the branch goes with its workspace (abandons written before retention did not say so).
      { workspace: input.workspace, expiresAt: input.expiresAt, sweepsBranch: true },
      (tx) => mayAbandon(tx, ctx, input.session, input.branch),
    ),
  attachWorkspace: async (ctx, input) => {
    // Only the host that holds the directory attaches it: a server never attaches one of its own for a caller.
    const caller = callerOf(ctx, 'ws attach');
    const { workspace, checkpoint } = await caller.attach(input);
    return {
      workspace,
      snapshot: checkpoint.snapshot,
      findings: checkpoint.findings.map(({ path, line, rule, confidence, action }) => ({
        path,
        line,
        rule,
        confidence,
        action,
      })),
      unsupported: checkpoint.unsupported,
    };
  },
  listCheckpoints: (ctx, input) => listCheckpoints(ctx, input),
  checkpoint: async (ctx, input) => {
    const caller = callerOf(ctx, 'checkpoint');
    const ws = await caller.workspace(input.workspace);
    return caller.units.checkpoint({ workspace: ws.id, label: input.label, checks: input.checks });
  },
  restore: async (ctx, input) => {
    const caller = callerOf(ctx, 'restore');
    const ws = await caller.workspace(input.workspace);
    const options = { workspace: ws.id, allowUnaccepted: input.allowUnaccepted };
    if (input.preview) return caller.units.previewRestore(input.checkpoint, options);
    const done = await caller.units.restore(input.checkpoint, options);
    return { ...done.preview, before: done.before, undo: done.undo };
  },
  forkUnit: async (ctx, input) => {
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
  status: async (ctx, input) => {
    const caller = callerOf(ctx, 'status');
    const ws = await caller.workspace(input.workspace);
    return caller.units.status(ws.id);
  },
};
