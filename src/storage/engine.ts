/**
 * The relational engine contract. An engine implements transactions and three
 * SQL primitives; everything else (the session log, identity, audit) is built
 * once on top of it and speaks the portable subset of SQL both engines accept:
 * `?` placeholders, `ON CONFLICT`, `RETURNING`, no NULL-sensitive comparisons.
 */
export type Dialect = 'sqlite' | 'postgres';

export type SqlParam = string | number | bigint | Buffer | null;

export interface SqlExecutor {
  all<R = Record<string, unknown>>(sql: string, params?: readonly SqlParam[]): Promise<R[]>;
  get<R = Record<string, unknown>>(sql: string, params?: readonly SqlParam[]): Promise<R | undefined>;
  /** Runs a statement; resolves to the number of rows it changed. */
  run(sql: string, params?: readonly SqlParam[]): Promise<number>;
  /** `FOR UPDATE` where the engine has row locks, '' where writes are already serialised. */
  readonly lockRows: string;
}

/** `n` portable placeholders, `?, ?, …`, for an IN list or a VALUES row. */
/**
 * A join that keeps its left side as the outer loop: SQLite's `CROSS JOIN`
 * (its planner never reorders one); PostgreSQL has no `CROSS JOIN … ON`,
 * and its planner keeps a small left side outer by cost.
 */
export function outerFirstJoin(dialect: Dialect): string {
  return dialect === 'sqlite' ? 'CROSS JOIN' : 'JOIN';
}

export function placeholders(n: number): string {
  return new Array(n).fill('?').join(', ');
}

export interface EngineCapabilities {
  /** Concurrent write transactions share one durable flush. */
  groupCommit: boolean;
  /** Tenant isolation is also enforced by the database (row-level security). */
  rowLevelSecurity: boolean;
  /** Memory's vector index is available (sqlite-vec on SQLite; PostgreSQL here has no pgvector). */
  vectors: boolean;
}

/** Tenant value for work that belongs to no tenant yet (migrations, format checks). */
export const NO_TENANT = '';

export interface ReadOptions {
  consistent?: boolean;
}

export interface Engine {
  readonly dialect: Dialect;
  readonly capabilities: EngineCapabilities;
  /**
   * Runs fn in one transaction scoped to a tenant. Resolves only once the
   * commit is durable; if fn throws, nothing it wrote remains.
   */
  write<T>(tenant: string, fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /**
   * Runs fn against committed data only, scoped to a tenant. With
   * `consistent`, every statement sees one snapshot (for whole-store walks).
   */
  read<T>(tenant: string, fn: (tx: SqlExecutor) => Promise<T>, options?: ReadOptions): Promise<T>;
  /**
   * After an erasure: makes the bytes of deleted rows unreadable in the
   * engine's own files, where the engine can (SQLite rewrites its database
   * and empties its write-ahead log); says what it did and what it could not.
   */
  reclaim(): Promise<ReclaimReport>;
  close(): Promise<void>;
}

export interface ReclaimReport {
  /** `rewritten`: the database file was rebuilt from its live rows; `left`: the engine keeps them until its own cleanup. */
  database: 'rewritten' | 'left';
  /** `emptied`: the write-ahead log was truncated to nothing; `busy`: a reader held it, so it keeps old pages until the next checkpoint; `left`: the engine's own. */
  log: 'emptied' | 'busy' | 'left';
}

/**
 * Thrown inside a write to ask the engine to run the whole transaction again
 * (a compare-and-swap lost a race). Engines retry a bounded number of times.
 */
export class RetryTransaction extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'RetryTransaction';
  }
}

export const MAX_TRANSACTION_ATTEMPTS = 20;

/** Parameters per statement when a list is bound in slices (well under every engine's limit). */
const PARAMETER_BATCH = 400;

/** Bytes of bound text per statement when a slice says what each item weighs (see inBatches). */
const STATEMENT_BYTES = 256 * 1024;

/**
 * Runs `fn` over `items` in slices small enough for one statement's
 * parameters, each item binding `perItem` of them (a row of a multi-row
 * INSERT binds one per column). With `weight` (an item's bytes), a slice
 * also stays within STATEMENT_BYTES (or holds one item): one statement is
 * work the event loop cannot interrupt, so a large text is never bound with
 * a thousand others.
 */
export async function inBatches<T>(
  items: readonly T[],
  fn: (slice: readonly T[]) => Promise<void>,
  perItem = 1,
  weight?: (item: T) => number,
): Promise<void> {
  const size = Math.max(1, Math.floor(PARAMETER_BATCH / perItem));
  let slice: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const w = weight ? weight(item) : 0;
    if (slice.length > 0 && (slice.length >= size || bytes + w > STATEMENT_BYTES)) {
      await fn(slice);
      slice = [];
      bytes = 0;
    }
    slice.push(item);
    bytes += w;
  }
  if (slice.length > 0) await fn(slice);
}
