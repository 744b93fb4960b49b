import { t as LOG_CONTRACT } from "./contract-DAP9xz3h.js";
import { LOG_HANDLERS } from "./handlers-yI_W8Xuw.js";
import { r as appendOwnEvent, u as encodePayload } from "./session-log-CJJ_c6sf.js";
import { f as bindOps, h as withHandlers } from "./store-folder-D53airw-.js";
import { n as STEP_EVENT, r as STEP_RESOLVE_EVENT, t as Journal } from "./journal-DzztJ9UP.js";
// dist/steps/handlers.js
/** The handlers of the durable steps' operations (the contract: ./contract.ts). */
/** The log's reads a journal is opened with, as the caller. */
const journalReads = (ctx) => bindOps(withHandlers(LOG_CONTRACT, LOG_HANDLERS), ctx);
const STEP_HANDLERS = {
	listSteps: async (ctx, input) => ({ steps: (await Journal.read(journalReads(ctx), input)).steps() }),
	recordStep: (ctx, input) => {
		const payload = encodePayload(input.payload);
		const { session, branch, idempotencyKey } = input;
		return ctx.write((tx, now) => appendOwnEvent(tx, ctx.who, {
			session,
			branch,
			kind: STEP_EVENT,
			payload: null,
			idempotencyKey
		}, payload, now));
	},
	resolveStep: async (ctx, input) => {
		const journal = await Journal.read(journalReads(ctx), input);
		const decision = input.rerun !== void 0 ? { rerun: true } : input.error !== void 0 ? { error: input.error } : { result: input.result };
		const resolve = journal.resolution(input.position, decision);
		const event = await ctx.write((tx, now) => appendOwnEvent(tx, ctx.who, {
			session: input.session,
			branch: input.branch,
			kind: STEP_RESOLVE_EVENT,
			payload: null
		}, encodePayload({
			resolve,
			resolvedBy: ctx.who.principal
		}), now));
		return journal.applied(event, input.position);
	}
};
export { STEP_HANDLERS };
