/** The branch sweep's documents (docs/design/retention.md). */
import { z } from 'zod';

export const SweepBranchesInput = z
  .object({
    dryRun: z.boolean().default(false).describe('say what would go and why a branch stays; delete nothing'),
  })
  .strict();

const Counts = z
  .record(z.string(), z.record(z.string(), z.number().int()))
  .describe(
    'per feature, rows per kind; audit.payloads: audit payloads removed, each now a signed tombstone',
  );

/** Why an abandoned branch past its time stays. */
export const KeptReason = z
  .enum(['main', 'workspace-attached', 'workspace-forked', 'reached', 'artifacts', 'grants'])
  .describe(
    "main: a session's first branch is never swept; workspace-attached: its directory is not discarded yet (gc on its host); workspace-forked: another workspace starts from one of its snapshots; reached: another branch's path holds its events; artifacts: an artifact was published from it; grants: another branch's grant narrows one of its",
  );

export const BranchSweep = z.object({
  dryRun: z.boolean(),
  swept: z
    .array(z.object({ session: z.string(), branches: z.array(z.string()), counts: Counts }))
    .describe(
      'per session, the abandoned branches past their time that went (or would go) and what went with them',
    ),
  kept: z
    .array(z.object({ session: z.string(), branch: z.string(), reason: KeptReason }))
    .describe('abandoned branches past their time that stay, and why'),
  counts: Counts.describe('the sum over every session'),
});
