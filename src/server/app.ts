import type { HttpBindings } from '@hono/node-server';
import { type Context, Hono } from 'hono';
import { CairnError, HTTP_STATUS } from '../errors.js';
import type { Fabric } from '../fabric.js';
import { refuseUnsafeIntegers } from '../json.js';
import { ApprovalStateFilter, DecisionInput, RevokeGrantInput } from '../schema.js';
import type { Store } from '../store.js';
import type { Identity } from '../types.js';
import { parseInput } from '../validate.js';
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
}

type Env = { Bindings: Partial<HttpBindings>; Variables: { fabric: Fabric; who: Identity } };

function errorResponse(c: Context<Env>, error: CairnError) {
  // The rest of an oversize body is discarded unread; do not reuse the connection.
  if (error.code === 'PAYLOAD_TOO_LARGE') c.header('connection', 'close');
  return c.json(error.toJSON(), HTTP_STATUS[error.code] as 400);
}

function tooLarge(limit: number): CairnError {
  return new CairnError(
    'PAYLOAD_TOO_LARGE',
    `the request body is over ${limit} bytes: send less, or store large content as a blob`,
    {
      limit,
    },
  );
}

/**
 * The body as text, at most `limit` bytes. Read straight from Node's request
 * stream: building a web Request for it costs more than the append itself.
 */
async function readBody(c: Context<Env>, limit: number): Promise<string> {
  const incoming = c.env?.incoming;
  if (Number(c.req.header('content-length') ?? 0) > limit) {
    incoming?.resume();
    throw tooLarge(limit);
  }
  if (!incoming) {
    const text = await c.req.text();
    if (Buffer.byteLength(text) > limit) throw tooLarge(limit);
    return text;
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        incoming.off('data', onData);
        incoming.resume();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    incoming.on('data', onData);
    incoming.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    // A client that hangs up mid-body is the client's doing, not a server fault: a typed error, never logged as internal.
    const hungUp = () =>
      reject(
        new CairnError(
          'INVALID_ARGUMENT',
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

function parseJsonObject(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new CairnError('INVALID_ARGUMENT', 'the request body is not valid JSON: send a JSON object');
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new CairnError('INVALID_ARGUMENT', 'the request body must be a JSON object');
  }
  refuseUnsafeIntegers(text, 'the request body');
  return body as Record<string, unknown>;
}

/** Query parameters as the schemas expect them: numbers where the name says so. */
function queryArgs(c: Context<Env>, numeric: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(c.req.query())) {
    // Plain decimal digits only: "0x10", "1e2", "-5" or "" are not page sizes.
    if (numeric.includes(key) && !/^\d{1,15}$/.test(value))
      throw new CairnError(
        'INVALID_ARGUMENT',
        `query parameter ${key} must be a whole number written in digits (at most 15), not "${value.slice(0, 40)}"`,
        { field: key },
      );
    out[key] = numeric.includes(key) ? Number(value) : value;
  }
  return out;
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
 * The HTTP API: a thin shell over the library. It authenticates the bearer
 * token, parses JSON, calls the fabric of that identity and serialises the
 * answer or the typed error; it holds no logic of its own.
 */
export function createApp(store: Store, options: AppOptions = {}): Hono<Env> {
  const app = new Hono<Env>();
  const maxBody = options.maxBodyBytes ?? 2 * 1024 * 1024;
  const jsonBody = async (c: Context<Env>) => parseJsonObject(await readBody(c, maxBody));
  const authenticate = authCache(store, options.authCacheMs ?? 2000);

  app.onError((error, c) => {
    if (error instanceof CairnError) return errorResponse(c, error);
    options.onInternalError?.(error);
    return errorResponse(
      c,
      new CairnError('INTERNAL', 'the server failed to handle the request: see its log, then retry'),
    );
  });
  app.notFound((c) =>
    errorResponse(
      c,
      new CairnError('NOT_FOUND', `no route ${c.req.method} ${c.req.path}: see /openapi.json for the API`),
    ),
  );

  app.get('/healthz', (c) => c.json({ ok: true }));
  app.get('/openapi.json', (c) => c.json(openApiDocument()));

  app.use('/v1/*', async (c, next) => {
    const header = c.req.header('authorization') ?? '';
    // The scheme name is case-insensitive (RFC 9110 §11.1).
    const token = /^bearer\s+/i.test(header) ? header.replace(/^bearer\s+/i, '').trim() : '';
    const who = await authenticate(token);
    c.set('who', who);
    c.set('fabric', store.fabric(who));
    await next();
  });

  const v1 = new Hono<Env>();
  v1.get('/whoami', async (c) => c.json(await c.var.fabric.whoami()));
  v1.post('/sessions', async (c) => c.json(await c.var.fabric.createSession(await jsonBody(c)), 201));
  v1.get('/sessions', async (c) => c.json(await c.var.fabric.listSessions(queryArgs(c, ['limit']))));
  v1.get('/sessions/:session', async (c) => c.json(await c.var.fabric.getSession(c.req.param('session'))));
  v1.post('/sessions/:session/events', async (c) => {
    const event = await c.var.fabric.append({
      ...(await jsonBody(c)),
      session: c.req.param('session'),
    } as never);
    return c.json(event, event.deduplicated ? 200 : 201);
  });
  v1.get('/sessions/:session/branches', async (c) =>
    c.json(await c.var.fabric.listBranches(c.req.param('session'))),
  );
  v1.post('/sessions/:session/branches', async (c) =>
    c.json(
      await c.var.fabric.fork({ ...(await jsonBody(c)), session: c.req.param('session') } as never),
      201,
    ),
  );
  v1.get('/sessions/:session/branches/:branch/events', async (c) =>
    c.json(
      await c.var.fabric.readBranch({
        ...queryArgs(c, ['from', 'limit']),
        session: c.req.param('session'),
        branch: c.req.param('branch'),
      } as never),
    ),
  );
  v1.post('/sessions/:session/branches/:branch/rewind', async (c) =>
    c.json(
      await c.var.fabric.rewind({
        ...(await jsonBody(c)),
        session: c.req.param('session'),
        branch: c.req.param('branch'),
      } as never),
    ),
  );
  v1.post('/sessions/:session/branches/:branch/move', async (c) =>
    c.json(
      await c.var.fabric.moveHead({
        ...(await jsonBody(c)),
        session: c.req.param('session'),
        branch: c.req.param('branch'),
      } as never),
    ),
  );
  v1.get('/events/:event/path', async (c) =>
    c.json(
      await c.var.fabric.readPath({ ...queryArgs(c, ['from', 'limit']), to: c.req.param('event') } as never),
    ),
  );
  v1.get('/sessions/:session/branches/:branch/history', async (c) =>
    c.json(await c.var.fabric.branchHistory(c.req.param('session'), c.req.param('branch'))),
  );
  v1.get('/events/:event', async (c) => c.json(await c.var.fabric.getEvent(c.req.param('event'))));
  v1.post('/tokens', async (c) => c.json(await c.var.fabric.createToken(await jsonBody(c)), 201));
  v1.post('/tokens/:token/revoke', async (c) => {
    const revoked = await c.var.fabric.revokeToken(c.req.param('token'));
    authenticate.forget();
    return c.json(revoked);
  });
  v1.get('/audit/verify', async (c) => c.json(await c.var.fabric.verifyAudit()));
  // The keys: approvals and grants need no master key (only using a credential does).
  const keys = (c: Context<Env>) => store.keys(c.var.who);
  v1.get('/approvals', async (c) =>
    c.json({
      approvals: await keys(c).listApprovals({
        state: parseInput(ApprovalStateFilter, c.req.query('state') ?? 'pending', 'list approvals'),
      }),
    }),
  );
  v1.get('/approvals/:approval', async (c) => c.json(await keys(c).getApproval(c.req.param('approval'))));
  for (const verdict of ['approve', 'deny'] as const) {
    v1.post(`/approvals/:approval/${verdict}`, async (c) => {
      const { note } = parseInput(DecisionInput, await jsonBody(c), verdict);
      return c.json(await keys(c).decide(c.req.param('approval'), verdict, note));
    });
  }
  v1.get('/grants', async (c) =>
    c.json({
      grants: await keys(c).listGrants({ session: c.req.query('session'), branch: c.req.query('branch') }),
    }),
  );
  v1.post('/grants/:grant/revoke', async (c) => {
    const { reason } = parseInput(RevokeGrantInput, await jsonBody(c), 'revoke grant');
    return c.json(await keys(c).revoke(c.req.param('grant'), reason));
  });
  app.route('/v1', v1);
  return app;
}
