/**
 * The steps' part of the branch sweep: a step is kept as events of the
 * session log (its journal, journal.ts), so the log's part deletes a swept
 * branch's steps with its events; this part says how many of those events
 * were the journal's.
 */
import { countOfKinds } from '../log/retention.js';
import type { RetentionPart } from '../retention/part.js';
import { STEP_EVENT, STEP_RESOLVE_EVENT } from './journal.js';

export const STEPS_RETENTION: RetentionPart = {
  feature: 'steps',
  async sweep(tx, scope) {
    const journalEvents = await countOfKinds(tx, scope.tenant, scope.log.events, [
      STEP_EVENT,
      STEP_RESOLVE_EVENT,
    ]);
    return { counts: { journalEvents }, resources: [] };
  },
};
