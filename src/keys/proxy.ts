import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { CairnError, HTTP_STATUS } from '../errors.js';
import { type Approval, DEFAULT_APPROVAL_TIMEOUT_MS, Keys } from './keys.js';

/**
 * The egress proxy: a reverse proxy, not a man-in-the-middle. A branch calls
 * `http://127.0.0.1:PORT/<credential>/<path>` with its branch handle in
 * `x-cairn-handle`; the proxy asks the keys layer for a decision (one
 * transaction: grant check, use counted, audit entry) and forwards to the
 * credential's upstream with the secret injected, holds a write until a
 * person approves it, or answers 403 with the reason. Nothing is forwarded
 * before the decision is durable.
 */
export const HANDLE_HEADER = 'x-cairn-handle';
export const APPROVAL_HEADER = 'x-cairn-approval';
export const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;

/**
 * Headers never passed on: hop-by-hop ones, Cairn's own, anything the agent
 * sends as credentials, and method overrides (a GET carrying
 * `X-HTTP-Method-Override: DELETE` is a DELETE to many servers).
 */
const DROPPED_REQUEST_HEADERS = new Set([
  'x-http-method-override',
  'x-http-method',
  'x-method-override',
  'host',
  'connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'authorization',
  'content-length',
  HANDLE_HEADER,
  APPROVAL_HEADER,
]);
/** Hop-by-hop headers, and cookies: a session the secret bought must not outlive the grant in the agent's hands. */
const DROPPED_RESPONSE_HEADERS = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'trailer',
  'upgrade',
  'set-cookie',
  'set-cookie2',
]);
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 60_000;

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
  maxBodyBytes?: number;
  /** How long the upstream may take to answer (and between bytes); default 60 s. */
  upstreamTimeoutMs?: number;
  /** One line per request: status, method, credential, path, branch, grant. Never a secret or a handle. */
  log?: (line: string) => void;
}

export interface RunningProxy {
  url: string;
  port: number;
  close(): Promise<void>;
}

function answer(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  data: Record<string, unknown> = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify({ error: { code, message, data } });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (d: Buffer) => {
      size += d.length;
      if (size > limit) {
        resolve(null);
        req.resume();
        return;
      }
      parts.push(d);
    });
    req.on('end', () => resolve(size > limit ? null : Buffer.concat(parts)));
    req.on('error', reject);
  });
}

export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }),
    'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }),
  };
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const timeoutMs = options.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
  const pollMs = options.pollMs ?? 100;
  const upstreamTimeoutMs = options.upstreamTimeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
  const log = options.log ?? (() => {});
  let closing = false;

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
    if (!match) {
      answer(res, 404, 'NOT_FOUND', 'call the proxy as /<credential>/<path>, with x-cairn-handle set');
      return;
    }
    let credential: string;
    try {
      credential = decodeURIComponent(match[1] as string);
    } catch {
      answer(res, 404, 'NOT_FOUND', 'the credential name is not valid percent-encoding');
      return;
    }
    const pathAndQuery = `${match[2] ?? '/'}${match[3] ?? ''}`;
    const handleHeader = req.headers[HANDLE_HEADER];
    const handle = typeof handleHeader === 'string' ? handleHeader : '';
    const tenant = Keys.handleTenant(handle);
    const keys = (tenant ? options.keysFor(tenant) : undefined) ?? options.auditRefusalsIn;
    const method = (req.method ?? 'GET').toUpperCase();
    if (!keys) {
      log(`proxy: 403 ${method} ${credential} (no valid branch handle)`);
      answer(
        res,
        403,
        'FORBIDDEN',
        `a branch handle is required in ${HANDLE_HEADER}: cairn exec --branch sets CAIRN_HANDLE`,
      );
      return;
    }
    const body = await readBody(req, limit);
    if (body === null) {
      answer(res, 413, 'PAYLOAD_TOO_LARGE', `the request body is over ${limit} bytes`);
      return;
    }
    // An approval is consumed only by the connection holding its request: an `x-cairn-approval`
    // from the agent is dropped like any other Cairn header, so no copy can take it.
    const request = { handle, credential, method, pathAndQuery, body };
    const path = pathAndQuery.split('?')[0];
    const gone = () => res.destroyed || req.socket.destroyed;
    let decision = await keys.authorizeRequest(request, { approvalTimeoutMs: timeoutMs });
    if (decision.outcome === 'hold') {
      const held = decision.approval;
      log(`proxy: hold ${method} ${credential} ${path} branch=${held.branch} approval=${held.id}`);
      const settled = await waitForDecision(keys, held, gone);
      if (settled.state === 'approved' && !gone()) {
        decision = await keys.authorizeRequest(
          { ...request, approval: held.id },
          { approvalTimeoutMs: timeoutMs },
        );
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
        });
        return;
      }
    }
    if (decision.outcome === 'deny') {
      log(`proxy: ${decision.status} ${method} ${credential} ${path} denied`);
      answer(res, decision.status, decision.code, decision.message);
      return;
    }
    if (decision.outcome === 'hold') {
      answer(res, 403, 'FORBIDDEN', 'the approval could not be used');
      return;
    }
    // Headers the agent names in Connection are hop-by-hop too (RFC 9110 §7.6.1).
    const named = new Set(
      String(req.headers.connection ?? '')
        .split(',')
        .map((h) => h.trim().toLowerCase()),
    );
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (
        value === undefined ||
        DROPPED_REQUEST_HEADERS.has(name) ||
        named.has(name) ||
        name in decision.inject
      )
        continue;
      headers[name] = value;
    }
    Object.assign(headers, decision.inject);
    headers['content-length'] = String(body.length);
    const target = new URL(decision.url);
    const agent = agents[target.protocol as 'http:' | 'https:'];
    const lib = target.protocol === 'https:' ? https : http;
    const grant = decision.grant;
    const secrets = Object.values(decision.inject).flatMap((v) => [v, v.replace(/^(Bearer|Basic) /, '')]);
    await new Promise<void>((resolve) => {
      const upstream = lib.request(target, { method, headers, agent, timeout: upstreamTimeoutMs }, (up) => {
        const out: Record<string, string | string[]> = {};
        for (const [name, value] of Object.entries(up.headers)) {
          if (value === undefined || DROPPED_RESPONSE_HEADERS.has(name)) continue;
          // An upstream echoing the injected secret in a header does not hand it to the agent.
          if (secrets.some((secret) => String(value).includes(secret))) continue;
          out[name] = value;
        }
        res.writeHead(up.statusCode ?? 502, out);
        log(`proxy: ${up.statusCode} ${method} ${credential} ${target.pathname} grant=${grant}`);
        // pipeline destroys both sides when either ends early (an agent that hangs up mid-response).
        pipeline(up, res, () => resolve());
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
        );
        resolve();
      });
      res.on('close', () => {
        if (!res.writableFinished) upstream.destroy();
      });
      upstream.end(body);
    });
  }

  const server = http.createServer((req, res) => {
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
  });
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
    },
  };
}
