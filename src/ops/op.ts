/**
 * One operation of Cairn, declared once. Every surface derives from the
 * declaration: the HTTP route (method, path, status; path fields from the
 * path template, the rest from the query on GET and the JSON body on POST),
 * the OpenAPI document (input, output and error schemas), the remote
 * client's method, the embedded fabric's method, and the CLI's validation.
 *
 * `run` is the library call, made with the caller's identity after the input
 * was validated against `input` — once, at whichever edge the call came in.
 */

import type { z } from 'zod';
import type { AuditAction } from '../audit/actions.js';
import { actorChain, appendAudit } from '../audit/audit-chain.js';
import type { AuditKey } from '../audit/note.js';
import type { BlobStore } from '../blob/blob-store.js';
import { type Callers, type Client, type OpSpec, opTitle, type SpecTable } from '../contract/spec.js';
import type { CheckpointResult } from '../desk/desk.js';
import type { Workspace } from '../desk/rows.js';
import { type CairnError, forbidden } from '../errors.js';
import type { Fabric } from '../fabric.js';
import { authorize } from '../identity/access-gate.js';
import type { SessionId } from '../ids.js';
import type { MasterKey } from '../keys/crypto.js';
import type { TrustPolicy } from '../memory/memory.js';
import type { EmbeddingFunction } from '../memory/vectors.js';
import type { Engine, SqlExecutor } from '../storage/engine.js';
import type { Identity } from '../types.js';
import type { Units } from '../unit/unit.js';
import { parseInput } from '../validate.js';

/**
 * What operations that run where the workspace is need (`runs: 'caller'`):
 * the unit of work over a local desk, and the caller's workspace.
 */
export interface CallerSide {
  readonly units: Units;
  /** The store's operations as the caller (local, or a server's): what a caller-side step hands on to the store. */
  readonly fabric: Fabric;
  /** A workspace by id or directory; left out, the caller's own (e.g. where `cairn mcp` started). */
  workspace(ref?: string): Promise<Workspace>;
  /**
   * Attaches a directory of this host (a relative one is the caller's to
   * resolve: `cairn mcp` takes it from where it started) to a session branch.
   */
  attach(input: {
    dir: string;
    session?: SessionId;
    branch?: string;
  }): Promise<{ workspace: Workspace; checkpoint: CheckpointResult }>;
}

/** What an operation's handler acts through: the caller's identity over one engine. */
export interface OpContext {
  readonly who: Identity;
  readonly engine: Engine;
  /** A write transaction in the caller's tenant (the gate allowed the operation's `access` before the handler ran). */
  write<T>(fn: (tx: SqlExecutor, now: number) => Promise<T>): Promise<T>;
  /** A read transaction in the caller's tenant. */
  read<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /** The vault master key the operator gave, if any (to seal or open credential values). */
  readonly masterKey?: MasterKey;
  /** The operator's audit signing key, if one was given (audit/signing-key.ts). */
  readonly auditKey?: AuditKey;
  /** The store's blobs, where the fabric was opened with them (the desk's packs live there). */
  readonly blobs?: BlobStore;
  /** A store in a folder: the desk's state there (stat caches, overlay layers), which an erasure cleans. */
  readonly deskStateDir?: string;
  /**
   * The one instance of what `make` builds for this context, made on first
   * use: how a feature keeps its service over the caller (the keys, the
   * desk's store side) without this layer knowing of it.
   */
  once<T>(key: object, make: () => T): T;
  /** Present only on the caller's own machine (a local store with a desk). */
  readonly caller?: CallerSide;
  /** The store's memory policy: the trust tier each source's records arrive with. */
  readonly memoryPolicy?: TrustPolicy;
  /** The embedding function memory's vectors come from (the user's), if any. */
  readonly memoryEmbedding?: EmbeddingFunction;
}

/** An operation: its contract and its handler (what the server side runs). */
export interface Op<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> extends OpSpec<I, O> {
  run(ctx: OpContext, input: z.output<I>): Promise<z.output<O>>;
  /**
   * What the caller's side settles before an operation that runs anywhere
   * goes to the store, where there is one (`OpContext.caller`, or
   * `withCallerOps` in front of a server): a workspace named by its
   * directory, or left out for the caller's own, becomes its id.
   */
  atCaller?(caller: CallerSide, input: z.output<I>): Promise<z.output<I>>;
}

/** The handlers of a contract: one per operation, typed by its input and output. */
export type Handlers<C extends SpecTable> = {
  [K in keyof C]: (ctx: OpContext, input: z.output<C[K]['input']>) => Promise<z.output<C[K]['output']>>;
};

/** What the caller's side settles first, for the operations of a contract that have such a step (Op.atCaller). */
export type AtCaller<C extends SpecTable> = {
  [K in keyof C]?: (caller: CallerSide, input: z.output<C[K]['input']>) => Promise<z.output<C[K]['input']>>;
};

/** A contract with its handlers registered: the operations a server side runs. */
export type Bound<C extends SpecTable> = { [K in keyof C]: C[K] & { run: Handlers<C>[K] } };

/**
 * A feature's handlers, or how to load them: a loader runs on the first call
 * of one of its operations, so a process loads only the features it uses
 * (a CLI command, one; a server, each as it is called).
 */
export type HandlerSource<C extends SpecTable> = Handlers<C> | (() => Promise<Handlers<C>>);

/** Registers `handlers` (and the steps `atCaller` settles first) against `contract`, checked by the types. */
export function withHandlers<C extends SpecTable>(
  contract: C,
  handlers: HandlerSource<C>,
  atCaller: AtCaller<C> = {},
): Bound<C> {
  let loading: Promise<Handlers<C>> | undefined;
  const handlerOf = (name: string): Op['run'] => {
    if (typeof handlers !== 'function') return handlers[name] as Op['run'];
    return async (ctx, input) => {
      loading ??= handlers();
      return ((await loading)[name] as Op['run'])(ctx, input);
    };
  };
  const bound: Record<string, Op> = {};
  for (const [name, declared] of Object.entries(contract)) {
    const settle = atCaller[name] as Op['atCaller'];
    bound[name] = { ...declared, run: handlerOf(name), ...(settle ? { atCaller: settle } : {}) };
  }
  return bound as Bound<C>;
}

/** A table of operations by name. */
export type OpTable = Record<string, Op>;

const CALLERS_SAY: Record<Exclude<Callers, 'any'>, string> = {
  person: 'a person (a user principal; never an agent or a service)',
  admin: 'an admin of the tenant',
  'person-admin': 'a person who is an admin of the tenant (never an agent or a service)',
};

/** Whether `who` is among an operation's callers. */
export function mayCall(callers: Callers, who: Identity): boolean {
  if (callers === 'any') return true;
  const person = who.kind === 'user';
  const admin = who.role === 'admin';
  return callers === 'person' ? person : callers === 'admin' ? admin : person && admin;
}

/**
 * The gate of the table: refuses a caller the operation does not declare,
 * with an audit entry of the refusal (the only thing it writes), and an
 * action (`access`) the caller's role does not allow, before the input is read.
 */
async function gate(operation: Op, ctx: OpContext): Promise<void> {
  if (operation.callers === 'any' || mayCall(operation.callers, ctx.who)) {
    // An operation at the caller's side (the unit's) acts through the store's operations, each gated there.
    if (operation.runs === 'anywhere') authorize(ctx.who, operation.access);
    return;
  }
  const { who } = ctx;
  return refuseAudited(
    ctx,
    {
      action: 'authority.refused',
      resourceType: 'operation',
      resourceId: operation.name,
      payload: { operation: operation.name, callers: operation.callers, kind: who.kind, role: who.role },
    },
    forbidden(
      `only ${CALLERS_SAY[operation.callers]} may ${opTitle(operation.name)}: principal ${who.principal} is ${who.kind === 'agent' ? 'an' : 'a'} ${who.kind} with role ${who.role}; ask one to run it with their own token`,
      { operation: operation.name, callers: operation.callers, principal: who.principal },
    ),
  );
}

/**
 * Refuses a call that concerns authority: records the refusal in the
 * caller's audit chain (in a transaction that writes nothing else), then
 * rejects with `error`.
 */
export async function refuseAudited(
  ctx: OpContext,
  entry: { action: AuditAction; resourceType: string; resourceId: string; payload: Record<string, unknown> },
  error: CairnError,
): Promise<never> {
  const { who } = ctx;
  await ctx.engine.write(who.tenant, (tx) =>
    appendAudit(tx, {
      tenant: who.tenant,
      actor: who.principal,
      chain: actorChain(who),
      ...entry,
      at: Date.now(),
    }),
  );
  throw error;
}

/**
 * Checks the caller against the operation's declared callers, validates
 * `input` against its schema (the one validation of a call), lets the
 * caller's side settle it where there is one, and runs it; a refusal or bad
 * input rejects the promise, never throws.
 */
export async function runOp<T extends Op>(
  operation: T,
  ctx: OpContext,
  input: unknown,
): Promise<z.output<T['output']>> {
  await gate(operation, ctx);
  let valid = parseInput(operation.input, input ?? {}, opTitle(operation.name));
  if (operation.atCaller && ctx.caller) valid = await operation.atCaller(ctx.caller, valid);
  return operation.run(ctx, valid) as Promise<z.output<T['output']>>;
}

/** The table's methods bound to one context: what the embedded fabric is. */
export function bindOps<T extends OpTable>(table: T, ctx: OpContext): Client<T> {
  const methods: Record<string, (input?: unknown) => Promise<unknown>> = {};
  for (const [name, operation] of Object.entries(table))
    methods[name] = (input) => runOp(operation, ctx, input);
  return methods as Client<T>;
}
