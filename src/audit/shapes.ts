/** What the audit chain's operations answer, as zod schemas. */
import { z } from 'zod';

export const AuditBreak = z.object({ seq: z.number().int(), reason: z.string() });

export const AuditReport = z.object({
  tenant: z.string(),
  ok: z.boolean(),
  entries: z.number().int(),
  events: z.number().int(),
  firstBreak: AuditBreak.nullable().describe('the first broken link, when `ok` is false'),
});
