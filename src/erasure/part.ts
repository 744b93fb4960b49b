/**
 * What each feature tells the erasure cascade (docs/design/erasure.md): given
 * a scope (the subject resolved to the principals, sessions and branches it
 * owns), the rows of that feature the scope owns, deleted in the caller's
 * transaction (or only counted, for a preview). The cascade never touches a
 * feature's tables itself: it calls each feature's part.
 */
import type { Dialect, SqlExecutor } from '../storage/engine.js';

/** Who or what is erased: a person, an agent, or one session. */
export type SubjectKind = 'user' | 'agent' | 'session';

export interface Subject {
  kind: SubjectKind;
  id: string;
}

/**
 * A subject resolved, once, when its erasure starts (and kept with it, so a
 * resumed erasure reaches what the first run found even after the rows that
 * pointed there are gone).
 */
export interface ErasureScope {
  tenant: string;
  subject: Subject;
  /** The subject's principal (a user or agent subject); empty for a session. */
  principals: readonly string[];
  /** The sessions erased whole: the subject session, or every session the principal owns. */
  sessions: readonly string[];
  /** Every branch of those sessions. */
  branches: readonly string[];
  /**
   * The workspaces of those sessions when the erasure started: the desk's
   * state on the store's host (stat caches, overlay layers) is found by
   * them after their rows are gone.
   */
  workspaces: readonly string[];
}

/** What one feature erased (or, in a preview, would erase). */
export interface ErasedRows {
  /** Rows per kind, e.g. `{ workspaces: 1, snapshots: 4 }`. */
  counts: Record<string, number>;
  /**
   * The ids the audit entries of these rows name as their resource
   * (`resource_id`): those entries' payloads are erased with the rows.
   */
  resources: string[];
}

export interface ErasurePart {
  /** The feature folder; its counts are reported under this name. */
  readonly feature: string;
  /**
   * In the caller's transaction: deletes what the scope owns in this feature
   * (with `preview`, deletes nothing and counts the same rows). Idempotent:
   * run again after a crash, it finds what is left. `dialect`: the engine's,
   * for a part whose SQL differs by engine.
   */
  erase(tx: SqlExecutor, scope: ErasureScope, preview: boolean, dialect: Dialect): Promise<ErasedRows>;
}
