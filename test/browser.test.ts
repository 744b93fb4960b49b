/**
 * The browser bundle (dist/browser/cairn.js, `cairn/browser`) in headless
 * Chromium — Debian's, driven by playwright-core, off the network — against a
 * live `cairn serve` (the built CLI, a real socket). Pages are served by a
 * small HTTP server of the test's own on other ports, so every call is a
 * cross-origin one: the server allows one page origin (`--cors-origin`) and
 * not the other. The bundle is rebuilt when stale by the global setup
 * (test/support/build.ts).
 *
 * Without /usr/bin/chromium the suite is skipped, and says so; with
 * CAIRN_REQUIRE_BROWSER=1 (CI) it fails instead.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../src/client/connect.js';
import { BROWSER_BUNDLE } from './support/build.js';
import { cliIn, firstDocument } from './support/cli.js';
import { tempDir } from './support/stores.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CHROMIUM = '/usr/bin/chromium';
/** Chromium with nothing of its own to fetch: the machine's network is closed, and a refused connection stalls it. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const required = process.env.CAIRN_REQUIRE_BROWSER === '1';
const missing = existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is missing (apt-get install chromium)`;
if (missing && required) throw new Error(`CAIRN_REQUIRE_BROWSER=1, but ${missing}`);
if (missing) console.log(`browser.test.ts: skipped: ${missing}; set CAIRN_REQUIRE_BROWSER=1 to fail instead`);

/** The page's files: a blank page, the bundle, and the scenario it runs (test/fixtures/browser/scenario.js). */
function pageFiles(): Record<string, { type: string; body: string }> {
  return {
    '/': { type: 'text/html', body: '<!doctype html><meta charset="utf-8"><title>cairn in a page</title>\n' },
    '/cairn.js': { type: 'text/javascript', body: readFileSync(join(ROOT, BROWSER_BUNDLE), 'utf8') },
    '/scenario.js': {
      type: 'text/javascript',
      body: readFileSync(join(ROOT, 'test/fixtures/browser/scenario.js'), 'utf8'),
    },
    '/readme.js': { type: 'text/javascript', body: readmeModule() },
  };
}

/**
 * The README's browser example as a module the page runs: its imports as
 * they are, its body inside `run(url, token)` (the README's 7070 is the live
 * server's URL), answering the session it made.
 */
function readmeModule(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const block = /```js\n([\s\S]*?)\n```/.exec(readme)?.[1];
  if (!block) throw new Error('the README has no ```js block');
  const lines = block.split('\n');
  const imports = lines.filter((line) => line.startsWith('import '));
  const body = lines.filter((line) => !line.startsWith('import ')).join('\n');
  return `${imports.join('\n')}\nexport async function run(url, token) {\n${body.replace("'http://127.0.0.1:7070'", 'url')}\nreturn session.id;\n}\n`;
}

/** Serves the page's files on 127.0.0.1 at a free port; its origin is the page's. */
function servePage(
  files: Record<string, { type: string; body: string }>,
): Promise<{ server: Server; origin: string }> {
  const server = createServer((request, response) => {
    const file = files[new URL(request.url ?? '/', 'http://page').pathname];
    if (!file) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': `${file.type}; charset=utf-8`, 'cache-control': 'no-store' });
    response.end(file.body);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    ),
  );
}

describe.skipIf(missing !== undefined)(
  `the browser bundle in headless Chromium, against a live cairn serve${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    const work = tempDir('cairn-browser-');
    const { start } = cliIn(work.dir, join(work.dir, 'store'));
    const pages: Server[] = [];
    let allowedOrigin = '';
    let otherOrigin = '';
    let serve: ChildProcessWithoutNullStreams | undefined;
    let served = { url: '', token: '' };
    let browser: BrowserContext | undefined;

    beforeAll(async () => {
      const files = pageFiles();
      const allowedPage = await servePage(files);
      const otherPage = await servePage(files);
      pages.push(allowedPage.server, otherPage.server);
      allowedOrigin = allowedPage.origin;
      otherOrigin = otherPage.origin;
      serve = start([
        'serve',
        '--port',
        '0',
        '--json',
        '--store',
        join(work.dir, 'store'),
        '--cors-origin',
        allowedOrigin,
      ]);
      served = await firstDocument<{ url: string; token: string }>(serve, 'cairn serve');
      // No time budget of Playwright's own: vitest's hook timeout is the backstop against a hang.
      browser = await chromium.launchPersistentContext(join(work.dir, 'chromium-profile'), {
        executablePath: CHROMIUM,
        headless: true,
        args: CHROMIUM_ARGS,
        timeout: 0,
      });
      browser.setDefaultTimeout(0);
    });

    afterAll(async () => {
      await browser?.close();
      if (serve && serve.exitCode === null) {
        const exited = new Promise((resolve) => serve?.once('exit', resolve));
        serve.kill('SIGTERM');
        await exited;
      }
      await Promise.all(pages.map((page) => new Promise((resolve) => page.close(resolve))));
      work.remove();
    });

    /** Opens `origin`'s page and runs one export of the scenario in it, with the server's URL and token. */
    async function inPage<T>(origin: string, scenario: 'allowed' | 'refused'): Promise<T> {
      const page = await (browser as BrowserContext).newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      try {
        await page.goto(`${origin}/`);
        const input = JSON.stringify({ url: served.url, token: served.token });
        const result = (await page.evaluate(
          `import('/scenario.js').then((scenario) => scenario.${scenario}(${input}))`,
        )) as T;
        expect(errors).toEqual([]);
        return result;
      } finally {
        await page.close();
      }
    }

    it('a page of an allowed origin connects with a token, creates a session, appends, reads the branch and gets typed errors', async () => {
      const run = await inPage<Record<string, unknown>>(allowedOrigin, 'allowed');
      expect(run.bufferless).toBe(true);
      expect(run.tenant).toMatch(/^tn_/);
      expect(run.session).toMatch(/^ss_/);
      expect(run.replayed).toBe(run.appended);
      expect(run.events).toEqual([
        { id: run.appended, kind: 'message', payload: { text: 'hello from Chromium' } },
      ]);
      expect(run.schemaAccepts).toBe(true);
      expect(run.schemaRefuses).toBe(false);
      // Errors cross as the server sent them: the stable code, rebuilt as the bundle's CairnError.
      expect(run.badInput).toMatchObject({
        threw: true,
        cairn: true,
        code: 'INVALID_ARGUMENT',
        field: 'session',
      });
      expect(run.notFound).toMatchObject({ threw: true, cairn: true, code: 'NOT_FOUND' });
      expect(run.badToken).toMatchObject({ threw: true, cairn: true, code: 'UNAUTHENTICATED' });
      // What the page wrote is there for a Node client too.
      const node = connect(served);
      try {
        const events = (await node.readBranch({ session: run.session as string })).events;
        expect(events.map((event) => event.id)).toEqual([run.appended]);
      } finally {
        await node.close();
      }
    });

    it('the README’s browser example runs in a page as written: its session and event reach the server', async () => {
      const page = await (browser as BrowserContext).newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      try {
        await page.goto(`${allowedOrigin}/`);
        const input = `${JSON.stringify(served.url)}, ${JSON.stringify(served.token)}`;
        const session = (await page.evaluate(`import('/readme.js').then((m) => m.run(${input}))`)) as string;
        expect(errors).toEqual([]);
        const node = connect(served);
        try {
          expect(await node.getSession({ session })).toMatchObject({ title: 'from a page' });
          const events = (await node.readBranch({ session })).events;
          expect(events.map((event) => [event.kind, event.payload])).toEqual([['message', 'hi']]);
        } finally {
          await node.close();
        }
      } finally {
        await page.close();
      }
    });

    it('a page of an origin not on the list is refused by the browser: no answer read, nothing written', async () => {
      const node = connect(served);
      try {
        const before = (await node.listSessions()).sessions.length;
        const run = await inPage<{ read: Record<string, unknown>; write: Record<string, unknown> }>(
          otherOrigin,
          'refused',
        );
        // The preflight is refused, so the page learns only that no answer came: a read is
        // UNAVAILABLE, a write IN_DOUBT (a page cannot tell a refusal from a cut connection).
        expect(run.read).toMatchObject({ threw: true, cairn: true, code: 'UNAVAILABLE' });
        expect(run.write).toMatchObject({ threw: true, cairn: true, code: 'IN_DOUBT' });
        const after = (await node.listSessions()).sessions;
        expect(after.length).toBe(before);
        expect(after.map((session) => session.title)).not.toContain('from elsewhere');
      } finally {
        await node.close();
      }
    });
  },
);
