/**
 * The remote client's transport over `fetch`: what a browser has (and Node
 * 20, and other runtimes). The runtime owns the connections, so nothing is
 * sent twice here: a request that got no answer is a TransportFailure, for the
 * client to call UNAVAILABLE (a read) or IN_DOUBT (a write).
 */
import {
  neverConnected,
  type Transport,
  TransportFailure,
  type WireAnswer,
  type WireRequest,
} from './transport.js';

/** The `fetch` a transport calls: the global one unless another is given (a test's, a runtime's). */
export type FetchFunction = (url: string, init: RequestInit) => Promise<Response>;

export class FetchTransport implements Transport {
  /** `timeoutMs`: how long one request may go without its whole answer. */
  constructor(
    private readonly timeoutMs: number,
    private readonly fetchFunction: FetchFunction = (url, init) => fetch(url, init),
  ) {}

  async send(request: WireRequest): Promise<WireAnswer> {
    try {
      const response = await this.fetchFunction(request.url, {
        method: request.method,
        headers: request.headers,
        ...(request.body === undefined ? {} : { body: (await wholeBody(request.body)) as BodyInit }),
        signal: AbortSignal.timeout(this.timeoutMs),
        // A bearer token, never cookies: nothing ambient rides along to another origin.
        credentials: 'omit',
        // An answer is never a cached one: the log moves.
        cache: 'no-store',
      });
      return {
        status: response.status,
        type: response.headers.get('content-type') ?? '',
        headers: Object.fromEntries(response.headers),
        body: new Uint8Array(await response.arrayBuffer()),
      };
    } catch (error) {
      const name = (error as { name?: string }).name;
      const refused = neverConnected(error);
      const detail =
        name === 'TimeoutError'
          ? `no answer within ${this.timeoutMs} ms`
          : name === 'TypeError' && !refused
            ? // A browser says only "Failed to fetch", whether the network failed or the server refused the page's origin.
              `${(error as Error).message}; a page on another origin needs the server to allow it: cairn serve --cors-origin ORIGIN`
            : error instanceof Error
              ? error.message
              : String(error);
      throw new TransportFailure(detail, refused, { cause: error });
    }
  }

  /** The runtime owns fetch's connections: nothing to let go of. */
  async close(): Promise<void> {}
}

/**
 * A stream, gathered: a browser streams a request body only over HTTP/2 (and
 * with `duplex: 'half'`), so over fetch a streamed upload is sent whole.
 */
async function wholeBody(
  body: string | Uint8Array | AsyncIterable<Uint8Array>,
): Promise<string | Uint8Array> {
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  const pieces: Uint8Array[] = [];
  let length = 0;
  for await (const piece of body) {
    pieces.push(piece);
    length += piece.length;
  }
  const whole = new Uint8Array(length);
  let at = 0;
  for (const piece of pieces) {
    whole.set(piece, at);
    at += piece.length;
  }
  return whole;
}
