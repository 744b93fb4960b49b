import type { EventId, SessionId, SnapshotId, WorkspaceId } from '../ids.js';
import type { CairnEvent, EventPage } from '../types.js';
import type { Driver, Snapshot, SnapshotKind, Workspace } from './rows.js';

/**
 * The contract between the two halves of the desk (restic's split). The
 * side where the directory is — scanning, chunking, the secret guard, the
 * stat cache, the watcher, materialising, overlay and copy forks — talks to
 * the side that keeps objects, packs, snapshots and workspace records only
 * through this interface. `LocalDeskStore` implements it over the store's
 * database and blobs (embedded, and inside `cairn serve`); `RemoteDeskStore`
 * over HTTP, through the table's desk operations.
 *
 * Every method acts as the store's caller (its identity, its tenant) and is
 * authorised by the store. Ids of new snapshots and workspaces are proposed by
 * the caller (they are random); times are the store's.
 */
export interface DeskStore {
  readonly tenant: string;

  /** Which of these objects the store does not hold (in the order given). */
  missing(digests: readonly string[]): Promise<string[]>;
  /** The bytes of objects, in order; NOT_FOUND for one the store does not hold. The caller re-hashes them. */
  getObjects(digests: readonly string[]): Promise<Buffer[]>;
  /**
   * Stores a pack (see pack-format.ts) ahead of the snapshot that will name
   * it: its objects are staged, not yet reachable. Storing a pack again is a
   * no-op, so a cut upload is simply sent again.
   */
  putPack(digest: string, bytes: Buffer): Promise<void>;
  /** Deletes packs this caller stored and never committed (a failed checkpoint). Best effort. */
  discardPacks(digests: readonly string[]): Promise<void>;
  /** Records a snapshot: the compare-and-swap on the workspace head, the objects made reachable, its log events. */
  commit(input: CommitInput): Promise<CommitAnswer>;

  workspace(id: WorkspaceId): Promise<Workspace>;
  /** A workspace with its head snapshot. */
  head(id: WorkspaceId): Promise<{ workspace: Workspace; head: Snapshot }>;
  listWorkspaces(): Promise<Workspace[]>;
  /** The workspaces attached on `host` at any of `paths`. */
  attachedAt(host: string, paths: readonly string[]): Promise<Workspace[]>;
  listSnapshots(workspace: WorkspaceId): Promise<Snapshot[]>;
  snapshot(id: SnapshotId): Promise<Snapshot>;
  /** Starts a log branch and records the fork's workspace at `baseSnapshot`, in one transaction. */
  fork(input: ForkInput): Promise<Workspace>;
  /** Marks a workspace detached. */
  detach(id: WorkspaceId): Promise<Workspace>;
  /**
   * Records in the audit chain that the desk refused destructive work on a
   * workspace's directory (not this host's, or not one it created): the
   * entry is the caller's word, attributed to the caller; it changes nothing else.
   */
  refused(input: RefusedInput): Promise<void>;

  /** Checks the session exists and is the caller's to read. */
  checkSession(id: SessionId): Promise<void>;
  getEvent(id: EventId): Promise<CairnEvent>;
  readBranch(input: { session: SessionId; branch: string; from: number; limit: number }): Promise<EventPage>;
}

/** A workspace to create in the commit of its first snapshot (attach). */
export interface AttachInput {
  host: string;
  path: string;
  /** The session it binds to; left out, a new session titled with the path. */
  session?: SessionId;
  branch: string;
}

export interface CommitInput {
  /** The snapshot's id (proposed by the caller). */
  id: SnapshotId;
  workspace: WorkspaceId;
  /** Present for the first snapshot of a new workspace (with `workspace` its proposed id). */
  attach?: AttachInput;
  /** The workspace head this snapshot follows: the commit happens only while it still is ('' with `attach`). */
  expectHead: SnapshotId | '';
  kind: SnapshotKind;
  root: string;
  files: number;
  bytes: number;
  addedBytes: number;
  /** Packs stored for this snapshot with `putPack`: their staged objects become reachable. */
  packs: string[];
  /** The snapshot's only pack when it is small: stored in the commit's own transaction. */
  inline?: Buffer;
  /** Objects named without being in `packs` or `inline`: each must still be held, or the commit retries. */
  reused: string[];
  /** Extra fields of the snapshot's log event. */
  payload?: Record<string, unknown>;
  /**
   * An event to append right after the snapshot's, in the same transaction.
   * Its payload gets the snapshot's `snapshot` (id), `root` and `head` (the
   * snapshot's event) filled in.
   */
  also?: { kind: 'cairn.unit.checkpoint'; payload: Record<string, unknown> };
  /** The branch head must still be this event, else CONFLICT and nothing is recorded. */
  ifHead?: EventId | '';
  /** ... and its head must have been set this many times (its ref log), so a head moved away and back is seen. */
  ifMoves?: number;
  /** After its events, move the branch head to this event (a unit restore). */
  moveHeadTo?: EventId;
}

export interface CommitAnswer {
  snapshot: Snapshot;
  workspace: Workspace;
  appended?: CairnEvent;
}

export interface ForkInput {
  /** The new workspace's id (proposed by the caller). */
  id: WorkspaceId;
  from: WorkspaceId;
  host: string;
  path: string;
  driver: Driver;
  baseSnapshot: SnapshotId;
  /** The new branch starts at this event (a unit checkpoint) or at the head of `from`'s branch. */
  at?: EventId;
  branch?: string;
}

/** A refused destructive action on a workspace's directory, as its desk reports it. */
export interface RefusedInput {
  workspace: WorkspaceId;
  action: 'discard' | 'mount';
  reason: 'other-host' | 'not-created';
  /** The workspace's recorded host and directory (labels from the store, not proof). */
  host: string;
  dir: string;
}

/**
 * The data of a commit the caller should retry from a fresh head: another
 * process moved the workspace head, or GC took an object it meant to reuse.
 */
export const RETRY = 'retry';
