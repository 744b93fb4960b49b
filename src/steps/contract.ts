/**
 * Durable steps' operations: a branch's journal read, the journal's own
 * records (a step's intent, result or probe), and a person's decision on a
 * step in doubt. The journal is events of Cairn's own kinds on the branch:
 * `recordStep` writes `cairn.step` (never a resolution) and `resolveStep`,
 * a person's only, writes `cairn.step.resolve` naming who resolved it; the
 * log's generic `append` refuses both kinds.
 */
/**
 * Durable steps' operations: a branch's journal read, the journal's own
 * records (a step's intent, result or probe), and a person's decision on a
 * step in doubt. The journal is events of Cairn's own kinds on the branch:
 * `recordStep` writes `cairn.step` (never a resolution) and `resolveStep`,
 * a person's only, writes `cairn.step.resolve` naming who resolved it; the
 * log's generic `append` refuses both kinds.
 */
import { z } from 'zod';
import { spec } from '../contract/spec.js';
import * as logShape from '../log/shapes.js';
import * as schema from '../schema.js';
import * as shape from './shapes.js';

export const BranchRef = z
  .object({
    session: schema.SessionId,
    branch: schema.BranchName.default('main').describe('the branch; main unless you forked'),
  })
  .strict();
export const Position = z.number().int().min(1).max(1_000_000_000);
export const Policy = z.enum(['retry-same-key', 'probe', 'escalate']);

/** What a journal records of a step, as journal.ts writes it: an intent, a result, a probe's answer. */
export const StepRecordPayload = z
  .object({
    intent: z
      .object({
        position: Position,
        name: z.string().min(1).max(200),
        key: z.string().min(1).max(200),
        args: z.string().max(128).describe("digest of the step's arguments"),
        policy: Policy,
        compensate: z
          .object({ name: z.string().min(1).max(200), args: z.unknown().optional() })
          .strict()
          .optional(),
        effect: z.literal('local').optional(),
      })
      .strict()
      .optional(),
    done: z
      .object({
        position: Position,
        ok: z.boolean(),
        result: z.unknown().optional(),
        error: z.object({ message: z.string(), name: z.string().optional() }).strict().optional(),
        via: z.enum(['retry-same-key', 'probe', 'person']).optional(),
      })
      .strict()
      .optional(),
    probe: z.object({ position: Position, happened: z.boolean() }).strict().optional(),
  })
  .strict()
  .refine((p) => p.intent ?? p.done ?? p.probe, 'record an intent, a result (done) or a probe');
export const STEP_CONTRACT = {
  listSteps: spec({
    name: 'listSteps',
    mcp: {
      name: 'step_list',
      description:
        "The durable tool steps recorded on a branch: each step's name, key, result, and whether it is in doubt (started and never finished: nobody knows whether its effect happened, and only a person can settle it). Read-only.",
    },
    summary:
      "The recorded steps of a branch: each one's position, name, key, state (done, failed, in-doubt) and result",
    effect: 'read',
    callers: 'any',
    access: 'log.read',
    runs: 'anywhere',
    input: BranchRef,
    output: z.object({ steps: z.array(shape.StepRecord) }),
    http: { method: 'GET', path: '/v1/sessions/{session}/branches/{branch}/steps' },
  }),
  // Not an MCP tool: an agent's journal records its steps through its SDK.
  recordStep: spec({
    name: 'recordStep',
    summary:
      "Record a step of the branch's journal: its intent, its result or a probe's answer (never a resolution: that is resolveStep's)",
    effect: 'write',
    callers: 'any',
    access: 'log.append',
    runs: 'anywhere',
    input: BranchRef.extend({
      payload: StepRecordPayload,
      idempotencyKey: schema.IdempotencyKey.optional(),
    }).strict(),
    output: logShape.AppendResult,
    http: { method: 'POST', path: '/v1/sessions/{session}/branches/{branch}/steps', status: 201 },
    statusOf: (event) => (event.deduplicated ? 200 : 201),
  }),
  // Not an MCP tool: settling a step in doubt is a person's decision (the escalate policy), not the agent's.
  resolveStep: spec({
    name: 'resolveStep',
    summary:
      'Resolve a step in doubt: it happened (with this result), it failed (with this error), or run it again with the same key (a person only)',
    effect: 'write',
    callers: 'person',
    access: 'log.append',
    runs: 'anywhere',
    input: BranchRef.extend({
      position: Position,
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
  }),
};
