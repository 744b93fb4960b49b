/**
 * Reading and deleting a tenant's rows by an IN list of any length (a slice
 * a statement): what each feature's erasure part does on its own tables.
 */
import { inBatches, placeholders, type SqlExecutor, type SqlParam } from './engine.js';

/**
 * The distinct `pick` values of the tenant's rows of `table` whose `column`
 * is one of `values` (and, given `also`, whose columns equal those values).
 */
export async function valuesWhereIn(
  tx: SqlExecutor,
  table: string,
  tenant: string,
  column: string,
  values: readonly string[],
  pick = 'id',
  also: Readonly<Record<string, SqlParam>> = {},
): Promise<string[]> {
  const found = new Set<string>();
  const equal = Object.keys(also)
    .map((c) => ` AND ${c} = ?`)
    .join('');
  await inBatches(values, async (slice) => {
    for (const r of await tx.all<{ v: string }>(
      `SELECT DISTINCT ${pick} AS v FROM ${table} WHERE tenant = ?${equal} AND ${column} IN (${placeholders(slice.length)})`,
      [tenant, ...Object.values(also), ...slice],
    ))
      found.add(r.v);
  });
  return [...found];
}

/** Deletes the tenant's rows of `table` whose `column` is one of `values` (or, with `preview`, counts them). */
export async function deleteWhereIn(
  tx: SqlExecutor,
  table: string,
  tenant: string,
  column: string,
  values: readonly string[],
  preview = false,
): Promise<number> {
  let count = 0;
  await inBatches(values, async (slice) => {
    const where = `WHERE tenant = ? AND ${column} IN (${placeholders(slice.length)})`;
    const params = [tenant, ...slice];
    if (preview) {
      const row = await tx.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} ${where}`, params);
      count += Number(row?.n ?? 0);
    } else count += await tx.run(`DELETE FROM ${table} ${where}`, params);
  });
  return count;
}
