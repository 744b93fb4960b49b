import { type Context, Hono } from 'hono';
import { numericFields, wholeNumberText } from '../contract/json-schema.js';
import { INPUT_HEADER, MAX_INPUT_HEADER_BYTES, STREAM_HOLD_BYTES } from '../contract/spec.js';
import { sha256Hex } from '../digest.js';
import { CairnError, HTTP_STATUS, internal, invalidArgument, notFound } from '../errors.js';
import { refuseUnsafeIntegers } from '../json.js';
import type { MasterKey } from '../keys/crypto.js';
import type { McpHttp } from '../mcp/http.js';
import type { EmbeddingFunction } from '../memory/vectors.js';
import { opContext } from '../ops/context.js';
import { frameBytes } from '../ops/frames.js';
import { runOp } from '../ops/op.js';
import { servedOps } from '../ops/table.js';
import type { Store } from '../store.js';
import type { Identity } from '../types.js';
import { type Env, type Lease, readBody, streamBody } from './body.js';
import { BodyBudget } from './body-budget.js';
import { contentAnswer, rangeOf } from './content.js';
import { corsAllowList } from './cors.js';
import { openApiDocument } from './openapi.js';

export interface AppOptions {
  /** Largest request body accepted, in bytes; default 2 MiB. */
  maxBodyBytes?: number;
  /**
   * How long a successful token check is reused, in ms (default 2000; 0 turns
   * it off). A token revoked elsewhere keeps working on this replica at most
   * that long.
   */
  authCacheMs?: number;
  /** Called with errors that are not Cairn's own (bugs), for the operator's log. */
  onInternalError?: (error: unknown) => void;
  /**
   * The vault master key: with it the server can seal credential values
   * (`addCredential`, `rotateCredential`); without, those answer UNAVAILABLE.
   */
  masterKey?: MasterKey;
  /** The operator's embedding function for memory's vectors (a server started from the library); none: full text only. */
  memoryEmbedding?: EmbeddingFunction;
  /** MCP over streamable HTTP at `/mcp`, with the same bearer tokens; off when left out. */
  mcp?: McpHttp;
  /**
   * The bytes of request bodies held at once, all requests together (see
   * BodyBudget); default 192 MiB (four streamed publications' holds), half of it per tenant, and never less
   * than twice the largest body a route holds whole.
   */
  bodyBudget?: BodyBudget;
  /**
   * Origins of browser pages that may call the API (`http://host:port`, each
   * exactly; never `*`, never with credentials): their requests and preflights
   * get CORS headers (server/cors.ts). None by default; `/mcp` keeps its own
   * Origin check either way.
   */
  corsOrigins?: readonly string[];
  /**
   * Told the tenant of every call that may have written an audit entry (a
   * write operation, any call that failed — refusals are audited — and any
   * MCP request): the tenants a background checkpoint round visits
   * (server/index.ts).
   */
  onWrite?: (tenant: string) => void;
}

function errorResponse(c: Context<Env>, error: CairnError) {
  const retryAfter = error.data.retryAfterSeconds;
  if (typeof retryAfter === 'number') c.header('retry-after', String(retryAfter));
  // The rest of a refused body is discarded unread; do not reuse the connection.
  if (error.code === 'PAYLOAD_TOO_LARGE' || error.data.reason === 'busy') c.header('connection', 'close');
  return c.json(error.toJSON(), HTTP_STATUS[error.code] as 400);
}

/** A `stream` route's input: the header's fields and the body; a `size` there must be the Content-Length. */
function streamedFields(c: Context<Env>, limit: number, budget: BodyBudget): Record<string, unknown> {
  const fields = bytesRouteFields(c);
  const declared = c.req.header('content-length');
  if (fields.size !== undefined && declared !== undefined && String(fields.size) !== declared) {
    c.env?.incoming?.resume();
    throw invalidArgument(
      `the ${INPUT_HEADER} header's size (${fields.size}) is not the body's Content-Length (${declared}): send the size of what you send`,
      { field: 'size' },
    );
  }
  return { ...fields, ...streamBody(c, limit, budget) };
}

function parseJsonObject(text: string, what = 'the request body'): Record<string, unknown> {
  if (text.trim() === '') return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw invalidArgument(`${what} is not valid JSON: send a JSON object`);
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw invalidArgument(`${what} must be a JSON object`);
  }
  refuseUnsafeIntegers(text, what);
  return body as Record<string, unknown>;
}

/** Query parameters as the schemas expect them: numbers where the name says so. */
function queryArgs(c: Context<Env>, numeric: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(c.req.query())) {
    out[key] = numeric.includes(key) ? wholeNumberText(value, `query parameter ${key}`, key) : value;
  }
  return out;
}

/** The largest `cairn-input` header: the fields of a byte-bodied route besides its bytes. */
const INPUT_HEADER_BYTES = MAX_INPUT_HEADER_BYTES;

/**
 * A route whose body is raw bytes (a pack, an artifact) takes its other
 * fields as one JSON object in the `cairn-input` header (non-ASCII escaped
 * as \uXXXX, as the remote client sends it); the path still wins.
 */
function bytesRouteFields(c: Context<Env>): Record<string, unknown> {
  const header = c.req.header(INPUT_HEADER);
  if (header === undefined) return {};
  if (header.length > INPUT_HEADER_BYTES)
    throw invalidArgument(
      `the ${INPUT_HEADER} header is over ${INPUT_HEADER_BYTES} bytes: send fewer fields`,
      {
        field: INPUT_HEADER,
      },
    );
  const fields = parseJsonObject(header, `the ${INPUT_HEADER} header`);
  if ('bytes' in fields)
    throw invalidArgument(`the ${INPUT_HEADER} header may not carry bytes: they are the body`, {
      field: 'bytes',
    });
  return fields;
}

const AUTH_CACHE_ENTRIES = 10_000;

/** Remembers successful token checks briefly: two queries fewer on most requests. */
interface AuthCache {
  (token: string): Promise<Identity>;
  /** Drops every remembered check (after a revocation through this server). */
  forget(): void;
}

function authCache(store: Store, ttlMs: number): AuthCache {
  const known = new Map<string, { identity: Identity; until: number }>();
  const check = async (token: string) => {
    const now = Date.now();
    const hit = known.get(token);
    if (hit && hit.until > now) return hit.identity;
    const identity = await store.authenticate(token);
    if (ttlMs > 0) {
      if (known.size >= AUTH_CACHE_ENTRIES) known.clear();
      known.set(token, { identity, until: now + ttlMs });
    }
    return identity;
  };
  return Object.assign(check, { forget: () => known.clear() });
}

/**
 * The HTTP API: a thin shell over the table of operations. It authenticates
 * the bearer token, parses JSON, runs the operation as that identity and
 * serialises the answer or the typed error; it holds no logic of its own.
 */
export function createApp(store: Store, options: AppOptions = {}): Hono<Env> {
  const app = new Hono<Env>();
  const maxBody = options.maxBodyBytes ?? 2 * 1024 * 1024;
  const ops = servedOps();
  // A streamed body holds STREAM_HOLD_BYTES of the budget, whatever its length.
  const largestBody = Math.max(
    maxBody,
    ...ops.filter((o) => o.http.body !== 'stream').map((o) => o.http.maxBodyBytes ?? maxBody),
  );
  // Room for four streamed publications at once (two per tenant), or two of the largest held bodies.
  const budget =
    options.bodyBudget ?? new BodyBudget(Math.max(96 * 1024 * 1024, 2 * largestBody, 4 * STREAM_HOLD_BYTES));
  const jsonBody = async (c: Context<Env>, limit = maxBody) =>
    parseJsonObject((await readBody(c, limit, budget)).toString('utf8'));
  const authenticate = authCache(store, options.authCacheMs ?? 2000);
  const { masterKey, memoryEmbedding } = options;

  app.onError((error, c) => {
    if (error instanceof CairnError) return errorResponse(c, error);
    options.onInternalError?.(error);
    return errorResponse(c, internal('the server failed to handle the request: see its log, then retry'));
  });
  app.notFound((c) =>
    errorResponse(c, notFound(`no route ${c.req.method} ${c.req.path}: see /openapi.json for the API`)),
  );

  // Every request gives back what its body took from the budget when it ends, answered or failed.
  app.use('*', async (c, next) => {
    const lease: Lease = { bytes: 0, owner: '' };
    c.set('lease', lease);
    try {
      await next();
    } finally {
      if (lease.bytes > 0) budget.give(lease.bytes, lease.owner);
    }
  });

  // Before the token check: a preflight carries no token.
  if (options.corsOrigins && options.corsOrigins.length > 0) {
    const cors = corsAllowList(options.corsOrigins);
    for (const path of ['/v1/*', '/healthz', '/openapi.json']) app.use(path, cors);
  }

  app.get('/healthz', (c) => c.json({ ok: true }));
  app.get('/openapi.json', (c) => c.json(openApiDocument()));

  const bearer = (c: Context<Env>) => {
    const header = c.req.header('authorization') ?? '';
    // The scheme name is case-insensitive (RFC 9110 §11.1).
    return /^bearer\s+/i.test(header) ? header.replace(/^bearer\s+/i, '').trim() : '';
  };
  app.use('/v1/*', async (c, next) => {
    c.set('who', await authenticate(bearer(c)));
    await next();
  });

  // MCP: Host and Origin first (DNS rebinding), then the token — checked on every request, so a
  // revoked token ends its sessions too — then the session the token opened.
  const mcp = options.mcp;
  // An MCP call carries any tool's input: the largest body of an operation that is a tool.
  const mcpBody = Math.max(maxBody, ...ops.filter((o) => o.mcp).map((o) => o.http.maxBodyBytes ?? maxBody));
  if (mcp) {
    app.all('/mcp', async (c) => {
      const refused = mcp.guard(c.req.raw);
      if (refused) return refused;
      const token = bearer(c);
      const who = await authenticate(token);
      c.set('who', who);
      if (c.req.method === 'POST') options.onWrite?.(who.tenant);
      // The body is read here, bounded and budgeted like a route's, and handed on whole.
      const request =
        c.req.method === 'POST'
          ? new Request(c.req.raw.url, {
              method: 'POST',
              headers: c.req.raw.headers,
              body: new Uint8Array(await readBody(c, mcpBody, budget)),
            })
          : c.req.raw;
      return mcp.handle(
        request,
        sha256Hex(token),
        () => store.fabric(who, { masterKey, memoryEmbedding }),
        who.tenant,
      );
    });
  }

  // Every operation of the table that runs anywhere, as its route: path fields from the path, the rest
  // from the query (GET) or the JSON body (POST); the path wins over a body field of the same name.
  // A body of raw bytes (a desk pack) is the input field `bytes`; an answer of bytes is framed (see HttpBinding).
  for (const operation of ops) {
    const { method, path, body, answer } = operation.http;
    const numeric = numericFields(operation);
    const limit = operation.http.maxBodyBytes ?? maxBody;
    app.on(method, path.replace(/\{(\w+)\}/g, ':$1'), async (c) => {
      const fields =
        method === 'GET'
          ? { ...(answer === 'content' ? rangeOf(c) : {}), ...queryArgs(c, numeric) }
          : body === 'bytes'
            ? { ...bytesRouteFields(c), bytes: await readBody(c, limit, budget) }
            : body === 'stream'
              ? streamedFields(c, limit, budget)
              : await jsonBody(c, limit);
      const input = { ...fields, ...c.req.param() };
      const context = opContext(store.engine, c.var.who, {
        masterKey,
        blobs: store.blobs,
        deskStateDir: store.deskDir,
        memoryPolicy: store.memoryPolicy,
        auditKey: store.auditKey,
        memoryEmbedding,
      });
      // Stored bytes: read through the operation a window at a time, the answer streamed.
      if (answer === 'content')
        return contentAnswer(c, input, (window) => runOp(operation, context, { ...input, ...window }));
      // A handler that fails before reading all of a streamed body: the rest is read and dropped, so the
      // client gets the answer instead of a broken pipe.
      // Marked for the background rounds: a write, failed or not (it may have committed a batch first), and
      // any refusal (a refused call, a read too, is audited).
      const output = await runOp(operation, context, input).then(
        (done) => {
          if (operation.effect === 'write') options.onWrite?.(c.var.who.tenant);
          return done;
        },
        (error: unknown) => {
          options.onWrite?.(c.var.who.tenant);
          if (body === 'stream') c.env?.incoming?.resume();
          throw error;
        },
      );
      if (operation.invalidatesAuth) authenticate.forget();
      const status = (operation.statusOf?.(output) ?? operation.http.status ?? 200) as 200;
      if (answer === 'bytes') {
        return c.body(frameBytes(output as Uint8Array[]), status, {
          'content-type': 'application/octet-stream',
        });
      }
      return c.json(output as object, status);
    });
  }
  return app;
}
