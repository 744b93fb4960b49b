import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCairnError } from '../src/errors.js';
import { createApp } from '../src/server/app.js';
import { corsOrigin } from '../src/server/cors.js';
import type { Store } from '../src/store.js';
import { cliIn } from './support/cli.js';
import { sqliteStore, tempDir } from './support/stores.js';

/**
 * CORS for browser pages (server/cors.ts): off unless origins are named, then
 * exactly those, never with credentials. The app is called in process (its
 * fetch handler); test/browser.test.ts drives the same through Chromium.
 */
const PAGE = 'http://127.0.0.1:5173';
const OTHER = 'http://127.0.0.1:5174';

function preflight(origin: string, method = 'POST'): RequestInit {
  return {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'authorization,content-type',
    },
  };
}

describe('CORS origins', () => {
  it('takes an origin as a page has it, in canonical form, and refuses a wildcard, a path or user info', () => {
    expect(corsOrigin('http://127.0.0.1:5173')).toBe('http://127.0.0.1:5173');
    expect(corsOrigin('HTTP://LocalHost:5173/')).toBe('http://localhost:5173');
    expect(corsOrigin('https://console.example:443')).toBe('https://console.example');
    expect(corsOrigin('http://[::1]:8080')).toBe('http://[::1]:8080');
    for (const bad of [
      '*',
      'null',
      '',
      'localhost:5173',
      'ftp://files.example',
      'http://console.example/app',
      'http://console.example?x=1',
      'http://console.example#top',
      'http://user:pw@console.example',
    ]) {
      const error = (() => {
        try {
          return corsOrigin(bad);
        } catch (e) {
          return e;
        }
      })();
      expect({ bad, invalid: isCairnError(error, 'INVALID_ARGUMENT') }).toEqual({ bad, invalid: true });
    }
  });
});

describe('the API with CORS origins', () => {
  let store: Store;
  let cleanup: () => Promise<void>;
  let token = '';

  beforeAll(async () => {
    ({ store, cleanup } = await sqliteStore());
    token = (await store.createTenant('cors')).token.token;
  });
  afterAll(async () => cleanup?.());

  it('refuses a wildcard in the library too', () => {
    expect(() => createApp(store, { corsOrigins: ['*'] })).toThrow(/CORS origin "\*"/);
  });

  it('answers a preflight from a listed origin: its origin, the client’s methods and headers, no credentials', async () => {
    const app = createApp(store, { corsOrigins: [PAGE] });
    const response = await app.request('/v1/sessions', preflight(PAGE));
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect(response.headers.get('access-control-allow-methods')).toBe('GET, POST, PUT');
    expect(response.headers.get('access-control-allow-headers')).toBe(
      'authorization, content-type, cairn-input, range',
    );
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    expect(response.headers.get('vary')).toMatch(/Origin/);
  });

  it('refuses a preflight from an origin not on the list: FORBIDDEN, no CORS header', async () => {
    const app = createApp(store, { corsOrigins: [PAGE] });
    const response = await app.request('/v1/sessions', preflight(OTHER));
    expect(response.status).toBe(403);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    expect(((await response.json()) as { code: string }).code).toBe('FORBIDDEN');
  });

  it('gives a listed origin its answers and its errors to read, and another origin neither', async () => {
    const app = createApp(store, { corsOrigins: [PAGE] });
    const asked = (origin: string, bearer = token) =>
      app.request('/v1/whoami', { headers: { origin, authorization: `Bearer ${bearer}` } });
    const ok = await asked(PAGE);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect(ok.headers.get('access-control-expose-headers')).toBe(
      'retry-after, etag, content-range, cairn-offset, cairn-size',
    );
    const refused = await asked(PAGE, 'not-a-token');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(PAGE);
    const other = await asked(OTHER);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    expect(other.headers.get('vary')).toMatch(/Origin/);
  });

  it('without origins, sends no CORS header and answers no preflight', async () => {
    const app = createApp(store);
    const response = await app.request('/v1/sessions', preflight(PAGE));
    // An OPTIONS like any other request: it carries no token, so the token check refuses it.
    expect(response.status).toBe(401);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    const read = await app.request('/v1/whoami', {
      headers: { origin: PAGE, authorization: `Bearer ${token}` },
    });
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('cairn serve --cors-origin', () => {
  const work = tempDir('cairn-cors-cli-');
  afterAll(() => work.remove());

  it('refuses a wildcard before it opens the store', async () => {
    const { fails } = cliIn(work.dir, join(work.dir, 'store'));
    const error = await fails(
      ['serve', '--port', '0', '--cors-origin', '*', '--store', join(work.dir, 'store')],
      5,
    );
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toMatch(/--cors-origin|CORS origin/);
    expect(existsSync(join(work.dir, 'store', 'cairn.db'))).toBe(false);
  });
});
