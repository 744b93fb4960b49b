/**
 * Branch paths as data, for modules that join them (memory's visibility)
 * instead of building one SQL expression per segment: a path thousands of
 * forks or rewinds deep is a list of rows, never an expression tree.
 */
import { corrupt, notFound } from '../errors.js';
import { inBatches, placeholders, type SqlExecutor } from '../storage/engine.js';
import type { Identity } from '../types.js';
import type { Segment } from './session-log.js';

/**
 * The union of the paths root → head of `branches` (of one session of the
 * caller's tenant): at most one segment per line, since every path through a
 * line starts it at the same event (`lo`); its `hi` is the furthest any of
 * them reaches. An empty list of branches has an empty union.
 */
export async function pathsUnion(
  tx: SqlExecutor,
  who: Identity,
  session: string,
  branches: readonly string[],
): Promise<Segment[]> {
  if (!(await tx.get('SELECT 1 FROM sessions WHERE tenant = ? AND id = ?', [who.tenant, session])))
    throw notFound('session', session);
  const names = [...new Set(branches)];
  const heads = new Map<string, { line: string; seq: number }>();
  await inBatches(names, async (slice) => {
    const rows = await tx.all<{ name: string; head_line: string; head_seq: number }>(
      `SELECT name, head_line, head_seq FROM branches WHERE tenant = ? AND session = ? AND name IN (${placeholders(slice.length)})`,
      [who.tenant, session, ...slice],
    );
    for (const row of rows) heads.set(row.name, { line: row.head_line, seq: Number(row.head_seq) });
  });
  const missing = names.find((name) => !heads.has(name));
  if (missing !== undefined) throw notFound('branch', `${missing} of session ${session}`);
  const lines = await ancestry(
    tx,
    who.tenant,
    [...heads.values()].map((h) => h.line).filter((line) => line !== ''),
  );
  // Walk each head up its ancestry; a line already reached only raises its hi (its ancestors are done).
  const reach = new Map<string, number>();
  for (const head of heads.values()) {
    let line = head.line;
    let hi = head.seq;
    while (line !== '') {
      const base = lines.get(line);
      if (!base)
        throw corrupt(`line ${line} of session ${session} is missing: the store is damaged`, { line });
      const before = reach.get(line);
      reach.set(line, Math.max(before ?? hi, hi));
      if (before !== undefined) break;
      line = base.line;
      hi = base.seq;
    }
  }
  const segments: Segment[] = [];
  for (const [line, hi] of reach) {
    const lo = (lines.get(line)?.seq ?? 0) + 1;
    if (lo <= hi) segments.push({ line, lo, hi });
  }
  return segments;
}

/**
 * Every line from `heads` up to the root, with its base: one recursive query a
 * batch of heads. UNION, not UNION ALL: shared ancestry is read once, and a
 * damaged store's cycle of lines ends the walk instead of looping.
 */
async function ancestry(
  tx: SqlExecutor,
  tenant: string,
  heads: readonly string[],
): Promise<Map<string, { line: string; seq: number }>> {
  const lines = new Map<string, { line: string; seq: number }>();
  await inBatches([...new Set(heads)], async (slice) => {
    const rows = await tx.all<{ id: string; base_line: string; base_seq: number }>(
      `WITH RECURSIVE chain (id, base_line, base_seq) AS (
         SELECT id, base_line, base_seq FROM lines WHERE tenant = ? AND id IN (${placeholders(slice.length)})
         UNION
         SELECT l.id, l.base_line, l.base_seq FROM lines l JOIN chain c ON l.tenant = ? AND l.id = c.base_line
       )
       SELECT id, base_line, base_seq FROM chain`,
      [tenant, ...slice, tenant],
    );
    for (const row of rows) lines.set(row.id, { line: row.base_line, seq: Number(row.base_seq) });
  });
  return lines;
}
