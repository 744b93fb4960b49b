import { createServer } from 'node:http';
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
export async function recordingUpstream(name: string): Promise<{
  url: string;
  host: string;
  seen: Seen[];
  close(): Promise<void>;
}> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
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
