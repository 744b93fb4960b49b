/**
 * `cairn`: the fabric — a store, the session log and identity through one
 * interface, embedded (`openFabric`, `Store`) or remote (`connect`). Features
 * have their own entry points: `cairn/desk`, `cairn/keys`, `cairn/proxy`,
 * `cairn/steps`, `cairn/mcp`, `cairn/server`, `cairn/postgres`,
 * `cairn/testing`.
 */
export type { BlobStore } from './blob/blob-store.js';
export { FsBlobStore } from './blob/fs/fs-blob-store.js';
export { connect } from './client/connect.js';
export { RemoteFabric } from './client/remote-fabric.js';
export { EmbeddedFabric } from './embedded-fabric.js';
export { CairnError, type CairnErrorJSON, ERROR_CODES, type ErrorCode, isCairnError } from './errors.js';
export type { Fabric } from './fabric.js';
export { OPERATIONS, type Operations } from './ops/table.js';
export type {
  AppendInput,
  CreateSessionInput,
  CreateTokenInput,
  ForkInput,
  ListSessionsInput,
  ReadBranchInput,
  RewindInput,
} from './schema.js';
export type { Engine, EngineCapabilities, SqlExecutor } from './storage/engine.js';
export { CURRENT_FORMAT_VERSION } from './storage/migrations.js';
export { SqliteEngine } from './storage/sqlite/sqlite-engine.js';
export { openFabric, Store } from './store.js';
export type * from './types.js';
