import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { CairnError, HTTP_STATUS } from '../errors.js';
import {
  type Approval,
  DEFAULT_APPROVAL_TIMEOUT_MS,
  Keys,
  type ProxyDecision,
  type ProxyRequest,
} from './keys.js';
import { DEFAULT_BODIES_PER_HANDLE, DEFAULT_SPOOL_BYTES, SpoolBudget } from './proxy/budget.js';
import { SecretForms } from './proxy/echo-scanner.js';
import { RefusalLimiter } from './proxy/flood.js';
import { neverForwarded, upstreamRequestHeaders } from './proxy/headers.js';
import { DEFAULT_HOLD_BYTES, relayResponse } from './proxy/relay.js';
import { SpooledBody } from './proxy/spool.js';
import { relayUnguarded, unguardedRequestHeaders } from './proxy/unguarded.js';

/**
 * The egress proxy: a reverse proxy, not a man-in-the-middle. A branch calls
 * `http://127.0.0.1:PORT/<credential>/<path>` with its branch handle in
 * `x-cairn-handle`; the proxy asks the keys layer for a decision (one
 * transaction: grant check, use counted, audit entry) and forwards to the
 * credential's upstream with the secret injected, holds a write until a
 * person approves it, or answers 403 with the reason. Nothing is forwarded
 * before the decision is durable.
 *
 * What is sent is what is judged: a request with a body is a write whatever
 * its method; headers pass by allow-list (`proxy/headers.ts`); paths are
 * judged as an upstream might normalise them (`proxy/paths.ts`); what comes
 * back is scanned for the secret (`proxy/relay.ts`). The handle is checked
 * before a body is read, bodies spool (`proxy/spool.ts`), and refusals
 * without a handle are audited in bounded form (`proxy/flood.ts`).
 */
export const HANDLE_HEADER = 'x-cairn-handle';
export const APPROVAL_HEADER = 'x-cairn-approval';
export const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;
export const DEFAULT_REFUSAL_WINDOW_MS = 60_000;
export const DEFAULT_REFUSAL_BURST = 10;

export const DEFAULT_HANDLE_REFUSAL_BURST = 20;
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 60_000;
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

export interface ProxyOptions {
  /** The keys of a tenant, acting as the proxy's principal there; undefined for a tenant it does not serve. */
  keysFor(tenant: string): Keys | undefined;
  /**
   * Where a request without a usable handle (missing, malformed, another
   * tenant's) is refused and audited — the store's local tenant. Without it
   * such a request is refused with a log line only.
   */
  auditRefusalsIn?: Keys;
  host?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  /** How long a write waiting for approval is held before it is refused. */
  approvalTimeoutMs?: number;
  /** How often a held request looks for a decision (decisions may come from another process). */
  pollMs?: number;
  /** The largest request body, unless the credential sets its own limit. */
  maxBodyBytes?: number;
  /** How long the upstream may take to answer (and between bytes); default 60 s. */
  upstreamTimeoutMs?: number;
  /** Where bodies past 64 KiB spool (unlinked at once); default the system's temporary folder. */
  spoolDir?: string;
  /** Refusals without a valid handle: the audit window per client address (default 60 s)… */
  refusalWindowMs?: number;
  /** …and how many of them per window are audited one by one before they are only counted (default 10). */
  refusalBurst?: number;
  /** Refusals of one valid branch handle per window audited one by one before they are only counted (default 20). */
  handleRefusalBurst?: number;
  /** Request bodies held at once (in memory and spooled), all requests together (default 256 MiB)… */
  maxSpoolBytes?: number;
  /** …and bodies in flight per branch handle (default 4, held writes included). */
  maxBodiesPerHandle?: number;
  /** How long a client may take to send its request headers (default 10 s)… */
  headersTimeoutMs?: number;
  /** …and its whole request, body included (default 60 s); a stalled connection is closed. */
  requestTimeoutMs?: number;
  /** How much of an answer is held and scanned before its status line is sent (default 64 KiB). */
  holdBytes?: number;
  /**
   * For bench/keys.mjs only: header allow-lists and response scanning off
   * (a deny-list and a plain pipe instead), to measure what they cost.
   * Never set it for real traffic.
   */
  unguardedForBench?: boolean;
  /** One line per request: status, method, credential, path, branch, grant. Never a secret or a handle. */
  log?: (line: string) => void;
}

export interface RunningProxy {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** On every answer the proxy itself gives (a refusal, a timeout): its error code. */
export const ERROR_HEADER = 'x-cairn-error';

function answer(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  data: Record<string, unknown> = {},
  close = false,
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  // The one error body of every surface ({code, message, data}, as the HTTP API answers); the header
  // tells the agent the proxy refused, not the upstream.
  const body = JSON.stringify({ code, message, data });
  res.writeHead(status, {
    'content-type': 'application/json',
    [ERROR_HEADER]: code,
    'content-length': Buffer.byteLength(body),
    // A body left unread is not read after the answer: the connection ends with it.
    ...(close ? { connection: 'close' } : {}),
  });
  res.end(body);
}

/** The client waits for `100 Continue` before it sends the body. */
function expectsContinue(req: IncomingMessage): boolean {
  return String(req.headers.expect ?? '').toLowerCase() === '100-continue';
}

/** Content-Length > 0 or any Transfer-Encoding: the request carries a body. */
function carriesBody(req: IncomingMessage): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = Number(req.headers['content-length'] ?? 0);
  return !Number.isFinite(length) || length > 0;
}

/** Names of routing overrides and other never-forwarded headers the agent sent (for the audit entry). */
const ROUTINE = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'accept-encoding',
]);
function refusedHeaderNames(req: IncomingMessage): string[] {
  return Object.keys(req.headers)
    .filter(
      (name) => !ROUTINE.has(name) && !name.startsWith('x-cairn-') && neverForwarded(name) !== undefined,
    )
    .slice(0, 16);
}

export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }),
    'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }),
  };
  const defaultLimit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const timeoutMs = options.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
  const pollMs = options.pollMs ?? 100;
  const upstreamTimeoutMs = options.upstreamTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
  const holdBytes = options.holdBytes ?? DEFAULT_HOLD_BYTES;
  const guarded = options.unguardedForBench !== true;
  const log = options.log ?? (() => {});
  const limiter = new RefusalLimiter({
    windowMs: options.refusalWindowMs ?? DEFAULT_REFUSAL_WINDOW_MS,
    burst: options.refusalBurst ?? DEFAULT_REFUSAL_BURST,
    maxAddresses: 1024,
    onError: (error) => log(`proxy: a refusal could not be audited (${(error as Error).message})`),
  });
  const handleLimiter = new RefusalLimiter({
    windowMs: options.refusalWindowMs ?? DEFAULT_REFUSAL_WINDOW_MS,
    burst: options.handleRefusalBurst ?? DEFAULT_HANDLE_REFUSAL_BURST,
    maxAddresses: 1024,
    onError: (error) => log(`proxy: a refusal summary could not be audited (${(error as Error).message})`),
  });
  const budget = new SpoolBudget({
    maxBytes: options.maxSpoolBytes ?? DEFAULT_SPOOL_BYTES,
    perHandle: options.maxBodiesPerHandle ?? DEFAULT_BODIES_PER_HANDLE,
  });
  /** Secret forms per injected value set: built once per credential version, not per request. */
  const formsCache = new Map<string, SecretForms>();
  let closing = false;

  function formsFor(inject: Record<string, string>): SecretForms {
    const values = Object.values(inject);
    const key = values.join('\n');
    let forms = formsCache.get(key);
    if (!forms) {
      const secrets = values.flatMap((v) => {
        const bare = v.replace(/^(Bearer|Basic) /, '');
        if (!v.startsWith('Basic ')) return [bare];
        const pair = Buffer.from(bare, 'base64').toString('latin1');
        return [bare, pair, pair.slice(pair.indexOf(':') + 1)];
      });
      forms = new SecretForms(secrets);
      if (formsCache.size > 256) formsCache.clear();
      formsCache.set(key, forms);
    }
    return forms;
  }

  async function waitForDecision(keys: Keys, approval: Approval, gone: () => boolean): Promise<Approval> {
    for (;;) {
      const now = Date.now();
      if (closing || gone() || now >= approval.expiresAt) return approval;
      await sleep(Math.min(pollMs, Math.max(1, approval.expiresAt - now)));
      const current = await keys.getApproval(approval.id);
      if (current.state !== 'pending') return current;
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = req.url ?? '/';
    const match = /^\/([^/?]+)(\/[^?]*)?(\?.*)?$/s.exec(raw);
    const hasBody = carriesBody(req);
    if (!match) {
      answer(
        res,
        404,
        'NOT_FOUND',
        'call the proxy as /<credential>/<path>, with x-cairn-handle set',
        {},
        hasBody,
      );
      return;
    }
    let credential: string;
    try {
      credential = decodeURIComponent(match[1] as string);
    } catch {
      answer(res, 404, 'NOT_FOUND', 'the credential name is not valid percent-encoding', {}, hasBody);
      return;
    }
    const pathAndQuery = `${match[2] ?? '/'}${match[3] ?? ''}`;
    const path = pathAndQuery.split('?')[0] ?? '/';
    const handleHeader = req.headers[HANDLE_HEADER];
    const handle = typeof handleHeader === 'string' ? handleHeader : '';
    const tenant = Keys.handleTenant(handle);
    const keys = (tenant ? options.keysFor(tenant) : undefined) ?? options.auditRefusalsIn;
    const method = (req.method ?? 'GET').toUpperCase();

    /** A request without a valid handle: refused before its body is read, audited in bounded form. */
    const refuseHandle = async (reason: string) => {
      log(`proxy: 403 ${method} ${credential.slice(0, 64)} (no valid branch handle)`);
      if (keys)
        await limiter.refuse(keys, {
          address: req.socket.remoteAddress ?? '',
          method: method.slice(0, 16),
          credential,
          path,
          reason,
        });
      answer(
        res,
        403,
        'FORBIDDEN',
        `${reason}: a branch handle is required in ${HANDLE_HEADER} (cairn exec --branch sets CAIRN_HANDLE)`,
        { rule: 'handle' },
        hasBody,
      );
    };
    if (!keys || !tenant) {
      await refuseHandle('the branch handle is missing or malformed');
      return;
    }
    const base = {
      handle,
      credential,
      method,
      pathAndQuery,
      hasBody,
      droppedHeaders: refusedHeaderNames(req),
    };
    const address = req.socket.remoteAddress ?? '';
    /** Refusals of this valid handle: the first of a window audited one by one, the rest counted. */
    let admitted: boolean | undefined;
    const auditDenial = (rule: string, reason: string): boolean => {
      admitted ??= handleLimiter.admit(
        `h ${handle}`,
        (r) =>
          keys.recordProxyEvent(
            'keys.deny',
            { handle, credential: r.credential, method: r.method, pathAndQuery: r.path },
            {
              reason: r.reason,
              rule: r.rule,
              count: r.count,
              rules: r.rules,
              windowStart: r.windowStart,
              windowEnd: r.windowEnd,
              lastPath: r.lastPath,
            },
          ),
        'refusals of this branch handle',
        { address, method: method.slice(0, 16), credential: credential.slice(0, 64), path, reason, rule },
      );
      return admitted;
    };
    /** A refusal decided here (not by the grants): audited in bounded form, answered, the body unread. */
    const refuse = async (
      status: number,
      code: string,
      message: string,
      data: { rule: string; limit?: number },
    ) => {
      log(`proxy: ${status} ${method} ${credential.slice(0, 64)} ${path.slice(0, 128)} (${data.rule})`);
      if (auditDenial(data.rule, message))
        await keys.recordProxyEvent('keys.deny', base, { reason: message, ...data });
      answer(res, status, code, message, data, true);
    };
    let body = SpooledBody.empty();
    let release = () => {};
    if (hasBody) {
      // The handle first: a body is read only for a branch that may send one.
      const preflight = await keys.proxyPreflight(handle, credential, { method, pathAndQuery });
      if (preflight.handle !== 'ok') {
        await refuseHandle(preflight.handle);
        return;
      }
      const declared = Number(req.headers['content-length'] ?? 0);
      if ('bodyMatters' in preflight && !preflight.bodyMatters) {
        // Refused whatever the body holds (a read grant, a path no grant allows): decided now, unread.
        const unread = { bytes: Number.isFinite(declared) ? declared : 0, digest: '', head: Buffer.alloc(0) };
        const decision = await keys.authorizeRequest(
          { ...base, body: unread },
          { auditHandleRefusals: false, bodyUnread: true, auditDenial },
        );
        if (decision.outcome === 'deny') {
          if (decision.rule === 'handle')
            await refuseHandle(decision.message.split(':')[0] ?? decision.message);
          else {
            log(
              `proxy: ${decision.status} ${method} ${credential} ${path} denied (${decision.rule}, body unread)`,
            );
            answer(res, decision.status, decision.code, decision.message, { rule: decision.rule }, true);
          }
          return;
        }
        // The grants changed since the preflight: the body matters after all.
      }
      const limit = ('options' in preflight ? preflight.options?.maxBodyBytes : null) ?? defaultLimit;
      const tooLarge = () =>
        refuse(
          413,
          'PAYLOAD_TOO_LARGE',
          `the request body is over ${limit} bytes, this credential's limit: send less, or ask an admin for a larger --max-body-bytes`,
          { rule: 'body_too_large', limit },
        );
      if (declared > limit) {
        await tooLarge();
        return;
      }
      const share = budget.take(handle, declared > 0 ? declared : limit);
      if (!share.ok) {
        res.setHeader('retry-after', '1');
        await refuse(503, 'UNAVAILABLE', share.message, { rule: share.rule, limit: share.limit });
        return;
      }
      release = share.release;
      if (expectsContinue(req)) res.writeContinue();
      const read = await SpooledBody.read(req, { limit, dir: options.spoolDir }).catch((error: unknown) => {
        release();
        throw error;
      });
      if (!read.ok) {
        release();
        await tooLarge();
        return;
      }
      body = read.body;
    }
    try {
      await decideAndForward(req, res, keys, { ...base, body }, body, refuseHandle, auditDenial);
    } finally {
      await body.discard();
      release();
    }
  }

  async function decideAndForward(
    req: IncomingMessage,
    res: ServerResponse,
    keys: Keys,
    request: ProxyRequest,
    body: SpooledBody,
    refuseHandle: (reason: string) => Promise<void>,
    auditDenial: (rule: string, reason: string) => boolean,
  ): Promise<void> {
    const { method, credential } = request;
    const path = request.pathAndQuery.split('?')[0];
    const gone = () => res.destroyed || req.socket.destroyed;
    // An approval is consumed only by the connection holding its request: an `x-cairn-approval`
    // from the agent is never passed on, so no copy can take it.
    const decisionOptions = { approvalTimeoutMs: timeoutMs, auditHandleRefusals: false, auditDenial };
    let decision: ProxyDecision = await keys.authorizeRequest(request, decisionOptions);
    if (decision.outcome === 'hold') {
      const held = decision.approval;
      log(`proxy: hold ${method} ${credential} ${path} branch=${held.branch} approval=${held.id}`);
      const settled = await waitForDecision(keys, held, gone);
      if (settled.state === 'approved' && !gone()) {
        decision = await keys.authorizeRequest({ ...request, approval: held.id }, decisionOptions);
      } else {
        // An approval given after the agent left stays unused and expires with its time.
        if (settled.state === 'pending') await keys.expireApproval(held.id);
        const why =
          settled.state === 'denied'
            ? `denied by ${settled.decidedBy}`
            : settled.state === 'pending'
              ? `not decided within ${timeoutMs} ms`
              : settled.state;
        log(
          `proxy: 403 ${method} ${credential} ${path} approval=${held.id} ${settled.state === 'pending' ? 'expired' : settled.state}`,
        );
        answer(res, 403, 'FORBIDDEN', `the write was not approved (${why}): nothing was sent upstream`, {
          approval: held.id,
          state: settled.state === 'pending' ? 'expired' : settled.state,
          rule: 'approval',
        });
        return;
      }
    }
    if (decision.outcome === 'deny') {
      if (decision.rule === 'handle') {
        await refuseHandle(decision.message.split(':')[0] ?? decision.message);
        return;
      }
      log(`proxy: ${decision.status} ${method} ${credential} ${path} denied (${decision.rule})`);
      answer(res, decision.status, decision.code, decision.message, { rule: decision.rule });
      return;
    }
    if (decision.outcome === 'hold' || decision.outcome === 'read_body') {
      answer(res, 403, 'FORBIDDEN', 'the approval could not be used', { rule: 'approval' });
      return;
    }
    await forward(req, res, keys, request, body, decision);
  }

  async function forward(
    req: IncomingMessage,
    res: ServerResponse,
    keys: Keys,
    request: ProxyRequest,
    body: SpooledBody,
    decision: Extract<ProxyDecision, { outcome: 'forward' }>,
  ): Promise<void> {
    const { method, credential } = request;
    const extra = new Set(decision.options.allowHeaders);
    const headers = guarded
      ? upstreamRequestHeaders(req.headers, extra, decision.inject).headers
      : unguardedRequestHeaders(req.headers, decision.inject);
    headers['content-length'] = String(body.bytes);
    const target = new URL(decision.url);
    const agent = agents[target.protocol as 'http:' | 'https:'];
    const lib = target.protocol === 'https:' ? https : http;
    const grant = decision.grant;
    const forms = formsFor(decision.inject);
    await new Promise<void>((resolve) => {
      const upstream = lib.request(target, { method, headers, agent, timeout: upstreamTimeoutMs }, (up) => {
        log(`proxy: ${up.statusCode} ${method} ${credential} ${target.pathname} grant=${grant}`);
        const relayed = guarded
          ? relayResponse(up, res, {
              method,
              extra,
              forms,
              holdBytes,
              onLeak: async (detail) => {
                log(
                  `proxy: leak ${method} ${credential} ${target.pathname} grant=${grant} (${detail.where})`,
                );
                await keys.recordProxyEvent('keys.leak', request, {
                  ...decision.attribution,
                  url: decision.url,
                  status: up.statusCode,
                  ...detail,
                });
              },
              answer: (status, code, message, data) => answer(res, status, code, message, data),
            })
          : relayUnguarded(up, res);
        relayed.then(resolve, (error: unknown) => {
          log(`proxy: relay failed (${(error as Error).message})`);
          res.destroy();
          resolve();
        });
      });
      upstream.on('timeout', () => upstream.destroy(new Error('the upstream timed out')));
      upstream.on('error', (error) => {
        log(
          `proxy: 502 ${method} ${credential} ${target.pathname} grant=${grant} (${(error as Error).message})`,
        );
        answer(
          res,
          502,
          'UNAVAILABLE',
          `the upstream did not answer: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
          { rule: 'upstream' },
        );
        resolve();
      });
      res.on('close', () => {
        if (!res.writableFinished) upstream.destroy();
      });
      if (body.bytes === 0) upstream.end();
      else pipeline(body.stream(), upstream, () => {});
    });
  }

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error: unknown) => {
      const e = error instanceof CairnError ? error : null;
      log(`proxy: 500 ${req.method} (${e ? e.code : 'INTERNAL'})`);
      answer(
        res,
        e ? HTTP_STATUS[e.code] : 500,
        e?.code ?? 'INTERNAL',
        e?.message ?? 'the proxy failed: see its log',
      );
    });
  };
  const headersTimeout = options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const requestTimeout = Math.max(options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, headersTimeout);
  const server = http.createServer(
    {
      headersTimeout,
      requestTimeout,
      // How often stalled connections are looked for: often enough for the shorter timeout.
      connectionsCheckingInterval: Math.max(10, Math.min(30_000, Math.floor(headersTimeout / 4))),
    },
    onRequest,
  );
  // `Expect: 100-continue`: the same path, which sends 100 Continue only once the handle and
  // every refusal that needs no body have passed (a refused client never sends its body).
  server.on('checkContinue', onRequest);
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    port,
    async close() {
      closing = true;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agents['http:'].destroy();
      agents['https:'].destroy();
      await limiter.flush();
      await handleLimiter.flush();
    },
  };
}
