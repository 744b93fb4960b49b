/**
 * Memory's part of the branch sweep (src/retention/part.ts): a record
 * whose every anchor is an event of a swept branch (on one of its lines)
 * was seen only there, and goes whole (the one deletion path, memory.ts `removal`); a
 * record also anchored elsewhere stays, and loses only its anchors on the
 * swept events (no anchor may name an event the log no longer has).
 */
import type { RetentionPart } from '../retention/part.js';
import { inBatches, placeholders } from '../storage/engine.js';
import { deleteWhereIn } from '../storage/rows-in.js';
import { removal } from './memory.js';

export const MEMORY_RETENTION: RetentionPart = {
  feature: 'memory',
  // A record's first versions may have been written on another branch, before the swept ones were made.
  olderThanBranches: true,
  async sweep(tx, scope, dryRun, dialect) {
    const { tenant } = scope;
    // The swept events are whole lines: their anchors are found by line (memory_anchors_by_line).
    const swept = new Set(scope.log.lines);
    const touched = new Set<string>();
    await inBatches(scope.log.lines, async (slice) => {
      for (const r of await tx.all<{ id: string }>(
        `SELECT DISTINCT id FROM memory_anchors WHERE tenant = ? AND line IN (${placeholders(slice.length)})`,
        [tenant, ...slice],
      ))
        touched.add(r.id);
    });
    const seenElsewhere = new Set<string>();
    await inBatches([...touched], async (slice) => {
      for (const a of await tx.all<{ id: string; line: string }>(
        `SELECT id, line FROM memory_anchors WHERE tenant = ? AND id IN (${placeholders(slice.length)})`,
        [tenant, ...slice],
      ))
        if (!swept.has(a.line)) seenElsewhere.add(a.id);
    });
    const records = [...touched].filter((id) => !seenElsewhere.has(id)).sort();
    const answer = await removal(tx, dialect, tenant, records, dryRun);
    // What is left of the swept events' anchors: those of records that stay.
    const anchors = await deleteWhereIn(tx, 'memory_anchors', tenant, 'line', scope.log.lines, dryRun);
    return {
      counts: {
        records: records.length,
        versions: answer.versions,
        indexEntries: answer.indexEntries,
        vectorEntries: answer.vectorEntries,
        anchors: dryRun ? anchors : answer.anchors + anchors,
      },
      resources: records,
    };
  },
};
