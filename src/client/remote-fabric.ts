import { Agent, request as httpRequest } from 'node:http';
import type { Contract } from '../contract/index.js';
import { type Client, opTitle, runsAtCaller } from '../contract/spec.js';
import { WIRE } from '../contract/wire.js';
import type { WireOp } from '../contract/wire-of.js';
import { CairnError, type CairnErrorJSON, inDoubt, invalidArgument, unavailable } from '../errors.js';
import { toJsonText } from '../json.js';
import { unframeBytes } from '../ops/frames.js';

export interface ConnectOptions {
  /** Base URL of a `cairn serve`, e.g. http://127.0.0.1:7070 */
  url: string;
  token: string;
  /** Per-request timeout in milliseconds; default 30 s. */
  timeoutMs?: number;
}

const seg = encodeURIComponent;

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

function query(params: Record<string, string | number | undefined>): string {
  const entries = Object.entries(params).filter(([, v]) => v !== undefined) as [string, string | number][];
  return entries.length === 0
    ? ''
    : `?${new URLSearchParams(entries.map(([k, v]) => [k, String(v)])).toString()}`;
}

/**
 * The fabric over HTTP: the same interface as the embedded one (one method
 * per operation of the table), errors included.
 */
export interface RemoteFabric extends Client<Contract> {}

// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the methods come from the table (the interface above), assigned in the constructor.
export class RemoteFabric {
  private readonly base: string;
  private readonly headers: Record<string, string>;
  private readonly timeoutMs: number;
  private readonly agent: Agent;

  constructor(options: ConnectOptions) {
    this.base = options.url.replace(/\/+$/, '');
    this.headers = { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' };
    this.timeoutMs = options.timeoutMs ?? 30_000;
    // `timeout` on a keep-alive agent is also how long a free socket waits before it is closed.
    this.agent = new Agent({ keepAlive: true, maxSockets: 64, timeout: KEEP_ALIVE_FREE_MS });
    const methods: Record<string, (input?: Record<string, unknown>) => Promise<unknown>> = {};
    for (const [name, operation] of Object.entries(WIRE) as [string, WireOp][]) {
      methods[name] = (input) => this.invoke(operation, input);
    }
    Object.assign(this, methods);
  }

  /** One HTTP exchange over a keep-alive connection; resolves with status, content type and body. */
  private exchange(
    method: string,
    path: string,
    body?: unknown,
    fresh = false,
  ): Promise<{ status: number; type: string; body: Buffer }> {
    // Serialised before anything is sent, so a value JSON cannot hold is INVALID_ARGUMENT, not IN_DOUBT.
    const payload =
      body === undefined ? undefined : Buffer.isBuffer(body) ? body : toJsonText(body, 'request');
    const headers =
      payload === undefined
        ? this.headers
        : {
            ...this.headers,
            ...(Buffer.isBuffer(payload) ? { 'content-type': 'application/octet-stream' } : {}),
            'content-length': Buffer.byteLength(payload),
          };
    return new Promise((resolve, reject) => {
      const request = httpRequest(
        `${this.base}${path}`,
        // `fresh`: a connection of its own (agent false), never one from the pool.
        { method, agent: fresh ? false : this.agent, timeout: this.timeoutMs, headers },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              type: String(response.headers['content-type'] ?? ''),
              body: Buffer.concat(chunks),
            }),
          );
          response.on('error', reject);
          response.on('aborted', () => reject(new Error('the response was cut off')));
        },
      );
      request.on('timeout', () => request.destroy(new Error(`no answer within ${this.timeoutMs} ms`)));
      let answered = false;
      request.on('response', () => {
        answered = true;
      });
      request.on('error', (error: NodeJS.ErrnoException) => {
        const reset = error.code === 'ECONNRESET' || error.code === 'EPIPE';
        reject(reset && request.reusedSocket && !answered ? new StaleSocket(error) : error);
      });
      request.end(payload);
    });
  }

  /**
   * One call. `safe`: sending it twice does what sending it once does (a read,
   * a PUT of content named by its digest, a write carrying an idempotency key):
   * only such a call is sent again after the server closed the reused
   * connection it went out on; any other stays IN_DOUBT.
   */
  private async call<T>(
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    body?: unknown,
    safe = method === 'GET',
  ): Promise<T> {
    let response: { status: number; type: string; body: Buffer };
    try {
      response = await this.exchange(method, path, body).catch((error: unknown) => {
        // Once, on a fresh connection: a stale socket says nothing about the server.
        if (error instanceof StaleSocket && safe) return this.exchange(method, path, body, true);
        throw error;
      });
    } catch (error) {
      if (error instanceof CairnError) throw error;
      throw this.transportError(method, error instanceof StaleSocket ? error.cause : error);
    }
    const ok = response.status >= 200 && response.status <= 299;
    if (ok && response.type.startsWith('application/octet-stream')) return unframeBytes(response.body) as T;
    const text = response.body.toString('utf8');
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      throw unavailable(
        `the server at ${this.base} answered ${response.status} with a body that is not JSON: is it a Cairn server?`,
        {
          status: response.status,
        },
      );
    }
    if (!ok) {
      const error = parsed as Partial<CairnErrorJSON> | undefined;
      if (error && typeof error.code === 'string' && typeof error.message === 'string') {
        throw CairnError.fromJSON({
          code: error.code,
          message: error.message,
          data: error.data ?? {},
        } as CairnErrorJSON);
      }
      throw unavailable(`the server at ${this.base} answered ${response.status}`, {
        status: response.status,
      });
    }
    return parsed as T;
  }

  /**
   * A request that never left is UNAVAILABLE. A write whose connection broke
   * after it was sent may or may not have been applied: IN_DOUBT, so the
   * caller retries with the same idempotency key instead of guessing.
   */
  private transportError(method: string, error: unknown): CairnError {
    const cause = error as { code?: string };
    const detail = error instanceof Error ? error.message : String(error);
    const neverSent =
      cause?.code === 'ECONNREFUSED' || cause?.code === 'ENOTFOUND' || cause?.code === 'EAI_AGAIN';
    if (method !== 'GET' && !neverSent) {
      return inDoubt(
        `the connection to ${this.base} broke after the request was sent (${detail}): it may have been applied; retry with the same idempotency key`,
        { url: this.base },
        { cause: error },
      );
    }
    return unavailable(
      `could not reach the Cairn server at ${this.base} (${detail}): check the URL and that \`cairn serve\` is running`,
      { url: this.base },
      { cause: error },
    );
  }

  /**
   * One operation over HTTP, as the table binds it: path fields into the
   * path (a field left out takes its default), the rest into the query (GET)
   * or the JSON body (POST). The server validates; what comes back is the
   * answer or the typed error.
   */
  private async invoke(operation: WireOp, input: Record<string, unknown> = {}): Promise<unknown> {
    if (!operation.http) throw runsAtCaller(operation.mcp ?? opTitle(operation.name));
    const { method, path } = operation.http;
    const rest: Record<string, unknown> = { ...input };
    const defaults = operation.pathDefaults ?? {};
    const url = path.replace(/\{(\w+)\}/g, (_, field: string) => {
      const value = rest[field] ?? defaults[field];
      delete rest[field];
      if (typeof value !== 'string' || value === '') {
        throw invalidArgument(`${opTitle(operation.name)}: ${field}: required`, { field });
      }
      return seg(value);
    });
    if (method === 'GET') return this.call('GET', `${url}${query(rest as Record<string, string | number>)}`);
    const safe = operation.effect === 'read' || method === 'PUT' || typeof rest.idempotencyKey === 'string';
    return this.call(method, url, operation.http.body === 'bytes' ? rest.bytes : rest, safe);
  }

  async close(): Promise<void> {
    this.agent.destroy();
  }
}

export function connect(options: ConnectOptions): RemoteFabric {
  return new RemoteFabric(options);
}
