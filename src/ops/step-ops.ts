/**
 * Durable steps' operations: a branch's journal read, and a person's
 * decision on a step in doubt. The journal is events on the branch, so both
 * act through the log's own operations (and their access checks) as the
 * caller; they run on any surface, the store local or a server's.
 */
import { z } from 'zod';
import * as schema from '../schema.js';
import { Journal } from '../steps/journal.js';
import { LOG_OPS } from './log-ops.js';
import { bindOps, op } from './op.js';
import * as shape from './shapes.js';

const BranchRef = z.object({ session: schema.SessionId, branch: schema.BranchName.default('main') }).strict();

export const STEP_OPS = {
  listSteps: op({
    name: 'listSteps',
    mcp: 'steps',
    summary:
      "The recorded steps of a branch: each one's position, name, key, state (done, failed, in-doubt) and result",
    effect: 'read',
    runs: 'anywhere',
    input: BranchRef,
    output: z.object({ steps: z.array(shape.StepRecord) }),
    http: { method: 'GET', path: '/v1/sessions/{session}/branches/{branch}/steps' },
    run: async (ctx, input) => ({ steps: (await Journal.open(bindOps(LOG_OPS, ctx), input)).steps() }),
  }),
  // Not an MCP tool: settling a step in doubt is a person's decision (the escalate policy), not the agent's.
  resolveStep: op({
    name: 'resolveStep',
    summary:
      'Resolve a step in doubt: it happened (with this result), it failed (with this error), or run it again with the same key',
    effect: 'write',
    runs: 'anywhere',
    input: BranchRef.extend({
      position: z.number().int().min(1).max(1_000_000_000),
      result: z.unknown().optional().describe('the step happened, with this result'),
      error: z.string().min(1).max(2000).optional().describe('the step failed, with this message'),
      rerun: z.literal(true).optional().describe('run it again with the same key'),
    })
      .strict()
      .refine(
        (i) =>
          [i.result !== undefined, i.error !== undefined, i.rerun !== undefined].filter(Boolean).length === 1,
        'pass exactly one of result, error or rerun',
      ),
    output: shape.StepRecord,
    http: { method: 'POST', path: '/v1/sessions/{session}/branches/{branch}/steps/resolve' },
    run: async (ctx, input) => {
      const journal = await Journal.open(bindOps(LOG_OPS, ctx), input);
      const decision =
        input.rerun !== undefined
          ? { rerun: true as const }
          : input.error !== undefined
            ? { error: input.error }
            : { result: input.result };
      return journal.resolve(input.position, decision);
    },
  }),
};
