/**
 * The steps' part of an erasure: a step is kept as events of the session
 * log (its journal, journal.ts), so the log's part deletes them with their
 * sessions; this part says how many journal events of the scope's sessions
 * go (it runs before the log's).
 */
import type { ErasurePart } from '../erasure/part.js';
import { countEventsOfKinds } from '../log/erase.js';
import { STEP_EVENT, STEP_RESOLVE_EVENT } from './journal.js';

export const STEPS_ERASURE: ErasurePart = {
  feature: 'steps',
  async erase(tx, scope) {
    const kinds = [STEP_EVENT, STEP_RESOLVE_EVENT];
    const journalEvents = await countEventsOfKinds(tx, scope.tenant, scope.sessions, kinds);
    return { counts: { journalEvents }, resources: [] };
  },
};
