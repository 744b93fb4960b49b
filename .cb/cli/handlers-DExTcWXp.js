import { h as getSession } from "./session-log-CJJ_c6sf.js";
import { t as Keys } from "./keys-BKLLj72I.js";
// dist/keys/handlers.js
/** The handlers of the keys' operations (the contract: ./contract.ts). */
/** The keys as the caller of an operation (one per context), with the operator's master key where given. */
const keysOf = (ctx) => ctx.once(Keys, () => new Keys({
	engine: ctx.engine,
	who: ctx.who,
	masterKey: ctx.masterKey
}));
/** Values travel as text in the JSON body; the library seals bytes. */
const bytes = (text) => Buffer.from(text, "utf8");
const KEYS_HANDLERS = {
	listCredentials: async (ctx) => ({ credentials: await keysOf(ctx).listCredentials() }),
	addCredential: (ctx, input) => keysOf(ctx).addCredential({
		name: input.name,
		kind: input.kind,
		upstream: input.upstream ?? "",
		header: input.header,
		value: bytes(input.value),
		...input.sandbox ? { sandbox: {
			upstream: input.sandbox.upstream,
			value: bytes(input.sandbox.value)
		} } : {},
		allowHeaders: input.allowHeaders,
		maxBodyBytes: input.maxBodyBytes
	}),
	rotateCredential: (ctx, input) => keysOf(ctx).rotateCredential(input.name, {
		...input.value !== void 0 ? { value: bytes(input.value) } : {},
		...input.sandbox !== void 0 ? { sandbox: bytes(input.sandbox) } : {}
	}),
	deleteCredential: (ctx, input) => keysOf(ctx).deleteCredential(input.name),
	addGrant: (ctx, input) => keysOf(ctx).grant(input),
	listApprovals: async (ctx, input) => ({ approvals: await keysOf(ctx).listApprovals({ state: input.state }) }),
	getApproval: (ctx, input) => keysOf(ctx).getApproval(input.approval),
	approve: (ctx, input) => keysOf(ctx).decide(input.approval, "approve", input.note),
	deny: (ctx, input) => keysOf(ctx).decide(input.approval, "deny", input.note),
	getGrant: (ctx, input) => keysOf(ctx).getGrant(input.grant),
	checkGrant: async (ctx, input) => {
		await ctx.read((tx) => getSession(tx, ctx.who, input.session));
		await keysOf(ctx).checkGrant(input);
		return { ok: true };
	},
	listGrants: async (ctx, input) => ({ grants: await keysOf(ctx).listGrants(input) }),
	revokeGrant: (ctx, input) => keysOf(ctx).revoke(input.grant, input.reason)
};
export { KEYS_HANDLERS };
