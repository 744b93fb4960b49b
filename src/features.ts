/**
 * The features whose tables make a store, in the order their shares of a
 * migration are applied (a table may reference only those made before it).
 * A new feature with tables is its folder's `tables.ts` and one line here;
 * docs/design/features.md gives the steps.
 */
import { ARTIFACTS_TABLES } from './artifacts/tables.js';
import { AUDIT_TABLES } from './audit/tables.js';
import { BLOB_TABLES } from './blob/tables.js';
import { DESK_TABLES } from './desk/tables.js';
import { ERASURE_TABLES } from './erasure/tables.js';
import { IDENTITY_TABLES } from './identity/tables.js';
import { KEYS_TABLES } from './keys/tables.js';
import { LOG_TABLES } from './log/tables.js';
import { MEMORY_TABLES } from './memory/tables.js';
import { REDACTION_TABLES } from './redaction/tables.js';
import type { FeatureTables } from './storage/table-sql.js';

export const FEATURE_TABLES: readonly FeatureTables[] = [
  IDENTITY_TABLES,
  LOG_TABLES,
  AUDIT_TABLES,
  BLOB_TABLES,
  DESK_TABLES,
  KEYS_TABLES,
  MEMORY_TABLES,
  ARTIFACTS_TABLES,
  ERASURE_TABLES,
  REDACTION_TABLES,
];
