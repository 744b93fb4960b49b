import { createServer, type IncomingMessage, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request an upstream saw. */
export interface Seen {
  method: string;
  path: string;
  authorization: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * A real HTTP server on loopback standing in for a third-party API: it
 * records every request it receives and answers 200 with a small JSON body.
 */
/** Reads a request whole, notes it in `seen`, then calls `then`. */
function record(req: IncomingMessage, seen: Seen[], then: () => void): void {
  const parts: Buffer[] = [];
  req.on('data', (d: Buffer) => parts.push(d));
  req.on('end', () => {
    seen.push({
      method: req.method ?? '',
      path: req.url ?? '',
      authorization: String(req.headers.authorization ?? ''),
      headers: req.headers,
      body: Buffer.concat(parts).toString('utf8'),
    });
    then();
  });
}

export async function recordingUpstream(name: string): Promise<{
  url: string;
  host: string;
  seen: Seen[];
  close(): Promise<void>;
}> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    record(req, seen, () => {
      const body = JSON.stringify({ upstream: name, path: req.url });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/api`,
    host: `127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A request through the egress proxy with a branch handle. */
export async function viaProxy(
  proxyUrl: string,
  handle: string,
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${proxyUrl}${path}`, {
    method,
    headers: { 'x-cairn-handle': handle, 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body }),
  });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = { text };
  }
  return { status: res.status, json };
}

/** Paths an upstream may read as another path than the grant's prefix suggests. */
export const AMBIGUOUS_PATHS = [
  '/invoices/..%00/admin',
  '/invoices/..%2f..%2fadmin',
  '/invoices/%2e%2e/admin',
  '/invoices/.%2E/admin',
  '/invoices/%252e%252e/admin',
  '/invoices/..;/admin',
  '/invoices/..%20/admin',
  '/invoices/..%09/admin',
  '/invoices/%00',
  '/invoices/a%0d%0aX-Original-URL:%20/admin',
  '/invoices/..%5cadmin',
  '/invoices/%EF%BC%8E%EF%BC%8E/admin', // full-width dots
  '/invoices/%E2%80%A4%E2%80%A4/admin', // one dot leaders
  '/invoices/%E3%80%82%E3%80%82/admin', // ideographic full stops
  '/invoices/%C0%AE%C0%AE/admin', // overlong UTF-8 dots
  '/invoices/%E0%80%AE./admin', // overlong, three bytes
  '/invoices/%EF%BC%8Fadmin', // full-width solidus
  '/invoices/%E2%80%8B../admin', // zero-width space
  '/invoices/...',
  '/invoices/x%C2%A0',
];

/** The ways an echoing upstream writes a secret back: each a common encoding of it. */
export const ECHO_FORMS: Record<string, (secret: string) => string> = {
  plain: (s) => s,
  upper: (s) => s.toUpperCase(),
  lower: (s) => s.toLowerCase(),
  base64_0: (s) => Buffer.from(s).toString('base64'),
  base64_1: (s) => Buffer.from(`x${s}`).toString('base64'),
  base64_2: (s) => Buffer.from(`xy${s}`).toString('base64'),
  base64url_1: (s) => Buffer.from(`?${s}>`).toString('base64url'),
  base64url_2: (s) => Buffer.from(`?>${s}`).toString('base64url'),
  percent_all: (s) =>
    [...Buffer.from(s)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  percent_some: (s) =>
    [...s].map((c, i) => (i % 2 === 0 ? `%${c.charCodeAt(0).toString(16).padStart(2, '0')}` : c)).join(''),
  percent_twice: (s) => [...Buffer.from(s)].map((b) => `%25${b.toString(16).padStart(2, '0')}`).join(''),
  hex_lower: (s) => Buffer.from(s).toString('hex'),
  hex_upper: (s) => Buffer.from(s).toString('hex').toUpperCase(),
  bearer_base64: (s) => Buffer.from(`Bearer ${s}`).toString('base64'),
  // MIME-style base64 (RFC 2045: CRLF every 76; PEM and others: LF every 64), the secret at each
  // alignment and crossing a line break.
  mime76_crlf_0: (s) => mime(`${'m'.repeat(42)}${s}.`, 76, '\r\n'),
  mime76_crlf_1: (s) => mime(`${'m'.repeat(43)}${s}.`, 76, '\r\n'),
  mime76_crlf_2: (s) => mime(`${'m'.repeat(44)}${s}.`, 76, '\r\n'),
  mime64_lf_0: (s) => mime(`${'m'.repeat(33)}${s}.`, 64, '\n'),
  mime64_lf_1: (s) => mime(`${'m'.repeat(34)}${s}.`, 64, '\n'),
  mime64_lf_2: (s) => mime(`${'m'.repeat(35)}${s}.`, 64, '\n'),
  // JSON string escapes as serialisers write them: every character, some (upper-case hex), `\/`.
  json_u_all: (s) => [...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
  json_u_some: (s) =>
    [...s]
      .map((c, i) => (i % 3 === 0 ? `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}` : c))
      .join(''),
  json_slash: (s) => s.replace(/\//g, '\\/'),
  json_base64_slash: (s) => Buffer.from(`>>${s}??`).toString('base64').replace(/\//g, '\\/'),
  // A long part of the secret: a masked message, and its tail in upper case.
  partial_masked: (s) => `${s.slice(0, -4)}****`,
  partial_tail: (s) => s.slice(Math.floor(s.length / 4)).toUpperCase(),
};

/** `text` in base64, broken into lines of `width` characters by `eol`. */
function mime(text: string, width: number, eol: string): string {
  const b64 = Buffer.from(text).toString('base64');
  const lines: string[] = [];
  for (let i = 0; i < b64.length; i += width) lines.push(b64.slice(i, i + width));
  return lines.join(eol);
}

/**
 * A real upstream that records every request (as `recordingUpstream`) and
 * answers by echoing the credential it was sent back at the agent, in the
 * form the path names: `/api/<where>/<form>` with where one of
 * `header` (in an allowed header, x-request-id), `body` (a small JSON),
 * `late` (after 256 KiB of filler, so past the proxy's hold window),
 * `split` (the echo written in two chunks, split inside the secret), `gzip`,
 * `deflate`, `br` (a compressed JSON body). `sent` holds every echo string it wrote.
 * Any other path answers a clean JSON.
 */
export async function echoingUpstream(): Promise<{
  url: string;
  seen: Seen[];
  sent: string[];
  close(): Promise<void>;
}> {
  const { gzipSync, deflateSync, brotliCompressSync } = await import('node:zlib');
  const seen: Seen[] = [];
  const sent: string[] = [];
  const server = createServer((req, res) => {
    record(req, seen, () => {
      // A bearer token as is; for basic, the password alone (what an upstream would leak of it).
      const authorization = String(req.headers.authorization ?? '');
      const secret = authorization.startsWith('Basic ')
        ? Buffer.from(authorization.slice(6), 'base64').toString().split(':').slice(1).join(':')
        : authorization.replace(/^Bearer /, '');
      const [, , where = '', form = ''] = (req.url ?? '').split('?')[0]!.split('/');
      const encode = ECHO_FORMS[form];
      if (!encode || secret === '') {
        const body = JSON.stringify({ ok: true, path: req.url });
        res.writeHead(200, {
          'content-type': 'application/json',
          'x-request-id': 'req_1',
          'set-cookie': 'a=b',
        });
        res.end(body);
        return;
      }
      // A header cannot hold a line break: there the echo is one line.
      const echo = where === 'header' ? encode(secret).replace(/\r?\n/g, '') : encode(secret);
      sent.push(echo);
      // As the form wrote it (its escapes are the JSON's own).
      const json = `{"echo":"${echo}","note":"your token"}`;
      if (where === 'header') {
        res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': echo, 'x-debug': echo });
        res.end('{"ok":true}');
      } else if (where === 'body') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(json);
      } else if (where === 'late') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('.'.repeat(256 * 1024));
        res.end(`token=${echo}\n`);
      } else if (where === 'split') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const cut = Math.floor(echo.length / 2);
        res.write(`${'.'.repeat(300 * 1024)}token=${echo.slice(0, cut)}`);
        setTimeout(() => res.end(`${echo.slice(cut)}\n`), 20);
      } else if (where === 'gzip') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(gzipSync(json));
      } else if (where === 'deflate' || where === 'br') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': where });
        res.end(where === 'br' ? brotliCompressSync(json) : deflateSync(json));
      } else {
        res.writeHead(404);
        res.end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/api`,
    seen,
    sent,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A raw request through the proxy (node:http, so a GET may carry a body and
 * headers go out exactly as given). Resolves with status, headers and the
 * bytes received; `error` when the connection broke off mid-answer.
 */
export function rawRequest(
  url: string,
  options: {
    method: string;
    path: string;
    headers?: Record<string, string>;
    body?: Buffer | string;
    chunked?: boolean;
  },
): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  error?: string;
}> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        method: options.method,
        path: options.path,
        headers: {
          ...(options.body !== undefined && !options.chunked
            ? { 'content-length': String(Buffer.byteLength(options.body)) }
            : {}),
          ...(options.chunked ? { 'transfer-encoding': 'chunked' } : {}),
          ...options.headers,
        },
        agent: false,
      },
      (res) => {
        const parts: Buffer[] = [];
        const done = (error?: string) =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(parts),
            ...(error ? { error } : {}),
          });
        res.on('data', (d: Buffer) => parts.push(d));
        res.on('end', () => done());
        res.on('error', (e) => done(e.message));
        res.on('aborted', () => done('aborted'));
      },
    );
    req.on('error', reject);
    if (options.body !== undefined && options.chunked) {
      req.write(options.body);
      req.end();
    } else if (options.body !== undefined) req.end(options.body);
    else req.end();
  });
}

/**
 * A raw TCP connection to a server: writes exactly the bytes given (so a
 * request can stall mid-header or mid-body), collects what comes back, and
 * notes when the server closes it.
 */
export async function rawSocket(url: string): Promise<{
  write(data: string | Buffer): void;
  /** Everything received so far, as latin1. */
  received(): string;
  /** Resolves once `text` has been received (or rejects after `ms`). */
  waitFor(text: string, ms?: number): Promise<string>;
  /** Resolves with the time from open to close, once the server closes the connection. */
  closed: Promise<number>;
  destroy(): void;
}> {
  const { connect } = await import('node:net');
  const target = new URL(url);
  const socket = connect(Number(target.port), target.hostname);
  const start = Date.now();
  let text = '';
  const waiters = new Set<() => void>();
  socket.on('data', (d: Buffer) => {
    text += d.toString('latin1');
    for (const w of [...waiters]) w();
  });
  const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now() - start)));
  socket.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return {
    write: (data) => socket.write(data),
    received: () => text,
    waitFor: (wanted, ms = 5000) =>
      new Promise<string>((resolve, reject) => {
        const check = () => {
          if (!text.includes(wanted)) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(text);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(`not received within ${ms} ms: ${wanted} (got ${JSON.stringify(text.slice(0, 300))})`),
          );
        }, ms);
        waiters.add(check);
        check();
      }),
    closed,
    destroy: () => socket.destroy(),
  };
}
