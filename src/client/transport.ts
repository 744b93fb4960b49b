/**
 * How the remote client's requests travel: one request out, its answer
 * back. The client (remote-fabric.ts) maps operations to requests and
 * answers to results or typed errors once; a transport only carries them —
 * node:http with keep-alive (node-transport.ts) or `fetch` (fetch-transport.ts).
 */

/** One HTTP request of the remote client, ready to send. */
export interface WireRequest {
  method: 'GET' | 'POST' | 'PUT';
  /** The whole URL: the server's base, the operation's path and its query. */
  url: string;
  headers: Record<string, string>;
  /**
   * JSON text, or raw bytes (sent as application/octet-stream), or a stream
   * of bytes (sent as it is read, chunked; never `safe`: it cannot be sent twice).
   */
  body?: string | Uint8Array | AsyncIterable<Uint8Array>;
  /**
   * Sending it twice does what sending it once does (a read, a PUT of content
   * named by its digest, a write carrying an idempotency key): a transport may
   * send it again when it knows the first copy never reached the server.
   */
  safe: boolean;
}

/** What came back: the status, the content type and the whole body. */
export interface WireAnswer {
  status: number;
  type: string;
  body: Uint8Array;
  /** The answer's headers, by lower-case name (those a `content` answer carries: see HttpBinding). */
  headers: Record<string, string>;
}

export interface Transport {
  /** Resolves with the answer; rejects with a TransportFailure when no answer came. */
  send(request: WireRequest): Promise<WireAnswer>;
  /** Lets go of what the transport holds (pooled connections). */
  close(): Promise<void>;
}

/**
 * A request that got no answer. `neverSent`: the transport knows it never
 * reached the server (the connection was refused, the name did not resolve);
 * otherwise it may have been applied.
 */
export class TransportFailure extends Error {
  constructor(
    message: string,
    readonly neverSent: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'TransportFailure';
  }
}

/** System error codes that say a connection was never made, so nothing was sent. */
const NEVER_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

/** Whether an error (or the error it wraps, as fetch's does) says the connection was never made. */
export function neverConnected(error: unknown): boolean {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 3; depth++) {
    if (typeof e.code === 'string' && NEVER_CONNECTED.has(e.code)) return true;
    e = e.cause as typeof e;
  }
  return false;
}
