import { unavailable } from '../errors.js';
import type { DeskContext } from './context.js';
import { sweepLayers } from './fork.js';
import { collectGarbage, type GcOptions, type GcReport, type VerifyReport, verifyStore } from './gc.js';
import { LocalDeskStore } from './local-store.js';

/** Verify and GC as a desk runs them: where the store is, and then this host's overlay layers. */
export class Maintenance {
  constructor(private readonly ctx: DeskContext) {}

  /** The store side as this process holds it: verify and GC run where the store is. */
  private local(what: string): LocalDeskStore {
    if (this.ctx.store instanceof LocalDeskStore) return this.ctx.store;
    throw unavailable(`${what} runs where the store is: run it on the server's host`);
  }

  /** Walks every tree from every snapshot root, re-hashing each object once; stops at the first problem. */
  verify(): Promise<VerifyReport> {
    return verifyStore(this.local('verify'), this.ctx.objects);
  }

  /**
   * Retention, then mark and sweep (see gc.ts; with `repack`, packs only
   * partly garbage rewritten: repack.ts), then this host's overlay lower
   * layers no attached fork uses.
   */
  async gc(options: GcOptions = {}): Promise<GcReport> {
    const ctx = this.ctx;
    const started = ctx.now();
    const graceMs = options.graceMs ?? 60 * 60 * 1000;
    const report = await collectGarbage(this.local('gc'), ctx.objects, {
      ...options,
      started,
      ...(ctx.options.onProgress ? { onProgress: ctx.options.onProgress } : {}),
    });
    if (!options.dryRun) report.removedLayers = await sweepLayers(ctx, started - graceMs);
    return report;
  }
}
