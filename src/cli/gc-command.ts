/**
 * `cairn gc`: retention and garbage collection on a local store, in the
 * order each step frees the next (docs/design/retention.md): abandoned
 * forks' workspaces past their time are discarded, then their branches are
 * swept from the log (with their steps, memory, workspace rows and keys),
 * then the snapshot rule expires snapshots and the desk's objects no
 * snapshot names go, then artifacts past their TTL, then blobs no row
 * names. `--dry-run` says what the first three would take and takes nothing.
 */
import type { BranchSweepResult } from '../retention/sweep.js';
import { Units } from '../unit/unit.js';
import { wholeNumberFlag } from './args.js';
import type { DeskCommand } from './command.js';
import { localOnly, withDesk } from './desk-commands.js';
import { EXIT } from './output.js';

/** A sweep that needs the tenant's audit key where this process has none is skipped, and says why; gc goes on. */
async function sweepOrSay(
  sweep: () => Promise<BranchSweepResult>,
): Promise<BranchSweepResult | { skipped: string }> {
  try {
    return await sweep();
  } catch (error) {
    const e = error as { code?: string; data?: { resource?: string } };
    // Only the missing audit key (signing-key.ts): a closed store or a full disk still stops gc.
    if (e.code !== 'UNAVAILABLE' || e.data?.resource !== 'audit key') throw error;
    return { skipped: (error as Error).message };
  }
}

function sweptLine(sweep: BranchSweepResult | { skipped: string }, verb: string): string {
  if ('skipped' in sweep) return `gc: abandoned branches not swept: ${sweep.skipped}`;
  const branches = sweep.swept.reduce((n, s) => n + s.branches.length, 0);
  const events = sweep.counts.log?.events ?? 0;
  const memory = sweep.counts.memory?.records ?? 0;
  return `gc: ${branches} abandoned branches ${verb} (${events} events, ${memory} memory records), ${sweep.kept.length} kept`;
}

function keptLines(sweep: BranchSweepResult | { skipped: string }): string[] {
  if ('skipped' in sweep) return [];
  return sweep.kept.map((k) => `kept branch ${k.branch} of ${k.session}: ${k.reason}`);
}

export const GC_COMMAND: DeskCommand = {
  target: 'desk',
  createsStore: false,
  names: ['gc'],
  example: 'cairn gc --keep-last 20 --dry-run',
  args: [],
  flags: [
    {
      name: 'keep-last',
      type: 'string',
      value: 'N',
      help: 'retention: keep the newest N snapshots per workspace',
    },
    {
      name: 'max-age-ms',
      type: 'string',
      value: 'MS',
      help: 'retention: keep snapshots younger than this (with --keep-last, a snapshot either keeps it)',
    },
    {
      name: 'grace-ms',
      type: 'string',
      value: 'MS',
      help: 'delete packs and artifacts abandoned mid-write only after this long (default 3600000)',
    },
    {
      name: 'repack',
      type: 'boolean',
      help: 'also rewrite packs that hold garbage beside live objects, so no garbage byte stays',
    },
    {
      name: 'dry-run',
      type: 'boolean',
      help: 'say which workspaces, branches and snapshots retention would remove; remove nothing',
    },
  ],
  summary:
    'retention and garbage collection: abandoned forks past their time, snapshots past the rule, unreferenced desk objects, expired artifacts (safe while writers run)',
  async run(place, call) {
    return withDesk(place, call, async (ctx) => {
      const { desk, fabric } = ctx;
      const { store, who } = localOnly(ctx, 'gc');
      const rule = {
        keepLast: wholeNumberFlag(call.values, 'keep-last'),
        maxAgeMs: wholeNumberFlag(call.values, 'max-age-ms'),
      };
      const graceMs = wholeNumberFlag(call.values, 'grace-ms');
      if (call.values['dry-run'] === true) {
        const { reclaimed, leftAlone } = await new Units(fabric, desk).reclaim(Date.now(), true);
        const branches = await sweepOrSay(() => fabric.sweepBranches({ dryRun: true }));
        const report = await desk.gc({ ...rule, dryRun: true });
        call.out.result(
          {
            dryRun: true,
            reclaimedWorkspaces: reclaimed,
            leftAlone,
            branches,
            expiredSnapshots: report.expiredSnapshots,
          },
          [
            `gc (dry run): ${reclaimed.length} abandoned workspaces would be discarded`,
            sweptLine(branches, 'would go'),
            ...keptLines(branches),
            `gc (dry run): ${report.expiredSnapshots} snapshots would expire; nothing was removed`,
          ],
        );
        return EXIT.ok;
      }
      // Abandoned forks past their TTL first: their workspaces go, then their branches, so their snapshots may then go.
      const { reclaimed, leftAlone } = await new Units(fabric, desk).reclaim();
      const branches = await sweepOrSay(() => fabric.sweepBranches({ dryRun: false }));
      const report = await desk.gc({ ...rule, graceMs, repack: call.values.repack === true });
      // Artifacts keep their own retention: only those past their TTL (or left half-published) go.
      const artifacts = await fabric.sweepArtifacts(graceMs === undefined ? {} : { graceMs });
      // Last, the blobs no row names (a crash between a removal's rows and its blobs leaves them).
      const blobs = await store.collectUnnamedBlobs(who.tenant, graceMs === undefined ? {} : { graceMs });
      call.out.result({ ...report, reclaimedWorkspaces: reclaimed, leftAlone, branches, artifacts, blobs }, [
        `gc: ${reclaimed.length} abandoned workspaces reclaimed, ${report.expiredSnapshots} snapshots expired, ${report.removedObjects} objects and ${report.removedPacks} packs removed (${report.freedBytes} bytes), ${report.repackedPacks} packs repacked, ${report.marked} objects live`,
        sweptLine(branches, 'swept'),
        ...keptLines(branches),
        `gc: ${artifacts.expired} artifacts expired, ${artifacts.abandoned} half-published removed (${artifacts.freedBytes} bytes)`,
        `gc: ${blobs.deleted} of ${blobs.listed} blobs deleted: nothing named them; ${blobs.temporary} temporary files of killed writes removed`,
        ...leftAlone.map((w) =>
          w.reason === 'other-host'
            ? `left alone ${w.workspace} at ${w.dir}: on host ${w.host}, for the desk there`
            : `left alone ${w.workspace} at ${w.dir}: not created by this desk (delete it yourself if you mean to)`,
        ),
      ]);
      return EXIT.ok;
    });
  },
};
