/**
 * The remote client's transport in Node: node:http over a keep-alive agent,
 * sending a safe request once more on a fresh connection when the server had
 * closed the pooled one it went out on (test/remote-retry.test.ts).
 */
import { Agent, type ClientRequest, request as httpRequest } from 'node:http';
import { invalidArgument, isCairnError } from '../errors.js';
import {
  neverConnected,
  type Transport,
  TransportFailure,
  type WireAnswer,
  type WireRequest,
} from './transport.js';

/**
 * How long an idle keep-alive socket is kept (ms): well inside the server's
 * keep-alive timeout (65 s, server/index.ts), so the client lets go of a socket
 * before the server closes it (the server's `Keep-Alive: timeout` hint, less a second, wins when shorter).
 */
export const KEEP_ALIVE_FREE_MS = 15_000;

/** A failure on a reused keep-alive socket before any answer byte: the server had closed it. */
class StaleSocket extends Error {
  constructor(cause: unknown) {
    super('the server closed the reused connection before answering', { cause });
  }
}

export class NodeTransport implements Transport {
  // `timeout` on a keep-alive agent is also how long a free socket waits before it is closed.
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64, timeout: KEEP_ALIVE_FREE_MS });

  /** `timeoutMs`: how long one request may go without an answer. */
  constructor(private readonly timeoutMs: number) {}

  async send(request: WireRequest): Promise<WireAnswer> {
    try {
      return await this.exchange(request).catch((error: unknown) => {
        // Once, on a fresh connection: a stale socket says nothing about the server.
        if (error instanceof StaleSocket && request.safe) return this.exchange(request, true);
        throw error;
      });
    } catch (error) {
      // Not a transport's failure: the caller's content, typed as such (the server applied nothing).
      if (error instanceof SourceFailure)
        throw isCairnError(error.error) ? error.error : invalidArgument(error.message, { field: 'bytes' });
      const cause = error instanceof StaleSocket ? error.cause : error;
      throw new TransportFailure(
        cause instanceof Error ? cause.message : String(cause),
        neverConnected(cause),
        {
          cause,
        },
      );
    }
  }

  /** One HTTP exchange; `fresh`: on a connection of its own (agent false), never one from the pool. */
  private exchange(request: WireRequest, fresh = false): Promise<WireAnswer> {
    const { body } = request;
    const streamed = body !== undefined && typeof body !== 'string' && !(body instanceof Uint8Array);
    // A stream goes chunked, as it is read.
    const headers =
      body === undefined || streamed
        ? request.headers
        : {
            ...request.headers,
            'content-length': String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength),
          };
    return new Promise((resolve, reject) => {
      const outgoing = httpRequest(
        request.url,
        { method: request.method, agent: fresh ? false : this.agent, timeout: this.timeoutMs, headers },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            // Answered before the whole stream was sent (a refusal): the connection is not reused.
            if (streamed && !outgoing.writableEnded) outgoing.destroy();
            resolve({
              status: response.statusCode ?? 0,
              type: String(response.headers['content-type'] ?? ''),
              headers: Object.fromEntries(
                Object.entries(response.headers).map(([name, value]) => [name, String(value)]),
              ),
              body: Buffer.concat(chunks),
            });
          });
          response.on('error', reject);
          response.on('aborted', () => reject(new Error('the response was cut off')));
        },
      );
      outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer within ${this.timeoutMs} ms`)));
      let answered = false;
      outgoing.on('response', () => {
        answered = true;
      });
      outgoing.on('error', (error: NodeJS.ErrnoException) => {
        const reset = error.code === 'ECONNRESET' || error.code === 'EPIPE';
        reject(reset && outgoing.reusedSocket && !answered ? new StaleSocket(error) : error);
      });
      if (streamed) void sendStream(outgoing, body, () => answered);
      else outgoing.end(body);
    });
  }

  async close(): Promise<void> {
    this.agent.destroy();
  }
}

/**
 * The stream being sent failed (a file that could not be read): the request
 * was cut off before its body ended, so the server applied nothing.
 */
class SourceFailure extends Error {
  constructor(readonly error: unknown) {
    super(
      `the content being sent could not be read: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** Writes a stream as a request's body, waiting on the socket; stops early once the server has answered. */
async function sendStream(
  outgoing: ClientRequest,
  body: AsyncIterable<Uint8Array>,
  answered: () => boolean,
): Promise<void> {
  try {
    for await (const piece of body) {
      if (answered() || outgoing.destroyed) return;
      if (!outgoing.write(piece)) await drained(outgoing);
    }
    outgoing.end();
  } catch (error) {
    outgoing.destroy(outgoing.destroyed ? undefined : new SourceFailure(error));
  }
}

/** Resolves when the request can take more, rejects if it fails first. */
function drained(outgoing: ClientRequest): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (error?: Error) => {
      outgoing.off('drain', done);
      outgoing.off('error', done);
      outgoing.off('close', closed);
      if (error) reject(error);
      else resolve();
    };
    const closed = () => done(new Error('the connection closed while the body was being sent'));
    outgoing.once('drain', done);
    outgoing.once('error', done);
    outgoing.once('close', closed);
  });
}
