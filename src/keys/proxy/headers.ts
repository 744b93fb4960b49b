import type { IncomingHttpHeaders } from 'node:http';
import { invalidArgument as invalid } from '../../errors.js';

/**
 * Headers cross the proxy by allow-list, both ways. A request header the
 * agent sends reaches the upstream only if a client API needs it end to end
 * (content type, accept*, user agent, idempotency keys, request ids,
 * conditionals) or the credential lists it; routing overrides never pass,
 * listed or not: to a server behind a gateway, `X-Original-URL` or
 * `X-HTTP-Method-Override` is another request than the one the grant allowed.
 */
export const DEFAULT_REQUEST_HEADERS: ReadonlySet<string> = new Set([
  'accept',
  'accept-charset',
  'accept-language',
  'cache-control',
  'content-encoding',
  'content-language',
  'content-type',
  'idempotency-key',
  'if-match',
  'if-modified-since',
  'if-none-match',
  'if-range',
  'if-unmodified-since',
  'range',
  'request-id',
  'traceparent',
  'tracestate',
  'user-agent',
  'x-correlation-id',
  'x-idempotency-key',
  'x-request-id',
]);

/** Response headers an agent's client needs; everything else (cookies first) stays at the proxy. */
export const DEFAULT_RESPONSE_HEADERS: ReadonlySet<string> = new Set([
  'accept-ranges',
  'age',
  'cache-control',
  'content-disposition',
  'content-language',
  'content-length',
  'content-range',
  'content-type',
  'date',
  'etag',
  'expires',
  'last-modified',
  'link',
  'location',
  'ratelimit',
  'ratelimit-limit',
  'ratelimit-policy',
  'ratelimit-remaining',
  'ratelimit-reset',
  'request-id',
  'retry-after',
  'vary',
  'x-correlation-id',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-request-id',
]);

/**
 * Never forwarded in either direction, whatever a credential lists: routing
 * and method overrides, client-address claims, hop-by-hop headers, anything
 * that carries a credential, cookies, and Cairn's own headers.
 */
const NEVER = new Set([
  'authorization',
  'connection',
  'content-length',
  'cookie',
  'cookie2',
  'forwarded',
  'host',
  'keep-alive',
  'set-cookie',
  'set-cookie2',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'via',
  'x-client-ip',
  'x-cluster-client-ip',
  'x-host',
  'x-http-method',
  'x-http-method-override',
  'x-method-override',
  'x-override-url',
  'true-client-ip',
  'accept-encoding',
]);
const NEVER_PREFIXES = [
  'x-forwarded-',
  'x-original-',
  'x-rewrite-',
  'x-real-',
  'x-cairn-',
  'proxy-',
  'x-envoy-',
  'cf-',
];

/** Why a header may never cross the proxy, or undefined when a credential may list it. */
export function neverForwarded(name: string): string | undefined {
  if (NEVER.has(name) || NEVER_PREFIXES.some((p) => name.startsWith(p)))
    return `${name} is a routing override, hop-by-hop, credential-bearing or Cairn header`;
  return undefined;
}

/** A credential's extra header names, checked where they are given: lower-cased, deduplicated. */
export function credentialHeaders(names: readonly string[], ownHeader: string): string[] {
  const out = new Set<string>();
  for (const raw of names) {
    const name = raw.trim().toLowerCase();
    if (!/^[a-z0-9][a-z0-9-]{0,63}$/.test(name))
      throw invalid(`header name "${raw}" is not a token: give letters, digits and -`, { header: raw });
    const why = neverForwarded(name);
    if (why) throw invalid(`header ${name} cannot be allowed through the proxy: ${why}`, { header: name });
    if (name === ownHeader)
      throw invalid(`header ${name} carries the credential itself: the proxy injects it`, { header: name });
    out.add(name);
  }
  if (out.size > 32) throw invalid('a credential may allow at most 32 extra headers');
  return [...out].sort();
}

/**
 * The request headers to send upstream: allowed ones the agent sent (minus
 * any it names in Connection, which are hop-by-hop there), then the
 * injected credential. Returns the names it dropped, for the audit entry.
 */
export function upstreamRequestHeaders(
  incoming: IncomingHttpHeaders,
  extra: ReadonlySet<string>,
  inject: Record<string, string>,
): { headers: Record<string, string | string[]>; dropped: string[] } {
  const named = String(incoming.connection ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase());
  const headers: Record<string, string | string[]> = {};
  const dropped: string[] = [];
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined) continue;
    const allowed =
      (DEFAULT_REQUEST_HEADERS.has(name) || extra.has(name)) &&
      !named.includes(name) &&
      !(name in inject) &&
      neverForwarded(name) === undefined;
    if (allowed) headers[name] = value;
    else if (
      name !== 'host' &&
      name !== 'connection' &&
      name !== 'content-length' &&
      !name.startsWith('x-cairn-')
    )
      dropped.push(name);
  }
  Object.assign(headers, inject);
  // The proxy scans what comes back; a compressed body would hide an echoed secret from it.
  headers['accept-encoding'] = 'identity';
  return { headers, dropped: dropped.slice(0, 32) };
}

/** Is this upstream response header passed to the agent (before its value is scanned)? */
export function responseHeaderAllowed(name: string, extra: ReadonlySet<string>): boolean {
  return (
    (DEFAULT_RESPONSE_HEADERS.has(name) || extra.has(name)) &&
    (name === 'content-length' || neverForwarded(name) === undefined)
  );
}
