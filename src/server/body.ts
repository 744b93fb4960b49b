/**
 * Request bodies: read whole (bounded, their bytes taken from the server's
 * BodyBudget first) or streamed to the handler as they arrive (a `stream`
 * route: bounded as they flow, holding a fixed share of the budget).
 */
import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';
import { STREAM_HOLD_BYTES } from '../contract/spec.js';
import { CairnError, invalidArgument, payloadTooLarge } from '../errors.js';
import type { Identity } from '../types.js';
import type { BodyBudget } from './body-budget.js';

/** Bytes a request's body took from the budget for its owner (the tenant), given back when the request ends. */
export interface Lease {
  bytes: number;
  owner: string;
}

export type Env = { Bindings: Partial<HttpBindings>; Variables: { who: Identity; lease: Lease } };

function tooLarge(limit: number): CairnError {
  return payloadTooLarge(
    `the request body is over ${limit} bytes: send less, or store large content as a blob`,
    {
      limit,
    },
  );
}

/**
 * The body, at most `limit` bytes, its bytes taken from `budget` before they
 * are held (the declared length up front, else chunk by chunk) and recorded in
 * `lease`. Read straight from Node's request stream into one buffer of the
 * declared length: building a web Request for it costs more than the append itself.
 */
export async function readBody(c: Context<Env>, limit: number, budget: BodyBudget): Promise<Buffer> {
  const incoming = c.env?.incoming;
  const lease = c.var.lease;
  const declared = c.req.header('content-length');
  const length = declared === undefined ? undefined : Number(declared);
  if (length !== undefined && length > limit) {
    incoming?.resume();
    throw tooLarge(limit);
  }
  // The tenant, from the token (every route that reads a body authenticates first).
  lease.owner = c.var.who?.tenant ?? '';
  const take = (bytes: number) => {
    budget.take(bytes, lease.owner);
    lease.bytes += bytes;
  };
  if (length !== undefined) {
    try {
      take(length);
    } catch (error) {
      incoming?.resume();
      throw error;
    }
  }
  if (!incoming) {
    const bytes = Buffer.from(await c.req.arrayBuffer());
    if (bytes.length > limit) throw tooLarge(limit);
    if (length === undefined) take(bytes.length);
    return bytes;
  }
  return new Promise((resolve, reject) => {
    // With a declared length, one buffer of that size; without, chunks taken from the budget as they come.
    const whole = length !== undefined ? Buffer.allocUnsafe(length) : undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (error: CairnError) => {
      incoming.off('data', onData);
      incoming.resume();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      if (size + chunk.length > (length ?? limit)) {
        stop(
          length === undefined
            ? tooLarge(limit)
            : invalidArgument('the request body is longer than its Content-Length'),
        );
        return;
      }
      if (whole) chunk.copy(whole, size);
      else {
        try {
          take(chunk.length);
        } catch (error) {
          stop(error as CairnError);
          return;
        }
        chunks.push(chunk);
      }
      size += chunk.length;
    };
    incoming.on('data', onData);
    incoming.on('end', () => resolve(whole ? whole.subarray(0, size) : Buffer.concat(chunks)));
    // A client that hangs up mid-body is the client's doing, not a server fault: a typed error, never logged as internal.
    const hungUp = () =>
      reject(
        invalidArgument(
          'the client closed the connection before its request body arrived: send the whole body',
          {
            received: size,
          },
        ),
      );
    incoming.on('aborted', hungUp);
    incoming.on('error', hungUp);
    incoming.on('close', () => {
      if (!incoming.complete) hungUp();
    });
  });
}

/**
 * A `stream` route's body, for its handler to read as it arrives: never held
 * whole, cut off past `limit` bytes (PAYLOAD_TOO_LARGE), and holding
 * STREAM_HOLD_BYTES of `budget` while the request runs — what its handler
 * holds of it at most — so a flood of uploads is refused as busy like any
 * other. `size`: its Content-Length, when it declares one.
 */
export function streamBody(
  c: Context<Env>,
  limit: number,
  budget: BodyBudget,
): { bytes: AsyncIterable<Uint8Array>; size?: number } {
  const declared = c.req.header('content-length');
  const size = declared === undefined ? undefined : Number(declared);
  const incoming = c.env?.incoming;
  if (size !== undefined && size > limit) {
    incoming?.resume();
    throw tooLarge(limit);
  }
  const lease = c.var.lease;
  lease.owner = c.var.who?.tenant ?? '';
  const hold = Math.min(STREAM_HOLD_BYTES, size ?? STREAM_HOLD_BYTES);
  try {
    budget.take(hold, lease.owner);
  } catch (error) {
    incoming?.resume();
    throw error;
  }
  lease.bytes += hold;
  // Left unfinished (the handler failed), the request is not destroyed: the route drains it and answers.
  const source: AsyncIterable<Uint8Array> = incoming
    ? { [Symbol.asyncIterator]: () => incoming.iterator({ destroyOnReturn: false }) }
    : ((c.req.raw.body as AsyncIterable<Uint8Array> | null) ?? (async function* () {})());
  async function* bounded() {
    let got = 0;
    try {
      for await (const piece of source) {
        got += piece.length;
        if (got > limit) throw tooLarge(limit);
        yield piece;
      }
    } catch (error) {
      if (error instanceof CairnError) throw error;
      // A client that hangs up mid-body is the client's doing: a typed error, never logged as internal.
      throw invalidArgument(
        'the client closed the connection before its request body arrived: send the whole body',
        {
          received: got,
        },
      );
    }
    if (incoming && !incoming.complete)
      throw invalidArgument(
        'the client closed the connection before its request body arrived: send the whole body',
        {
          received: got,
        },
      );
  }
  return { bytes: bounded(), ...(size === undefined ? {} : { size }) };
}
