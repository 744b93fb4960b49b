/**
 * The table of operations: every capability a surface offers is one entry
 * here. The HTTP routes (server/app.ts), the OpenAPI document
 * (server/openapi.ts), the remote client (client/remote-fabric.ts) and the
 * embedded fabric (embedded-fabric.ts) are all made from it; a test compares
 * each surface with it.
 */
import { z } from 'zod';
import type { BlobStore } from '../blob/blob-store.js';
import { LocalDeskStore } from '../desk/local-store.js';
import { unavailable } from '../errors.js';
import type { Fabric } from '../fabric.js';
import { authorize } from '../identity/access-gate.js';
import type { MasterKey } from '../keys/crypto.js';
import { Keys } from '../keys/keys.js';
import type { TrustPolicy } from '../memory/memory.js';
import type { EmbeddingFunction } from '../memory/vectors.js';
import type { Engine } from '../storage/engine.js';
import type { Identity } from '../types.js';
import { DESK_OPS } from './desk-ops.js';
import { KEYS_OPS } from './keys-ops.js';
import { LOG_OPS } from './log-ops.js';
import { MEMORY_OPS } from './memory-ops.js';
import { type CallerSide, type HttpBinding, type Op, type OpContext, type OpTable, runOp } from './op.js';
import { STEP_OPS } from './step-ops.js';
import { UNIT_OPS } from './unit-ops.js';

export const OPERATIONS = {
  ...LOG_OPS,
  ...KEYS_OPS,
  ...DESK_OPS,
  ...STEP_OPS,
  ...MEMORY_OPS,
  ...UNIT_OPS,
} satisfies OpTable;
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
    write(action, fn) {
      authorize(who, action);
      return engine.write(who.tenant, (tx) => fn(tx, Date.now()));
    },
    read(action, fn) {
      authorize(who, action);
      return engine.read(who.tenant, fn);
    },
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
 * at the caller (the unit's) running here, over the caller's side: what
 * `cairn mcp --url` serves.
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
  const here = Object.fromEntries(
    (Object.values(OPERATIONS) as Op[])
      .filter((o) => o.runs === 'caller')
      .map((o) => [o.name, (input?: unknown) => runOp(o, ctx, input)]),
  );
  return { ...fabric, ...here, close: () => fabric.close() } as Fabric;
}

/** Operations served over HTTP: those that run anywhere (each has its route). */
export function servedOps(): (Op & { http: HttpBinding })[] {
  return (Object.values(OPERATIONS) as Op[]).filter(
    (o): o is Op & { http: HttpBinding } => o.runs === 'anywhere' && o.http !== undefined,
  );
}

interface JsonObjectSchema {
  properties?: Record<string, { type?: string; default?: unknown }>;
  required?: string[];
}

const inputSchemas = new WeakMap<Op, JsonObjectSchema>();

/** The JSON schema of an operation's input (as a caller writes it: defaults optional), cached. */
export function inputJsonSchema(operation: Op): JsonObjectSchema {
  let json = inputSchemas.get(operation);
  if (!json) {
    json = z.toJSONSchema(operation.input, { io: 'input', unrepresentable: 'any' }) as JsonObjectSchema;
    inputSchemas.set(operation, json);
  }
  return json;
}

/** Names of the input fields an operation takes from its path, in order. */
export function pathFieldsOf(operation: Op): string[] {
  return [...(operation.http?.path ?? '').matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
}

/** Input fields that are numbers (query strings carry them as text). */
export function numericFields(operation: Op): string[] {
  const properties = inputJsonSchema(operation).properties ?? {};
  return Object.keys(properties).filter((k) => ['integer', 'number'].includes(properties[k]?.type ?? ''));
}
