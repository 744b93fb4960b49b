/** What the step journal's operations answer, as zod schemas. */
import { z } from 'zod';
import type { EventId } from '../ids.js';
import { idOf } from '../shapes.js';

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
