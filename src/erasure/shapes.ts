/** The erasure cascade's documents (docs/design/erasure.md). */
import { z } from 'zod';
import { AuditCheckpoint } from '../audit/shapes.js';

export const Subject = z
  .string()
  .regex(/^((user|agent):[A-Za-z0-9][A-Za-z0-9._@-]{0,127}|session:ss_[0-9a-z]{26})$/, {
    message:
      'expected user:ID or agent:ID (a principal, pr_…, or a name memory is scoped to) or session:ss_…',
  })
  .describe(
    'who or what to erase: user:ID or agent:ID (a principal pr_…, or the name memory is scoped to: both when they are one) or session:ss_…',
  );

export const EraseInput = z
  .object({
    subject: Subject,
    preview: z.boolean().default(false).describe('count what would go; erase nothing'),
  })
  .strict();

const Counts = z
  .record(z.string(), z.record(z.string(), z.number().int()))
  .describe('per feature, rows per kind; audit.payloads: audit payloads erased, each now a signed tombstone');

export const Erasure = z.object({
  erasure: z.string().describe("the erasure's id (er_…); empty in a preview"),
  subject: z.string(),
  preview: z.boolean(),
  counts: Counts,
  reclaimed: z
    .object({
      swept: z.record(z.string(), z.number().int()).describe('bytes outside the rows removed, per kind'),
      database: z.object({
        database: z.enum(['rewritten', 'left']),
        log: z.enum(['emptied', 'busy', 'left']),
      }),
    })
    .optional()
    .describe("what went outside the rows, and what the database did with the deleted rows' bytes"),
  startedAt: z.number().int(),
  finishedAt: z.number().int().optional(),
  checkpoint: AuditCheckpoint.optional().describe('the signed checkpoint whose tree holds every tombstone'),
  receipt: z
    .string()
    .optional()
    .describe(
      "the receipt: a signed note (the tenant's audit key) over the erasure, its counts and checkpoint",
    ),
});
