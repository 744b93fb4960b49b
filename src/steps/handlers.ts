/** The handlers of the durable steps' operations (the contract: ./contract.ts). */
import * as log from '../log/session-log.js';
import type { Handlers } from '../ops/op.js';
import { Journal, STEP_EVENT, STEP_RESOLVE_EVENT } from '../steps/journal.js';
import type { STEP_CONTRACT } from './contract.js';
import { journalReads } from './lookup.js';

export const STEP_HANDLERS: Handlers<typeof STEP_CONTRACT> = {
  listSteps: async (ctx, input) => ({ steps: (await Journal.read(journalReads(ctx), input)).steps() }),
  recordStep: (ctx, input) => {
    const payload = log.encodePayload(input.payload);
    const { session, branch, idempotencyKey } = input;
    return ctx.write((tx, now) =>
      log.appendOwnEvent(
        tx,
        ctx.who,
        { session, branch, kind: STEP_EVENT, payload: null, idempotencyKey },
        payload,
        now,
      ),
    );
  },
  resolveStep: async (ctx, input) => {
    const journal = await Journal.read(journalReads(ctx), input);
    const decision =
      input.rerun !== undefined
        ? { rerun: true as const }
        : input.error !== undefined
          ? { error: input.error }
          : { result: input.result };
    const resolve = journal.resolution(input.position, decision);
    // The resolver is the caller's principal (from its token), and the store records it as the event's owner.
    const event = await ctx.write((tx, now) =>
      log.appendOwnEvent(
        tx,
        ctx.who,
        { session: input.session, branch: input.branch, kind: STEP_RESOLVE_EVENT, payload: null },
        log.encodePayload({ resolve, resolvedBy: ctx.who.principal }),
        now,
      ),
    );
    return journal.applied(event, input.position);
  },
};
