import { unavailable } from '../errors.js';
import type { OpContext } from '../ops/op.js';
import { LocalDeskStore } from './local-store.js';

/**
 * The store side of the desk (objects, packs, snapshots, workspace records)
 * as the caller of an operation: one per context, over the store's blobs.
 */
export function deskStoreOf(ctx: OpContext): LocalDeskStore {
  const { blobs } = ctx;
  if (!blobs)
    throw unavailable("this fabric was opened without the store's blobs: open it with Store.fabric", {});
  return ctx.once(LocalDeskStore, () => new LocalDeskStore(ctx.engine, blobs, ctx.who));
}
