import { chmodSync, closeSync, existsSync, fchmodSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { type CairnError, corrupt, unavailable } from '../../errors.js';
import { nextTurn, sliceDue } from '../../slices.js';
import {
  type Engine,
  type EngineCapabilities,
  MAX_TRANSACTION_ATTEMPTS,
  type ReadOptions,
  type ReclaimReport,
  RetryTransaction,
  type SqlExecutor,
  type SqlParam,
} from '../engine.js';
import { type Migration, migrate } from '../migrations.js';
import { Checkpointer } from './checkpointer.js';
import { WalSync } from './wal-sync.js';

export interface SqliteEngineOptions {
  /** Folder holding `cairn.db`; created if missing. */
  dir: string;
  /** Most write transactions folded into one commit (one fsync). */
  maxBatch?: number;
  /** SQLite page size for a new database; default 1024. */
  pageSize?: number;
  /**
   * Run SQLite's quick_check on open (default true). Its cost grows with the
   * store; short-lived callers may skip it — corruption met later is still
   * reported as CORRUPT when a statement reads it.
   */
  integrityCheck?: boolean;
  /**
   * Where the WAL is copied back into the database: `inline` (SQLite's
   * automatic checkpoint, inside the commit that crosses its threshold; the
   * default, for short-lived callers) or `background` (a worker thread with
   * its own connection, for servers and daemons: see Checkpointer).
   */
  checkpoints?: 'inline' | 'background';
}

interface PendingWrite {
  fn: (tx: SqlExecutor) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  attempts: number;
}

class StatementCache {
  private readonly statements = new Map<string, Database.Statement>();
  constructor(private readonly db: Database.Database) {}

  get(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}

/**
 * A new store is its owner's alone, whatever the umask: the folder 0700 and
 * the database made empty at 0600 before SQLite opens it (SQLite gives its
 * -wal and -shm the database's mode).
 */
function createPrivately(dir: string, path: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (error) {
    // Another process made it first: it is that process's to set up.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw error;
  }
  try {
    fchmodSync(fd, 0o600);
  } finally {
    closeSync(fd);
  }
}

/** How much of the database file the reader maps (address space, not memory: pages load on use). */
const READER_MMAP_BYTES = 1024 * 1024 * 1024;

/**
 * Loads sqlite-vec (memory's vector index) into a connection. Without its
 * binary for this platform the store still opens; memory then answers a
 * vector recall with UNAVAILABLE.
 */
function withVectors(db: Database.Database): boolean {
  try {
    sqliteVec.load(db);
    return true;
  } catch {
    return false;
  }
}

/** Runs one statement; SQLite's own corruption reports become CORRUPT, never a bare driver error. */
function guarded<T>(dir: string, statement: () => T): T {
  try {
    return statement();
  } catch (error) {
    throw translate(error, dir);
  }
}

/**
 * How long a group commit keeps taking queued writes before it commits: its
 * commit writes what they wrote in one uninterruptible step, so a flood of
 * writes is committed in several transactions rather than one large one.
 */
const TRANSACTION_MS = 50;

/**
 * Statements of a connection. better-sqlite3 is synchronous, so each waits
 * for the event loop's next turn once statements have held it for a slice
 * (sliceDue): one large transaction (a memory batch) is served in turns,
 * and `/healthz` and other tenants are answered between them. Safe inside a
 * write transaction: only the flush loop, which is the one waiting, uses the
 * writer connection; reads use the reader, which sees committed data only.
 */
function executor(cache: StatementCache, dir: string): SqlExecutor {
  return {
    lockRows: '',
    async all<R>(sql: string, params: readonly SqlParam[] = []) {
      if (sliceDue()) await nextTurn();
      return guarded(dir, () => cache.get(sql).all(...params) as R[]);
    },
    async get<R>(sql: string, params: readonly SqlParam[] = []) {
      if (sliceDue()) await nextTurn();
      return guarded(dir, () => cache.get(sql).get(...params) as R | undefined);
    },
    async run(sql: string, params: readonly SqlParam[] = []) {
      if (sliceDue()) await nextTurn();
      return guarded(dir, () => cache.get(sql).run(...params).changes);
    },
  };
}

/**
 * The embedded engine: one SQLite database in WAL mode. A write is answered
 * only after the WAL holding its commit is fsynced (see WalSync). Writes from this process
 * are queued and folded into one transaction per flush (group commit): each
 * caller's work runs inside its own savepoint, so one caller's failure rolls
 * back only its own writes, and every caller is answered after the shared
 * commit is durable. Reads use a second connection that sees committed data only.
 */
export class SqliteEngine implements Engine {
  readonly dialect = 'sqlite' as const;
  readonly capabilities: EngineCapabilities;
  readonly path: string;
  private readonly dir: string;
  private readonly writer: Database.Database;
  private readonly reader: Database.Database;
  private readonly writerTx: SqlExecutor;
  /** The group commit's own statements, prepared once (exec parses them on every call). */
  private readonly control: Record<
    'begin' | 'savepoint' | 'release' | 'rollbackTo' | 'commit',
    Database.Statement
  >;
  private readonly readerTx: SqlExecutor;
  private readonly maxBatch: number;
  private readonly walSync: WalSync;
  private checkpointer: Checkpointer | undefined;
  private queue: PendingWrite[] = [];
  private flushing = false;
  /** A reclaim waits: no new batch starts until it has run. */
  private reclaiming = false;
  private closed = false;

  private constructor(options: SqliteEngineOptions) {
    this.dir = options.dir;
    this.path = join(options.dir, 'cairn.db');
    if (!existsSync(this.path)) createPrivately(options.dir, this.path);
    this.maxBatch = options.maxBatch ?? 512;
    this.writer = new Database(this.path);
    // Small pages: a commit writes whole pages to the WAL, and an append touches ~8 b-trees,
    // so 1 KiB pages write (and fsync) about a third of what 4 KiB pages do. Only takes
    // effect when the database is created.
    this.writer.pragma(`page_size = ${options.pageSize ?? 1024}`);
    this.writer.pragma('journal_mode = WAL');
    // Durability comes from WalSync's fdatasync before any caller is answered.
    this.writer.pragma('synchronous = NORMAL');
    this.writer.pragma('busy_timeout = 10000');
    this.writer.pragma('foreign_keys = ON');
    // Statement journals (a statement that fires a trigger gets one) in memory, not a temp file:
    // memory's recall filter is kept by triggers; bulk remember 8.9k → 11k records/s here.
    this.writer.pragma('temp_store = MEMORY');
    this.reader = new Database(this.path);
    this.reader.pragma('busy_timeout = 10000');
    // Reads map the database instead of a pread per page missing from the 2 MB default cache
    // (memory's recall probes an index entry per full-text match: measured 586 → 143 ms per query).
    this.reader.pragma(`mmap_size = ${READER_MMAP_BYTES}`);
    const vectors = withVectors(this.writer) && withVectors(this.reader);
    this.capabilities = { groupCommit: true, rowLevelSecurity: false, vectors };
    this.writerTx = executor(new StatementCache(this.writer), options.dir);
    this.control = {
      begin: this.writer.prepare('BEGIN IMMEDIATE'),
      savepoint: this.writer.prepare('SAVEPOINT job'),
      release: this.writer.prepare('RELEASE job'),
      rollbackTo: this.writer.prepare('ROLLBACK TO job'),
      commit: this.writer.prepare('COMMIT'),
    };
    this.walSync = new WalSync(`${this.path}-wal`);
    this.readerTx = executor(new StatementCache(this.reader), options.dir);
  }

  static async open(options: SqliteEngineOptions): Promise<SqliteEngine> {
    let engine: SqliteEngine;
    try {
      engine = new SqliteEngine(options);
    } catch (error) {
      throw translate(error, options.dir);
    }
    try {
      await migrate(
        {
          dialect: 'sqlite',
          formatVersion: async () => engine.formatVersion(),
          apply: async (migration) => engine.applyMigration(migration),
        },
        options.dir,
      );
      const check =
        options.integrityCheck === false ? 'ok' : engine.writer.pragma('quick_check', { simple: true });
      if (check !== 'ok') {
        throw corrupt(
          `store at ${options.dir} failed SQLite's integrity check (${check}): restore it from a backup`,
          {
            detail: String(check),
          },
        );
      }
      engine.walSync.open();
      if (options.checkpoints === 'background') engine.checkpointInBackground();
    } catch (error) {
      engine.writer.close();
      engine.reader.close();
      throw translate(error, options.dir);
    }
    return engine;
  }

  /** Where WAL checkpoints run now: `inline` again if the background thread failed. */
  get checkpoints(): 'inline' | 'background' {
    return this.checkpointer === undefined ? 'inline' : 'background';
  }

  private checkpointInBackground(): void {
    this.checkpointer = new Checkpointer(this.path, () => {
      this.checkpointer = undefined;
      if (!this.closed) this.writer.pragma('wal_autocheckpoint = 1000');
    });
    this.writer.pragma('wal_autocheckpoint = 0');
  }

  private formatVersion(): number {
    this.writer.exec('CREATE TABLE IF NOT EXISTS cairn_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
    const row = this.writer.prepare("SELECT value FROM cairn_meta WHERE key = 'format_version'").get() as
      | { value: string }
      | undefined;
    return row ? Number(row.value) : 0;
  }

  private applyMigration(migration: Migration): void {
    this.writer
      .transaction(() => {
        this.writer.exec(migration.sqlite);
        this.writer
          .prepare(
            "INSERT INTO cairn_meta (key, value) VALUES ('format_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
          )
          .run(String(migration.version));
      })
      .immediate();
  }

  write<T>(_tenant: string, fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(unavailable('the store is closed: open it again'));
    if (this.walSync.failed) return Promise.reject(this.walSync.failed);
    return new Promise<T>((resolve, reject) => {
      this.enqueue({ fn, resolve: resolve as (value: unknown) => void, reject, attempts: 0 });
    });
  }

  private enqueue(job: PendingWrite): void {
    this.queue.push(job);
    if (!this.flushing) {
      this.flushing = true;
      setImmediate(() => void this.flush());
    }
  }

  async read<T>(_tenant: string, fn: (tx: SqlExecutor) => Promise<T>, options?: ReadOptions): Promise<T> {
    if (this.closed) throw unavailable('the store is closed: open it again');
    // Show this process's readers only what is durable: wait out commits whose sync is in flight.
    if (this.walSync.pending) await new Promise<void>((done) => this.walSync.afterDurable(() => done(), 0));
    if (!options?.consistent) return fn(this.readerTx);
    // A snapshot needs a transaction of its own; a private connection keeps it from other reads.
    const db = new Database(this.path, { readonly: true });
    if (this.capabilities.vectors) withVectors(db);
    try {
      db.pragma('busy_timeout = 10000');
      db.exec('BEGIN');
      return await fn(executor(new StatementCache(db), this.dir));
    } finally {
      db.close();
    }
  }

  private async flush(): Promise<void> {
    while (this.queue.length > 0 && !this.reclaiming) {
      const batch = this.queue.splice(0, this.maxBatch);
      const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown; retry: boolean }> =
        [];
      try {
        this.control.begin.run();
      } catch (error) {
        for (const job of batch) job.reject(busy(error));
        continue;
      }
      // A transaction takes jobs while it is young: what it wrote is committed in one piece
      // on the event loop, so its size is bounded by time, not only by the number of callers.
      const started = performance.now();
      for (const [i, job] of batch.entries()) {
        if (i > 0 && performance.now() - started >= TRANSACTION_MS) {
          this.queue.unshift(...batch.splice(i));
          break;
        }
        this.control.savepoint.run();
        try {
          const value = await job.fn(this.writerTx);
          this.control.release.run();
          outcomes.push({ ok: true, value });
        } catch (error) {
          this.control.rollbackTo.run();
          this.control.release.run();
          outcomes.push({ ok: false, error, retry: error instanceof RetryTransaction });
        }
      }
      try {
        this.control.commit.run();
      } catch (error) {
        if (this.writer.inTransaction) this.writer.exec('ROLLBACK');
        for (const job of batch) job.reject(busy(error));
        continue;
      }
      this.checkpointer?.poke();
      this.walSync.afterDurable((syncError) => {
        batch.forEach((job, i) => {
          const outcome = outcomes[i]!;
          if (syncError) job.reject(syncError);
          else if (outcome.ok) job.resolve(outcome.value);
          else if (!outcome.retry) job.reject(outcome.error);
          else if (++job.attempts < MAX_TRANSACTION_ATTEMPTS) this.enqueue(job);
          else job.reject(busy(outcome.error));
        });
      }, batch.length);
    }
    this.flushing = false;
  }

  /**
   * Rebuilds the database from its live rows (VACUUM: no free page or freed
   * cell keeps a deleted row's bytes), then checkpoints the write-ahead log
   * into it and truncates the log to nothing. Writes wait meanwhile (the
   * queue is held); a reader in another process holding the log keeps it
   * from being truncated (`busy`: its old pages then last until the next
   * checkpoint that can).
   */
  async reclaim(): Promise<ReclaimReport> {
    if (this.closed) throw unavailable('the store is closed: open it again');
    // The flush in progress ends after its batch (it starts no other while this waits), so a steady stream
    // of writes cannot keep the rewrite waiting.
    this.reclaiming = true;
    while (this.flushing || this.walSync.pending) await new Promise((r) => setImmediate(r));
    this.flushing = true;
    try {
      // VACUUM builds its copy in a temporary database: in a file, not in this process's memory.
      this.writer.pragma('temp_store = FILE');
      this.writer.exec('VACUUM');
      const [result] = this.writer.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
      return { database: 'rewritten', log: result?.busy === 0 ? 'emptied' : 'busy' };
    } catch (error) {
      throw translate(error, this.dir);
    } finally {
      this.writer.pragma('temp_store = MEMORY');
      this.reclaiming = false;
      this.flushing = false;
      if (this.queue.length > 0) {
        this.flushing = true;
        setImmediate(() => void this.flush());
      }
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    while (this.flushing || this.queue.length > 0 || this.walSync.pending)
      await new Promise((r) => setImmediate(r));
    this.closed = true;
    // The writer closes last: the last connection to close checkpoints the WAL whole and removes it.
    await this.checkpointer?.close();
    this.walSync.close();
    this.reader.close();
    this.writer.close();
  }
}

/** SQLite's own failures, as Cairn's typed errors; anything else passes through. */
function translate(error: unknown, dir: string): unknown {
  const code = (error as { code?: string }).code ?? '';
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') {
    return corrupt(`store at ${dir} is not a readable Cairn database (${code}): restore it from a backup`, {
      sqlite: code,
    });
  }
  if (code.startsWith('SQLITE_FULL')) {
    return unavailable(`the disk holding the store at ${dir} is full (${code}): free space and retry`, {
      sqlite: code,
    });
  }
  if (
    code.startsWith('SQLITE_CANTOPEN') ||
    code.startsWith('SQLITE_READONLY') ||
    code.startsWith('SQLITE_IOERR')
  ) {
    return unavailable(
      `store at ${dir} cannot be opened for writing (${code}): check the path and its permissions`,
      {
        sqlite: code,
      },
    );
  }
  return error;
}

function busy(error: unknown): CairnError {
  return unavailable(
    `the store could not commit (${error instanceof Error ? error.message : String(error)}): nothing was written, retry`,
    {},
    { cause: error },
  );
}
