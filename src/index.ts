export type { BlobStore } from './blob/blob-store.js';
export { FsBlobStore } from './blob/fs/fs-blob-store.js';
export { connect, RemoteFabric } from './client/remote-fabric.js';
export {
  type CheckpointResult,
  Desk,
  type DeskOptions,
  type GcReport,
  type MergeResult,
  type RestorePreview,
  type RestoreResult,
  type VerifyReport,
} from './desk/desk.js';
export type { DiffItem } from './desk/diff.js';
export type { SecretFinding, SecretPolicy } from './desk/guard.js';
export type { MergeConflict } from './desk/merge.js';
export type { Snapshot, Workspace } from './desk/rows.js';
export { EmbeddedFabric } from './embedded-fabric.js';
export { CairnError, type CairnErrorJSON, ERROR_CODES, type ErrorCode, isCairnError } from './errors.js';
export type { Fabric } from './fabric.js';
export { MasterKey } from './keys/crypto.js';
export {
  type Allow,
  type ApprovalPolicy,
  decide,
  type Grant,
  type GrantMode,
  type GrantRequest,
  type GrantState,
  grantState,
} from './keys/grants.js';
export {
  type Approval,
  type Credential,
  type CredentialKind,
  type Handle,
  Keys,
  type ProxyDecision,
} from './keys/keys.js';
export {
  APPROVAL_HEADER,
  HANDLE_HEADER,
  type ProxyOptions,
  type RunningProxy,
  startProxy,
} from './keys/proxy.js';
export type {
  AppendInput,
  CreateSessionInput,
  CreateTokenInput,
  ForkInput,
  ListSessionsInput,
  ReadBranchInput,
  RewindInput,
} from './schema.js';
export {
  Journal,
  type ProbeAnswer,
  STEP_EVENT,
  type StepContext,
  StepFailed,
  type StepOptions,
  type StepPolicy,
  type StepRecord,
} from './steps/journal.js';
export type { Engine, EngineCapabilities, SqlExecutor } from './storage/engine.js';
export { CURRENT_FORMAT_VERSION } from './storage/migrations.js';
export { SqliteEngine } from './storage/sqlite/sqlite-engine.js';
export { openFabric, Store } from './store.js';
export type * from './types.js';
export { type ExecResult, execInWorkspace } from './unit/exec.js';
export { type CheckResult, type UnitCheckpoint, type UnitRestorePreview, Units } from './unit/unit.js';
