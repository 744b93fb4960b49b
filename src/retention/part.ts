/**
 * What each feature tells the branch sweep (docs/design/retention.md): given
 * the branches of one session that go and the events they appended, the
 * rows of that feature that exist only for them, deleted in the sweep's
 * transaction (or only counted, in a dry run). The sweep never touches a
 * feature's tables itself: it calls each feature's part.
 */
import type { ErasedRows } from '../erasure/part.js';
import type { LogSweep } from '../log/retention.js';
import type { Dialect, SqlExecutor } from '../storage/engine.js';

/** One session's branches that go, read once at the start of its transaction. */
export interface BranchSweepScope {
  tenant: string;
  session: string;
  /** The swept branches' names. */
  swept: readonly string[];
  /** The log's rows that go: the swept branches' ids, every event they appended, their lines. */
  log: LogSweep;
}

export interface RetentionPart {
  /** The feature folder; its counts are reported under this name. */
  readonly feature: string;
  /**
   * Its resources may be named by audit entries written before the swept
   * branches were made (a memory record remembered elsewhere, then anchored
   * on a swept branch): their payloads are looked for in the whole chain.
   */
  readonly olderThanBranches?: boolean;
  /**
   * In the sweep's transaction: deletes what exists only for the swept
   * branches in this feature (with `dryRun`, counts the same rows and
   * deletes nothing). `resources` are the ids whose audit payloads go with
   * them (each leaving a tombstone, as an erasure's).
   */
  sweep(tx: SqlExecutor, scope: BranchSweepScope, dryRun: boolean, dialect: Dialect): Promise<ErasedRows>;
}
