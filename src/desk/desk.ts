import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import type { BlobStore } from '../blob/blob-store.js';
import { CairnError, invalidArgument as invalid, notFound } from '../errors.js';
import { type Action, authorize } from '../identity/access-gate.js';
import { newId } from '../ids.js';
import { eventsAfter } from '../log/pages.js';
import * as log from '../log/session-log.js';
import { BranchName } from '../schema.js';
import { type Engine, placeholders, type SqlExecutor } from '../storage/engine.js';
import type { CairnEvent, Identity } from '../types.js';
import { parseInput } from '../validate.js';
import { type DiffItem, diffEntryMaps, withPatches } from './diff.js';
import {
  blocksCheckpoint,
  createPathFilter,
  credentialPathRule,
  Guard,
  type GuardOptions,
  guardFailure,
  type SecretFinding,
  type SecretPolicy,
} from './guard.js';
import { LaterFiles } from './later-files.js';
import { applyContext, applyTree, materialize, type PathChange } from './materialize.js';
import {
  hasConflictMarkers,
  isMergedFile,
  type MergeConflict,
  type MergedEntry,
  mergeTrees,
} from './merge.js';
import {
  cloneDir,
  type DirNode,
  dirNode,
  findDir,
  flatten,
  loadDir,
  redactedPaths,
  refreshEntry,
  rescan,
  type ScanContext,
  seal,
  settleFiles,
  statKeyOf,
} from './model.js';
import { inBatches, ObjectStore, type PackWriter } from './objects.js';
import { isMounted, Mounter, mountOverlay, overlaySupported, unmountOverlay } from './overlay.js';
import {
  alreadyAttached,
  type Driver,
  insertSnapshot,
  insertWorkspace,
  lockDesk,
  type Snapshot,
  type SnapshotKind,
  type SnapshotRow,
  snapshotRow,
  toSnapshot,
  toWorkspace,
  WORKSPACE_COLUMNS,
  type Workspace,
  type WorkspaceRow,
  workspaceRow,
} from './rows.js';
import { loadStatCache, saveStatCache } from './stat-cache.js';
import { type Entry, type FileEntry, sameEntry } from './types.js';
import { COOKIE_PREFIX, DirWatcher, TEMP_NAME } from './watcher.js';

export interface DeskOptions {
  engine: Engine;
  blobs: BlobStore;
  who: Identity;
  /** A local folder for this machine's desk state: stat caches, overlay layers. */
  stateDir: string;
  /** Names this machine: a directory is attached at most once per host. */
  host: string;
  /** What a checkpoint does with a file that holds a credential: leave it out (default) or fail. */
  secretPolicy?: SecretPolicy;
  /** The secret guard's configuration, the store admin's: an allow-list of rule and path globs. */
  guard?: GuardOptions;
  /** Track changes with inotify so a checkpoint rescans only changed directories (long-lived processes). */
  watch?: boolean;
  /** Progress of long operations: files hashed ('scan'), files written ('write'), objects marked and packs swept ('mark', 'sweep'). */
  onProgress?: (phase: 'scan' | 'write' | 'mark' | 'sweep', done: number) => void;
  now?: () => number;
}

export interface CheckpointResult {
  snapshot: Snapshot;
  /** false when nothing changed since the head snapshot (no new snapshot, no event). */
  created: boolean;
  /** Credentials kept out of the snapshot: rule, path, line, confidence and action, never the value. */
  findings: SecretFinding[];
  /** Entries of this scan withheld whole (paths as in findings: a secret-bearing name redacted). */
  withheld: string[];
  /** Files of the snapshot whose stored copy has secret spans redacted (the files on disk are untouched). */
  redacted: string[];
  /** Entries a snapshot cannot hold (sockets, FIFOs, devices), left out. */
  unsupported: string[];
  /** The event `alsoAppend` asked for, committed with the snapshot. */
  appended?: CairnEvent;
}

/**
 * An event to append in the same transaction as a new snapshot, right after
 * the snapshot's own event (so one commit records both).
 */
export type AlsoAppend = (snapshot: Snapshot) => { kind: string; payload: unknown };

export interface RestorePreview {
  snapshot: Snapshot;
  changes: PathChange[];
  /** Log events on the workspace's branch after the snapshot's event: a restore does not undo them. */
  eventsAfter: CairnEvent[];
  /** Credential paths in the snapshot that a restore never writes. */
  withheld: string[];
  /** Files of the snapshot stored with secret spans redacted: a restore writes the redacted copy. */
  redacted: string[];
}

export interface RestoreResult extends RestorePreview {
  /** The checkpoint taken first, so the restore can itself be undone. */
  before: Snapshot;
  /** The snapshot recording the restored state. */
  after: Snapshot;
  /** Entries left alone because untracked files (ignored or credentials) were in the way. */
  blocked: string[];
}

export interface MergeResult {
  snapshot: Snapshot;
  base: string;
  ours: string;
  theirs: string;
  /** Paths the merge wrote into the target workspace. */
  changed: string[];
  conflicts: MergeConflict[];
}

export interface VerifyReport {
  ok: boolean;
  snapshots: number;
  objects: number;
  bytes: number;
  /** The first problem found: a corrupt or missing object, and a snapshot that needs it. */
  problem?: { code: string; message: string; snapshot: string; digest?: string };
}

export interface GcReport {
  /** Snapshot rows removed by the retention rule (`keepLast`). */
  expiredSnapshots: number;
  /** Objects reachable from the remaining snapshots. */
  marked: number;
  removedObjects: number;
  removedPacks: number;
  /** Overlay lower layers (this host's desk state) no attached fork uses. */
  removedLayers: number;
  freedBytes: number;
}

/** What changed since the last checkpoint: listings, single entries, whole subtrees. */
interface Dirty {
  dirs: Set<string>;
  files: Set<string>;
  deep: Set<string>;
}

/** How a snapshot is taken and recorded (internal to the desk). */
interface SnapshotOptions {
  /** Record a snapshot even when nothing changed. */
  force?: boolean;
  /** Extra fields of the snapshot's log event. */
  payload?: Record<string, unknown>;
  /** Objects the snapshot names without having written or looked them up (checked at commit). */
  alsoNamed?: string[];
  /** The model is known to match the disk (a restore just wrote it): record it without scanning. */
  noScan?: boolean;
  alsoAppend?: AlsoAppend;
  /** The branch head must still be this event when the snapshot commits, else CONFLICT and nothing is recorded. */
  ifHead?: string;
  /** After its events, the snapshot's transaction moves the branch head to this event (a unit restore). */
  moveHeadTo?: string;
  /** Runs first inside the snapshot's transaction (attach inserts the workspace row). */
  beforeCommit?: (tx: SqlExecutor, snapshotId: string) => Promise<void>;
}

interface Handle {
  row: WorkspaceRow;
  root: DirNode;
  head: SnapshotRow;
  watcher?: DirWatcher;
  upper?: string;
  fullScan: boolean;
  busy: Promise<unknown>;
  ignoreText: string | null;
}

const RETRIES = 3;

class Retry extends Error {}

function isEmptyDir(path: string): boolean {
  return readdirSync(path).length === 0;
}

/**
 * The desk: directories bound to session branches, snapshotted into the
 * tenant's content-addressed store. One Desk acts as one identity on one
 * machine; operations on one workspace run one at a time.
 */
export class Desk {
  private readonly objects: ObjectStore;
  private readonly handles = new Map<string, Handle>();
  private readonly now: () => number;
  private readonly policy: SecretPolicy;
  private readonly guard: Guard;
  private readonly mounter = new Mounter();

  constructor(private readonly options: DeskOptions) {
    this.objects = new ObjectStore(options.engine, options.blobs, options.who.tenant);
    this.now = options.now ?? Date.now;
    this.policy = options.secretPolicy ?? 'exclude';
    this.guard = new Guard(options.guard);
  }

  private get tenant(): string {
    return this.options.who.tenant;
  }

  private read<T>(action: Action, fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    authorize(this.options.who, action);
    return this.options.engine.read(this.tenant, fn);
  }

  private write<T>(action: Action, fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    authorize(this.options.who, action);
    return this.options.engine.write(this.tenant, fn);
  }

  /** Resolves a directory argument: absolute, existing, a real directory (not a link to one), outside the store's state. */
  private resolveDir(dir: string, mustExist = true, refuseOverlap = true): string {
    if (typeof dir !== 'string' || !isAbsolute(dir)) {
      throw invalid(`workspace directory "${String(dir)}" is not an absolute path: pass an absolute path`, {
        dir,
      });
    }
    if (!mustExist) return dir;
    const st = lstatSync(dir, { throwIfNoEntry: false });
    if (!st) throw notFound('directory', dir);
    if (!st.isDirectory())
      throw invalid(`${dir} is not a directory (a symlink or a file): pass the directory itself`, { dir });
    const real = realpathSync(dir);
    const state = realpathSync(this.ensureStateDir());
    if (refuseOverlap && (real === state || real.startsWith(state + sep) || state.startsWith(real + sep))) {
      throw invalid(`${dir} overlaps the desk's own state folder ${state}: attach a directory outside it`, {
        dir,
      });
    }
    return real;
  }

  private ensureStateDir(): string {
    mkdirSync(this.options.stateDir, { recursive: true });
    return this.options.stateDir;
  }

  // ---- workspaces -------------------------------------------------------

  /** Binds a directory to a session branch and takes its first snapshot. */
  async attach(input: {
    dir: string;
    session?: string;
    branch?: string;
  }): Promise<{ workspace: Workspace; checkpoint: CheckpointResult }> {
    authorize(this.options.who, 'desk.write');
    const path = this.resolveDir(input.dir);
    const branch = input.branch ?? 'main';
    const clash = await this.read('desk.read', (tx) =>
      tx.get<{ id: string }>(
        `SELECT id FROM desk_workspaces WHERE tenant = ? AND host = ? AND path = ? AND state = 'attached'`,
        [this.tenant, this.options.host, path],
      ),
    );
    if (clash) throw alreadyAttached(path, clash.id);
    let session = input.session;
    if (session !== undefined) {
      const s = session;
      await this.read('session.read', (tx) => log.getSession(tx, this.options.who, s));
    }
    const id = newId('workspace', this.now());
    const row: WorkspaceRow = {
      tenant: this.tenant,
      id,
      host: this.options.host,
      path,
      session: session ?? '',
      branch,
      driver: 'plain',
      state: 'attached',
      base_snapshot: '',
      head_snapshot: '',
      forked_from: '',
      created_at: this.now(),
    };
    const handle = this.newHandle(row, dirNode(null), null);
    const result = await this.snapshot(handle, 'checkpoint', {
      force: true,
      beforeCommit: async (tx, snapshotId) => {
        if (session === undefined) {
          const created = await log.createSession(
            tx,
            this.options.who,
            { title: path, meta: { workspace: id } },
            this.now(),
          );
          session = created.id;
          row.session = created.id;
        }
        row.base_snapshot = snapshotId;
        row.head_snapshot = snapshotId;
        await insertWorkspace(tx, row);
      },
    });
    this.handles.set(id, handle);
    return { workspace: toWorkspace(row), checkpoint: result };
  }

  async getWorkspace(id: string): Promise<Workspace> {
    return toWorkspace(await this.read('desk.read', (tx) => workspaceRow(tx, this.tenant, id)));
  }

  async listWorkspaces(): Promise<Workspace[]> {
    const rows = await this.read('desk.read', (tx) =>
      tx.all<WorkspaceRow>(`SELECT ${WORKSPACE_COLUMNS} FROM desk_workspaces WHERE tenant = ? ORDER BY id`, [
        this.tenant,
      ]),
    );
    return rows.map((r) => toWorkspace({ ...r, created_at: Number(r.created_at) }));
  }

  /** The workspace attached at a directory on this host (or, when the directory lies inside one, a hint naming it). */
  async findWorkspace(dir: string): Promise<Workspace> {
    // A lookup, not an attach: a directory holding the store is simply not a workspace.
    const path = this.resolveDir(dir, true, false);
    // The directory itself, or failing that the nearest attached directory above it (one query, bounded
    // by the path's depth): attached paths are unique per host.
    const ancestors = [path];
    for (let up = dirname(path); up !== ancestors[ancestors.length - 1]; up = dirname(up)) ancestors.push(up);
    const rows = await this.read('desk.read', (tx) =>
      tx.all<WorkspaceRow>(
        `SELECT ${WORKSPACE_COLUMNS} FROM desk_workspaces WHERE tenant = ? AND host = ? AND state = 'attached'
         AND path IN (${placeholders(ancestors.length)})`,
        [this.tenant, this.options.host, ...ancestors],
      ),
    );
    const exact = rows.find((r) => r.path === path);
    if (exact) return toWorkspace(exact);
    const around = rows.sort((a, b) => b.path.length - a.path.length)[0];
    throw new CairnError(
      'NOT_FOUND',
      around
        ? `${path} is not a workspace but lies inside workspace ${around.id} at ${around.path}: run the command there, or pass --ws ${around.id}`
        : `no workspace is attached at ${path}: run \`cairn ws attach ${path}\` first (or pass --ws WS)`,
      { resource: 'workspace', path, ...(around ? { inside: around.id } : {}) },
    );
  }

  async listSnapshots(workspace: string): Promise<Snapshot[]> {
    const rows = await this.read('desk.read', async (tx) => {
      await workspaceRow(tx, this.tenant, workspace);
      return tx.all<SnapshotRow>(
        `SELECT * FROM desk_snapshots WHERE tenant = ? AND workspace = ? ORDER BY created_at, id`,
        [this.tenant, workspace],
      );
    });
    return rows.map(toSnapshot);
  }

  async getSnapshot(id: string): Promise<Snapshot> {
    return toSnapshot(await this.read('desk.read', (tx) => snapshotRow(tx, this.tenant, id)));
  }

  private newHandle(row: WorkspaceRow, root: DirNode, head: SnapshotRow | null): Handle {
    const handle: Handle = {
      row,
      root,
      head: head ?? ({ root: '', id: '' } as SnapshotRow),
      fullScan: true,
      busy: Promise.resolve(),
      ignoreText: null,
    };
    // An overlay's upper layer is its change set already: it needs no watcher.
    if (row.driver === 'overlay') handle.upper = this.overlayLayout(row.id).upper;
    else if (this.options.watch) {
      handle.ignoreText = readIgnore(row.path);
      handle.watcher = this.watcherFor(handle);
    }
    return handle;
  }

  private watcherFor(h: Handle): DirWatcher {
    return new DirWatcher(h.row.path, (p, d) => this.skipPath(h, p, d, null));
  }

  private async open(id: string): Promise<Handle> {
    const cached = this.handles.get(id);
    if (cached) return cached;
    const { row, head } = await this.read('desk.read', async (tx) => {
      const row = await workspaceRow(tx, this.tenant, id);
      return { row, head: await snapshotRow(tx, this.tenant, row.head_snapshot) };
    });
    if (row.state !== 'attached') {
      throw new CairnError('CONFLICT', `workspace ${id} is detached: attach its directory again to use it`, {
        workspace: id,
      });
    }
    if (row.host !== this.options.host) {
      throw new CairnError(
        'CONFLICT',
        `workspace ${id} lives on host ${row.host}, not ${this.options.host}: run this there`,
        {
          workspace: id,
          host: row.host,
        },
      );
    }
    if (row.driver === 'overlay' && !isMounted(row.path))
      await this.mountFork(row, await this.snapshotById(row.base_snapshot));
    const cache = loadStatCache(this.statCachePath(id), head.id);
    const root = cache ?? dirNode(head.root, Number(head.files), Number(head.bytes));
    const handle = this.newHandle(row, root, head);
    handle.fullScan = row.driver !== 'overlay';
    this.handles.set(id, handle);
    return handle;
  }

  /** Runs fn with the workspace to itself; on failure its in-memory state is dropped and rebuilt on next use. */
  private async withHandle<T>(id: string, fn: (h: Handle) => Promise<T>): Promise<T> {
    const h = await this.open(id);
    const run = h.busy.then(
      () => fn(h),
      () => fn(h),
    );
    h.busy = run.catch(() => undefined);
    try {
      return await run;
    } catch (error) {
      this.drop(id);
      throw error;
    }
  }

  private drop(id: string): void {
    const h = this.handles.get(id);
    h?.watcher?.close();
    this.handles.delete(id);
  }

  private statCachePath(id: string): string {
    return join(this.ensureStateDir(), 'stat', `${id}.json`);
  }

  // ---- scanning -------------------------------------------------------------

  /** A per-operation counter reporting every 100th step to onProgress. */
  private counter(phase: 'scan' | 'write'): (() => void) | undefined {
    const report = this.options.onProgress;
    if (!report) return undefined;
    let done = 0;
    return () => {
      if (++done % 100 === 0) report(phase, done);
    };
  }

  private skipPath(h: Handle, path: string, isDir: boolean, findings: SecretFinding[] | null): boolean {
    const slash = path.lastIndexOf('/');
    const name = slash < 0 ? path : path.slice(slash + 1);
    if (slash < 0 && name.startsWith(COOKIE_PREFIX)) return true;
    if (TEMP_NAME.test(name)) return true;
    if (path === '.cairnignore') return false;
    if (createPathFilterCached(h).ignored(path, isDir)) return true;
    if (!isDir) {
      const finding = this.guard.pathFinding(path);
      if (finding) {
        findings?.push(finding);
        return true;
      }
    }
    return false;
  }

  /**
   * A full scan hands small files' content scans to the worker thread (where
   * there is one) and reads on meanwhile; the worker is started now, so its
   * start overlaps the first files. A scan of a few changed files stays on
   * this thread: a worker's start would cost more than their scans.
   */
  private scanOffThread(ctx: ScanContext): void {
    if (!this.guard.scansOffThread) return;
    ctx.later = new LaterFiles(ctx.onFile);
    this.guard.warmUp();
  }

  private scanContext(h: Handle, writer: PackWriter, findings: SecretFinding[]): ScanContext {
    const text = readIgnore(h.row.path);
    if (text !== h.ignoreText) {
      h.ignoreText = text;
      filters.delete(h);
      h.fullScan = true;
      // What is watched depends on the ignore rules: watch again under the new ones.
      if (h.watcher) {
        h.watcher.close();
        h.watcher = this.watcherFor(h);
      }
    }
    return {
      root: h.row.path,
      objects: this.objects,
      writer,
      skip: (path, isDir) => this.skipPath(h, path, isDir, findings),
      admit: async (path, bytes, abs, offThread) => {
        // skipPath already withheld any credential path: the guard judges the content only.
        const verdict = await this.guard.admit(path, bytes, abs, true, offThread);
        findings.push(...verdict.findings);
        if (verdict.store === 'withhold') return null;
        return verdict.store === 'redacted'
          ? { bytes: verdict.bytes, redacted: true }
          : { bytes, redacted: false };
      },
      admitName: async (path, target) => {
        const finding = await this.guard.nameFinding(path, target);
        if (finding) findings.push(finding);
        return finding === null;
      },
      stream: (path, abs, size) => {
        const scan = this.guard.stream(path, abs, size);
        let reported = false;
        return {
          get findings() {
            return scan.findings;
          },
          feed: async (window, offset) => {
            const scanned = await scan.feed(window, offset);
            if (!scanned.clean && !reported) {
              findings.push(...scan.findings);
              reported = true;
            }
            return scanned;
          },
          close: () => scan.close(),
        };
      },
      admitPack: async (path, abs) => {
        const found = await this.guard.packFindings(path, abs);
        findings.push(...found);
        return found.every((f) => f.action === 'kept');
      },
      later: null,
      upper: h.upper,
      startedMs: this.now(),
      unsupported: [],
      onFile: this.counter('scan'),
    };
  }

  /**
   * What to rescan: the directories (and single entries) the watcher saw
   * change, the directories of an overlay's upper layer, or everything.
   */
  private async dirtyDirs(h: Handle): Promise<Dirty | 'all'> {
    const full = h.fullScan;
    h.fullScan = false;
    if (h.watcher) {
      const seen = await h.watcher.drain();
      if (!full) return seen;
    }
    if (full && h.row.driver !== 'overlay') return 'all';
    if (h.upper) return { dirs: upperDirs(h.upper), files: new Set(), deep: new Set() };
    return 'all';
  }

  /**
   * Brings the model in line with the disk and records a snapshot when it
   * changed (or when forced). Retries from a clean model if a concurrent GC
   * removed an object it meant to reuse, or another process moved the head.
   */
  private async snapshot(
    h: Handle,
    kind: SnapshotKind,
    extra: SnapshotOptions = {},
  ): Promise<CheckpointResult> {
    for (let attempt = 0; ; attempt++) {
      try {
        // A retry starts from the head's tree, so it must look at the disk again.
        const pass = attempt === 0 ? extra : { ...extra, noScan: false };
        return await this.snapshotOnce(h, kind, pass);
      } catch (error) {
        if (!(error instanceof Retry)) throw error;
        if (attempt >= RETRIES) {
          throw new CairnError(
            'CONFLICT',
            `workspace ${h.row.id} kept changing under this checkpoint (${error.message}): try again`,
            { workspace: h.row.id },
          );
        }
        this.objects.forget();
        if (h.head.id === '') {
          // A first snapshot (attach): its model may name objects a GC took; build it again from the disk.
          h.root = dirNode(null);
          h.fullScan = true;
        } else {
          // Start again from the head as the store has it now (another process may have moved it).
          const { row, head } = await this.read('desk.read', async (tx) => {
            const row = await workspaceRow(tx, this.tenant, h.row.id);
            return { row, head: await snapshotRow(tx, this.tenant, row.head_snapshot) };
          });
          h.row = row;
          h.head = head;
          h.root = dirNode(head.root, Number(head.files), Number(head.bytes));
          h.fullScan = true;
        }
      }
    }
  }

  /**
   * One try at a snapshot. When it fails before its commit (a full disk, a
   * retry, a refusal inside the transaction), the packs it stored are
   * deleted at once, so a retry that fits the disk succeeds; once the
   * transaction's work is done they are left to GC (the commit may have
   * landed).
   */
  private async snapshotOnce(
    h: Handle,
    kind: SnapshotKind,
    extra: SnapshotOptions,
  ): Promise<CheckpointResult> {
    const writer = this.objects.writer(this.now);
    const stage = { committing: false };
    try {
      return await this.snapshotWith(h, kind, extra, writer, stage);
    } catch (error) {
      if (!stage.committing || error instanceof Retry) await writer.discard();
      throw error;
    }
  }

  private async snapshotWith(
    h: Handle,
    kind: SnapshotKind,
    extra: SnapshotOptions,
    writer: PackWriter,
    stage: { committing: boolean },
  ): Promise<CheckpointResult> {
    const findings: SecretFinding[] = [];
    const ctx = this.scanContext(h, writer, findings);
    const dirty: Dirty | 'all' = extra.noScan
      ? { dirs: new Set(), files: new Set(), deep: new Set() }
      : await this.dirtyDirs(h);
    if (dirty === 'all') {
      this.scanOffThread(ctx);
      await rescan(ctx, h.root, '', true);
    } else {
      const listings = new Set(dirty.dirs);
      for (const file of dirty.files) {
        const slash = file.lastIndexOf('/');
        const dir = slash < 0 ? '' : file.slice(0, slash);
        if (listings.has(dir)) continue;
        const chain = await findDir(this.objects, h.root, dir);
        if (!chain) continue;
        const outcome = await refreshEntry(
          ctx,
          chain[chain.length - 1] as DirNode,
          dir,
          file.slice(slash + 1),
        );
        if (outcome === 'listing') listings.add(dir);
        else if (outcome) for (const node of chain) node.tree = null;
      }
      for (const dir of [...listings].sort()) {
        const chain = await findDir(this.objects, h.root, dir);
        if (!chain) continue;
        if (await rescan(ctx, chain[chain.length - 1] as DirNode, dir, false)) {
          for (const node of chain) node.tree = null;
        }
      }
      // Directories moved into place keep their node under the same name: look inside them too.
      for (const dir of [...dirty.deep].sort()) {
        const chain = await findDir(this.objects, h.root, dir);
        if (!chain) continue;
        if (await rescan(ctx, chain[chain.length - 1] as DirNode, dir, true)) {
          for (const node of chain) node.tree = null;
        }
      }
    }
    await settleFiles(ctx);
    if (this.refusesUnderPolicy(findings)) {
      h.fullScan = true;
      this.refuseUnderPolicy(findings);
    }
    const root = await seal(ctx, h.root);
    const withheld = findings.filter((f) => f.action === 'withheld').map((f) => f.path);
    if (!extra.force && root === h.head.root) {
      const redacted = await redactedPaths(this.objects, h.root);
      return {
        snapshot: toSnapshot(h.head),
        created: false,
        findings,
        withheld,
        redacted,
        unsupported: ctx.unsupported,
      };
    }
    await writer.flush();
    const now = this.now();
    const id = newId('snapshot', now);
    const row: SnapshotRow = {
      tenant: this.tenant,
      id,
      workspace: h.row.id,
      kind,
      root,
      parent: h.head.id,
      event: '',
      files: h.root.files,
      bytes: h.root.bytes,
      added_bytes: writer.addedBytes,
      created_at: now,
    };
    let appended: CairnEvent | undefined;
    await this.write('desk.write', async (tx) => {
      await lockDesk(tx, this.tenant);
      if (extra.beforeCommit) await extra.beforeCommit(tx, id);
      const current = await workspaceRow(tx, this.tenant, h.row.id, tx.lockRows);
      if (current.head_snapshot !== (h.head.id === '' ? id : h.head.id)) throw new Retry('head moved');
      if ((await writer.commit(tx, extra.alsoNamed)).length > 0) throw new Retry('objects collected');
      if (extra.ifHead !== undefined) {
        const head = await log.branchHead(tx, this.options.who, h.row.session, h.row.branch);
        if (head !== extra.ifHead)
          throw new CairnError(
            'CONFLICT',
            `branch ${h.row.branch} moved (its head is ${head || '(root)'}, not ${extra.ifHead}) while this ran: look again, then retry`,
            { branch: h.row.branch, head, expected: extra.ifHead },
          );
      }
      const event = await log.appendEvent(
        tx,
        this.options.who,
        {
          session: h.row.session,
          branch: h.row.branch,
          kind: `cairn.ws.${kind}`,
          payload: null,
        },
        log.encodePayload({
          workspace: h.row.id,
          snapshot: id,
          root,
          parent: row.parent,
          files: row.files,
          bytes: row.bytes,
          ...extra.payload,
        }),
        now,
      );
      row.event = event.id;
      if (extra.alsoAppend) {
        const also = extra.alsoAppend(toSnapshot(row));
        appended = await log.appendEvent(
          tx,
          this.options.who,
          { session: h.row.session, branch: h.row.branch, kind: also.kind, payload: null },
          log.encodePayload(also.payload),
          now,
        );
      }
      if (extra.moveHeadTo !== undefined) {
        await log.moveHead(
          tx,
          this.options.who,
          {
            session: h.row.session,
            branch: h.row.branch,
            to: extra.moveHeadTo,
            ifHead: (appended ?? event).id,
          },
          now,
        );
      }
      await insertSnapshot(tx, row);
      await tx.run('UPDATE desk_workspaces SET head_snapshot = ? WHERE tenant = ? AND id = ?', [
        id,
        this.tenant,
        h.row.id,
      ]);
      // Only from here may the commit have landed: an error thrown above rolled everything back.
      stage.committing = true;
    });
    h.head = row;
    h.row.head_snapshot = id;
    return {
      snapshot: toSnapshot(row),
      created: true,
      findings,
      withheld,
      redacted: await redactedPaths(this.objects, h.root),
      unsupported: ctx.unsupported,
      ...(appended ? { appended } : {}),
    };
  }

  /** Whether the secret policy refuses a snapshot with these findings (`fail` and a confident one). */
  private refusesUnderPolicy(findings: SecretFinding[]): boolean {
    return this.policy === 'fail' && blocksCheckpoint(findings);
  }

  private refuseUnderPolicy(findings: SecretFinding[]): never {
    throw guardFailure(findings.filter((f) => f.confidence === 'high' && f.action !== 'kept'));
  }

  /** Snapshots the workspace directory if anything changed since its head snapshot. */
  async checkpoint(
    workspace: string,
    options: Pick<SnapshotOptions, 'force' | 'alsoAppend' | 'ifHead' | 'moveHeadTo'> = {},
  ): Promise<CheckpointResult> {
    authorize(this.options.who, 'desk.write');
    if (options.moveHeadTo !== undefined) authorize(this.options.who, 'branch.move');
    return this.withHandle(workspace, (h) => this.snapshot(h, 'checkpoint', options));
  }

  // ---- restore ------------------------------------------------------------

  private async snapshotById(id: string): Promise<SnapshotRow> {
    return this.read('desk.read', (tx) => snapshotRow(tx, this.tenant, id));
  }

  private checkPaths(h: Handle, paths: readonly string[] | undefined): string[] | undefined {
    if (paths === undefined) return undefined;
    return paths.map((p) => workspacePath(h.row.path, p));
  }

  /**
   * Lists what restoring a snapshot would change: files added, changed and
   * removed, the log events after it, and credentials it would not write.
   */
  async previewRestore(
    workspace: string,
    snapshot: string,
    options: { paths?: string[] } = {},
  ): Promise<RestorePreview> {
    authorize(this.options.who, 'desk.read');
    return this.withHandle(workspace, async (h) => {
      const only = this.checkPaths(h, options.paths);
      const target = await this.snapshotById(snapshot);
      // Scan a copy of the model, storing nothing: a preview changes nothing, and the real model
      // (with its stat data) stays as it was for the next checkpoint.
      const findings: SecretFinding[] = [];
      const live = await this.dryScan(h, findings);
      // A restore checkpoints first; under the fail policy that checkpoint refuses, so the preview does too.
      if (this.refusesUnderPolicy(findings)) this.refuseUnderPolicy(findings);
      const ctx = applyContext(h.row.path, this.objects, false, (p) => credentialPathRule(p) !== null, only);
      await applyTree(ctx, live, dirNode(target.root, Number(target.files), Number(target.bytes)));
      const eventsAfter = await this.eventsAfter(h, target);
      const redacted = await redactedPaths(this.objects, dirNode(target.root));
      return {
        snapshot: toSnapshot(target),
        changes: ctx.changes,
        eventsAfter,
        withheld: ctx.withheld,
        redacted,
      };
    });
  }

  /** Events on the workspace's branch after the snapshot's event; none when that event is not on the branch's path. */
  private async eventsAfter(h: Handle, target: SnapshotRow): Promise<CairnEvent[]> {
    const event = await this.read('log.read', (tx) => log.getEvent(tx, this.options.who, target.event));
    if (event.session !== h.row.session) return [];
    return eventsAfter(
      (from) =>
        this.read('log.read', (tx) =>
          log.readBranch(tx, this.options.who, {
            session: h.row.session,
            branch: h.row.branch,
            from,
            limit: 1000,
          }),
        ),
      event,
    );
  }

  /**
   * Restores a snapshot into the workspace directory: checkpoints the current
   * state first (so the restore can be undone), then rewrites only the
   * entries that differ. Never writes a credential path.
   */
  async restore(
    workspace: string,
    snapshot: string,
    options: { paths?: string[] } = {},
  ): Promise<RestoreResult> {
    authorize(this.options.who, 'desk.write');
    return this.withHandle(workspace, async (h) => {
      const only = this.checkPaths(h, options.paths);
      const target = await this.snapshotById(snapshot);
      const before = (await this.snapshot(h, 'checkpoint')).snapshot;
      const eventsAfter = await this.eventsAfter(h, target);
      const ctx = applyContext(h.row.path, this.objects, true, (p) => credentialPathRule(p) !== null, only);
      ctx.onWrite = h.watcher ? (path) => h.watcher?.expect([path]) : undefined;
      ctx.onFile = this.counter('write');
      await applyTree(ctx, h.root, dirNode(target.root, Number(target.files), Number(target.bytes)));
      const settled = this.now();
      for (const { path, node } of ctx.written) {
        const st = lstatSync(join(h.row.path, path), { throwIfNoEntry: false });
        node.stat = st ? statKeyOf(st, settled) : null;
      }
      // The model now describes what was written (with the target's digests where the disk matches it
      // exactly), so the restore is recorded without a scan; the watcher's events from these writes
      // stay queued for the next checkpoint. The commit checks the root is still indexed.
      const after = (
        await this.snapshot(h, 'restore', {
          force: true,
          noScan: true,
          payload: { restored: target.id },
          alsoNamed: [target.root],
        })
      ).snapshot;
      return {
        snapshot: toSnapshot(target),
        before,
        after,
        changes: ctx.changes,
        eventsAfter,
        withheld: ctx.withheld,
        redacted: await redactedPaths(this.objects, dirNode(target.root)),
        blocked: ctx.blocked,
      };
    });
  }

  // ---- diff ---------------------------------------------------------------

  /**
   * Differences between two snapshots, or between a snapshot and the live
   * directory of a workspace (`to` omitted): paths, unified patches for text,
   * sizes for binaries.
   */
  async diff(input: {
    from: string;
    to?: string;
    workspace?: string;
    patches?: boolean;
    paths?: string[];
    /** false: compare with the live directory without checkpointing it (paths and kinds only, no patches). */
    record?: boolean;
  }): Promise<DiffItem[]> {
    authorize(this.options.who, 'desk.read');
    const from = await this.snapshotById(input.from);
    let after: DirNode;
    let only: string[] | undefined;
    if (input.to !== undefined) {
      after = dirNode((await this.snapshotById(input.to)).root);
      only = input.paths?.map((p) => normalisePath(p));
    } else {
      if (input.workspace === undefined)
        throw invalid('diff needs `to` (a snapshot) or `workspace` (its live directory)');
      if (input.record === false) return this.liveDiff(input.workspace, from, input.paths);
      const result = await this.checkpoint(input.workspace);
      after = dirNode(result.snapshot.root);
      const h = await this.open(input.workspace);
      only = this.checkPaths(h, input.paths);
    }
    const before = await flatten(this.objects, dirNode(from.root));
    const afterMap = await flatten(this.objects, after);
    let items = diffEntryMaps(before, afterMap);
    if (only) items = items.filter((i) => only.some((p) => i.path === p || i.path.startsWith(`${p}/`)));
    if (input.patches === false) return items;
    return withPatches(items, (e) => this.content(e));
  }

  /** The live directory as a model, from a full scan of a copy of the workspace's model, storing nothing. */
  private async dryScan(h: Handle, findings: SecretFinding[] = []): Promise<DirNode> {
    const copy = cloneDir(h.root);
    const writer = this.objects.writer(this.now);
    writer.dryRun = true;
    const ctx = this.scanContext(h, writer, findings);
    this.scanOffThread(ctx);
    await rescan(ctx, copy, '', true);
    await settleFiles(ctx);
    await seal(ctx, copy);
    return copy;
  }

  /** The live directory against a snapshot, storing nothing. */
  private async liveDiff(workspace: string, from: SnapshotRow, paths?: string[]): Promise<DiffItem[]> {
    authorize(this.options.who, 'desk.read');
    return this.withHandle(workspace, async (h) => {
      const only = this.checkPaths(h, paths);
      const live = await flatten(this.objects, await this.dryScan(h));
      const items = diffEntryMaps(await flatten(this.objects, dirNode(from.root)), live);
      return only ? items.filter((i) => only.some((p) => i.path === p || i.path.startsWith(`${p}/`))) : items;
    });
  }

  private async content(entry: FileEntry): Promise<Buffer> {
    const parts: Buffer[] = [];
    for (const digest of entry.chunks) parts.push(await this.objects.get(digest));
    return Buffer.concat(parts);
  }

  // ---- fork -----------------------------------------------------------------

  private overlayLayout(id: string) {
    const base = join(this.ensureStateDir(), 'forks', id);
    return { upper: join(base, 'upper'), work: join(base, 'work') };
  }

  /** The read-only lower layer holding a snapshot, materialised once per root tree and shared by its forks. */
  private async lowerFor(snapshot: SnapshotRow): Promise<string> {
    const lower = join(this.ensureStateDir(), 'lower', this.tenant, snapshot.root);
    if (existsSync(lower)) {
      // Its time says when it was last used: GC keeps layers used within its grace.
      const now = new Date(this.now());
      utimesSync(lower, now, now);
      return lower;
    }
    const temp = `${lower}.tmp-${newId('snapshot')}`;
    mkdirSync(temp, { recursive: true });
    await materialize(this.objects, temp, dirNode(snapshot.root), this.counter('write'));
    try {
      renameSync(temp, lower);
    } catch (error) {
      rmSync(temp, { recursive: true, force: true });
      if (!existsSync(lower)) throw error;
    }
    return lower;
  }

  private async mountFork(row: WorkspaceRow, base: SnapshotRow): Promise<void> {
    const layout = this.overlayLayout(row.id);
    const lower = await this.lowerFor(base);
    await mountOverlay({ lower, upper: layout.upper, work: layout.work, mountpoint: row.path }, this.mounter);
  }

  /**
   * Forks a workspace: checkpoints it, starts a new log branch at that
   * checkpoint, and gives the branch its own directory. The driver is chosen
   * by capability (overlay where this process may mount, else copy) unless
   * named. Writes in either directory never show in the other.
   */
  async fork(
    workspace: string,
    input: {
      dir: string;
      branch?: string;
      driver?: 'copy' | 'overlay';
      /** Fork from this earlier snapshot, the new branch starting at `event` (a unit checkpoint), instead of from now. */
      at?: { snapshot: string; event: string };
    },
  ): Promise<{ workspace: Workspace; checkpoint: CheckpointResult | null; redacted: string[] }> {
    authorize(this.options.who, 'desk.write');
    authorize(this.options.who, 'branch.fork');
    if (input.branch !== undefined) parseInput(BranchName, input.branch, 'fork');
    const dir = this.resolveDir(input.dir, false);
    if (existsSync(dir) && !(lstatSync(dir).isDirectory() && isEmptyDir(dir))) {
      throw invalid(`${dir} exists and is not an empty directory: fork into a new or empty directory`, {
        dir,
      });
    }
    const canOverlay = overlaySupported(join(this.ensureStateDir(), 'probe'));
    if (input.driver === 'overlay' && !canOverlay) {
      throw new CairnError('UNAVAILABLE', 'this process cannot mount overlays here: use the copy driver', {});
    }
    const driver: Driver = input.driver ?? (canOverlay ? 'overlay' : 'copy');
    return this.withHandle(workspace, async (h) => {
      const checkpoint = input.at ? null : await this.snapshot(h, 'checkpoint');
      const base = input.at ? await this.snapshotById(input.at.snapshot) : h.head;
      if (input.at) {
        const owner = await this.read('desk.read', (tx) => workspaceRow(tx, this.tenant, base.workspace));
        if (owner.session !== h.row.session) {
          throw invalid(`snapshot ${base.id} belongs to session ${owner.session}, not ${h.row.session}`, {
            snapshot: base.id,
          });
        }
      }
      // From now: the branch's current head (steps after the last snapshot belong to the fork too).
      const forkAt = input.at ? { at: input.at.event } : { from: h.row.branch };
      const now = this.now();
      const row: WorkspaceRow = {
        tenant: this.tenant,
        id: newId('workspace', now),
        host: this.options.host,
        path: dir,
        session: h.row.session,
        branch: '',
        driver,
        state: 'attached',
        base_snapshot: base.id,
        head_snapshot: base.id,
        forked_from: h.row.id,
        created_at: now,
      };
      mkdirSync(dir, { recursive: true });
      row.path = realpathSync(dir);
      let tree: DirNode;
      try {
        if (driver === 'overlay') {
          await this.mountFork(row, base);
          tree = dirNode(base.root, Number(base.files), Number(base.bytes));
        } else {
          tree = dirNode(base.root, Number(base.files), Number(base.bytes));
          const ctx = await materialize(this.objects, row.path, tree, this.counter('write'));
          const settled = this.now();
          for (const { path, node } of ctx.written) {
            node.stat = statKeyOf(ctx.stats.get(path) ?? lstatSync(join(row.path, path)), settled);
          }
        }
        await this.write('desk.write', async (tx) => {
          await lockDesk(tx, this.tenant);
          const branch = await log.forkBranch(
            tx,
            this.options.who,
            { session: h.row.session, ...forkAt, name: input.branch },
            now,
          );
          row.branch = branch.name;
          await insertWorkspace(tx, row);
        });
      } catch (error) {
        if (driver === 'overlay') await unmountOverlay(row.path, this.mounter);
        rmSync(this.overlayLayout(row.id).upper, { recursive: true, force: true });
        if (driver === 'copy')
          for (const name of readdirSync(row.path))
            rmSync(join(row.path, name), { recursive: true, force: true });
        throw error;
      }
      const handle = this.newHandle(row, tree, base);
      // The model describes the new directory exactly; without a watcher every checkpoint scans anyway.
      handle.fullScan = false;
      this.handles.set(row.id, handle);
      // The fork's files are the stored copies: those with redacted spans are listed.
      const redacted = await redactedPaths(this.objects, dirNode(base.root));
      return { workspace: toWorkspace(row), checkpoint, redacted };
    });
  }

  /**
   * Stops tracking a workspace. A fork's directory can be discarded with it
   * (an overlay fork is unmounted and its upper layer deleted); a directly
   * attached directory is never deleted.
   */
  async detach(workspace: string, options: { discard?: boolean } = {}): Promise<Workspace> {
    authorize(this.options.who, 'desk.write');
    const row = await this.read('desk.read', (tx) => workspaceRow(tx, this.tenant, workspace));
    if (options.discard && row.forked_from === '') {
      throw invalid(
        `workspace ${workspace} was attached, not forked: Cairn never deletes a directory it did not create`,
        {
          workspace,
        },
      );
    }
    if (row.driver === 'overlay' && !options.discard) {
      throw invalid(
        `workspace ${workspace} is an overlay fork: detach it with discard (merge it first to keep its changes)`,
        {
          workspace,
        },
      );
    }
    this.drop(workspace);
    await this.write('desk.write', (tx) =>
      tx.run(`UPDATE desk_workspaces SET state = 'detached' WHERE tenant = ? AND id = ?`, [
        this.tenant,
        workspace,
      ]),
    );
    if (options.discard) {
      if (row.driver === 'overlay') {
        await unmountOverlay(row.path, this.mounter);
        rmSync(join(this.ensureStateDir(), 'forks', row.id), { recursive: true, force: true });
      } else {
        for (const name of readdirSync(row.path))
          rmSync(join(row.path, name), { recursive: true, force: true });
      }
    }
    rmSync(this.statCachePath(workspace), { force: true });
    return toWorkspace({ ...row, state: 'detached' });
  }

  // ---- merge ----------------------------------------------------------------

  private async mergeBase(from: WorkspaceRow, into: WorkspaceRow): Promise<string> {
    if (from.forked_from === into.id) return from.base_snapshot;
    if (into.forked_from === from.id) return into.base_snapshot;
    if (
      from.forked_from !== '' &&
      from.forked_from === into.forked_from &&
      from.base_snapshot === into.base_snapshot
    ) {
      return from.base_snapshot;
    }
    throw invalid(
      `workspaces ${from.id} and ${into.id} share no fork point: merge a fork into its parent (or the parent into a fork)`,
      { from: from.id, into: into.id },
    );
  }

  /**
   * Refuses a merge into a workspace whose last merge left conflict markers
   * that are still there: a second merge would nest markers in them.
   */
  private async refuseUnresolvedMerge(into: WorkspaceRow): Promise<void> {
    const last = await this.read('desk.read', (tx) =>
      tx.get<{ id: string; event: string; parent: string }>(
        `SELECT id, event, parent FROM desk_snapshots WHERE tenant = ? AND workspace = ? AND kind = 'merge'
         ORDER BY created_at DESC, id DESC LIMIT 1`,
        [this.tenant, into.id],
      ),
    );
    if (!last) return;
    const event = await this.read('log.read', (tx) => log.getEvent(tx, this.options.who, last.event));
    const conflicts = (event.payload as { conflicts?: string[] }).conflicts ?? [];
    const unresolved = conflicts.filter((path) => {
      const abs = join(into.path, path);
      const st = lstatSync(abs, { throwIfNoEntry: false });
      return st?.isFile() === true && hasConflictMarkers(readFileSync(abs, 'utf8'));
    });
    if (unresolved.length === 0) return;
    throw new CairnError(
      'CONFLICT',
      `${unresolved.length} file(s) still hold conflict markers from merge ${last.id} (${unresolved.slice(0, 5).join(', ')}): resolve them and run \`cairn ws checkpoint\`, or abort that merge with \`cairn ws restore ${last.parent}\`, then merge again`,
      { workspace: into.id, merge: last.id, unresolved, abort: last.parent },
    );
  }

  /**
   * Three-way merge of one workspace into another, base = the fork snapshot.
   * Clean changes are written; conflicts are written with markers and
   * returned with the base, ours and theirs texts. The target is then
   * checkpointed (kind `merge`).
   */
  async merge(input: { from: string; into: string }): Promise<MergeResult> {
    authorize(this.options.who, 'desk.write');
    if (input.from === input.into)
      throw invalid('a workspace cannot be merged into itself', { workspace: input.from });
    const [fromRow, intoRow] = await this.read('desk.read', async (tx) => [
      await workspaceRow(tx, this.tenant, input.from),
      await workspaceRow(tx, this.tenant, input.into),
    ]);
    const baseId = await this.mergeBase(fromRow, intoRow);
    await this.refuseUnresolvedMerge(intoRow);
    const theirs = (await this.checkpoint(input.from)).snapshot;
    return this.withHandle(input.into, async (h) => {
      const ours = (await this.snapshot(h, 'checkpoint')).snapshot;
      const base = await this.snapshotById(baseId);
      const maps = await Promise.all(
        [base.root, ours.root, theirs.root].map((r) => flatten(this.objects, dirNode(r))),
      );
      const merged = await mergeTrees(maps[0]!, maps[1]!, maps[2]!, (e) => this.content(e), {
        ours: `${intoRow.branch} (${input.into})`,
        theirs: `${fromRow.branch} (${input.from})`,
      });
      await writeMerge(h.row.path, maps[1]!, merged.entries, (e) => this.content(e));
      h.fullScan = true;
      const result = await this.snapshot(h, 'merge', {
        force: true,
        payload: {
          from: input.from,
          base: baseId,
          theirs: theirs.id,
          conflicts: merged.conflicts.map((c) => c.path),
        },
      });
      return {
        snapshot: result.snapshot,
        base: baseId,
        ours: ours.id,
        theirs: theirs.id,
        changed: merged.changed,
        conflicts: merged.conflicts,
      };
    });
  }

  // ---- verify and gc ----------------------------------------------------------

  /** Walks every tree from every snapshot root, re-hashing each object once; stops at the first problem. */
  async verify(): Promise<VerifyReport> {
    const snapshots = await this.read('desk.read', (tx) =>
      tx.all<{ id: string; root: string; event: string }>(
        'SELECT id, root, event FROM desk_snapshots WHERE tenant = ? ORDER BY id',
        [this.tenant],
      ),
    );
    const seen = new Set<string>();
    let bytes = 0;
    const visit = async (digest: string, tree: boolean): Promise<void> => {
      if (seen.has(digest)) return;
      seen.add(digest);
      const data = await this.objects.get(digest);
      bytes += data.length;
      if (!tree) return;
      for (const child of (await loadDir(this.objects, dirNode(digest))).values()) {
        if (child.kind === 'file') for (const c of child.chunks) await visit(c, false);
        else if (child.kind === 'dir') await visit(child.tree as string, true);
      }
    };
    for (const s of snapshots) {
      try {
        const event = await this.read('log.read', (tx) => log.getEvent(tx, this.options.who, s.event));
        if ((event.payload as { root?: string } | null)?.root !== s.root) {
          throw new CairnError(
            'CORRUPT',
            `snapshot ${s.id} names root ${s.root} but its log event ${s.event} says otherwise`,
            {},
          );
        }
        await visit(s.root, true);
      } catch (error) {
        const e = error as CairnError;
        return {
          ok: false,
          snapshots: snapshots.length,
          objects: seen.size,
          bytes,
          problem: {
            code: e.code ?? 'INTERNAL',
            message: e.message,
            snapshot: s.id,
            digest: e.data?.digest as string | undefined,
          },
        };
      }
    }
    return { ok: true, snapshots: snapshots.length, objects: seen.size, bytes };
  }

  /**
   * Retention, then mark and sweep: marks every object reachable from a
   * snapshot, removes index rows of the rest, deletes packs left with no
   * live object, and deletes packs abandoned mid-write more than `graceMs`
   * ago. (A pack that is only partly garbage keeps its bytes until all of
   * it is garbage: no repacking yet.) Safe while checkpoints run: a checkpoint re-checks
   * the objects it reuses when it commits, and the sweep re-marks any
   * snapshot that appeared after the mark.
   */
  async gc(options: { graceMs?: number; keepLast?: number } = {}): Promise<GcReport> {
    const progress = this.options.onProgress;
    authorize(this.options.who, 'desk.gc');
    const graceMs = options.graceMs ?? 60 * 60 * 1000;
    if (!Number.isSafeInteger(graceMs) || graceMs < 0) {
      throw invalid(`graceMs must be a whole number of milliseconds, at least 0, not ${graceMs}`, {
        graceMs,
      });
    }
    const started = this.now();
    const expired = options.keepLast === undefined ? 0 : await this.expireSnapshots(options.keepLast);
    const live = new Set<string>();
    const marked = new Set<string>();
    const mark = async (digest: string): Promise<void> => {
      if (live.has(digest)) return;
      live.add(digest);
      for (const child of (await loadDir(this.objects, dirNode(digest))).values()) {
        if (child.kind === 'file') for (const c of child.chunks) live.add(c);
        else if (child.kind === 'dir') await mark(child.tree as string);
      }
      if (live.size % 1000 < 50) progress?.('mark', live.size);
    };
    const report: GcReport = {
      expiredSnapshots: expired,
      marked: 0,
      removedObjects: 0,
      removedPacks: 0,
      removedLayers: 0,
      freedBytes: 0,
    };
    const doomedPacks: string[] = [];
    for (let round = 0; ; round++) {
      const snaps = await this.read('desk.read', (tx) =>
        tx.all<{ id: string; root: string }>('SELECT id, root FROM desk_snapshots WHERE tenant = ?', [
          this.tenant,
        ]),
      );
      for (const s of snaps) {
        if (!marked.has(s.id)) {
          await mark(s.root);
          marked.add(s.id);
        }
      }
      const swept = await this.write('desk.gc', async (tx) => {
        await lockDesk(tx, this.tenant);
        const now = await tx.all<{ id: string }>('SELECT id FROM desk_snapshots WHERE tenant = ?', [
          this.tenant,
        ]);
        if (now.some((s) => !marked.has(s.id))) return false;
        const rows = await tx.all<{ digest: string; pack: string; len: number }>(
          'SELECT digest, pack, len FROM desk_objects WHERE tenant = ?',
          [this.tenant],
        );
        const dead = rows.filter((r) => !live.has(r.digest));
        await inBatches(dead, async (slice) => {
          await tx.run(
            `DELETE FROM desk_objects WHERE tenant = ? AND digest IN (${placeholders(slice.length)})`,
            [this.tenant, ...slice.map((r) => r.digest)],
          );
        });
        report.removedObjects = dead.length;
        const used = new Set(rows.filter((r) => live.has(r.digest)).map((r) => r.pack));
        const packs = await tx.all<{
          digest: string;
          state: string;
          size: number;
          created_at: number;
          inline: number;
        }>('SELECT digest, state, size, created_at, inline FROM desk_packs WHERE tenant = ?', [this.tenant]);
        for (const p of packs) {
          const abandoned = p.state === 'writing' && Number(p.created_at) < started - graceMs;
          if ((p.state === 'live' && !used.has(p.digest)) || abandoned) {
            await tx.run('DELETE FROM desk_packs WHERE tenant = ? AND digest = ?', [this.tenant, p.digest]);
            // An inline pack's bytes went with its row; a pack file is deleted once this commits.
            if (!Number(p.inline)) doomedPacks.push(p.digest);
            else report.removedPacks++;
            report.freedBytes += Number(p.size);
          }
        }
        return true;
      });
      if (swept) break;
      if (round > 100)
        throw new CairnError(
          'UNAVAILABLE',
          'gc could not keep up with new snapshots: run it again later',
          {},
        );
    }
    report.marked = live.size;
    report.removedLayers = await this.sweepLayers(started - graceMs);
    for (const digest of doomedPacks) {
      await this.options.blobs.delete(this.tenant, digest);
      report.removedPacks++;
      progress?.('sweep', report.removedPacks);
    }
    return report;
  }

  /**
   * Deletes this tenant's overlay lower layers on this host that no attached
   * overlay workspace starts from and that were last used before `before`
   * (a fork being created in another process touches its layer first).
   */
  private async sweepLayers(before: number): Promise<number> {
    const dir = join(this.ensureStateDir(), 'lower', this.tenant);
    if (!existsSync(dir)) return 0;
    const used = new Set(
      (
        await this.read('desk.read', (tx) =>
          tx.all<{ root: string }>(
            `SELECT s.root FROM desk_workspaces w JOIN desk_snapshots s ON s.tenant = w.tenant AND s.id = w.base_snapshot
             WHERE w.tenant = ? AND w.host = ? AND w.driver = 'overlay' AND w.state = 'attached'`,
            [this.tenant, this.options.host],
          ),
        )
      ).map((r) => r.root),
    );
    let removed = 0;
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (used.has(name) || lstatSync(path).mtimeMs >= before) continue;
      rmSync(path, { recursive: true, force: true });
      removed++;
    }
    return removed;
  }

  /**
   * Retention: keeps each workspace's newest `keepLast` snapshots, its head,
   * and every snapshot a fork started from; removes the other snapshot rows.
   * Their log events stay; restoring one of them is then NOT_FOUND.
   */
  private async expireSnapshots(keepLast: number): Promise<number> {
    if (!Number.isSafeInteger(keepLast) || keepLast < 1) {
      throw invalid(`keepLast must be a whole number of at least 1, not ${keepLast}`, { keepLast });
    }
    return this.write('desk.gc', async (tx) => {
      await lockDesk(tx, this.tenant);
      const pinned = new Set<string>();
      for (const w of await tx.all<{ head_snapshot: string; base_snapshot: string }>(
        'SELECT head_snapshot, base_snapshot FROM desk_workspaces WHERE tenant = ?',
        [this.tenant],
      )) {
        pinned.add(w.head_snapshot);
        pinned.add(w.base_snapshot);
      }
      const rows = await tx.all<{ id: string; workspace: string }>(
        'SELECT id, workspace FROM desk_snapshots WHERE tenant = ? ORDER BY workspace, created_at DESC, id DESC',
        [this.tenant],
      );
      const seen = new Map<string, number>();
      const doomed: string[] = [];
      for (const r of rows) {
        const rank = (seen.get(r.workspace) ?? 0) + 1;
        seen.set(r.workspace, rank);
        if (rank > keepLast && !pinned.has(r.id)) doomed.push(r.id);
      }
      await inBatches(doomed, async (slice) => {
        await tx.run(
          `DELETE FROM desk_snapshots WHERE tenant = ? AND id IN (${placeholders(slice.length)})`,
          [this.tenant, ...slice],
        );
      });
      return doomed.length;
    });
  }

  /** Writes stat caches so the next process need not re-read unchanged files, and stops watchers. */
  async close(): Promise<void> {
    for (const [id, h] of this.handles) {
      if (h.head.id !== '' && h.root.tree === h.head.root)
        saveStatCache(this.statCachePath(id), h.head.id, h.root);
      h.watcher?.close();
    }
    this.handles.clear();
    this.mounter.close();
    await this.guard.close();
  }
}

const filters = new WeakMap<Handle, ReturnType<typeof createPathFilter>>();

function createPathFilterCached(h: Handle) {
  let filter = filters.get(h);
  if (!filter) {
    filter = createPathFilter(h.ignoreText);
    filters.set(h, filter);
  }
  return filter;
}

function readIgnore(root: string): string | null {
  const ignore = join(root, '.cairnignore');
  return existsSync(ignore) ? readFileSync(ignore, 'utf8') : null;
}

/** Directories present in an overlay's upper layer: the only ones a change since the fork can be in. */
function upperDirs(upper: string): Set<string> {
  const out = new Set<string>(['']);
  const walk = (abs: string, rel: string) => {
    for (const d of readdirSync(abs, { withFileTypes: true })) {
      if (!d.isDirectory()) continue;
      const child = rel === '' ? d.name : `${rel}/${d.name}`;
      out.add(child);
      walk(join(abs, d.name), child);
    }
  };
  walk(upper, '');
  return out;
}

/** Normalises a workspace-relative path argument; refuses anything that leaves the workspace. */
export function normalisePath(path: string): string {
  if (typeof path !== 'string' || path === '' || isAbsolute(path) || path.includes('\0')) {
    throw invalid(`path "${String(path)}" is not a relative path inside the workspace`, { path });
  }
  const parts: string[] = [];
  for (const part of path.split(/[\\/]+/)) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length === 0)
        throw invalid(`path "${path}" leaves the workspace: pass a path inside it`, { path });
      parts.pop();
    } else parts.push(part);
  }
  if (parts.length === 0)
    throw invalid(`path "${path}" names the workspace root: omit it to mean everything`, { path });
  return parts.join('/');
}

/** A path argument inside a live workspace: no `..` escape, and no symlink on the way out of it. */
function workspacePath(root: string, path: string): string {
  const rel = normalisePath(path);
  let at = root;
  for (const part of rel.split('/')) {
    at = join(at, part);
    const st = lstatSync(at, { throwIfNoEntry: false });
    if (!st) break;
    if (st.isSymbolicLink()) {
      let real: string;
      try {
        real = realpathSync(at);
      } catch {
        throw invalid(
          `path "${path}" goes through a symlink that does not resolve: pass a path inside the workspace`,
          {
            path,
          },
        );
      }
      const inside = relative(root, real);
      if (inside.startsWith('..') || isAbsolute(inside)) {
        throw invalid(
          `path "${path}" goes through a symlink that leaves the workspace: pass a path inside it`,
          { path },
        );
      }
    }
  }
  return rel;
}

/** Writes a merge result over the target directory: changed entries written, entries gone from the result removed. */
async function writeMerge(
  root: string,
  ours: Map<string, Entry>,
  entries: Map<string, MergedEntry>,
  read: (e: FileEntry) => Promise<Buffer>,
): Promise<void> {
  const removed = [...ours.keys()]
    .filter((p) => !entries.has(p))
    .sort()
    .reverse();
  for (const path of removed) {
    const abs = join(root, path);
    const st = lstatSync(abs, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isDirectory()) {
      try {
        rmdirSync(abs);
      } catch {
        // untracked files keep it
      }
    } else unlinkSync(abs);
  }
  for (const [path, entry] of [...entries].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const before = ours.get(path);
    if (!isMergedFile(entry) && before && sameEntry(before, entry)) continue;
    const abs = join(root, path);
    const st = lstatSync(abs, { throwIfNoEntry: false });
    if (entry.kind === 'dir') {
      if (st && !st.isDirectory()) unlinkSync(abs);
      if (!st?.isDirectory()) mkdirSync(abs, { recursive: true });
      continue;
    }
    if (st?.isDirectory()) rmSync(abs, { recursive: true });
    else if (st) unlinkSync(abs);
    if (entry.kind === 'symlink') symlinkSync(entry.target, abs);
    else {
      const bytes = isMergedFile(entry) ? entry.content : await read(entry);
      writeFileSync(abs, bytes);
      chmodSync(abs, entry.exec ? 0o755 : 0o644);
    }
  }
}
