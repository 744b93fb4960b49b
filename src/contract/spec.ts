/**
 * The contract: each operation of Cairn as data — its name, summary, input
 * and output schemas, effect, where it runs, who may call it, its HTTP
 * binding and MCP name — apart from the code that runs it. A feature's
 * contract (`src/<feature>/contract.ts`) imports neither \`node:*\` nor a
 * handler, an engine or a driver; its handlers (`src/<feature>/handlers.ts`)
 * register against it on the server side (ops/table.ts), so a client, a
 * browser page or an adapter can take the contract alone.
 */

import type { z } from 'zod';
import { type CairnError, payloadTooLarge, unavailable } from '../errors.js';
import type { Action } from './access.js';

/**
 * The header a route whose body is raw bytes takes its other input fields
 * in: one JSON object, non-ASCII written as \uXXXX (a header is ASCII).
 */
export const INPUT_HEADER = 'cairn-input';

/** `fields` as the {@link INPUT_HEADER} header's value; PAYLOAD_TOO_LARGE past {@link MAX_INPUT_HEADER_BYTES}. */
export function inputHeaderValue(fields: Record<string, unknown>): string {
  const value = JSON.stringify(fields).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  if (value.length > MAX_INPUT_HEADER_BYTES)
    throw payloadTooLarge(
      `the fields beside the bytes take ${value.length} bytes as a header, more than ${MAX_INPUT_HEADER_BYTES}: send a shorter description, or fewer or shorter paths`,
      { limit: MAX_INPUT_HEADER_BYTES },
    );
  return value;
}

/** What an operation whose HTTP answer is `content` answers: a range of one object's bytes. */
export interface ContentAnswer {
  bytes: Uint8Array;
  /** Where `bytes` start in the object. */
  offset: number;
  /** The whole object's length. */
  size: number;
  mediaType: string;
  /** sha256 of the whole object, hex. */
  digest: string;
}

/** The most bytes one `content` answer holds: 64 MiB (a larger object is read in ranges). */
export const MAX_CONTENT_BYTES = 64 * 1024 * 1024;

/** The largest `cairn-input` header a client sends and a server takes: Node refuses headers past 16 KiB in all. */
export const MAX_INPUT_HEADER_BYTES = 12 * 1024;

/** The headers a `content` answer carries its offset and size in, beside Content-Range (which cannot say an empty range). */
export const CONTENT_OFFSET_HEADER = 'cairn-offset';
export const CONTENT_SIZE_HEADER = 'cairn-size';

/** The most of a streamed body (a `stream` route's) its handler holds at once: what the server budgets for it. */
export const STREAM_HOLD_BYTES = 48 * 1024 * 1024;

export interface HttpBinding {
  method: 'GET' | 'POST' | 'PUT';
  /** Path with `{field}` for input fields that travel in the path, e.g. `/v1/sessions/{session}`. */
  path: string;
  /** Success status; default 200. */
  status?: number;
  /**
   * `bytes`: the body is raw bytes (application/octet-stream), the input field `bytes`, the other fields in the
   * `cairn-input` header; default JSON. `stream`: the same on the wire, but never held whole: the input field
   * `bytes` is the body as it arrives (an async iterable of its pieces, cut off past `maxBodyBytes`), `size`
   * its Content-Length when it declares one, and its handler holds at most STREAM_HOLD_BYTES of it at once.
   */
  body?: 'bytes' | 'stream';
  /**
   * `bytes`: the answer is a list of byte strings, each a u32 BE length and its bytes (application/octet-stream).
   * `content`: the answer is one stored object's bytes, raw, with its headers — the output's `mediaType` as
   * Content-Type, `"digest"` as ETag, a partial answer 206 with Content-Range; the request's `Range: bytes=…`
   * header gives `offset` and `length` (the output: {@link ContentAnswer}).
   */
  answer?: 'bytes' | 'content';
  /** The largest body this route takes, when it is not the server's default. */
  maxBodyBytes?: number;
}

/**
 * An operation's command: its words, the input fields it takes as
 * positional arguments, names that differ from the field's (a flag's in
 * kebab case: a list given one value at a time, `tags` → `tag`; an
 * argument's upper-case: `to` → `EVENT`), and an example. Flags, types, defaults and help come from the input schema.
 */
export interface CliBinding {
  command: readonly string[];
  args?: readonly string[];
  flags?: Readonly<Record<string, string>>;
  /** The command list's line, when the operation's summary does not read as one. */
  summary?: string;
  example: string;
}

/**
 * Who may call an operation, derived from the caller's token, never from its input:
 * `any` principal of the tenant (the handler's own checks still apply), a
 * `person` (a user principal: never an agent or a service, whatever its role),
 * an `admin` (role admin), or a `person-admin` (a user principal with role admin).
 */
export type Callers = 'any' | 'person' | 'admin' | 'person-admin';

export interface OpSpec<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  /** The method name on the fabric and the remote client. */
  name: string;
  /** What it does, in a line (OpenAPI summary, MCP description). */
  summary: string;
  effect: 'read' | 'write';
  /** Who may call it: checked once, in `runOp`, before its input is read (docs/design/operations.md). */
  callers: Callers;
  /** What it does as the access gate sees it (contract/access.ts): checked in `runOp` before the handler runs. */
  access: Action;
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
   * The MCP tool, for operations an agent calls for itself: its name
   * (`<noun>_<verb>`: what it touches, then what it does) and a description
   * written for a model deciding what to call — what it does, when to use
   * it, what it returns, what it cannot undo. Left out of MCP on purpose: a
   * person's decisions (approve, deny), token and grant administration — an
   * agent must not approve its own writes.
   */
  mcp?: { name: string; description: string };
  /**
   * An answer that is a failure to the one who asked (a checkpoint whose
   * checks failed): what to tell them. MCP returns such an answer as a tool
   * error, with the answer as its structured content.
   */
  failureOf?(output: z.output<O>): string | undefined;
  /** The command of the `cairn` CLI that runs it (cli/derived.ts); left out where a command is hand-written or there is none. */
  cli?: CliBinding;
  /** What the MCP tool offers and takes when narrower than `input` (only what an agent may say). */
  mcpInput?: z.ZodType;
  /** The caller's token checks cached by a server must be dropped after it (a token revocation). */
  invalidatesAuth?: boolean;
  /** A success status that depends on the result (an append answered from its idempotency key: 200). */
  statusOf?(output: z.output<O>): number;
}

/** Declares an operation's contract (the identity function, for inference of its input and output types). */
export function spec<I extends z.ZodType, O extends z.ZodType>(declared: OpSpec<I, O>): OpSpec<I, O> {
  return declared;
}

/** A contract: operations by name. */
export type SpecTable = Record<string, OpSpec>;

// `{}` as the empty input: a method whose input has no required field may be called without one.
// biome-ignore lint/complexity/noBannedTypes: the test is for an object type with no required keys.
type Method<T extends OpSpec> = {} extends z.input<T['input']>
  ? (input?: z.input<T['input']>) => Promise<z.output<T['output']>>
  : (input: z.input<T['input']>) => Promise<z.output<T['output']>>;

/** The interface a contract gives its callers, embedded or remote: one method per operation. */
export type Client<T extends SpecTable> = { [K in keyof T]: Method<T[K]> };

/** "createSession" → "create session": how an operation is named in messages. */
export function opTitle(name: string): string {
  return name.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`);
}

/** The refusal of an operation that runs only where the workspace is, asked somewhere else. */
export function runsAtCaller(command: string): CairnError {
  return unavailable(
    `${command} runs where the workspace is: use \`cairn ${command}\` or \`cairn mcp\` on the host that holds the directory (with --url when the store is a server's)`,
    { runs: 'caller' },
  );
}
