/** The redaction policy's documents (docs/design/redaction.md). */
import { z } from 'zod';
import { NATIONAL_ID_NAMES, PII_KINDS } from './kinds.js';

export const RedactionPolicyInput = z
  .object({
    enabled: z.boolean().default(false).describe('redact before storing (off by default)'),
    kinds: z
      .array(z.enum(PII_KINDS))
      .max(PII_KINDS.length)
      .default([...PII_KINDS])
      .describe('what to redact: email, phone, card (Luhn-checked), iban (mod-97-checked)'),
    nationalIds: z
      .array(z.enum(NATIONAL_ID_NAMES))
      .max(NATIONAL_ID_NAMES.length)
      .default([])
      .describe(`national ids to redact too: ${NATIONAL_ID_NAMES.join(', ')}`),
    phoneRegion: z
      .string()
      .regex(/^[A-Z]{2}$/, { message: 'expected a region code of two capital letters (ISO 3166), e.g. US' })
      .optional()
      .describe(
        'the region phone numbers without a +country code are read in; without it only +numbers are found',
      ),
  })
  .strict();

export const RedactionPolicy = z.object({
  enabled: z.boolean(),
  kinds: z.array(z.enum(PII_KINDS)),
  nationalIds: z.array(z.enum(NATIONAL_ID_NAMES)),
  phoneRegion: z.string().optional(),
  updatedBy: z.string().describe("who set it ('' when never set)"),
  updatedAt: z.number().int().describe('when (0 when never set)'),
});
