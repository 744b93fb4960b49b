import { i as digestOf } from "./chunker-BmGAprKG.js";
import { a as refuseSecretsInPack } from "./guard-BHiFyyvg.js";
import { a as verifyPack } from "./pack-format-C6_KpTR7.js";
import { t as deskStoreOf } from "./store-side--GAU6LHX.js";
// dist/desk/handlers.js
/** The handlers of the desk's operations (the contract: ./contract.ts). */
const DESK_HANDLERS = {
	deskMissing: async (ctx, input) => ({ missing: await deskStoreOf(ctx).missing(input.digests) }),
	deskReadObjects: (ctx, input) => deskStoreOf(ctx).getObjects(input.digests),
	deskPutPack: async (ctx, input) => {
		const bytes = Buffer.from(input.bytes.buffer, input.bytes.byteOffset, input.bytes.byteLength);
		const objects = verifyPack(input.digest, bytes).length;
		await refuseSecretsInPack(bytes);
		await deskStoreOf(ctx).putPack(input.digest, bytes);
		return {
			pack: input.digest,
			objects
		};
	},
	deskDiscardPacks: async (ctx, input) => {
		await deskStoreOf(ctx).discardPacks(input.packs);
		return { ok: true };
	},
	deskCommit: async (ctx, input) => {
		const { inline, ...rest } = input;
		let pack;
		if (inline !== void 0) {
			pack = Buffer.from(inline, "base64");
			verifyPack(digestOf(pack), pack);
			await refuseSecretsInPack(pack);
		}
		return deskStoreOf(ctx).commit({
			...rest,
			...pack ? { inline: pack } : {}
		});
	},
	getWorkspace: (ctx, input) => deskStoreOf(ctx).workspace(input.workspace),
	workspaceHead: (ctx, input) => deskStoreOf(ctx).head(input.workspace),
	listWorkspaces: async (ctx) => ({ items: await deskStoreOf(ctx).listWorkspaces() }),
	attachedAt: async (ctx, input) => ({ items: await deskStoreOf(ctx).attachedAt(input.host, input.paths) }),
	listSnapshots: async (ctx, input) => ({ items: await deskStoreOf(ctx).listSnapshots(input.workspace) }),
	getSnapshot: (ctx, input) => deskStoreOf(ctx).snapshot(input.snapshot),
	deskFork: (ctx, input) => deskStoreOf(ctx).fork(input),
	detachWorkspace: (ctx, input) => deskStoreOf(ctx).detach(input.workspace),
	deskRefused: async (ctx, input) => {
		await deskStoreOf(ctx).refused(input);
		return { ok: true };
	}
};
export { DESK_HANDLERS };
