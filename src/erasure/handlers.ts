/** The handler of the erasure cascade's operation (the contract: ./contract.ts). */
import { collectUnnamedBlobs } from '../blob/named.js';
import { eraseDeskState } from '../desk/erase-state.js';
import { collectGarbage } from '../desk/gc.js';
import { ObjectStore } from '../desk/objects.js';
import { deskStoreOf } from '../desk/store-side.js';
import type { Handlers, OpContext } from '../ops/op.js';
import type { ERASURE_CONTRACT } from './contract.js';
import { erase } from './erasure.js';
import type { ErasureScope } from './part.js';

/** Packs and temporary blob files younger than this may be a live writer's: the sweep leaves them (blob/named.ts). */
const WRITER_GRACE_MS = 60 * 60 * 1000;

/**
 * What an erasure removes outside the rows, as this store can: the desk's
 * objects only erased snapshots reached (repacking packs that also hold live
 * ones, so no erased chunk stays in one), the desk's state on this host
 * for the erased workspaces (a store in a folder), then every blob no row
 * names any more (artifacts' chunks, the desk's packs).
 */
async function sweep(ctx: OpContext, scope: ErasureScope): Promise<Record<string, number>> {
  if (!ctx.blobs) return {};
  const desk = deskStoreOf(ctx);
  const gc = await collectGarbage(desk, new ObjectStore(desk), {
    repack: true,
    started: Date.now(),
    graceMs: WRITER_GRACE_MS,
  });
  const state = ctx.deskStateDir
    ? await eraseDeskState({
        stateDir: ctx.deskStateDir,
        engine: ctx.engine,
        tenant: scope.tenant,
        workspaces: scope.workspaces,
      })
    : { removed: [], busy: [] };
  const blobs = await collectUnnamedBlobs(ctx.engine, ctx.blobs, scope.tenant, Date.now() - WRITER_GRACE_MS);
  return {
    deskObjects: gc.removedObjects,
    deskPacksRepacked: gc.repackedPacks,
    deskStateFiles: state.removed.length,
    deskStateBusy: state.busy.length,
    blobs: blobs.deleted,
    temporaryFiles: blobs.temporary,
  };
}

export const ERASURE_HANDLERS: Handlers<typeof ERASURE_CONTRACT> = {
  erase: (ctx, input) =>
    erase(
      { engine: ctx.engine, who: ctx.who, auditKey: ctx.auditKey, sweep: (scope) => sweep(ctx, scope) },
      input.subject,
      input.preview,
    ),
};
