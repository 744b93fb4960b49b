/**
 * Cross-origin calls from a browser page, for the origins an operator names
 * (`cairn serve --cors-origin URL`), none by default. The API takes a bearer
 * token, never a cookie, so nothing is allowed with credentials and no origin
 * is a wildcard: a page elsewhere gets no answer it can read.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { forbidden, invalidArgument } from '../errors.js';

/** What a page may send (the remote client's requests) and read besides the safelisted headers. */
const ALLOW_METHODS = 'GET, POST, PUT';
// A byte-bodied route's other fields (`cairn-input`) and a `content` answer's range (contract/spec.ts).
const ALLOW_HEADERS = 'authorization, content-type, cairn-input, range';
const EXPOSE_HEADERS = 'retry-after, etag, content-range, cairn-offset, cairn-size';
/** How long a browser may reuse a preflight's answer (s). */
const PREFLIGHT_MAX_AGE = 600;

/**
 * An origin as a browser sends it (`http://host:port`, no path): the text
 * given, checked and in canonical form (lowercase host, default port left
 * out). `*`, `null`, a path, a query or user info are refused.
 */
export function corsOrigin(text: string): string {
  const refuse = (why: string) =>
    invalidArgument(
      `CORS origin "${text.slice(0, 200)}" ${why}: name one origin as a page has it, e.g. http://localhost:5173`,
      { field: 'corsOrigin' },
    );
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw refuse('is not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refuse('is not http or https');
  if (url.username !== '' || url.password !== '') throw refuse('carries user info');
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^/?#]+\/?$/i.test(text)) throw refuse('has a path, a query or a fragment');
  return url.origin;
}

/**
 * The middleware: a request whose Origin is on the list gets it back in
 * Access-Control-Allow-Origin (its answer and its errors alike); a preflight
 * (OPTIONS with Access-Control-Request-Method) is answered here, 204 for a
 * listed origin and FORBIDDEN for any other. Requests without an Origin, or
 * from an origin not on the list, go on unchanged and carry no CORS header.
 */
export function corsAllowList(origins: readonly string[]): MiddlewareHandler {
  const allowed = new Set(origins.map(corsOrigin));
  return async (c: Context, next) => {
    const origin = c.req.header('origin');
    const listed = origin !== undefined && allowed.has(origin);
    const preflight =
      c.req.method === 'OPTIONS' && c.req.header('access-control-request-method') !== undefined;
    // The answer depends on the Origin: a cache must not serve one origin's to another.
    c.header('vary', 'Origin', { append: true });
    if (preflight) {
      if (!listed) {
        throw forbidden(
          `origin ${origin ?? '(none)'} may not call this server from a browser: start it with --cors-origin ${origin ?? 'URL'} to allow it`,
        );
      }
      return c.body(null, 204, {
        'access-control-allow-origin': origin,
        'access-control-allow-methods': ALLOW_METHODS,
        'access-control-allow-headers': ALLOW_HEADERS,
        'access-control-max-age': String(PREFLIGHT_MAX_AGE),
      });
    }
    if (listed) {
      c.header('access-control-allow-origin', origin);
      c.header('access-control-expose-headers', EXPOSE_HEADERS);
    }
    await next();
  };
}
