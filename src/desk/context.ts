import { lstatSync, mkdirSync, realpathSync } from 'node:fs';
import { isAbsolute, join, sep } from 'node:path';
import { invalidArgument as invalid, notFound } from '../errors.js';
import type { SnapshotId, WorkspaceId } from '../ids.js';
import type { DeskStore } from './desk-store.js';
import { Guard, type GuardOptions, type SecretFinding, type SecretPolicy } from './guard.js';
import type { DirNode } from './model.js';
import { ObjectStore, type PackWriter } from './objects.js';
import { Mounter } from './overlay.js';
import type { Snapshot, Workspace } from './rows.js';
import type { FileEntry } from './types.js';
import type { DirWatcher } from './watcher.js';

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
  /** Snapshot `.git` directories too (default: left out; a unit checkpoint records HEAD, branch and dirty state instead). */
  includeGit?: boolean;
  /** Track changes with inotify so a checkpoint rescans only changed directories (long-lived processes). */
  watch?: boolean;
  /** Progress of long operations: files hashed ('scan'), files written ('write'), objects marked and packs swept ('mark', 'sweep'). */
  onProgress?: (phase: 'scan' | 'write' | 'mark' | 'sweep', done: number) => void;
  now?: () => number;
}

/** An open workspace: its row, its in-memory model, and what tracks its changes. */
export interface Handle {
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

export interface Prepared {
  writer: PackWriter;
  findings: SecretFinding[];
  unsupported: string[];
}

/** The head of a workspace that has one (every workspace past its attach). */
export function headOf(h: Handle): Snapshot {
  if (!h.head) throw new Error(`workspace ${h.row.id} has no snapshot yet`);
  return h.head;
}

/**
 * What every module of the desk shares: its options, the store and its
 * objects, the guard, the clock, this process's mounts and open workspaces,
 * and the desk's own state folder on this machine.
 */
export class DeskContext {
  readonly options: DeskOptions;
  readonly store: DeskStore;
  readonly objects: ObjectStore;
  readonly now: () => number;
  readonly policy: SecretPolicy;
  readonly guard: Guard;
  readonly mounter = new Mounter();
  /** The workspaces this desk has open, each with its model; operations on one run one at a time. */
  readonly handles = new Map<WorkspaceId, Handle>();

  constructor(options: DeskOptions) {
    this.options = options;
    this.store = options.store;
    this.objects = new ObjectStore(options.store);
    this.now = options.now ?? Date.now;
    this.policy = options.secretPolicy ?? 'exclude';
    this.guard = new Guard(options.guard);
  }

  get tenant(): string {
    return this.store.tenant;
  }

  /** Resolves a directory argument: absolute, existing, a real directory (not a link to one), outside the store's state. */
  resolveDir(dir: string, mustExist = true, refuseOverlap = true): string {
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

  ensureStateDir(): string {
    mkdirSync(this.options.stateDir, { recursive: true });
    return this.options.stateDir;
  }

  statCachePath(id: WorkspaceId): string {
    return join(this.ensureStateDir(), 'stat', `${id}.json`);
  }

  /** A per-operation counter reporting every 100th step to onProgress. */
  counter(phase: 'scan' | 'write'): (() => void) | undefined {
    const report = this.options.onProgress;
    if (!report) return undefined;
    let done = 0;
    return () => {
      if (++done % 100 === 0) report(phase, done);
    };
  }

  snapshotById(id: SnapshotId): Promise<Snapshot> {
    return this.store.snapshot(id);
  }

  /** A stored file's bytes, its chunks read (and re-hashed) in order. */
  async content(entry: FileEntry): Promise<Buffer> {
    const parts: Buffer[] = [];
    for (const digest of entry.chunks) parts.push(await this.objects.get(digest));
    return Buffer.concat(parts);
  }
}
