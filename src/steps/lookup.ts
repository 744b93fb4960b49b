/**
 * The steps' facade: a branch's journal as the caller reads it, and one
 * step of it by position (an artifact's lineage names the step that made it).
 */
import type { z } from 'zod';
import { LOG_CONTRACT } from '../log/contract.js';
import { LOG_HANDLERS } from '../log/handlers.js';
import { bindOps, type OpContext, withHandlers } from '../ops/op.js';
import { Journal } from './journal.js';
import type { StepRecord } from './shapes.js';

/** The log's reads a journal is opened with, as the caller. */
export const journalReads = (ctx: OpContext) => bindOps(withHandlers(LOG_CONTRACT, LOG_HANDLERS), ctx);

/** The step at `position` of a branch's journal, or undefined when the branch has none there. */
export async function stepAt(
  ctx: OpContext,
  input: { session: string; branch: string; position: number },
): Promise<z.output<typeof StepRecord> | undefined> {
  const journal = await Journal.read(journalReads(ctx), input);
  return journal.steps().find((s) => s.position === input.position);
}
