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
import { appendAudit } from '../audit/audit-chain.js';
import type { LocalDeskStore } from '../desk/local-store.js';
import type { Workspace } from '../desk/rows.js';
import { type CairnError, forbidden, unavailable } from '../errors.js';
import type { Action } from '../identity/access-gate.js';
import type { Keys } from '../keys/keys.js';
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
  /** A workspace by id or directory; left out, the caller's own (e.g. where `cairn mcp` started). */
  workspace(ref?: string): Promise<Workspace>;
}

/** What an operation's handler acts through: the caller's identity over one engine. */
export interface OpContext {
  readonly who: Identity;
  readonly engine: Engine;
  /** A write transaction in the caller's tenant, after the access gate allowed `action`. */
  write<T>(action: Action, fn: (tx: SqlExecutor, now: number) => Promise<T>): Promise<T>;
  /** A read transaction in the caller's tenant, after the access gate allowed `action`. */
  read<T>(action: Action, fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /** The keys as the caller, with the master key where the operator gave one (to seal or open values). */
  keys(): Keys;
  /** The store side of the desk as the caller (objects, packs, snapshots, workspace records). */
  desk(): LocalDeskStore;
  /** Present only on the caller's own machine (a local store with a desk). */
  readonly caller?: CallerSide;
  /** The store's memory policy: the trust tier each source's records arrive with. */
  readonly memoryPolicy?: TrustPolicy;
  /** The embedding function memory's vectors come from (the user's), if any. */
  readonly memoryEmbedding?: EmbeddingFunction;
}

export interface HttpBinding {
  method: 'GET' | 'POST' | 'PUT';
  /** Path with `{field}` for input fields that travel in the path, e.g. `/v1/sessions/{session}`. */
  path: string;
  /** Success status; default 200. */
  status?: number;
  /** `bytes`: the body is raw bytes (application/octet-stream), the input field `bytes`; default JSON. */
  body?: 'bytes';
  /** `bytes`: the answer is a list of byte strings, each a u32 BE length and its bytes (application/octet-stream). */
  answer?: 'bytes';
  /** The largest body this route takes, when it is not the server's default. */
  maxBodyBytes?: number;
}

/**
 * Who may call an operation, derived from the caller's token, never from its input:
 * `any` principal of the tenant (the handler's own checks still apply), a
 * `person` (a user principal: never an agent or a service, whatever its role),
 * an `admin` (role admin), or a `person-admin` (a user principal with role admin).
 */
export type Callers = 'any' | 'person' | 'admin' | 'person-admin';

export interface Op<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  /** The method name on the fabric and the remote client. */
  name: string;
  /** What it does, in a line (OpenAPI summary, MCP description). */
  summary: string;
  effect: 'read' | 'write';
  /** Who may call it: checked once, in `runOp`, before its input is read (docs/design/operations.md). */
  callers: Callers;
  /**
   * Where it can run: `anywhere` (any surface, through the store), or
   * `caller` when it needs the caller's own machine (a directory to attach, a
   * command to run) and is refused over HTTP and MCP.
   */
  runs: 'anywhere' | 'caller';
  input: I;
  output: O;
  /** The HTTP route; left out for operations that run only where the caller is. */
  http?: HttpBinding;
  /**
   * The MCP tool name, for operations an agent calls for itself. Left out of
   * MCP on purpose: a person's decisions (approve, deny), token and grant
   * administration — an agent must not approve its own writes.
   */
  mcp?: string;
  /** What the MCP tool offers and takes when narrower than `input` (only what an agent may say). */
  mcpInput?: z.ZodType;
  /** The caller's token checks cached by a server must be dropped after it (a token revocation). */
  invalidatesAuth?: boolean;
  /** A success status that depends on the result (an append answered from its idempotency key: 200). */
  statusOf?: (output: z.output<O>) => number;
  run(ctx: OpContext, input: z.output<I>): Promise<z.output<O>>;
}

/** Declares an operation (the identity function, for inference of its input and output types). */
export function op<I extends z.ZodType, O extends z.ZodType>(spec: Op<I, O>): Op<I, O> {
  return spec;
}

/** A table of operations by name. */
export type OpTable = Record<string, Op>;

// `{}` as the empty input: a method whose input has no required field may be called without one.
// biome-ignore lint/complexity/noBannedTypes: the test is for an object type with no required keys.
type Method<T extends Op> = {} extends z.input<T['input']>
  ? (input?: z.input<T['input']>) => Promise<z.output<T['output']>>
  : (input: z.input<T['input']>) => Promise<z.output<T['output']>>;

/** The interface a table gives its callers, embedded or remote: one method per operation. */
export type Client<T extends OpTable> = { [K in keyof T]: Method<T[K]> };

/** The refusal of an operation that runs only where the workspace is, asked somewhere else. */
export function runsAtCaller(command: string): CairnError {
  return unavailable(
    `${command} runs where the workspace is: use \`cairn ${command}\` or \`cairn mcp\` on the host that holds the directory (with --url when the store is a server's)`,
    { runs: 'caller' },
  );
}

/** "createSession" → "create session": how an operation is named in messages. */
export function opTitle(name: string): string {
  return name.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`);
}

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
 * with an audit entry of the refusal (the only thing it writes), before the
 * input is read.
 */
async function gate(operation: Op, ctx: OpContext): Promise<void> {
  if (operation.callers === 'any' || mayCall(operation.callers, ctx.who)) return;
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
  entry: { action: string; resourceType: string; resourceId: string; payload: Record<string, unknown> },
  error: CairnError,
): Promise<never> {
  const { who } = ctx;
  await ctx.engine.write(who.tenant, (tx) =>
    appendAudit(tx, { tenant: who.tenant, actor: who.principal, ...entry, at: Date.now() }),
  );
  throw error;
}

/**
 * Checks the caller against the operation's declared callers, validates
 * `input` against its schema (the one validation of a call) and runs it;
 * a refusal or bad input rejects the promise, never throws.
 */
export async function runOp<T extends Op>(
  operation: T,
  ctx: OpContext,
  input: unknown,
): Promise<z.output<T['output']>> {
  await gate(operation, ctx);
  return operation.run(ctx, parseInput(operation.input, input ?? {}, opTitle(operation.name))) as Promise<
    z.output<T['output']>
  >;
}

/** The table's methods bound to one context: what the embedded fabric is. */
export function bindOps<T extends OpTable>(table: T, ctx: OpContext): Client<T> {
  const methods: Record<string, (input?: unknown) => Promise<unknown>> = {};
  for (const [name, operation] of Object.entries(table))
    methods[name] = (input) => runOp(operation, ctx, input);
  return methods as Client<T>;
}
