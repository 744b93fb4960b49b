import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';

/**
 * The proxy's header handling and response relay with the allow-lists and
 * the echo scan switched off: a deny-list of hop-by-hop and credential
 * headers and an unscanned pipe. For the benchmark's baseline only
 * (`ProxyOptions.unguardedForBench`), so it measures what the guards cost;
 * never for real traffic.
 */
const DROPPED_REQUEST = new Set([
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
  'x-cairn-handle',
  'x-cairn-approval',
]);
const DROPPED_RESPONSE = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'trailer',
  'upgrade',
  'set-cookie',
]);

export function unguardedRequestHeaders(
  incoming: IncomingHttpHeaders,
  inject: Record<string, string>,
): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(incoming))
    if (value !== undefined && !DROPPED_REQUEST.has(name)) headers[name] = value;
  return Object.assign(headers, inject);
}

export function relayUnguarded(up: IncomingMessage, res: ServerResponse): Promise<void> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(up.headers))
    if (value !== undefined && !DROPPED_RESPONSE.has(name)) out[name] = value;
  res.writeHead(up.statusCode ?? 502, out);
  return new Promise<void>((resolve) => pipeline(up, res, () => resolve()));
}
