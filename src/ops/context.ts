import type { AuditKey } from '../audit/note.js';
import type { BlobStore } from '../blob/blob-store.js';
import type { MasterKey } from '../keys/crypto.js';
import type { TrustPolicy } from '../memory/memory.js';
import type { EmbeddingFunction } from '../memory/vectors.js';
import type { Engine } from '../storage/engine.js';
import type { Identity } from '../types.js';
import type { CallerSide, OpContext } from './op.js';

/** What a context may carry besides engine and identity. */
export interface ContextOptions {
  /** On the caller's machine: the unit over a local desk. */
  caller?: CallerSide;
  /** The vault master key the operator gave (to seal or open credential values). */
  masterKey?: MasterKey;
  /** The operator's audit signing key (kept out of the store), if one was given. */
  auditKey?: AuditKey;
  /** The store's blobs: the desk's packs live there. */
  blobs?: BlobStore;
  /** A store in a folder: the desk's state there (stat caches, overlay layers), which an erasure cleans. */
  deskStateDir?: string;
  /** The trust tier each memory source's records arrive with (default: memory.ts DEFAULT_TRUST). */
  memoryPolicy?: TrustPolicy;
  /** The user's embedding function for memory's vectors (SQLite with sqlite-vec). */
  memoryEmbedding?: EmbeddingFunction;
}

/** The context operations run in, for one identity over one engine. */
export function opContext(engine: Engine, who: Identity, options: ContextOptions = {}): OpContext {
  const { caller, masterKey, auditKey, blobs, deskStateDir, memoryPolicy, memoryEmbedding } = options;
  const made = new Map<object, unknown>();
  return {
    who,
    engine,
    caller,
    masterKey,
    auditKey,
    blobs,
    deskStateDir,
    memoryPolicy,
    memoryEmbedding,
    write: (fn) => engine.write(who.tenant, (tx) => fn(tx, Date.now())),
    read: (fn) => engine.read(who.tenant, fn),
    once: <T>(key: object, make: () => T): T => {
      if (!made.has(key)) made.set(key, make());
      return made.get(key) as T;
    },
  };
}
