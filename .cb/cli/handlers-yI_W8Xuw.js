import { t as redactEncoded } from "./text-CFBKie39.js";
import { D as forbidden } from "./front-BpLyP2oj.js";
import { S as rewindBranch, _ as listBranches, a as branchHistory, b as readBranch, g as isReservedKind, h as getSession, l as createSession, m as getEvent, n as appendEvent, p as forkBranch, t as RESERVED_KIND_PREFIX, u as encodePayload, v as listSessions, x as readPath, y as moveHead } from "./session-log-CJJ_c6sf.js";
import { p as refuseAudited } from "./store-folder-D53airw-.js";
// dist/log/handlers.js
/** The handlers of the session log's operations (the contract: ./contract.ts). */
const LOG_HANDLERS = {
	createSession: (ctx, input) => ctx.write((tx, now) => createSession(tx, ctx.who, input, now)),
	listSessions: (ctx, input) => ctx.read((tx) => listSessions(tx, ctx.who, input)),
	getSession: (ctx, input) => ctx.read((tx) => getSession(tx, ctx.who, input.session)),
	append: async (ctx, input) => {
		if (isReservedKind(input.kind)) await refuseAudited(ctx, {
			action: "log.append.reserved",
			resourceType: "session",
			resourceId: input.session,
			payload: { kind: input.kind }
		}, forbidden(`event kind "${input.kind}" is Cairn's own (kinds under "${RESERVED_KIND_PREFIX}" are written only by Cairn's operations): append under a kind of your own, e.g. "app.${input.kind.slice(RESERVED_KIND_PREFIX.length)}"; a person settles a step in doubt with resolveStep (cairn step resolve)`, { kind: input.kind }));
		return redactEncoded(input.payload, encodePayload).then(({ payload, redacted }) => ctx.write((tx, now) => appendEvent(tx, ctx.who, input, payload, now, redacted)));
	},
	readBranch: (ctx, input) => ctx.read((tx) => readBranch(tx, ctx.who, input)),
	getEvent: (ctx, input) => ctx.read((tx) => getEvent(tx, ctx.who, input.event)),
	fork: (ctx, input) => ctx.write((tx, now) => forkBranch(tx, ctx.who, input, now)),
	rewind: (ctx, input) => ctx.write((tx, now) => rewindBranch(tx, ctx.who, input, now)),
	moveHead: (ctx, input) => ctx.write((tx, now) => moveHead(tx, ctx.who, input, now)),
	readPath: (ctx, input) => ctx.read((tx) => readPath(tx, ctx.who, input)),
	listBranches: (ctx, input) => ctx.read((tx) => listBranches(tx, ctx.who, input.session)),
	branchHistory: (ctx, input) => ctx.read((tx) => branchHistory(tx, ctx.who, input.session, input.branch))
};
export { LOG_HANDLERS };
