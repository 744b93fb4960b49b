/**
 * Every feature's part of the branch sweep, in the order they run: those
 * that read the swept events (the steps count their journal's, memory finds
 * the records anchored there) before the log's, which deletes the branches
 * and their events last. A new feature whose rows live for a branch is one
 * line here (docs/design/retention.md).
 */
import { DESK_RETENTION } from '../desk/retention.js';
import { KEYS_RETENTION } from '../keys/retention.js';
import { LOG_RETENTION } from '../log/retention.js';
import { MEMORY_RETENTION } from '../memory/retention.js';
import { STEPS_RETENTION } from '../steps/retention.js';
import type { RetentionPart } from './part.js';

export const RETENTION_PARTS: readonly RetentionPart[] = [
  STEPS_RETENTION,
  MEMORY_RETENTION,
  KEYS_RETENTION,
  DESK_RETENTION,
  LOG_RETENTION,
];
