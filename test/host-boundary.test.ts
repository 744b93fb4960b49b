import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { bin, cliIn, collect, type Doc, doc, firstDocument } from './support/cli.js';

// The host boundary: another OS user can neither read a store nor speak with its watcher, and the
// watcher hears only the commands the CLI forwards, with only what they need.
const work = mkdtempSync(join(tmpdir(), 'cairn-host-'));
// Open like a home folder: the store's own modes are all that keeps another user out.
chmodSync(work, 0o755);
const { start, cairn, ok, cleanEnv } = cliIn(work, join(work, 'unused'));
const running: ChildProcessWithoutNullStreams[] = [];
const servers: Server[] = [];

afterEach(async () => {
  for (const child of running.splice(0)) child.kill('SIGKILL');
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const root = process.getuid?.() === 0;
const OTHER = 'cairn-other';

/** A throwaway OS user (created once; the test runs as root). */
function otherUser(): { uid: number; gid: number } {
  try {
    execFileSync('id', ['-u', OTHER], { stdio: 'ignore' });
  } catch {
    execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', OTHER]);
  }
  const uid = Number(execFileSync('id', ['-u', OTHER], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', OTHER], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

/** Runs a Node script as the other user; what it prints on stdout, as JSON. */
function asOther(script: string, args: string[]): Doc {
  const text = execFileSync('runuser', ['-u', OTHER, '--', process.execPath, '-e', script, ...args], {
    encoding: 'utf8',
    cwd: '/',
  });
  return JSON.parse(text);
}

/** Runs the CLI under a umask of 000 (nothing taken away from new files' modes). */
function startOpen(args: string[], env: Record<string, string> = {}, cwd = work) {
  return spawn('sh', ['-c', 'umask 000; exec "$0" "$@"', process.execPath, bin, ...args], {
    cwd,
    env: cleanEnv(env),
  });
}

async function project(name: string, store: string, umaskOpen = false): Promise<string> {
  const dir = join(work, name);
  mkdirSync(join(dir, 'src'), { recursive: true });
  for (let i = 0; i < 5; i++) writeFileSync(join(dir, 'src', `f${i}.txt`), `file ${i} of ${name}\n`);
  // Large enough to be kept as a blob file, not inline in the database.
  writeFileSync(join(dir, 'big.bin'), randomBytes(1 << 20));
  if (umaskOpen) {
    for (const args of [['init'], ['ws', 'attach', '.']]) {
      const run = await collect(startOpen([...args, '--json', '--store', store], {}, dir));
      expect(run.code, run.stderr).toBe(0);
    }
  } else {
    await ok(['init'], { store });
    await ok(['ws', 'attach', '.'], { store, cwd: dir });
  }
  return dir;
}

async function watchStore(store: string, env: Record<string, string> = {}, umaskOpen = false) {
  const child = umaskOpen
    ? startOpen(['watch', '--json', '--store', store], env)
    : start(['watch', '--json', '--store', store], env);
  running.push(child);
  const { socket } = await firstDocument<{ socket: string }>(child, 'cairn watch');
  return { child, socket };
}

/** Every path under `dir` (itself included) with its lstat. */
function walk(dir: string): { path: string; mode: number; kind: string }[] {
  const found: { path: string; mode: number; kind: string }[] = [];
  const visit = (path: string) => {
    const st = lstatSync(path);
    const kind = st.isDirectory() ? 'dir' : st.isSocket() ? 'socket' : st.isFile() ? 'file' : 'other';
    found.push({ path, mode: st.mode & 0o777, kind });
    if (st.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(dir);
  return found;
}

/** A stand-in "watcher" that records what it is sent and answers with a fake result. */
async function fakeWatcher(socket: string): Promise<{ requests: Doc[] }> {
  const seen: { requests: Doc[] } = { requests: [] };
  const server = createServer({ allowHalfOpen: true }, (conn) => {
    let text = '';
    conn.setEncoding('utf8');
    conn.on('data', (chunk: string) => {
      text += chunk;
    });
    conn.on('end', () => {
      seen.requests.push(JSON.parse(text));
      conn.end(JSON.stringify({ code: 0, stdout: '{"fake":true}\n', stderr: '' }));
    });
  });
  servers.push(server);
  mkdirSync(dirname(socket), { recursive: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socket, () => resolve());
  });
  return seen;
}

describe('the store on disk', () => {
  it.skipIf(!root)(
    'another OS user can neither read the store (database, blobs) nor connect to its watcher',
    async () => {
      otherUser();
      const store = join(work, 'private-store');
      await project('private', store);
      const { socket } = await watchStore(store);
      const blob = walk(join(store, 'blobs')).find((e) => e.kind === 'file');
      expect(blob).toBeDefined();
      const tried = asOther(
        `const fs = require('node:fs'); const net = require('node:net');
         const [db, blob, blobs, socket] = process.argv.slice(1);
         const code = (f) => { try { f(); return 'read'; } catch (e) { return e.code; } };
         const out = { db: code(() => fs.readFileSync(db)), blob: code(() => fs.readFileSync(blob)),
           blobs: code(() => fs.readdirSync(blobs)) };
         const conn = net.connect(socket);
         conn.on('connect', () => { out.socket = 'connected'; conn.destroy(); console.log(JSON.stringify(out)); });
         conn.on('error', (e) => { out.socket = e.code; console.log(JSON.stringify(out)); });`,
        [join(store, 'cairn.db'), blob!.path, join(store, 'blobs'), socket],
      );
      expect(tried).toEqual({ db: 'EACCES', blob: 'EACCES', blobs: 'EACCES', socket: 'EACCES' });
    },
  );

  it('a store made under umask 000 is still 0700 and its files 0600 (database, WAL, blobs, socket)', async () => {
    const store = join(work, 'umask-store');
    await project('umask', store, true);
    const { socket } = await watchStore(store, {}, true);
    // The watcher holds the database open: its -wal and -shm are there.
    expect(existsSync(join(store, 'cairn.db-wal'))).toBe(true);
    expect(existsSync(join(store, 'cairn.db-shm'))).toBe(true);
    expect(statSync(store).mode & 0o777).toBe(0o700);
    const entries = walk(store).filter((e) => !e.path.startsWith(join(store, 'desk', '')));
    const loose = entries.filter((e) =>
      e.kind === 'dir' ? e.mode !== 0o700 : e.kind === 'file' ? e.mode !== 0o600 : (e.mode & 0o077) !== 0,
    );
    expect(loose).toEqual([]);
    expect(entries.some((e) => e.kind === 'file' && e.path.includes('/blobs/'))).toBe(true);
    expect(lstatSync(socket).mode & 0o077).toBe(0);
    expect(statSync(join(store, 'desk')).mode & 0o777).toBe(0o700);
  });

  it('a store left open to others warns on every command, and `cairn doctor --fix` closes it', async () => {
    const store = join(work, 'open-store');
    await project('open', store);
    chmodSync(store, 0o755);
    chmodSync(join(store, 'cairn.db'), 0o644);
    const warned = await cairn(['ws', 'ls', '--json', '--store', store]);
    expect(warned.code, warned.stderr).toBe(0);
    expect(warned.stderr).toMatch(
      /^cairn: warning: the store .* is open to other users .*cairn doctor --fix/,
    );
    const report = await cairn(['doctor', '--json', '--store', store]);
    expect(report.code).toBe(1);
    expect(doc(report).exposed.map((e: Doc) => e.path)).toEqual([store, join(store, 'cairn.db')]);
    const fixed = await ok(['doctor', '--fix'], { store });
    expect(fixed.fixed.map((e: Doc) => e.path)).toEqual([store, join(store, 'cairn.db')]);
    expect(statSync(store).mode & 0o777).toBe(0o700);
    expect(statSync(join(store, 'cairn.db')).mode & 0o777).toBe(0o600);
    expect((await ok(['doctor'], { store })).exposed).toEqual([]);
    await ok(['ws', 'ls'], { store });
  });
});

describe('the watcher and its socket', () => {
  it('the watcher runs only the commands the CLI forwards: `exec` and `token create` are refused', async () => {
    const store = join(work, 'refuse-store');
    const dir = await project('refuse', store);
    const { socket } = await watchStore(store);
    const mark = join(dir, 'ran-by-exec');
    const ask = (argv: string[]) =>
      new Promise<Doc>((resolve, reject) => {
        const conn = connect(socket);
        let text = '';
        conn.setEncoding('utf8');
        conn.on('connect', () => conn.end(`${JSON.stringify({ argv, cwd: dir, env: {} })}\n`));
        conn.on('data', (chunk: string) => {
          text += chunk;
        });
        conn.on('error', reject);
        conn.on('close', () => resolve(JSON.parse(text)));
      });
    const exec = await ask(['exec', '--json', '--store', store, '--', 'sh', '-c', `touch ${mark}`]);
    expect(exec.code).toBe(6);
    expect(JSON.parse(exec.stdout).error.code).toBe('FORBIDDEN');
    expect(exec.stderr).toMatch(/^cairn: .*exec/);
    // The answer came back: had the command run, its file would be there by now.
    expect(existsSync(mark)).toBe(false);
    const token = await ask(['token', 'create', '--role', 'admin', '--json', '--store', store]);
    expect(token.code).toBe(6);
    expect(token.stdout).not.toMatch(/cairn\.tn_/);
    // A forwarded command naming another store is refused too: the watcher serves its own.
    const elsewhere = await ask(['status', '--json', '--store', join(work, 'private-store')]);
    expect(JSON.parse(elsewhere.stdout).error.code).toBe('FORBIDDEN');
    const status = await ask(['status', '--json', '--store', store]);
    expect(status.code, status.stderr).toBe(0);
  });

  it('the watcher hears only what the forwarded command needs: no planted secret, no master key, no token', async () => {
    const store = join(work, 'env-store');
    await ok(['init'], { store });
    const seen = await fakeWatcher(join(store, 'watch.sock'));
    const run = await cairn(['status', '--json', '--store', store], {
      env: {
        PLANTED_SECRET: 'sk-planted-0123456789',
        CAIRN_MASTER_KEY_FILE: '/planted/master.key',
        CAIRN_TOKEN: 'cairn.planted-token',
        AWS_SECRET_ACCESS_KEY: 'planted-aws',
      },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(seen.requests).toHaveLength(1);
    const sent = JSON.stringify(seen.requests[0]);
    for (const planted of ['sk-planted', '/planted/master.key', 'cairn.planted-token', 'planted-aws', 'PATH'])
      expect(sent).not.toContain(planted);
  });

  it.skipIf(!root)(
    'the CLI refuses a socket owned by another user, or in a folder others can write',
    async () => {
      const { uid, gid } = otherUser();
      const store = join(work, 'owner-store');
      await ok(['init'], { store });
      const socket = join(store, 'watch.sock');
      const seen = await fakeWatcher(socket);
      chownSync(socket, uid, gid);
      const theirs = await cairn(['status', '--json', '--store', store]);
      expect(theirs.code, theirs.stderr).toBe(6);
      expect(doc(theirs).error.code).toBe('FORBIDDEN');
      expect(doc(theirs).error.message).toContain(socket);
      chownSync(socket, 0, 0);
      chmodSync(store, 0o777);
      const open = await cairn(['status', '--json', '--store', store]);
      expect(open.code, open.stderr).toBe(6);
      expect(doc(open).error.message).toMatch(/cairn doctor --fix/);
      // Refused before a byte was sent: both runs have exited, and the listener heard nothing.
      expect(seen.requests).toEqual([]);
    },
  );

  it('a long store path: no shared name in the temp folder, a private folder of our own instead', async () => {
    const store = join(work, 'long', 'x'.repeat(110), 'store');
    mkdirSync(dirname(store), { recursive: true });
    const dir = await project('long-project', store);
    // Where the old CLI looked: a shared name anyone could listen on first.
    const tag = createHash('sha256').update(store).digest('hex').slice(0, 16);
    const shared = await fakeWatcher(join(tmpdir(), `cairn-watch-${tag}.sock`));
    const runtime = join(work, 'runtime');
    mkdirSync(runtime, { mode: 0o700 });
    const env = { XDG_RUNTIME_DIR: runtime };
    const { socket } = await watchStore(store, env);
    expect(socket.startsWith(join(runtime, 'cairn', ''))).toBe(true);
    expect(statSync(dirname(socket)).mode & 0o777).toBe(0o700);
    writeFileSync(join(dir, 'src', 'f1.txt'), 'changed\n');
    const run = await cairn(['checkpoint', '--json', '--store', store], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
    expect(doc(run).snapshot).toMatch(/^sn_/);
    expect(shared.requests).toEqual([]);
    // Without $XDG_RUNTIME_DIR: a folder of the user's own in the temp folder, checked before use.
    const temp = join(work, 'tmp');
    mkdirSync(temp, { mode: 0o1777 });
    chmodSync(temp, 0o1777);
    const planted = join(temp, `cairn-${process.getuid?.() ?? 0}`);
    mkdirSync(planted, { mode: 0o777 });
    chmodSync(planted, 0o777);
    const refused = await cairn(['watch', '--json', '--store', store], { env: { TMPDIR: temp } });
    expect(refused.code, refused.stderr).toBe(6);
    expect(doc(refused).error.message).toContain(planted);
    rmSync(planted, { recursive: true });
    const second = await watchStore(store, { TMPDIR: temp });
    expect(second.socket.startsWith(join(planted, ''))).toBe(true);
    expect(statSync(planted).mode & 0o777).toBe(0o700);
  });
});

describe('tokens out of `ps`', () => {
  it('--token-file and $CAIRN_TOKEN_FILE read the token from a file', async () => {
    const store = join(work, 'token-store');
    const serving = start(['serve', '--json', '--port', '0', '--store', store]);
    running.push(serving);
    const { url, token } = await firstDocument<{ url: string; token: string }>(serving, 'cairn serve');
    const file = join(work, 'token.txt');
    writeFileSync(join(work, 'token.txt'), `${token}\n`, { mode: 0o600 });
    const byFlag = await cairn(['session', 'new', '--json', '--url', url, '--token-file', file]);
    expect(byFlag.code, byFlag.stderr).toBe(0);
    const byEnv = await cairn(['session', 'ls', '--json', '--url', url], { env: { CAIRN_TOKEN_FILE: file } });
    expect(byEnv.code, byEnv.stderr).toBe(0);
    const both = await cairn([
      'session',
      'ls',
      '--json',
      '--url',
      url,
      '--token',
      token,
      '--token-file',
      file,
    ]);
    expect(both.code).toBe(2);
    const missing = await cairn([
      'session',
      'ls',
      '--json',
      '--url',
      url,
      '--token-file',
      join(work, 'nope'),
    ]);
    expect(missing.code).toBe(5);
    expect(doc(missing).error.message).toContain(join(work, 'nope'));
  });
});
