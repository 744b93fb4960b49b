/**
 * The nouns every feature's answers share, as zod schemas: times, typed ids,
 * the caller's identity, the one error body, a plain acknowledgement. Each
 * feature declares its own answers in its `shapes.ts`; the TypeScript types
 * (`types.ts`) are inferred from them, the OpenAPI document's response
 * schemas are generated from them, and the tests check live answers
 * against them.
 */
import { z } from 'zod';
import { ERROR_CODES } from './errors.js';

export const at = z.number().int().describe('milliseconds since the epoch');

export const idOf = <T extends string>() => z.string() as unknown as z.ZodType<T, T>;

export const Identity = z.object({
  tenant: z.string(),
  principal: z.string(),
  kind: z.enum(['user', 'agent', 'service']),
  role: z.enum(['admin', 'member']),
  onBehalfOf: z
    .string()
    .optional()
    .describe(
      'the person whose token made this agent or service token: who it acts for (derived, never claimed)',
    ),
});

export const ErrorBody = z.object({
  code: z.enum(ERROR_CODES),
  message: z.string(),
  data: z.record(z.string(), z.unknown()),
});

export const Done = z.object({ ok: z.literal(true) });
