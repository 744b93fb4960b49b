/**
 * An erasure's receipt (docs/design/erasure.md): a signed note, by the
 * tenant's audit key, over what was erased and the checkpoint whose tree
 * holds the erasure's tombstones. Its body, one field a line:
 *
 *     cairn-erasure-receipt/<tenant>
 *     erasure <id>
 *     subject <kind>:<id>
 *     by <principal>
 *     started <ms>
 *     finished <ms>
 *     count <feature>.<kind> <n>        (one line each, sorted)
 *     checkpoint <size> <root, base64>
 */
import type { Checkpoint } from '../audit/tree.js';

/** Per feature, per kind of row, how many. */
export type Counts = Record<string, Record<string, number>>;

export function receiptBody(
  tenant: string,
  erasure: { erasure: string; subject: string; counts: Counts; startedAt: number; finishedAt?: number },
  checkpoint: Checkpoint,
  by: string,
): string {
  const counts = Object.entries(erasure.counts)
    .flatMap(([feature, kinds]) => Object.entries(kinds).map(([kind, n]) => `count ${feature}.${kind} ${n}`))
    .sort();
  return [
    `cairn-erasure-receipt/${tenant}`,
    `erasure ${erasure.erasure}`,
    `subject ${erasure.subject}`,
    `by ${by}`,
    `started ${erasure.startedAt}`,
    `finished ${erasure.finishedAt}`,
    ...counts,
    `checkpoint ${checkpoint.size} ${Buffer.from(checkpoint.root, 'hex').toString('base64')}`,
    '',
  ].join('\n');
}
