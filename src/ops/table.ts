import { AUDIT_HANDLERS } from '../audit/handlers.js';
import type { BlobStore } from '../blob/blob-store.js';
import { CONTRACT, type Contract } from '../contract/index.js';
import { type HttpBinding, opTitle } from '../contract/spec.js';
import { DESK_HANDLERS } from '../desk/handlers.js';
import { LocalDeskStore } from '../desk/local-store.js';
import { unavailable } from '../errors.js';
import type { Fabric } from '../fabric.js';
import { IDENTITY_HANDLERS } from '../identity/handlers.js';
import type { MasterKey } from '../keys/crypto.js';
import { KEYS_HANDLERS } from '../keys/handlers.js';
import { Keys } from '../keys/keys.js';
import { LOG_HANDLERS } from '../log/handlers.js';
import { MEMORY_HANDLERS } from '../memory/handlers.js';
import type { TrustPolicy } from '../memory/memory.js';
import type { EmbeddingFunction } from '../memory/vectors.js';
import { STEP_HANDLERS } from '../steps/handlers.js';
import type { Engine } from '../storage/engine.js';
import type { Identity } from '../types.js';
import { UNIT_AT_CALLER, UNIT_HANDLERS } from '../unit/handlers.js';
import { parseInput } from '../validate.js';
import { type CallerSide, type Op, type OpContext, runOp, withHandlers } from './op.js';

/** The contract with every feature's handlers registered: what the server side runs. */
// The contract's type given, not inferred: the caller's side (its units, over a fabric) refers back to it.
export const OPERATIONS = withHandlers<Contract>(
  CONTRACT,
  {
    ...IDENTITY_HANDLERS,
    ...LOG_HANDLERS,
    ...AUDIT_HANDLERS,
    ...KEYS_HANDLERS,
    ...DESK_HANDLERS,
    ...STEP_HANDLERS,
    ...MEMORY_HANDLERS,
    ...UNIT_HANDLERS,
  },
  UNIT_AT_CALLER,
);
export type Operations = typeof OPERATIONS;

/** What a context may carry besides engine and identity. */
export interface ContextOptions {
  /** On the caller's machine: the unit over a local desk. */
  caller?: CallerSide;
  /** The vault master key the operator gave (to seal or open credential values). */
  masterKey?: MasterKey;
  /** The store's blobs: the desk's packs live there. */
  blobs?: BlobStore;
  /** The trust tier each memory source's records arrive with (default: memory.ts DEFAULT_TRUST). */
  memoryPolicy?: TrustPolicy;
  /** The user's embedding function for memory's vectors (SQLite with sqlite-vec). */
  memoryEmbedding?: EmbeddingFunction;
}

/** The context operations run in, for one identity over one engine. */
export function opContext(engine: Engine, who: Identity, options: ContextOptions = {}): OpContext {
  const { caller, masterKey, blobs, memoryPolicy, memoryEmbedding } = options;
  let keys: Keys | null = null;
  let desk: LocalDeskStore | null = null;
  return {
    who,
    engine,
    caller,
    memoryPolicy,
    memoryEmbedding,
    write: (fn) => engine.write(who.tenant, (tx) => fn(tx, Date.now())),
    read: (fn) => engine.read(who.tenant, fn),
    keys: () => {
      keys ??= new Keys({ engine, who, masterKey });
      return keys;
    },
    desk: () => {
      if (!blobs)
        throw unavailable("this fabric was opened without the store's blobs: open it with Store.fabric", {});
      desk ??= new LocalDeskStore(engine, blobs, who);
      return desk;
    },
  };
}

/**
 * A fabric that is not embedded (a server's), with the operations that run
 * at the caller (the unit's) running here, over the caller's side, and those
 * with a step the caller's side settles first (a workspace named by its
 * directory) settled here, then sent: what `cairn mcp --url` serves.
 */
export function withCallerOps(fabric: Fabric, caller: CallerSide): Fabric {
  // The unit's operations act through `caller` only; the store is the server's, reached through `fabric`.
  const elsewhere = (): never => {
    throw unavailable("the store is a server's: reach it through the fabric", {});
  };
  const ctx: OpContext = {
    get who(): Identity {
      return elsewhere();
    },
    get engine(): Engine {
      return elsewhere();
    },
    caller,
    read: elsewhere,
    write: elsewhere,
    keys: elsewhere,
    desk: elsewhere,
  };
  const operations = Object.values(OPERATIONS) as Op[];
  const there = fabric as unknown as Record<string, (input: unknown) => Promise<unknown>>;
  const here = Object.fromEntries([
    ...operations
      .filter((o) => o.runs === 'caller')
      .map((o) => [o.name, (input?: unknown) => runOp(o, ctx, input)]),
    ...operations
      .filter((o) => o.runs === 'anywhere' && o.atCaller)
      .map((o) => [
        o.name,
        async (input?: unknown) => {
          const valid = parseInput(o.input, input ?? {}, opTitle(o.name));
          return (there[o.name] as (input: unknown) => Promise<unknown>)(
            await (o.atCaller as NonNullable<Op['atCaller']>)(caller, valid),
          );
        },
      ]),
  ]);
  return { ...fabric, ...here, close: () => fabric.close() } as Fabric;
}

/** Operations served over HTTP: those that run anywhere (each has its route). */
export function servedOps(): (Op & { http: HttpBinding })[] {
  return (Object.values(OPERATIONS) as Op[]).filter(
    (o): o is Op & { http: HttpBinding } => o.runs === 'anywhere' && o.http !== undefined,
  );
}
