import { type ChildProcessWithoutNullStreams, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliIn, type Doc, doc, firstDocument } from './support/cli.js';

// End-to-end: these spawn the built CLI (run `npx tsc -p tsconfig.json` first).
const work = mkdtempSync(join(tmpdir(), 'cairn-cli-'));
const store = join(work, 'store');
const { start, cairn, ok, fails } = cliIn(work, store);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('cairn CLI on a local store', () => {
  let tenant = '';
  /** A session of the shared store with its main branch, made before any test: no test depends on another's. */
  let session = '';

  beforeAll(async () => {
    const init = await ok(['init']);
    expect(init).toMatchObject({ created: true, store, role: 'admin' });
    expect(init.id).toMatch(/^tn_/);
    expect(init.tenant).toBe(init.id);
    tenant = init.id;
    session = (await ok(['session', 'new', '--title', 'shared'])).id;
  });

  /** A new session of the shared store whose main branch holds three events: a message by `bot`, a tool call and its result. */
  async function threeEvents(): Promise<{ session: string; events: string[] }> {
    const own = (await ok(['session', 'new', '--title', 'three'])).id as string;
    const events: string[] = [];
    for (const [kind, payload, actor] of [
      ['message', '{"text":"hi"}', ['--actor', 'bot']],
      ['tool.call', '{"tool":"ls"}', []],
      ['tool.result', '{"result":[1,2,3]}', []],
    ] as const)
      events.push((await ok(['log', 'append', own, '--kind', kind, '--payload', payload, ...actor])).id);
    return { session: own, events };
  }

  it('init is idempotent; whoami acts as the local principal', async () => {
    const [again, who] = await Promise.all([ok(['init']), ok(['whoami'])]);
    expect(again).toMatchObject({ id: tenant, created: false });
    expect(who).toMatchObject({ tenant, kind: 'user', role: 'admin' });
  });

  it('session new, ls and show', async () => {
    // A store of its own, so the listing holds only this session.
    const own = join(work, 'sessions-store');
    const ownTenant = (await ok(['init'], { store: own })).id;
    const created = await ok(['session', 'new', '--title', 'first', '--meta', '{"team":"a"}'], {
      store: own,
    });
    expect(created.id).toMatch(/^ss_/);
    expect(created).toMatchObject({ title: 'first', meta: { team: 'a' }, tenant: ownTenant });
    const session = created.id;

    const [page, shown] = await Promise.all([
      ok(['session', 'ls', '--limit', '10'], { store: own }),
      ok(['session', 'show', session], { store: own }),
    ]);
    expect(page.sessions.map((s: { id: string }) => s.id)).toEqual([session]);
    expect(page.next).toBeNull();
    expect(shown.session.id).toBe(session);
    expect(shown.branches.map((b: { name: string }) => b.name)).toEqual(['main']);
  });

  it('log append from a flag, stdin and a file, with an idempotency key', async () => {
    const session = (await ok(['session', 'new', '--title', 'appends'])).id as string;
    const first = await ok([
      'log',
      'append',
      session,
      '--kind',
      'message',
      '--payload',
      '{"text":"hi"}',
      '--actor',
      'bot',
    ]);
    expect(first).toMatchObject({
      seq: 1,
      kind: 'message',
      actor: 'bot',
      payload: { text: 'hi' },
      deduplicated: false,
    });
    expect(first.id).toMatch(/^ev_/);

    const fromStdin = await ok(
      ['log', 'append', session, '--kind', 'tool.call', '--payload', '-', '--key', 'k1'],
      {
        input: '{"tool":"ls"}',
      },
    );
    expect(fromStdin).toMatchObject({ seq: 2, payload: { tool: 'ls' } });
    const retried = await ok(
      ['log', 'append', session, '--kind', 'tool.call', '--payload', '-', '--key', 'k1'],
      {
        input: '{"tool":"ls"}',
      },
    );
    expect(retried).toMatchObject({ id: fromStdin.id, deduplicated: true });

    const file = join(work, 'payload.json');
    writeFileSync(file, '{"result":[1,2,3]}');
    const fromFile = await ok(['log', 'append', session, '--kind', 'tool.result', '--payload-file', file]);
    expect(fromFile).toMatchObject({ seq: 3, payload: { result: [1, 2, 3] } });
  });

  it('log show pages through a branch, and prints one line per event for people', async () => {
    const { session, events } = await threeEvents();
    const [page, human] = await Promise.all([
      ok(['log', 'show', session, '--from', '2', '--limit', '1']),
      cairn(['log', 'show', session, '--store', store]),
    ]);
    expect(page.events.map((e: { id: string }) => e.id)).toEqual([events[1]]);
    expect(page.next).toBe(3);
    expect(human.code).toBe(0);
    const lines = human.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(new RegExp(`^1\\s+${events[0]}\\s+message\\s+bot\\s+\\{"text":"hi"\\}$`));
  });

  it('branch fork, ls, rewind and history', async () => {
    const { session, events } = await threeEvents();
    const [fork, rewound] = await Promise.all([
      ok(['branch', 'fork', session, '--at', events[0]!, '--name', 'alt']),
      ok(['branch', 'rewind', session, 'main', '--to', events[1]!]),
    ]);
    expect(fork).toMatchObject({ name: 'alt', head: events[0], headSeq: 1, forkedFrom: events[0] });
    expect(fork.id).toMatch(/^br_/);
    expect(rewound).toMatchObject({ name: 'main', head: events[1], headSeq: 2 });

    const [listed, history] = await Promise.all([
      ok(['branch', 'ls', session]),
      ok(['branch', 'history', session, 'main']),
    ]);
    expect(listed.branches.map((b: { name: string }) => b.name).sort()).toEqual(['alt', 'main']);
    expect(history.history.map((h: { op: string }) => h.op)).toEqual(['create', 'rewind']);
  });

  it('token create and tenant create print the new token once, with the new id; audit verify passes', async () => {
    const [token, created, audit] = await Promise.all([
      ok(['token', 'create', '--kind', 'agent', '--name', 'worker', '--label', 'ci']),
      ok(['tenant', 'create', 'acme']),
      ok(['audit', 'verify']),
    ]);
    expect(token.id).toMatch(/^tk_/);
    const revoked = await ok(['token', 'revoke', token.id]);
    expect(revoked).toMatchObject({ id: token.id, principal: token.principal });
    expect(token.token).toMatch(/^cairn\./);
    expect(token).toMatchObject({ tenant, label: 'ci' });

    expect(created.id).toMatch(/^tn_/);
    expect(created.id).not.toBe(tenant);
    expect(created).toMatchObject({ name: 'acme', store });
    expect(created.token).toMatch(new RegExp(`^cairn\\.${created.id}\\.`));

    expect(audit.ok).toBe(true);
    expect(audit.tenants).toEqual(
      expect.arrayContaining([expect.objectContaining({ tenant, ok: true, firstBreak: null })]),
    );
  });

  it('help and --version exit 0; the store comes from CAIRN_STORE, else the user data folder, never the cwd', async () => {
    const home = join(work, 'home');
    const project = join(work, 'project');
    mkdirSync(project, { recursive: true });
    // A store holding exactly one session, named only by CAIRN_STORE.
    const envStore = join(work, 'env-store');
    await ok(['init'], { store: envStore });
    await ok(['session', 'new'], { store: envStore });
    const [help, sub, viaEnv, initialised, viaXdg, version, noHome] = await Promise.all([
      cairn(['help']),
      cairn(['branch', 'rewind', '--help']),
      cairn(['session', 'ls', '--json'], { env: { CAIRN_STORE: envStore } }),
      cairn(['init', '--json'], { cwd: project, env: { HOME: home } }),
      cairn(['init', '--json'], { cwd: project, env: { HOME: home, XDG_DATA_HOME: join(work, 'xdg') } }),
      cairn(['--version']),
      cairn(['init', '--json'], { cwd: project, env: { HOME: '' } }),
    ]);
    // Every flag line keeps two spaces between the flag and its help, however long the flag.
    const proxyHelp = await cairn(['proxy', '--help']);
    for (const line of proxyHelp.stdout.split('\n').filter((l) => l.startsWith('  --')))
      expect(line, line).toMatch(/^ {2}--\S+( \S+)? {2,}\S/);
    expect(version.code).toBe(0);
    expect(version.stdout).toBe(
      `cairn ${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`,
    );
    expect(doc(viaXdg).store).toBe(join(work, 'xdg', 'cairn'));
    expect(noHome.code).toBe(2);
    expect(noHome.stderr).toContain('--store');
    expect(readdirSync(project)).toEqual([]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('log append SESSION');
    expect(sub.code).toBe(0);
    expect(sub.stdout).toContain('--to EVENT');
    expect(doc(viaEnv).sessions).toHaveLength(1);
    expect(doc(initialised).store).toBe(join(home, '.local', 'share', 'cairn'));
  });

  it('exit codes: usage 2 (and input refused before the store opens), not found 3, conflict 4, bad input 5, no store 7', async () => {
    const [unknown, badFlag, noSession, noKind, missing, conflict, badJson, badStdin, badNumber, noStore] =
      await Promise.all([
        fails(['nonsense'], 2),
        fails(['session', 'ls', '--bogus', '--store', store], 2),
        fails(['log', 'append', '--kind', 'x', '--store', store], 2),
        fails(['log', 'append', session, '--store', store], 2),
        fails(['session', 'show', 'ss_00000000000000000000000000', '--store', store], 3),
        fails(['branch', 'fork', session, '--name', 'main', '--store', store], 4),
        fails(['log', 'append', session, '--kind', 'x', '--payload', '{nope', '--store', store], 5),
        fails(['log', 'append', session, '--kind', 'x', '--payload', '-', '--store', store], 5, {
          input: 'not json',
        }),
        fails(['log', 'show', session, '--limit', 'ten', '--store', store], 2),
        fails(['session', 'ls', '--store', join(work, 'absent')], 7),
      ]);
    expect(unknown.code).toBe('USAGE');
    expect(badFlag.message).toContain('--bogus');
    expect(noSession.message).toContain('missing SESSION');
    expect(noKind.message).toContain('missing --kind');
    expect(missing.code).toBe('NOT_FOUND');
    expect(conflict.code).toBe('CONFLICT');
    expect(badJson.code).toBe('INVALID_ARGUMENT');
    expect(badStdin.code).toBe('INVALID_ARGUMENT');
    expect(badNumber.code).toBe('INVALID_ARGUMENT');
    expect(noStore).toMatchObject({ code: 'UNAVAILABLE', data: { store: join(work, 'absent') } });
    const rounded = await fails(
      ['log', 'append', session, '--kind', 'x', '--payload', '{"id":12345678901234567890}', '--store', store],
      5,
    );
    expect(rounded.message).toContain('12345678901234567890');
  });

  it.skipIf(process.getuid?.() !== 0)(
    'says the disk is full when a store cannot open for want of space',
    async () => {
      const small = join(work, 'full-disk');
      mkdirSync(small);
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', small]);
      try {
        // Fill the disk to the last block.
        try {
          execFileSync('dd', ['if=/dev/zero', `of=${join(small, 'filler')}`, 'bs=4k'], { stdio: 'ignore' });
        } catch {}
        const failed = await fails(['init', '--store', join(small, 'store')], 7);
        expect(failed.code).toBe('UNAVAILABLE');
        expect(failed.message).toMatch(/disk .* is full/);
      } finally {
        execFileSync('umount', ['-l', small]);
      }
    },
  );

  it('prints no stack trace unless CAIRN_DEBUG=1', async () => {
    const args = ['session', 'show', 'bad-id', '--store', store];
    const [quiet, debug] = await Promise.all([cairn(args), cairn(args, { env: { CAIRN_DEBUG: '1' } })]);
    expect(quiet.code).toBe(5);
    expect(quiet.stdout).toBe('');
    expect(quiet.stderr.trim().split('\n')).toHaveLength(1);
    expect(debug.stderr).toMatch(/\n\s+at /);
  });

  it('audit verify exits 1 and names the first broken entry when the store was tampered with', async () => {
    const tampered = join(work, 'tampered');
    const local = await ok(['init'], { store: tampered });
    const other = await ok(['tenant', 'create', 'other'], { store: tampered });
    expect((await ok(['audit', 'verify'], { store: tampered })).tenants).toHaveLength(2);
    // Break only the second tenant's chain: a store-wide verify must still catch it.
    const db = new Database(join(tampered, 'cairn.db'));
    db.prepare("UPDATE audit_entries SET actor = 'mallory' WHERE tenant = ? AND seq = 2").run(other.id);
    db.close();
    const run = await cairn(['audit', 'verify', '--json', '--store', tampered]);
    expect(run.code).toBe(1);
    const report = doc(run);
    expect(report.ok).toBe(false);
    expect(report.tenants).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ tenant: local.id, ok: true }),
        expect.objectContaining({
          tenant: other.id,
          ok: false,
          firstBreak: expect.objectContaining({ seq: 2 }),
        }),
      ]),
    );
    expect(run.stderr).toMatch(
      new RegExp(`^cairn: audit chain of tenant ${other.id} is broken: first break at entry 2`),
    );
  });
});

describe('cairn serve', () => {
  let server: ChildProcessWithoutNullStreams | undefined;

  afterAll(() => {
    server?.kill('SIGKILL');
  });

  it('serves on a free port; the CLI talks to it with --url/--token; SIGTERM stops it cleanly', async () => {
    const dir = join(work, 'served');
    server = start([
      'serve',
      '--port',
      '0',
      '--json',
      '--store',
      dir,
      '--headers-timeout-ms',
      '400',
      '--request-timeout-ms',
      '800',
    ]);
    const child = server;
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const firstLine = await new Promise<string>((resolve, reject) => {
      let buffered = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        buffered += chunk;
        if (buffered.includes('\n')) resolve(buffered.split('\n')[0]!);
      });
      child.on('exit', (code) =>
        reject(new Error(`cairn serve exited with ${code} before printing its URL`)),
      );
    });
    const served = JSON.parse(firstLine) as { url: string; token: string; tenant: string; store: string };
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(served.url).not.toMatch(/:0$/);
    expect(served).toMatchObject({ store: dir });
    expect(served.token).toMatch(new RegExp(`^cairn\\.${served.tenant}\\.`));

    const remote = ['--json', '--url', served.url, '--token', served.token];
    const session = doc(await cairn(['session', 'new', '--title', 'remote', ...remote])).id as string;
    const appended = await cairn([
      'log',
      'append',
      session,
      '--kind',
      'message',
      '--payload',
      '{"n":1}',
      ...remote,
    ]);
    expect(appended.code, appended.stderr).toBe(0);
    expect(doc(appended)).toMatchObject({ seq: 1, payload: { n: 1 } });

    const [viaEnv, badToken] = await Promise.all([
      cairn(['log', 'show', session, '--json'], {
        env: { CAIRN_URL: served.url, CAIRN_TOKEN: served.token },
      }),
      cairn(['session', 'ls', '--json', '--url', served.url, '--token', 'cairn.nope']),
    ]);
    expect(viaEnv.code, viaEnv.stderr).toBe(0);
    expect(doc(viaEnv).events.map((e: { payload: unknown }) => e.payload)).toEqual([{ n: 1 }]);

    expect(badToken.code).toBe(6);
    expect(doc(badToken).error.code).toBe('UNAUTHENTICATED');

    // Stalled clients (slow loris) are cut off: one stuck in its headers, one in its body.
    const { port } = new URL(served.url);
    const stall = (text: string) =>
      new Promise<number>((done) => {
        const started = Date.now();
        const socket = netConnect(Number(port), '127.0.0.1', () => socket.write(text));
        socket.on('error', () => {});
        socket.resume(); // read the 408, so the server's close is seen
        socket.on('close', () => done(Date.now() - started));
        setTimeout(() => socket.destroy(), 10_000);
      });
    const [inHeaders, inBody] = await Promise.all([
      stall('GET /v1/whoami HTTP/1.1\r\nhost: x\r\nx-slow: '),
      stall('POST /v1/sessions HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\n{"ti'),
    ]);
    expect(inHeaders).toBeLessThan(4000);
    expect(inBody).toBeLessThan(4000);

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    server = undefined;

    const down = await cairn(['session', 'ls', '--json', '--url', served.url, '--token', served.token]);
    expect(down.code).toBe(7);
    expect(doc(down).error.code).toBe('UNAVAILABLE');
  });
});

describe('cairn ws: the desk from the command line', () => {
  it('attaches, checkpoints, forks, merges, diffs, restores and verifies, with typed exit codes', async () => {
    const deskStore = join(work, 'desk-store');
    const dir = join(work, 'ws-main');
    const forkDir = join(work, 'ws-fork');
    mkdirSync(dir);
    writeFileSync(join(dir, 'notes.md'), 'one\n');
    writeFileSync(join(dir, '.env'), 'TOKEN=do-not-keep-me\n');
    const attached = await ok(['ws', 'attach', dir], { store: deskStore });
    expect(attached.workspace.dir).toBe(dir);
    expect(attached.checkpoint.findings).toEqual([
      { rule: 'credential-path:dotenv', path: '.env', line: 0, confidence: 'high', action: 'withheld' },
    ]);
    const first = attached.checkpoint.snapshot.id as string;

    const unchanged = await ok(['ws', 'checkpoint', '--ws', dir], { store: deskStore });
    expect(unchanged.created).toBe(false);

    const forked = await ok(['ws', 'fork', forkDir, '--ws', dir, '--driver', 'copy'], { store: deskStore });
    writeFileSync(join(forkDir, 'notes.md'), 'one\ntwo from the fork\n');
    const merged = await ok(['ws', 'merge', forked.workspace.id, '--into', dir], { store: deskStore });
    expect(merged.conflicts).toEqual([]);
    expect(readFileSync(join(dir, 'notes.md'), 'utf8')).toBe('one\ntwo from the fork\n');

    const diff = await ok(['ws', 'diff', first, '--ws', dir], { store: deskStore });
    expect(diff.items.map((i: Doc) => `${i.change} ${i.path}`)).toEqual(['modified notes.md']);
    expect(diff.items[0].patch).toContain('+two from the fork');

    const preview = await ok(['ws', 'restore', first, '--ws', dir, '--preview'], { store: deskStore });
    expect(preview.changes).toEqual([{ path: 'notes.md', change: 'changed', kind: 'file' }]);
    expect(readFileSync(join(dir, 'notes.md'), 'utf8')).toBe('one\ntwo from the fork\n');
    await ok(['ws', 'restore', first, '--ws', dir], { store: deskStore });
    expect(readFileSync(join(dir, 'notes.md'), 'utf8')).toBe('one\n');
    expect(readFileSync(join(dir, '.env'), 'utf8')).toBe('TOKEN=do-not-keep-me\n');

    const listed = await ok(['ws', 'ls'], { store: deskStore });
    expect(listed.workspaces).toHaveLength(2);
    expect((await ok(['ws', 'verify'], { store: deskStore })).ok).toBe(true);
    expect((await ok(['gc', '--grace-ms', '0'], { store: deskStore })).marked).toBeGreaterThan(0);

    const again = await fails(['ws', 'attach', dir, '--store', deskStore], 4);
    expect(again.code).toBe('CONFLICT');
    expect(
      (await fails(['ws', 'restore', 'sn_00000000000000000000000000', '--ws', dir, '--store', deskStore], 3))
        .code,
    ).toBe('NOT_FOUND');
    expect(
      (await fails(['ws', 'restore', first, '--ws', dir, '--path', '../x', '--store', deskStore], 5)).code,
    ).toBe('INVALID_ARGUMENT');

    // From a directory that is no workspace (here: the one holding the store): a restore acts where it
    // runs, so it refuses, naming the checkpoint's directory; commands that need one say how to get one.
    const cp = await ok(['checkpoint', '--ws', dir], { store: deskStore });
    const elsewhere = await cairn(['restore', cp.id, '--preview', '--json', '--store', deskStore], {
      cwd: work,
    });
    expect(elsewhere.code, elsewhere.stderr).toBe(3);
    expect(elsewhere.stderr).toContain(`run it in ${dir} or pass --ws`);
    const nowhere = await cairn(['status', '--json', '--store', deskStore], { cwd: work });
    expect(nowhere.code).toBe(3);
    expect(nowhere.stderr).toContain(`no workspace is attached at ${work}: run \`cairn ws attach ${work}\``);
  });
});

describe('cairn demo and cairn exec', () => {
  it('runs the demo: three forks of "state 42", one kept because its check passed; then the invoice story', async () => {
    const run = await cairn(['demo', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const result = doc(run);
    expect(result.checkpoint.accepted).toBe(true);
    expect(result.branches.map((b: Doc) => [b.accepted, b.decision])).toEqual([
      [true, 'keep'],
      [false, 'abandon'],
      [false, 'abandon'],
    ]);
    // Part 2 (test/keys-demo.test.ts checks it in depth, with known secrets).
    expect(result.invoices.branches.map((b: Doc) => [b.branch, b.grant, b.liveWrites])).toEqual([
      ['a-read', 'read', 0],
      ['b-sandbox', 'sandbox', 0],
      ['c-live', 'live+each-write', 4],
    ]);
    expect(result.invoices.secretScan.hits).toEqual([]);
    rmSync(result.dir, { recursive: true, force: true });
    const human = await cairn(['demo']);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('KEPT');
    expect(human.stdout).toMatch(/secret scan: 0 of \d+ files/);
    rmSync(/cairn demo — (\S+)/.exec(human.stdout)![1]!, { recursive: true, force: true });
  });

  it('records `cairn exec -- sh -c …` as a step, checkpoints it, and passes the exit code through', async () => {
    const deskStore = join(work, 'exec-store');
    const dir = join(work, 'exec-ws');
    mkdirSync(dir);
    await ok(['ws', 'attach', dir], { store: deskStore });
    const ran = await cairn([
      'exec',
      '--store',
      deskStore,
      '--ws',
      dir,
      '--json',
      '--',
      'sh',
      '-c',
      'echo x > f; echo out',
    ]);
    expect(ran.code, ran.stderr).toBe(0);
    const result = doc(ran);
    expect(result).toMatchObject({ exit: 0, stdout: 'out\n', checkpoint: { created: true } });
    expect(readFileSync(join(dir, 'f'), 'utf8')).toBe('x\n');
    const failing = await cairn(['exec', '--store', deskStore, '--ws', dir, '--', 'sh', '-c', 'exit 3']);
    expect(failing.code).toBe(3);
    const steps = await ok(['step', 'ls', '--ws', dir], { store: deskStore });
    expect(steps.steps.map((s: Doc) => [s.position, s.state, s.result.exit])).toEqual([
      [1, 'done', 0],
      [2, 'done', 3],
    ]);
    const missing = await cairn([
      'exec',
      '--store',
      deskStore,
      '--ws',
      dir,
      '--json',
      '--',
      'no-such-command-x',
    ]);
    expect(missing.code).toBe(5);
  });
});

describe('cairn cred, grant, exec --branch, approvals', () => {
  it('keeps the secret out of argv, the child and the store; a branch acts only through its grant', async () => {
    const { recordingUpstream } = await import('./support/upstream.js');
    const { filesContaining } = await import('./support/scan.js');
    const upstream = await recordingUpstream('live');
    const keysStore = join(work, 'keys-store');
    const keyFile = join(work, 'master.key');
    const dir = join(work, 'keys-ws');
    mkdirSync(dir);
    const secret = 'sk_live_cliTest_9f8e7d6c5b4a';
    try {
      const env = { CAIRN_MASTER_KEY_FILE: keyFile };
      const run = (args: string[], input?: string) =>
        cairn([...args, '--json', '--store', keysStore], { env, ...(input === undefined ? {} : { input }) });
      expect((await cairn(['cred', 'keygen', '--out', keyFile, '--json'])).code).toBe(0);
      expect((await cairn(['cred', 'keygen', '--out', keyFile, '--json'])).code).toBe(4); // never overwritten
      await ok(['ws', 'attach', dir], { store: keysStore });
      // Without the master key: a clear error, nothing added.
      const locked = await cairn(
        [
          'cred',
          'add',
          'billing',
          '--kind',
          'bearer',
          '--upstream',
          upstream.url,
          '--json',
          '--store',
          keysStore,
        ],
        {
          input: `${secret}\n`,
        },
      );
      expect(locked.code).toBe(7);
      expect(locked.stderr).toMatch(/master key/);
      const added = await run(
        ['cred', 'add', 'billing', '--kind', 'bearer', '--upstream', upstream.url],
        `${secret}\n`,
      );
      expect(added.code, added.stderr).toBe(0);
      expect(added.stdout).not.toContain(secret);
      const cp = doc(await run(['checkpoint', '--ws', dir, '--label', 'state 42']));
      // Fork two branches: "reader" gets a read grant narrowing main's live grant; "none" gets nothing.
      const root = await run([
        'grant',
        'add',
        '--ws',
        dir,
        '--branch',
        'main',
        '--cred',
        'billing',
        '--mode',
        'live',
        '--approval',
        'each-write',
      ]);
      expect(root.code, root.stderr).toBe(0);
      const forked = doc(
        await run([
          'fork',
          cp.id,
          '--ws',
          dir,
          '--name',
          'reader',
          '--name',
          'none',
          '--grant',
          'reader:billing:read',
          '--driver',
          'copy',
        ]),
      );
      expect(forked.branches.map((b: Doc) => [b.branch, b.grants.map((g: Doc) => g.mode)])).toEqual([
        ['reader', ['read']],
        ['none', []],
      ]);
      const wider = await run([
        'fork',
        cp.id,
        '--ws',
        dir,
        '--name',
        'w',
        '--grant',
        'w:billing:live:none',
        '--driver',
        'copy',
      ]);
      expect(wider.code).toBe(5);
      expect(wider.stderr).toMatch(/wider than its parent .*without approval/);
      // The child sees a proxy URL and a handle, never the secret or the master key.
      const script = [
        "const h={'x-cairn-handle':process.env.CAIRN_HANDLE};",
        "const g=await fetch(process.env.CAIRN_PROXY_URL+'/billing/invoices',{headers:h});",
        "const p=await fetch(process.env.CAIRN_PROXY_URL+'/billing/invoices/1',{method:'POST',headers:h,body:'{}'});",
        "require('fs').writeFileSync('env.txt', JSON.stringify(process.env));",
        'console.log(g.status, p.status);',
      ].join('');
      const exec = await cairn(
        [
          'exec',
          '--branch',
          'reader',
          '--store',
          keysStore,
          '--json',
          '--',
          process.execPath,
          '-e',
          `(async()=>{${script}})()`,
        ],
        { env: { ...env, CAIRN_MASTER_KEY: 'a'.repeat(64) } },
      );
      // CAIRN_MASTER_KEY is set to a wrong key but the file wins; the child gets neither.
      expect(exec.code, exec.stderr).toBe(0);
      expect(doc(exec).stdout).toBe('200 403\n');
      const readerDir = forked.branches[0].workspace.dir as string;
      const childEnv = JSON.parse(readFileSync(join(readerDir, 'env.txt'), 'utf8'));
      expect(childEnv.CAIRN_HANDLE).toMatch(/^cbh\./);
      expect(childEnv.CAIRN_MASTER_KEY).toBeUndefined();
      expect(childEnv.CAIRN_MASTER_KEY_FILE).toBeUndefined();
      expect(upstream.seen.map((s) => [s.method, s.authorization])).toEqual([['GET', `Bearer ${secret}`]]);
      // A branch with no grant: refused.
      const none = await cairn(
        [
          'exec',
          '--branch',
          'none',
          '--store',
          keysStore,
          '--json',
          '--',
          process.execPath,
          '-e',
          `(async()=>{${script}})()`,
        ],
        { env },
      );
      expect(doc(none).stdout).toBe('403 403\n');
      // The handle died with the child.
      const stale = await fetch(`${childEnv.CAIRN_PROXY_URL}/billing/invoices`, {
        headers: { 'x-cairn-handle': childEnv.CAIRN_HANDLE },
      }).catch(() => null);
      expect(stale === null || stale.status === 403).toBe(true);
      // Revoke main's grant: the reader's is revoked with it, and status reports the drift.
      const grants = doc(await run(['grant', 'ls', '--branch', 'reader'])).grants;
      const rootId = doc(root).id as string;
      expect(doc(await run(['grant', 'revoke', rootId, '--reason', 'done'])).revoked).toEqual(
        expect.arrayContaining([rootId, grants[0].id]),
      );
      const status = await run(['status', '--ws', readerDir]);
      expect(status.code).toBe(1);
      expect(doc(status).endedGrants).toEqual([
        expect.objectContaining({ id: grants[0].id, state: 'revoked' }),
      ]);
      expect(doc(await run(['approvals', 'ls'])).approvals).toEqual([]);
      expect(filesContaining(keysStore, secret)).toEqual([]);
      expect(filesContaining(dir, secret)).toEqual([]);
      expect(filesContaining(readerDir, secret)).toEqual([]);
    } finally {
      await upstream.close();
    }
  });
});

/**
 * Starts `cairn serve` on a free port over a store folder; resolves with its URL and token once it prints
 * them, what it has written on stderr so far (`log()`), and `stop()` (SIGTERM, then its exit code).
 */
async function serveStore(dir: string, extra: string[] = []) {
  const child = start(['serve', '--port', '0', '--json', '--store', dir, ...extra]);
  let log = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    log += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const served = await firstDocument<{ url: string; token: string }>(child, 'cairn serve');
  return {
    ...served,
    log: () => log,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Every path below `dir` (relative), for "nothing of Cairn's appeared here" checks. */
function everything(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).sort();
}

describe('workspace commands through a server ($CAIRN_URL, --url)', () => {
  it('attach, checkpoint, restore, fork, exec, status, keep: from a host with no store, nothing of the store left there', async () => {
    const serverStore = join(work, 'ws-remote-store');
    const served = await serveStore(serverStore);
    try {
      // The agent's host: its own home, no store; the server is named by the environment only.
      const home = join(work, 'ws-remote-home');
      const project = join(home, 'project');
      mkdirSync(project, { recursive: true });
      writeFileSync(join(project, 'state.txt'), '42\n');
      const env = { HOME: home, CAIRN_URL: served.url, CAIRN_TOKEN: served.token };
      const remote = async (args: string[], cwd = project) => {
        const rest = args.indexOf('--');
        const flagged =
          rest < 0 ? [...args, '--json'] : [...args.slice(0, rest), '--json', ...args.slice(rest)];
        const run = await cairn(flagged, { cwd, env });
        expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
        return doc(run);
      };
      const attached = await remote(['ws', 'attach', '.']);
      expect(attached.workspace.dir).toBe(project);
      const checkpoint = await remote([
        'checkpoint',
        '--label',
        'state 42',
        '--check',
        'grep -q 42 state.txt',
      ]);
      expect(checkpoint).toMatchObject({ label: 'state 42', accepted: true });
      writeFileSync(join(project, 'state.txt'), '43\n');
      writeFileSync(join(project, 'scratch.txt'), 'scratch\n');
      // Drift (changed outside any step): status says so, exit 1.
      const status = await cairn(['status', '--json'], { cwd: project, env });
      expect(status.code, status.stderr).toBe(1);
      expect(doc(status)).toMatchObject({ clean: false });
      expect((doc(status).unrecordedChanges as Doc[]).map((d) => d.path).sort()).toEqual([
        'scratch.txt',
        'state.txt',
      ]);
      const restored = await remote(['restore', checkpoint.id]);
      expect(restored.undo).toMatch(/^ev_/);
      expect(readFileSync(join(project, 'state.txt'), 'utf8')).toBe('42\n');
      expect(readdirSync(project).sort()).toEqual(['state.txt']);
      // Forward again: the restore is undone by restoring its "before" checkpoint.
      await remote(['restore', restored.undo]);
      expect(readFileSync(join(project, 'state.txt'), 'utf8')).toBe('43\n');

      const forked = await remote([
        'fork',
        checkpoint.id,
        '--name',
        'try-a',
        '--name',
        'try-b',
        '--driver',
        'copy',
      ]);
      const branches = forked.branches as Doc[];
      expect(branches.map((b) => b.branch)).toEqual(['try-a', 'try-b']);
      const tryA = branches[0]!.workspace.dir as string;
      expect(readFileSync(join(tryA, 'state.txt'), 'utf8')).toBe('42\n');
      const step = await remote(['exec', '--', 'sh', '-c', 'echo 44 > state.txt'], tryA);
      expect(step).toMatchObject({ exit: 0 });
      expect(step.checkpoint.created).toBe(true);
      const kept = await remote(['keep', 'try-a']);
      expect(kept.branch).toBe('try-a');
      const listed = await remote(['ws', 'ls']);
      expect((listed.workspaces as Doc[]).length).toBeGreaterThanOrEqual(3);

      // What runs only where the store is says so.
      const verify = await cairn(['ws', 'verify', '--json'], { cwd: project, env });
      expect(verify.code).not.toBe(0);
      expect(doc(verify).error.code).toBe('UNAVAILABLE');
      // Nothing of the store on this host: no .cairn, no default store; only this host's desk state.
      expect(everything(home).filter((p) => p.split('/').includes('.cairn'))).toEqual([]);
      expect(everything(home).some((p) => p.startsWith('.local/share'))).toBe(false);
      expect(everything(home).some((p) => p.startsWith('.local/state/cairn/desks/'))).toBe(true);
    } finally {
      expect(await served.stop()).toBe(0);
    }
    // The server's store holds it all, and verifies.
    const verified = await cairn(['ws', 'verify', '--json', '--store', serverStore]);
    expect(verified.code, verified.stderr).toBe(0);
    expect(doc(verified)).toMatchObject({ ok: true });
  });
});

describe('the keys through a server (--url)', () => {
  it('lists and decides approvals, lists and revokes grants with --url/--token, leaving nothing on the calling host', async () => {
    const s = join(work, 'keys-remote-store');
    // Two held writes, recorded through the library as the proxy would.
    const { Store } = await import('../src/store.js');
    const { MasterKey } = await import('../src/keys/crypto.js');
    const keyFile = join(work, 'keys-remote-master.key');
    expect((await cairn(['cred', 'keygen', '--out', keyFile])).code).toBe(0);
    const library = await Store.openDir(s);
    const who = await library.localIdentity();
    const keys = library.keys(who, { masterKey: MasterKey.parse(readFileSync(keyFile, 'utf8'), keyFile) });
    const session = await library.fabric(who).createSession({ title: 'keys over the network' });
    const { heldWrites } = await import('./support/held-writes.js');
    const grant = {
      id: (await heldWrites(keys, session.id, 'sk_remote_1', ['{"amount":1}', '{"amount":2}'])).grant,
    };
    await library.close();
    const served = await serveStore(s, ['--master-key-file', keyFile]);
    try {
      // A host with no store: an empty working directory and home; nothing of Cairn's may appear there.
      const host = join(work, 'keys-remote-host');
      mkdirSync(host);
      const env = { HOME: host };
      const remote = (args: string[], input?: string) =>
        cairn([...args, '--json', '--url', served.url, '--token', served.token], {
          cwd: host,
          env,
          ...(input === undefined ? {} : { input }),
        });
      const listed = await remote(['approvals', 'ls']);
      expect(listed.code, listed.stderr).toBe(0);
      const pending = doc(listed).approvals as Doc[];
      expect(pending.map((a) => [a.method, a.state, a.credential])).toEqual([
        ['POST', 'pending', 'billing'],
        ['POST', 'pending', 'billing'],
      ]);
      expect(doc(await remote(['deny', pending[0]!.id, '--note', 'no'])).state).toBe('denied');
      expect(doc(await remote(['approve', pending[1]!.id])).state).toBe('approved');
      const twice = await remote(['approve', pending[1]!.id]);
      expect(twice.code).toBe(4);
      expect(doc(twice).error.code).toBe('CONFLICT');
      expect(doc(await remote(['approvals', 'ls'])).approvals).toEqual([]);
      expect(doc(await remote(['approvals', 'ls', '--state', 'all'])).approvals).toHaveLength(2);
      const grants = doc(await remote(['grant', 'ls', '--session', session.id])).grants as Doc[];
      expect(grants.map((g) => [g.id, g.state])).toEqual([[grant.id, 'active']]);
      expect(doc(await remote(['grant', 'revoke', grant.id, '--reason', 'done'])).revoked).toEqual([
        grant.id,
      ]);
      expect((doc(await remote(['grant', 'ls'])).grants as Doc[]).map((g) => g.state)).toEqual(['revoked']);
      // The vault through the server: values only in request bodies, sealed by the server's master key.
      const value = 'sk_remote_added_9f8e7d6c';
      expect((doc(await remote(['cred', 'ls'])).credentials as Doc[]).map((c) => c.name)).toEqual([
        'billing',
      ]);
      const added = await remote(
        ['cred', 'add', 'search', '--kind', 'bearer', '--upstream', 'http://127.0.0.1:9/s'],
        `${value}\n`,
      );
      expect(added.code, added.stderr).toBe(0);
      expect(doc(added)).toMatchObject({ name: 'search', kind: 'bearer', version: 1 });
      const given = await remote([
        'grant',
        'add',
        '--session',
        session.id,
        '--branch',
        'main',
        '--cred',
        'search',
        '--mode',
        'read',
      ]);
      expect(given.code, given.stderr).toBe(0);
      const noSession = await remote([
        'grant',
        'add',
        '--branch',
        'main',
        '--cred',
        'search',
        '--mode',
        'read',
      ]);
      expect(noSession.code, noSession.stderr).toBe(5);
      expect(doc(await remote(['cred', 'rotate', 'search'], 'sk_remote_rotated_1\n')).version).toBe(2);
      expect(doc(await remote(['cred', 'rm', 'search'])).revokedGrants).toEqual([doc(given).id]);
      const localKey = await remote(
        [
          'cred',
          'add',
          'other',
          '--kind',
          'bearer',
          '--upstream',
          'http://127.0.0.1:9/o',
          '--master-key-file',
          keyFile,
        ],
        'sk_other_1\n',
      );
      expect(localKey.code).toBe(2);
      expect(localKey.stderr).toContain('its own master key');
      expect(served.log()).not.toContain(value);
      // Bad input is refused with the same code as locally and at the server's edge
      const bad = await remote(['deny', 'not-an-approval']);
      // (the CLI checks it against the operation's own schema before it calls: exit 2, the server's code)
      expect(bad.code).toBe(2);
      expect(doc(bad).error.code).toBe('INVALID_ARGUMENT');
      expect(readdirSync(host)).toEqual([]);
    } finally {
      await served.stop();
    }
  });
});

describe('cairn proxy and approvals across processes', () => {
  it('holds a write in `cairn proxy` until `cairn approve` in another process; its log holds no secret', async () => {
    const { recordingUpstream } = await import('./support/upstream.js');
    const upstream = await recordingUpstream('live');
    const s = join(work, 'proxy-store');
    const keyFile = join(work, 'proxy-master.key');
    const dir = join(work, 'proxy-ws');
    mkdirSync(dir);
    const secret = 'sk_live_proxyProc_1a2b3c4d5e6f';
    const envSecret = 'deploy-token-7g8h9i0j';
    const env = { CAIRN_MASTER_KEY_FILE: keyFile };
    const run = (args: string[], input?: string) =>
      cairn([...args, '--json', '--store', s], { env, ...(input === undefined ? {} : { input }) });
    let proxyProcess: ChildProcessWithoutNullStreams | undefined;
    try {
      expect((await cairn(['cred', 'keygen', '--out', keyFile])).code).toBe(0);
      await ok(['ws', 'attach', dir], { store: s });
      expect(
        (await run(['cred', 'add', 'billing', '--kind', 'bearer', '--upstream', upstream.url], `${secret}\n`))
          .code,
      ).toBe(0);
      expect(
        (await run(['cred', 'add', 'deploy', '--kind', 'env', '--header', 'DEPLOY_TOKEN'], `${envSecret}\n`))
          .code,
      ).toBe(0);
      const grant = await run([
        'grant',
        'add',
        '--ws',
        dir,
        '--branch',
        'main',
        '--cred',
        'billing',
        '--mode',
        'live',
        '--approval',
        'each-write',
      ]);
      expect(grant.code, grant.stderr).toBe(0);
      proxyProcess = start(['proxy', '--port', '0', '--json', '--store', s], env);
      const child = proxyProcess;
      let proxyErr = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => {
        proxyErr += d;
      });
      const url = await new Promise<string>((resolve, reject) => {
        let buffered = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          buffered += chunk;
          if (buffered.includes('\n')) resolve(JSON.parse(buffered.split('\n')[0]!).url);
        });
        child.on('exit', (code) => reject(new Error(`cairn proxy exited with ${code}: ${proxyErr}`)));
      });
      const script =
        "fetch(process.env.CAIRN_PROXY_URL+'/billing/invoices/1/reconcile',{method:'POST',headers:{'x-cairn-handle':process.env.CAIRN_HANDLE},body:'{\"payment\":\"pay-1\"}'}).then(r=>console.log(r.status))";
      const agent = cairn(
        [
          'exec',
          '--branch',
          'main',
          '--proxy',
          url,
          '--store',
          s,
          '--json',
          '--',
          process.execPath,
          '-e',
          script,
        ],
        { env },
      );
      let pending: Doc[] = [];
      for (let i = 0; pending.length === 0 && i < 400; i++) {
        await new Promise((r) => setTimeout(r, 25));
        pending = doc(await run(['approvals', 'ls'])).approvals;
      }
      expect(pending).toHaveLength(1);
      expect(pending[0]).toMatchObject({
        branch: 'main',
        credential: 'billing',
        method: 'POST',
        url: `${upstream.url}/invoices/1/reconcile`,
      });
      expect(upstream.seen).toHaveLength(0);
      const human = await cairn(['approvals', 'ls', '--store', s], { env });
      expect(human.stdout).toContain('POST');
      expect(human.stdout).toContain('{"payment":"pay-1"}');
      expect((await run(['approve', pending[0]!.id, '--note', 'looks right'])).code).toBe(0);
      const done = await agent;
      expect(done.code, done.stderr).toBe(0);
      expect(doc(done).stdout).toBe('200\n');
      expect(upstream.seen.map((r) => [r.method, r.authorization, r.body])).toEqual([
        ['POST', `Bearer ${secret}`, '{"payment":"pay-1"}'],
      ]);
      expect((await run(['approve', pending[0]!.id])).code).toBe(4);
      // An env credential reaches one child only with a grant of the branch on it.
      const check = `console.log(process.env.DEPLOY_TOKEN === ${JSON.stringify(envSecret)} ? 'injected' : 'missing')`;
      const execEnv = [
        'exec',
        '--branch',
        'main',
        '--env-cred',
        'deploy',
        '--store',
        s,
        '--json',
        '--',
        process.execPath,
        '-e',
        check,
      ];
      const refused = await cairn(execEnv, { env });
      expect(refused.code, refused.stderr).toBe(6);
      expect(
        (await run(['grant', 'add', '--ws', dir, '--branch', 'main', '--cred', 'deploy', '--mode', 'live']))
          .code,
      ).toBe(0);
      const injected = await cairn(execEnv, { env });
      expect(injected.code, injected.stderr).toBe(0);
      expect(doc(injected).stdout).toBe('injected\n');
      child.kill('SIGTERM');
      await new Promise((r) => child.on('exit', r));
      expect(proxyErr).toMatch(/hold POST billing/);
      expect(proxyErr).toMatch(/200 POST billing/);
      for (const text of [proxyErr, human.stdout, done.stdout, injected.stdout]) {
        expect(text).not.toContain(secret);
        expect(text).not.toContain(envSecret);
      }
      const { filesContaining } = await import('./support/scan.js');
      expect(filesContaining(s, secret)).toEqual([]);
      expect(filesContaining(s, envSecret)).toEqual([]);
    } finally {
      proxyProcess?.kill('SIGKILL');
      await upstream.close();
    }
  });
});

/**
 * Waits for a `cairn exec -- sh -c 'echo $$ > child.pid; exec sleep 30'` to
 * start its child: the child's pid, and the exec's exit.
 */
async function childStarted(running: ChildProcessWithoutNullStreams, dir: string) {
  const closed = new Promise<number | null>((resolve) => running.on('close', resolve));
  running.stdin.end();
  let exited = false;
  void closed.then(() => {
    exited = true;
  });
  // Looks until the child wrote its pid (or the exec ended without one): bounded by a count generous for a
  // loaded machine, and over as soon as the file is there.
  let pid = 0;
  for (let i = 0; i < 4_000 && pid === 0 && !exited; i++) {
    await new Promise((r) => setTimeout(r, 25));
    try {
      pid = Number(readFileSync(join(dir, 'child.pid'), 'utf8').trim());
    } catch {}
  }
  expect(pid).toBeGreaterThan(0);
  return { closed, pid };
}

describe('cairn exec stopped by a signal', () => {
  it('SIGTERM to `cairn exec --branch` stops its child, records how the step ended and revokes the handle', async () => {
    const sigStore = join(work, 'sig-store');
    const keyFile = join(work, 'sig.key');
    const dir = join(work, 'sig-ws');
    mkdirSync(dir);
    expect((await cairn(['cred', 'keygen', '--out', keyFile, '--json'])).code).toBe(0);
    await ok(['ws', 'attach', dir], { store: sigStore });
    const running = start(
      [
        'exec',
        '--branch',
        'main',
        '--store',
        sigStore,
        '--json',
        '--',
        'sh',
        '-c',
        'echo $$ > child.pid; exec sleep 30',
      ],
      { CAIRN_MASTER_KEY_FILE: keyFile },
      dir,
    );
    const { closed, pid } = await childStarted(running, dir);
    running.kill('SIGTERM');
    const code = await closed;
    expect(code).not.toBe(0);
    // The child is gone, not orphaned with a working handle.
    expect(() => process.kill(pid, 0)).toThrow();
    const db = new Database(join(sigStore, 'cairn.db'), { readonly: true });
    try {
      const handles = db.prepare('SELECT revoked_at FROM key_handles').all() as {
        revoked_at: number | null;
      }[];
      expect(handles).toHaveLength(1);
      expect(handles[0]?.revoked_at).not.toBeNull();
    } finally {
      db.close();
    }
    const steps = await ok(['step', 'ls', '--ws', dir], { store: sigStore });
    expect(steps.steps).toEqual([
      expect.objectContaining({
        name: 'exec',
        state: 'done',
        result: expect.objectContaining({ exit: 143 }),
      }),
    ]);
  });
});

describe('cairn step ls|resolve (the table’s listSteps and resolveStep)', () => {
  it('a step left in doubt by a killed exec is listed, resolved once by a person, and bad decisions are refused', async () => {
    const stepStore = join(work, 'step-store');
    const dir = join(work, 'step-ws');
    mkdirSync(dir);
    await ok(['ws', 'attach', dir], { store: stepStore });
    const running = start(
      ['exec', '--store', stepStore, '--json', '--', 'sh', '-c', 'echo $$ > child.pid; exec sleep 30'],
      {},
      dir,
    );
    const { closed, pid } = await childStarted(running, dir);
    // The recorder dies between the step's intent and its result: the step is in doubt.
    running.kill('SIGKILL');
    await closed;
    process.kill(pid, 'SIGKILL');
    const listed = await ok(['step', 'ls', '--ws', dir], { store: stepStore });
    expect(listed.steps).toEqual([expect.objectContaining({ position: 1, name: 'exec', state: 'in-doubt' })]);
    const at = ['--ws', dir, '--store', stepStore];
    expect((await fails(['step', 'resolve', '1', ...at], 5)).code).toBe('INVALID_ARGUMENT');
    expect((await fails(['step', 'resolve', '1', '--rerun', '--error', 'x', ...at], 5)).code).toBe(
      'INVALID_ARGUMENT',
    );
    expect((await fails(['step', 'resolve', '0', '--rerun', ...at], 5)).code).toBe('INVALID_ARGUMENT');
    expect((await fails(['step', 'resolve', '2', '--rerun', ...at], 3)).code).toBe('NOT_FOUND');
    const resolved = await ok(['step', 'resolve', '1', '--error', 'killed with its recorder', '--ws', dir], {
      store: stepStore,
    });
    expect(resolved).toMatchObject({
      position: 1,
      state: 'failed',
      settledBy: 'person',
      error: { message: 'killed with its recorder' },
    });
    expect((await fails(['step', 'resolve', '1', '--rerun', ...at], 4)).code).toBe('CONFLICT');
    expect((await ok(['step', 'ls', '--ws', dir], { store: stepStore })).steps).toEqual([
      expect.objectContaining({ position: 1, state: 'failed', settledBy: 'person' }),
    ]);
  });
});

describe('the store config', () => {
  it("the admin's config.json sets the secret policy and the allow-list; a flag can only make the policy stricter", async () => {
    const confStore = join(work, 'conf-store');
    const dir = join(work, 'conf-ws');
    mkdirSync(dir);
    writeFileSync(join(dir, 'app.txt'), 'v1\n');
    await ok(['ws', 'attach', dir], { store: confStore });
    writeFileSync(join(dir, '.env'), 'API_KEY=sk_live_51HqExampleExampleExample00\n');
    // exclude by default: the checkpoint goes ahead without .env
    expect((await ok(['ws', 'checkpoint', '--ws', dir], { store: confStore })).findings).toHaveLength(1);
    writeFileSync(join(confStore, 'config.json'), JSON.stringify({ secrets: 'fail' }));
    writeFileSync(join(dir, 'app.txt'), 'v2\n');
    const refused = await cairn([
      'ws',
      'checkpoint',
      '--ws',
      dir,
      '--secrets',
      'exclude',
      '--json',
      '--store',
      confStore,
    ]);
    expect(refused.code).toBe(6);
    expect(doc(refused).error.code).toBe('FORBIDDEN');
    const cp = await cairn(['checkpoint', '--ws', dir, '--json', '--store', confStore]);
    expect(cp.code).toBe(6);
    // The admin accepts that file: it is kept like any other (two files now).
    writeFileSync(
      join(confStore, 'config.json'),
      JSON.stringify({
        secrets: 'fail',
        guard: { allow: [{ rule: 'credential-path:dotenv', paths: ['.env'] }] },
      }),
    );
    expect((await ok(['ws', 'checkpoint', '--ws', dir], { store: confStore })).snapshot.files).toBe(2);
    // A malformed config is refused, never half-read.
    writeFileSync(join(confStore, 'config.json'), JSON.stringify({ secrets: 'sometimes' }));
    const bad = await cairn(['ws', 'checkpoint', '--ws', dir, '--json', '--store', confStore]);
    expect(bad.code).toBe(5);
    expect(doc(bad).error.message).toContain('config.json: secrets');
  });
});
