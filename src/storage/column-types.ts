import type { Dialect } from './engine.js';

/** Column types that differ between the engines; everything else is shared text. */
export const TYPES: Record<Dialect, { bytes: string; bigint: string; clustered: string }> = {
  // SQLite: tables keyed by (tenant, …) are stored in their primary-key order, one b-tree each.
  sqlite: { bytes: 'BLOB', bigint: 'INTEGER', clustered: ' WITHOUT ROWID' },
  postgres: { bytes: 'BYTEA', bigint: 'BIGINT', clustered: '' },
};
