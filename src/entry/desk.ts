/** `cairn/desk`: workspaces — snapshots, restore, forks, diff, merge, the secret guard. */

export { RemoteDeskStore, remoteDesk } from '../client/remote-desk-store.js';
export {
  type CheckpointResult,
  Desk,
  type DeskOptions,
  type GcReport,
  type MergeResult,
  type RestorePreview,
  type RestoreResult,
  type VerifyReport,
} from '../desk/desk.js';
export type { CommitAnswer, CommitInput, DeskStore, ForkInput } from '../desk/desk-store.js';
export type { DiffItem } from '../desk/diff.js';
export type { SecretFinding, SecretPolicy } from '../desk/guard.js';
export { LocalDeskStore } from '../desk/local-store.js';
export type { MergeConflict } from '../desk/merge.js';
export type { Snapshot, Workspace } from '../desk/rows.js';
