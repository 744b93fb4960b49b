/**
 * Memory's per-tenant SQLite tables (full-text and vector indexes): their
 * names carry the tenant id, so it is checked before it becomes part of an
 * identifier; and whether one exists yet (a tenant's first record makes it).
 */
import { internal } from '../errors.js';
import { idPattern } from '../ids.js';
import type { SqlExecutor } from '../storage/engine.js';

const TENANT = idPattern('tn');

/** `<prefix>_<tenant>`, the tenant's own table of that kind. */
export function tenantTable(prefix: string, tenant: string): string {
  if (!TENANT.test(tenant)) throw internal(`not a tenant id: ${tenant}`);
  return `${prefix}_${tenant}`;
}

export async function tableExists(tx: SqlExecutor, name: string): Promise<boolean> {
  return (
    (await tx.get("SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = ?", [name])) !==
    undefined
  );
}
