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
import { CairnError, invalidArgument as invalid, notFound } from '../errors.js';
import { type EventId, newId, type SessionId, type SnapshotId, type WorkspaceId } from '../ids.js';
import { eventsAfter } from '../log/pages.js';
import { BranchName } from '../schema.js';
import type { CairnEvent } from '../types.js';
import { parseInput } from '../validate.js';
import { type AttachInput, type CommitInput, type DeskStore, RETRY } from './desk-store.js';
import { type DiffItem, diffEntryMaps, withPatches } from './diff.js';
import { collectGarbage, type GcReport, type VerifyReport, verifyStore } from './gc.js';
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
import { LocalDeskStore } from './local-store.js';
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
  redactedPaths,
  refreshEntry,
  rescan,
  type ScanContext,
  seal,
  settleFiles,
  statKeyOf,
} from './model.js';
import { ObjectStore, type PackWriter } from './objects.js';
import { isMounted, Mounter, mountOverlay, overlaySupported, unmountOverlay } from './overlay.js';
import { alreadyAttached, type Driver, type Snapshot, type SnapshotKind, type Workspace } from './rows.js';
import { loadStatCache, saveStatCache } from './stat-cache.js';
import { type Entry, type FileEntry, sameEntry } from './types.js';
import { COOKIE_PREFIX, DirWatcher, TEMP_NAME } from './watcher.js';

export interface DeskOptions {
  /** The store side: objects, packs, snapshots, workspace records (local, or a server's). */
  store: DeskStore;
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
 * the snapshot's own event (so one commit records both); its payload gets the
 * snapshot's `snapshot`, `root` and `head` (the snapshot's event) filled in.
 */
export type AlsoAppend = NonNullable<CommitInput['also']>;

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

export type { GcReport, VerifyReport };

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
  /** Scan only: keep what the scan stored and found for the next snapshot, record nothing (see `prepare`). */
  prepare?: boolean;
  also?: AlsoAppend;
  /** The branch head must still be this event when the snapshot commits, else CONFLICT and nothing is recorded. */
  ifHead?: EventId | '';
  /** ... set this many times (see CommitInput.ifMoves). */
  ifMoves?: number;
  /** After its events, the snapshot's transaction moves the branch head to this event (a unit restore). */
  moveHeadTo?: EventId;
  /** The snapshot is a new workspace's first: the commit records the workspace too. */
  attach?: AttachInput;
}

/** A new workspace's session and snapshots before its attach commits (the store fills them in). */
const UNSET = '' as SessionId & SnapshotId;

interface Handle {
  row: Workspace;
  root: DirNode;
  /** null until the workspace's first snapshot commits. */
  head: Snapshot | null;
  watcher?: DirWatcher;
  upper?: string;
  fullScan: boolean;
  busy: Promise<unknown>;
  ignoreText: string | null;
  /** A `prepare` scan's objects and findings, handed to the next snapshot. */
  prepared?: Prepared;
}

interface Prepared {
  writer: PackWriter;
  findings: SecretFinding[];
  unsupported: string[];
}

const RETRIES = 3;

/** The head of a workspace that has one (every workspace past its attach). */
function headOf(h: Handle): Snapshot {
  if (!h.head) throw new Error(`workspace ${h.row.id} has no snapshot yet`);
  return h.head;
}

/** A commit refused because the head moved or an object went: the snapshot is taken again. */
function isRetry(error: unknown): error is CairnError {
  return error instanceof CairnError && error.code === 'CONFLICT' && error.data?.[RETRY] !== undefined;
}

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
  private readonly handles = new Map<WorkspaceId, Handle>();
  private readonly now: () => number;
  private readonly policy: SecretPolicy;
  private readonly guard: Guard;
  private readonly mounter = new Mounter();

  private readonly store: DeskStore;

  constructor(private readonly options: DeskOptions) {
    this.store = options.store;
    this.objects = new ObjectStore(options.store);
    this.now = options.now ?? Date.now;
    this.policy = options.secretPolicy ?? 'exclude';
    this.guard = new Guard(options.guard);
  }

  private get tenant(): string {
    return this.store.tenant;
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
    session?: SessionId;
    branch?: string;
  }): Promise<{ workspace: Workspace; checkpoint: CheckpointResult }> {
    const path = this.resolveDir(input.dir);
    const branch = input.branch ?? 'main';
    const [clash] = await this.store.attachedAt(this.options.host, [path]);
    if (clash) throw alreadyAttached(path, clash.id);
    if (input.session !== undefined) await this.store.checkSession(input.session);
    const id = newId('workspace', this.now());
    const row: Workspace = {
      id,
      host: this.options.host,
      dir: path,
      session: input.session ?? UNSET,
      branch,
      driver: 'plain',
      state: 'attached',
      baseSnapshot: UNSET,
      headSnapshot: UNSET,
      forkedFrom: '',
      createdAt: this.now(),
    };
    const handle = this.newHandle(row, dirNode(null), null);
    const result = await this.snapshot(handle, 'checkpoint', {
      force: true,
      attach: {
        host: this.options.host,
        path,
        branch,
        ...(input.session !== undefined ? { session: input.session } : {}),
      },
    });
    this.handles.set(id, handle);
    return { workspace: handle.row, checkpoint: result };
  }

  getWorkspace(id: WorkspaceId): Promise<Workspace> {
    return this.store.workspace(id);
  }

  listWorkspaces(): Promise<Workspace[]> {
    return this.store.listWorkspaces();
  }

  /** The workspace attached at a directory on this host (or, when the directory lies inside one, a hint naming it). */
  async findWorkspace(dir: string): Promise<Workspace> {
    // A lookup, not an attach: a directory holding the store is simply not a workspace.
    const path = this.resolveDir(dir, true, false);
    // The directory itself, or failing that the nearest attached directory above it (one query, bounded
    // by the path's depth): attached paths are unique per host.
    const ancestors = [path];
    for (let up = dirname(path); up !== ancestors[ancestors.length - 1]; up = dirname(up)) ancestors.push(up);
    const rows = await this.store.attachedAt(this.options.host, ancestors);
    const exact = rows.find((r) => r.dir === path);
    if (exact) return exact;
    const around = rows.sort((a, b) => b.dir.length - a.dir.length)[0];
    throw new CairnError(
      'NOT_FOUND',
      around
        ? `${path} is not a workspace but lies inside workspace ${around.id} at ${around.dir}: run the command there, or pass --ws ${around.id}`
        : `no workspace is attached at ${path}: run \`cairn ws attach ${path}\` first (or pass --ws WS)`,
      { resource: 'workspace', path, ...(around ? { inside: around.id } : {}) },
    );
  }

  listSnapshots(workspace: WorkspaceId): Promise<Snapshot[]> {
    return this.store.listSnapshots(workspace);
  }

  getSnapshot(id: SnapshotId): Promise<Snapshot> {
    return this.store.snapshot(id);
  }

  private newHandle(row: Workspace, root: DirNode, head: Snapshot | null): Handle {
    const handle: Handle = {
      row,
      root,
      head,
      fullScan: true,
      busy: Promise.resolve(),
      ignoreText: null,
    };
    // An overlay's upper layer is its change set already: it needs no watcher.
    if (row.driver === 'overlay') handle.upper = this.overlayLayout(row.id).upper;
    else if (this.options.watch) {
      handle.ignoreText = readIgnore(row.dir);
      handle.watcher = this.watcherFor(handle);
    }
    return handle;
  }

  private watcherFor(h: Handle): DirWatcher {
    return new DirWatcher(h.row.dir, (p, d) => this.skipPath(h, p, d, null));
  }

  private async open(id: WorkspaceId): Promise<Handle> {
    const cached = this.handles.get(id);
    if (cached) return cached;
    const { workspace: row, head } = await this.store.head(id);
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
    if (row.driver === 'overlay' && !isMounted(row.dir))
      await this.mountFork(row, await this.snapshotById(row.baseSnapshot));
    const cache = loadStatCache(this.statCachePath(id), head.id);
    const root = cache ?? dirNode(head.root, head.files, head.bytes);
    const handle = this.newHandle(row, root, head);
    handle.fullScan = row.driver !== 'overlay';
    this.handles.set(id, handle);
    return handle;
  }

  /** Runs fn with the workspace to itself; on failure its in-memory state is dropped and rebuilt on next use. */
  private async withHandle<T>(id: WorkspaceId, fn: (h: Handle) => Promise<T>): Promise<T> {
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

  private drop(id: WorkspaceId): void {
    const h = this.handles.get(id);
    h?.watcher?.close();
    void h?.prepared?.writer.discard();
    this.handles.delete(id);
  }

  private statCachePath(id: WorkspaceId): string {
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
    const text = readIgnore(h.row.dir);
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
      root: h.row.dir,
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
        if (!isRetry(error)) throw error;
        if (attempt >= RETRIES) {
          throw new CairnError(
            'CONFLICT',
            `workspace ${h.row.id} kept changing under this checkpoint (${error.message}): try again`,
            { workspace: h.row.id },
          );
        }
        this.objects.forget();
        if (h.head === null) {
          // A first snapshot (attach): its model may name objects a GC took; build it again from the disk.
          h.root = dirNode(null);
          h.fullScan = true;
        } else {
          // Start again from the head as the store has it now (another process may have moved it).
          const { workspace: row, head } = await this.store.head(h.row.id);
          h.row = row;
          h.head = head;
          h.root = dirNode(head.root, head.files, head.bytes);
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
    const carried = h.prepared;
    h.prepared = undefined;
    const writer = carried?.writer ?? this.objects.writer();
    const stage = { committing: false };
    try {
      return await this.snapshotWith(h, kind, extra, writer, stage, carried);
    } catch (error) {
      if (!stage.committing || isRetry(error)) await writer.discard();
      throw error;
    }
  }

  private async snapshotWith(
    h: Handle,
    kind: SnapshotKind,
    extra: SnapshotOptions,
    writer: PackWriter,
    stage: { committing: boolean },
    carried?: Prepared,
  ): Promise<CheckpointResult> {
    const findings: SecretFinding[] = [];
    const ctx = this.scanContext(h, writer, findings);
    const dirty: Dirty | 'all' = extra.noScan
      ? { dirs: new Set(), files: new Set(), deep: new Set() }
      : await this.dirtyDirs(h);
    // A full scan finds again what a prepare found; a partial one reports it once, here.
    if (carried && dirty !== 'all') {
      findings.push(...carried.findings);
      ctx.unsupported.push(...carried.unsupported);
    }
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
    if (extra.prepare && h.head) {
      h.prepared = { writer, findings, unsupported: ctx.unsupported };
      return { snapshot: h.head, created: false, findings, withheld: [], redacted: [], unsupported: [] };
    }
    const withheld = findings.filter((f) => f.action === 'withheld').map((f) => f.path);
    if (!extra.force && h.head && root === h.head.root) {
      const redacted = await redactedPaths(this.objects, h.root);
      return {
        snapshot: h.head,
        created: false,
        findings,
        withheld,
        redacted,
        unsupported: ctx.unsupported,
      };
    }
    await writer.flush();
    const id = newId('snapshot', this.now());
    // From here the commit may land even when its answer is lost: packs are left to GC, not discarded.
    stage.committing = true;
    const committed = await this.store
      .commit({
        id,
        workspace: h.row.id,
        ...(extra.attach ? { attach: extra.attach } : {}),
        expectHead: h.head?.id ?? '',
        kind,
        root,
        files: h.root.files,
        bytes: h.root.bytes,
        ...writer.commitFields(extra.alsoNamed),
        ...(extra.payload ? { payload: extra.payload } : {}),
        ...(extra.also ? { also: extra.also } : {}),
        ...(extra.ifHead !== undefined ? { ifHead: extra.ifHead } : {}),
        ...(extra.ifMoves !== undefined ? { ifMoves: extra.ifMoves } : {}),
        ...(extra.moveHeadTo !== undefined ? { moveHeadTo: extra.moveHeadTo } : {}),
      })
      .catch((error: unknown) => {
        // A typed refusal rolled the commit back: nothing references the packs.
        if (error instanceof CairnError && error.code !== 'IN_DOUBT' && error.code !== 'UNAVAILABLE')
          stage.committing = false;
        throw error;
      });
    h.head = committed.snapshot;
    h.row = committed.workspace;
    return {
      snapshot: committed.snapshot,
      created: true,
      findings,
      withheld,
      redacted: await redactedPaths(this.objects, h.root),
      unsupported: ctx.unsupported,
      ...(committed.appended ? { appended: committed.appended } : {}),
    };
  }

  /** Whether the secret policy refuses a snapshot with these findings (`fail` and a confident one). */
  private refusesUnderPolicy(findings: SecretFinding[]): boolean {
    return this.policy === 'fail' && blocksCheckpoint(findings);
  }

  private refuseUnderPolicy(findings: SecretFinding[]): never {
    throw guardFailure(findings.filter((f) => f.confidence === 'high' && f.action !== 'kept'));
  }

  /**
   * Opens a workspace and brings its model in line with the disk without
   * recording anything, for a long-lived desk (`watch: true`, as in
   * `cairn watch`): from then on a checkpoint looks only at what the watcher
   * saw. What the scan stored and found rides with the next snapshot; if
   * none follows, GC takes the packs it stored after its grace.
   */
  async prepare(workspace: WorkspaceId): Promise<void> {
    await this.withHandle(workspace, async (h) => {
      if (h.prepared || !h.fullScan) return;
      await this.snapshot(h, 'checkpoint', { prepare: true });
    });
  }

  /** Snapshots the workspace directory if anything changed since its head snapshot. */
  async checkpoint(
    workspace: WorkspaceId,
    options: Pick<SnapshotOptions, 'force' | 'also' | 'ifHead' | 'ifMoves' | 'moveHeadTo'> = {},
  ): Promise<CheckpointResult> {
    return this.withHandle(workspace, (h) => this.snapshot(h, 'checkpoint', options));
  }

  // ---- restore ------------------------------------------------------------

  private snapshotById(id: SnapshotId): Promise<Snapshot> {
    return this.store.snapshot(id);
  }

  private checkPaths(h: Handle, paths: readonly string[] | undefined): string[] | undefined {
    if (paths === undefined) return undefined;
    return paths.map((p) => workspacePath(h.row.dir, p));
  }

  /**
   * Lists what restoring a snapshot would change: files added, changed and
   * removed, the log events after it, and credentials it would not write.
   */
  async previewRestore(
    workspace: WorkspaceId,
    snapshot: SnapshotId,
    options: { paths?: string[] } = {},
  ): Promise<RestorePreview> {
    return this.withHandle(workspace, async (h) => {
      const only = this.checkPaths(h, options.paths);
      const target = await this.snapshotById(snapshot);
      // Scan a copy of the model, storing nothing: a preview changes nothing, and the real model
      // (with its stat data) stays as it was for the next checkpoint.
      const findings: SecretFinding[] = [];
      const live = await this.dryScan(h, findings);
      // A restore checkpoints first; under the fail policy that checkpoint refuses, so the preview does too.
      if (this.refusesUnderPolicy(findings)) this.refuseUnderPolicy(findings);
      const ctx = applyContext(h.row.dir, this.objects, false, (p) => credentialPathRule(p) !== null, only);
      await applyTree(ctx, live, dirNode(target.root, target.files, target.bytes));
      const eventsAfter = await this.eventsAfter(h, target);
      const redacted = await redactedPaths(this.objects, dirNode(target.root));
      return {
        snapshot: target,
        changes: ctx.changes,
        eventsAfter,
        withheld: ctx.withheld,
        redacted,
      };
    });
  }

  /** Events on the workspace's branch after the snapshot's event; none when that event is not on the branch's path. */
  private async eventsAfter(h: Handle, target: Snapshot): Promise<CairnEvent[]> {
    const event = await this.store.getEvent(target.event);
    if (event.session !== h.row.session) return [];
    return eventsAfter(
      (from) =>
        this.store.readBranch({
          session: h.row.session,
          branch: h.row.branch,
          from,
          limit: 1000,
        }),
      event,
    );
  }

  /**
   * Restores a snapshot into the workspace directory: checkpoints the current
   * state first (so the restore can be undone), then rewrites only the
   * entries that differ. Never writes a credential path.
   */
  async restore(
    workspace: WorkspaceId,
    snapshot: SnapshotId,
    options: { paths?: string[] } = {},
  ): Promise<RestoreResult> {
    return this.withHandle(workspace, async (h) => {
      const only = this.checkPaths(h, options.paths);
      const target = await this.snapshotById(snapshot);
      const before = (await this.snapshot(h, 'checkpoint')).snapshot;
      const eventsAfter = await this.eventsAfter(h, target);
      const ctx = applyContext(h.row.dir, this.objects, true, (p) => credentialPathRule(p) !== null, only);
      ctx.onWrite = h.watcher ? (path) => h.watcher?.expect([path]) : undefined;
      ctx.onFile = this.counter('write');
      await applyTree(ctx, h.root, dirNode(target.root, target.files, target.bytes));
      const settled = this.now();
      for (const { path, node } of ctx.written) {
        const st = lstatSync(join(h.row.dir, path), { throwIfNoEntry: false });
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
        snapshot: target,
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
    from: SnapshotId;
    to?: SnapshotId;
    workspace?: WorkspaceId;
    patches?: boolean;
    paths?: string[];
    /** false: compare with the live directory without checkpointing it (paths and kinds only, no patches). */
    record?: boolean;
  }): Promise<DiffItem[]> {
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
    const writer = this.objects.writer();
    writer.dryRun = true;
    const ctx = this.scanContext(h, writer, findings);
    this.scanOffThread(ctx);
    await rescan(ctx, copy, '', true);
    await settleFiles(ctx);
    await seal(ctx, copy);
    return copy;
  }

  /** The live directory against a snapshot, storing nothing. */
  private async liveDiff(workspace: WorkspaceId, from: Snapshot, paths?: string[]): Promise<DiffItem[]> {
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
  private async lowerFor(snapshot: Snapshot): Promise<string> {
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

  private async mountFork(row: Workspace, base: Snapshot): Promise<void> {
    const layout = this.overlayLayout(row.id);
    const lower = await this.lowerFor(base);
    await mountOverlay({ lower, upper: layout.upper, work: layout.work, mountpoint: row.dir }, this.mounter);
  }

  /**
   * Forks a workspace: checkpoints it, starts a new log branch at that
   * checkpoint, and gives the branch its own directory. The driver is chosen
   * by capability (overlay where this process may mount, else copy) unless
   * named. Writes in either directory never show in the other.
   */
  async fork(
    workspace: WorkspaceId,
    input: {
      dir: string;
      branch?: string;
      driver?: 'copy' | 'overlay';
      /** Fork from this earlier snapshot, the new branch starting at `event` (a unit checkpoint), instead of from now. */
      at?: { snapshot: SnapshotId; event: EventId };
    },
  ): Promise<{ workspace: Workspace; checkpoint: CheckpointResult | null; redacted: string[] }> {
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
      const base = input.at ? await this.snapshotById(input.at.snapshot) : headOf(h);
      const id = newId('workspace', this.now());
      mkdirSync(dir, { recursive: true });
      const path = realpathSync(dir);
      const planned: Workspace = {
        id,
        host: this.options.host,
        dir: path,
        session: h.row.session,
        branch: '',
        driver,
        state: 'attached',
        baseSnapshot: base.id,
        headSnapshot: base.id,
        forkedFrom: h.row.id,
        createdAt: this.now(),
      };
      let tree: DirNode;
      let row: Workspace;
      try {
        tree = dirNode(base.root, base.files, base.bytes);
        if (driver === 'overlay') await this.mountFork(planned, base);
        else {
          const ctx = await materialize(this.objects, path, tree, this.counter('write'));
          const settled = this.now();
          for (const { path: p, node } of ctx.written) {
            node.stat = statKeyOf(ctx.stats.get(p) ?? lstatSync(join(path, p)), settled);
          }
        }
        // From now: the branch's current head (steps after the last snapshot belong to the fork too).
        row = await this.store.fork({
          id,
          from: h.row.id,
          host: this.options.host,
          path,
          driver,
          baseSnapshot: base.id,
          ...(input.at ? { at: input.at.event } : {}),
          ...(input.branch !== undefined ? { branch: input.branch } : {}),
        });
      } catch (error) {
        if (driver === 'overlay') await unmountOverlay(path, this.mounter);
        rmSync(this.overlayLayout(id).upper, { recursive: true, force: true });
        if (driver === 'copy')
          for (const name of readdirSync(path)) rmSync(join(path, name), { recursive: true, force: true });
        throw error;
      }
      const handle = this.newHandle(row, tree, base);
      // The model describes the new directory exactly; without a watcher every checkpoint scans anyway.
      handle.fullScan = false;
      this.handles.set(row.id, handle);
      // The fork's files are the stored copies: those with redacted spans are listed.
      const redacted = await redactedPaths(this.objects, dirNode(base.root));
      return { workspace: row, checkpoint, redacted };
    });
  }

  /**
   * Stops tracking a workspace. A fork's directory can be discarded with it
   * (an overlay fork is unmounted and its upper layer deleted); a directly
   * attached directory is never deleted.
   */
  async detach(workspace: WorkspaceId, options: { discard?: boolean } = {}): Promise<Workspace> {
    const row = await this.store.workspace(workspace);
    if (options.discard && row.forkedFrom === '') {
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
    const detached = await this.store.detach(workspace);
    if (options.discard) {
      if (row.driver === 'overlay') {
        await unmountOverlay(row.dir, this.mounter);
        rmSync(join(this.ensureStateDir(), 'forks', row.id), { recursive: true, force: true });
      } else {
        for (const name of readdirSync(row.dir))
          rmSync(join(row.dir, name), { recursive: true, force: true });
      }
    }
    rmSync(this.statCachePath(workspace), { force: true });
    return detached;
  }

  // ---- merge ----------------------------------------------------------------

  private async mergeBase(from: Workspace, into: Workspace): Promise<SnapshotId> {
    if (from.forkedFrom === into.id) return from.baseSnapshot;
    if (into.forkedFrom === from.id) return into.baseSnapshot;
    if (
      from.forkedFrom !== '' &&
      from.forkedFrom === into.forkedFrom &&
      from.baseSnapshot === into.baseSnapshot
    ) {
      return from.baseSnapshot;
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
  private async refuseUnresolvedMerge(into: Workspace): Promise<void> {
    const last = (await this.store.listSnapshots(into.id)).filter((s) => s.kind === 'merge').pop();
    if (!last) return;
    const event = await this.store.getEvent(last.event);
    const conflicts = (event.payload as { conflicts?: string[] }).conflicts ?? [];
    const unresolved = conflicts.filter((path) => {
      const abs = join(into.dir, path);
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
  async merge(input: { from: WorkspaceId; into: WorkspaceId }): Promise<MergeResult> {
    if (input.from === input.into)
      throw invalid('a workspace cannot be merged into itself', { workspace: input.from });
    const [fromRow, intoRow] = await Promise.all([
      this.store.workspace(input.from),
      this.store.workspace(input.into),
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
      await writeMerge(h.row.dir, maps[1]!, merged.entries, (e) => this.content(e));
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

  /** The store side as this process holds it: verify and GC run where the store is. */
  private local(what: string): LocalDeskStore {
    if (this.store instanceof LocalDeskStore) return this.store;
    throw new CairnError('UNAVAILABLE', `${what} runs where the store is: run it on the server's host`, {});
  }

  /** Walks every tree from every snapshot root, re-hashing each object once; stops at the first problem. */
  verify(): Promise<VerifyReport> {
    return verifyStore(this.local('verify'), this.objects);
  }

  /**
   * Retention, then mark and sweep (see gc.ts), then this host's overlay
   * lower layers no attached fork uses.
   */
  async gc(options: { graceMs?: number; keepLast?: number } = {}): Promise<GcReport> {
    const started = this.now();
    const graceMs = options.graceMs ?? 60 * 60 * 1000;
    const report = await collectGarbage(this.local('gc'), this.objects, {
      ...options,
      started,
      ...(this.options.onProgress ? { onProgress: this.options.onProgress } : {}),
    });
    report.removedLayers = await this.sweepLayers(started - graceMs);
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
    const forks = (await this.store.listWorkspaces()).filter(
      (w) => w.host === this.options.host && w.driver === 'overlay' && w.state === 'attached',
    );
    const used = new Set(
      await Promise.all(forks.map(async (w) => (await this.store.snapshot(w.baseSnapshot)).root)),
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

  /** Writes stat caches so the next process need not re-read unchanged files, and stops watchers. */
  async close(): Promise<void> {
    for (const [id, h] of this.handles) {
      if (h.head && h.root.tree === h.head.root) saveStatCache(this.statCachePath(id), h.head.id, h.root);
      h.watcher?.close();
      await h.prepared?.writer.discard();
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
