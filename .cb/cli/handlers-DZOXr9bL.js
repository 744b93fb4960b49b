import { D as forbidden } from "./front-BpLyP2oj.js";
import { b as insertToken, p as refuseAudited, w as revokeToken, x as loadIdentity, y as insertPrincipal, z as authorize } from "./store-folder-D53airw-.js";
// dist/identity/handlers.js
/** The handlers of identity's operations (the contract: ./contract.ts). */
const IDENTITY_HANDLERS = {
	whoami: async (ctx) => ({ ...ctx.who }),
	createToken: async (ctx, input) => {
		const forSelf = input.principal === ctx.who.principal;
		if (ctx.who.kind !== "user" && !forSelf) {
			const { tenant } = ctx.who;
			if ((input.principal === void 0 ? input.kind ?? "agent" : (await ctx.engine.read(tenant, (tx) => loadIdentity(tx, tenant, input.principal)))?.kind) === "user") await refuseAudited(ctx, {
				action: "authority.refused",
				resourceType: "principal",
				resourceId: input.principal ?? "",
				payload: {
					operation: "createToken",
					kind: "user"
				}
			}, forbidden(`principal ${ctx.who.principal} is ${ctx.who.kind === "agent" ? "an" : "a"} ${ctx.who.kind}: only a person creates a person's token (a user principal); ask a person of the tenant`, { principal: ctx.who.principal }));
		}
		if (!forSelf) authorize(ctx.who, "token.create.other");
		return ctx.write(async (tx, now) => {
			const principal = input.principal ?? await insertPrincipal(tx, ctx.who.tenant, {
				kind: input.kind ?? "agent",
				name: input.name ?? "agent",
				role: input.role ?? "member"
			}, ctx.who.principal, now);
			return insertToken(tx, ctx.who.tenant, principal, input.label, ctx.who.principal, now);
		});
	},
	revokeToken: (ctx, input) => ctx.write((tx, now) => revokeToken(tx, ctx.who.tenant, input.token, ctx.who.principal, (owner) => {
		if (owner !== ctx.who.principal) authorize(ctx.who, "token.revoke.other");
	}, now))
};
export { IDENTITY_HANDLERS };
