/** The handlers of the desk's operations (the contract: ./contract.ts). */
import { digestOf } from '../desk/chunker.js';
import { refuseSecretsInPack } from '../desk/guard.js';
import { verifyPack } from '../desk/pack-format.js';
import type { Handlers } from '../ops/op.js';
import type { DESK_CONTRACT } from './contract.js';
import { deskStoreOf } from './store-side.js';

export const DESK_HANDLERS: Handlers<typeof DESK_CONTRACT> = {
  deskMissing: async (ctx, input) => ({ missing: await deskStoreOf(ctx).missing(input.digests) }),
  deskReadObjects: (ctx, input) => deskStoreOf(ctx).getObjects(input.digests),
  deskPutPack: async (ctx, input) => {
    // A Buffer over the same memory (the server's body is one already; an embedded caller's may be a Uint8Array).
    const bytes = Buffer.from(input.bytes.buffer, input.bytes.byteOffset, input.bytes.byteLength);
    const objects = verifyPack(input.digest, bytes).length;
    // The client's guard is not the store's: its objects are scanned again here.
    await refuseSecretsInPack(bytes);
    await deskStoreOf(ctx).putPack(input.digest, bytes);
    return { pack: input.digest, objects };
  },
  deskDiscardPacks: async (ctx, input) => {
    await deskStoreOf(ctx).discardPacks(input.packs);
    return { ok: true as const };
  },
  deskCommit: async (ctx, input) => {
    const { inline, ...rest } = input;
    let pack: Buffer | undefined;
    if (inline !== undefined) {
      pack = Buffer.from(inline, 'base64');
      // Named by its own hash: what is checked is each object against its digest.
      verifyPack(digestOf(pack), pack);
      await refuseSecretsInPack(pack);
    }
    return deskStoreOf(ctx).commit({ ...rest, ...(pack ? { inline: pack } : {}) });
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
    return { ok: true as const };
  },
};
