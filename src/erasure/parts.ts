/**
 * Every feature's part of an erasure, in the order they run: those that
 * read the log's events (steps count them, memory follows derivations from
 * them) before the log's, which ends the erased sessions (nothing can be
 * written into them afterwards), then the features whose rows name those
 * sessions, identity (the principal itself) last. A new feature whose rows
 * a subject can own is one line here (docs/design/erasure.md).
 */
import { ARTIFACTS_ERASURE } from '../artifacts/erase.js';
import { DESK_ERASURE } from '../desk/erase.js';
import { IDENTITY_ERASURE } from '../identity/erase.js';
import { KEYS_ERASURE } from '../keys/erase.js';
import { LOG_ERASURE } from '../log/erase.js';
import { MEMORY_ERASURE } from '../memory/erase.js';
import { STEPS_ERASURE } from '../steps/erase.js';
import type { ErasurePart } from './part.js';

export const ERASURE_PARTS: readonly ErasurePart[] = [
  STEPS_ERASURE,
  MEMORY_ERASURE,
  LOG_ERASURE,
  KEYS_ERASURE,
  ARTIFACTS_ERASURE,
  DESK_ERASURE,
  IDENTITY_ERASURE,
];
