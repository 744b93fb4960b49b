import { F as unavailable } from "./front-BpLyP2oj.js";
import { t as LocalDeskStore } from "./local-store-Bcz_Wbkg.js";
// dist/desk/store-side.js
/**
* The store side of the desk (objects, packs, snapshots, workspace records)
* as the caller of an operation: one per context, over the store's blobs.
*/
function deskStoreOf(ctx) {
	const { blobs } = ctx;
	if (!blobs) throw unavailable("this fabric was opened without the store's blobs: open it with Store.fabric", {});
	return ctx.once(LocalDeskStore, () => new LocalDeskStore(ctx.engine, blobs, ctx.who));
}
export { deskStoreOf as t };
