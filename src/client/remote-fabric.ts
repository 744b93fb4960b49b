import type { Contract } from '../contract/index.js';
import {
  type Client,
  CONTENT_OFFSET_HEADER,
  CONTENT_SIZE_HEADER,
  type ContentAnswer,
  INPUT_HEADER,
  inputHeaderValue,
  MAX_CONTENT_BYTES,
  MAX_INPUT_HEADER_BYTES,
  opTitle,
  runsAtCaller,
} from '../contract/spec.js';
import { WIRE } from '../contract/wire.js';
import type { WireOp } from '../contract/wire-of.js';
import {
  CairnError,
  type CairnErrorJSON,
  inDoubt,
  invalidArgument,
  payloadTooLarge,
  unavailable,
} from '../errors.js';
import { toJsonText } from '../json.js';
import { unframeBytes } from '../ops/frames.js';
import { type Transport, TransportFailure, type WireAnswer } from './transport.js';

export interface ConnectOptions {
  /** Base URL of a `cairn serve`, e.g. http://127.0.0.1:7070 */
  url: string;
  token: string;
  /** Per-request timeout in milliseconds; default 30 s. */
  timeoutMs?: number;
}

/** The per-request timeout when ConnectOptions leaves it out (ms). */
export const DEFAULT_TIMEOUT_MS = 30_000;

const seg = encodeURIComponent;
const UTF8 = new TextDecoder();

function query(params: Record<string, string | number | undefined>): string {
  const entries = Object.entries(params).filter(([, v]) => v !== undefined) as [string, string | number][];
  return entries.length === 0
    ? ''
    : `?${new URLSearchParams(entries.map(([k, v]) => [k, String(v)])).toString()}`;
}

/** A `content` answer read back from its body and headers (contract/spec.ts `ContentAnswer`). */
function contentOf(response: WireAnswer): ContentAnswer {
  const etag = response.headers.etag ?? '';
  return {
    bytes: response.body,
    offset: Number(response.headers[CONTENT_OFFSET_HEADER] ?? 0),
    size: Number(response.headers[CONTENT_SIZE_HEADER] ?? response.body.length),
    mediaType: response.type,
    digest: etag.replace(/^"|"$/g, ''),
  };
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

  /**
   * The operations over `transport`: node:http in Node (`connect` of
   * `cairn/client`), fetch in a browser (`connect` of `cairn/browser`).
   */
  constructor(
    options: ConnectOptions,
    private readonly transport: Transport,
  ) {
    this.base = options.url.replace(/\/+$/, '');
    this.headers = { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' };
    const methods: Record<string, (input?: Record<string, unknown>) => Promise<unknown>> = {};
    for (const [name, operation] of Object.entries(WIRE) as [string, WireOp][]) {
      methods[name] = (input) => this.invoke(operation, input);
    }
    Object.assign(this, methods);
  }

  /**
   * One call. `safe`: sending it twice does what sending it once does (a read,
   * a PUT of content named by its digest, a write carrying an idempotency key):
   * only such a call may be sent again by the transport (after the server
   * closed the reused connection it went out on); any other stays IN_DOUBT.
   */
  private async call<T>(
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    body?: unknown,
    safe = method === 'GET',
    extraHeaders: Record<string, string> = {},
    answer?: 'bytes' | 'content',
  ): Promise<T> {
    // Serialised before anything is sent, so a value JSON cannot hold is INVALID_ARGUMENT, not IN_DOUBT.
    const raw = body instanceof Uint8Array || isStream(body);
    const payload = body === undefined || raw ? body : toJsonText(body, 'request');
    const headers = raw
      ? { ...this.headers, ...extraHeaders, 'content-type': 'application/octet-stream' }
      : this.headers;
    let response: WireAnswer;
    try {
      response = await this.transport.send({
        method,
        url: `${this.base}${path}`,
        headers,
        ...(payload === undefined ? {} : { body: payload }),
        safe,
      });
    } catch (error) {
      if (error instanceof CairnError) throw error;
      throw this.transportError(method, error);
    }
    const ok = response.status >= 200 && response.status <= 299;
    if (ok && answer === 'content') return contentOf(response) as T;
    if (ok && response.type.startsWith('application/octet-stream')) return unframeBytes(response.body) as T;
    // Node refuses a request whose headers pass 16 KiB before Cairn sees it: bad input, not a server down.
    if (response.status === 431)
      throw payloadTooLarge(
        `the server at ${this.base} refused the request's headers as too large: send less beside the bytes`,
        {
          limit: MAX_INPUT_HEADER_BYTES,
        },
      );
    const text = UTF8.decode(response.body);
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
    const failure = error instanceof TransportFailure ? error : undefined;
    const cause = failure ? failure.cause : error;
    const detail = failure ? failure.message : error instanceof Error ? error.message : String(error);
    if (method !== 'GET' && !failure?.neverSent) {
      return inDoubt(
        `the connection to ${this.base} broke after the request was sent (${detail}): it may have been applied; retry with the same idempotency key`,
        { url: this.base },
        { cause },
      );
    }
    return unavailable(
      `could not reach the Cairn server at ${this.base} (${detail}): check the URL and that \`cairn serve\` is running`,
      { url: this.base },
      { cause },
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
    if (method === 'GET' && operation.http.answer === 'content') return this.content(url, rest);
    if (method === 'GET')
      return this.call(
        'GET',
        `${url}${query(rest as Record<string, string | number>)}`,
        undefined,
        true,
        {},
        operation.http.answer,
      );
    const safe = operation.effect === 'read' || method === 'PUT' || typeof rest.idempotencyKey === 'string';
    if (operation.http.body === undefined) return this.call(method, url, rest, safe);
    // The bytes are the body; a stream of them goes as it is read (its size, if given, travels with the fields).
    const { bytes, ...fields } = rest;
    const extra: Record<string, string> =
      Object.keys(fields).length > 0 ? { [INPUT_HEADER]: inputHeaderValue(fields) } : {};
    return this.call(method, url, bytes, safe && !isStream(bytes), extra);
  }

  /**
   * Stored bytes (a `content` answer): one call returns at most
   * MAX_CONTENT_BYTES, as in process. With no `length` it asks for that
   * much, and refuses — as the embedded fabric does — when more was left.
   */
  private async content(url: string, input: Record<string, unknown>): Promise<ContentAnswer> {
    const whole = input.length === undefined;
    const asked = whole ? { ...input, length: MAX_CONTENT_BYTES } : input;
    const answer = await this.call<ContentAnswer>(
      'GET',
      `${url}${query(asked as Record<string, string | number>)}`,
      undefined,
      true,
      {},
      'content',
    );
    const left = answer.size - answer.offset;
    if (whole && left > answer.bytes.length)
      throw invalidArgument(
        `${left} bytes from offset ${answer.offset}, more than one read returns (${MAX_CONTENT_BYTES}): pass a length and read it in ranges`,
        { field: 'length', size: answer.size },
      );
    return answer;
  }

  /** Lets go of the transport's connections; a call after it may open new ones. */
  close(): Promise<void> {
    return this.transport.close();
  }
}

/** A stream of bytes to send as a body (an async iterable that is not bytes itself). */
function isStream(body: unknown): body is AsyncIterable<Uint8Array> {
  return (
    typeof body === 'object' &&
    body !== null &&
    !(body instanceof Uint8Array) &&
    typeof (body as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
  );
}
