/**
 * The CLI's front: what runs before the CLI itself is loaded, the client
 * side of `cairn watch`. A workspace command on a local store looks for the
 * store's watch socket and, when a `cairn watch` answers there, has it run
 * the command line in its long-lived process (store open, desk watching)
 * and prints its answer. With no watcher (no socket, or nobody listening)
 * the command runs here as always. Loaded by every call, so it loads little
 * beyond Node's own modules.
 */
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, type Stats, statSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, isAbsolute, join } from 'node:path';
import { type CairnError, forbidden, inDoubt } from '../errors.js';
import { fromEnv, storeDir } from './store-dir.js';

/**
 * The commands a watcher runs for the CLI: workspace and unit commands that
 * need no stdin and no terminal. Declared once: the front forwards only
 * these, and the watcher refuses every other command line.
 */
const FORWARDED = new Set([
  'checkpoint',
  'status',
  'restore',
  'fork',
  'keep',
  'abandon',
  'ws attach',
  'ws checkpoint',
  'ws ls',
  'ws restore',
  'ws diff',
  'ws fork',
  'ws merge',
  'ws detach',
]);

/**
 * The only environment a forwarded command is given: the store the front
 * resolved (as CAIRN_STORE) and these. Tokens, keys and the master key path are never sent.
 */
const FORWARDED_ENV = ['CAIRN_DEBUG'] as const;

/** Longest socket path Linux takes (sun_path is 108 bytes with its NUL), with room to spare. */
const MAX_SOCKET_PATH = 100;

/** Where a watch socket may live besides its store: read from the environment by the CLI. */
export interface SocketPlaces {
  /** $XDG_RUNTIME_DIR: the user's own runtime folder, when set. */
  runtimeDir?: string;
  /** The temp folder ($TMPDIR, else /tmp), for a folder of the user's own made there. */
  tempDir: string;
  /** This process's user; a socket or folder of another user is never used. */
  uid: number;
}

export function socketPlaces(env: Record<string, string | undefined>): SocketPlaces {
  const absolute = (name: string) => {
    const value = fromEnv(env, name);
    return value !== undefined && isAbsolute(value) ? value : undefined;
  };
  const runtimeDir = absolute('XDG_RUNTIME_DIR');
  return { ...(runtimeDir ? { runtimeDir } : {}), tempDir: absolute('TMPDIR') ?? '/tmp', uid: myUid() };
}

function myUid(): number {
  return process.getuid?.() ?? -1;
}

/**
 * A store's watch socket, always in a folder only its owner may enter: the
 * store folder; for a path too long for a socket, `$XDG_RUNTIME_DIR/cairn/`,
 * else `<temp>/cairn-<uid>/` (made 0700 and checked before use, never a
 * shared name). Undefined when no path is short enough (no watcher then).
 */
export function watchSocketPath(storeDir: string, places: SocketPlaces): string | undefined {
  const fits = (path: string) => Buffer.byteLength(path) <= MAX_SOCKET_PATH;
  const beside = join(storeDir, 'watch.sock');
  if (fits(beside)) return beside;
  const name = `watch-${createHash('sha256').update(storeDir).digest('hex').slice(0, 16)}.sock`;
  const candidates = [
    ...(places.runtimeDir ? [join(places.runtimeDir, 'cairn', name)] : []),
    join(places.tempDir, `cairn-${places.uid}`, name),
  ];
  return candidates.find(fits);
}

const octal = (mode: number) => (mode & 0o7777).toString(8).padStart(4, '0');

/**
 * Why `dir` is not a folder only `uid` may enter, or undefined when it is.
 * The store folder is followed if it is a link (the user named it); a
 * folder Cairn makes elsewhere must not be one.
 */
export function privateDirProblem(dir: string, uid: number, follow: boolean): string | undefined {
  let st: Stats;
  try {
    st = follow ? statSync(dir) : lstatSync(dir);
  } catch (error) {
    return `cannot look at ${dir} (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
  }
  if (st.isSymbolicLink()) return `${dir} is a symbolic link`;
  if (!st.isDirectory()) return `${dir} is not a folder`;
  if (uid >= 0 && st.uid !== uid) return `${dir} belongs to uid ${st.uid}, not to you (uid ${uid})`;
  if ((st.mode & 0o077) !== 0) return `${dir} is open to other users (mode ${octal(st.mode)})`;
  return undefined;
}

/** The typed refusal to use a socket folder that others may enter or that is not ours. */
export function unsafeSocket(socket: string, storeDir: string, problem: string): CairnError {
  const remedy =
    dirname(socket) === storeDir
      ? `run \`cairn doctor --fix --store ${storeDir}\``
      : `remove ${dirname(socket)} (a watcher makes it again, private)`;
  return forbidden(`not using the watch socket ${socket}: ${problem}; ${remedy}`, { socket });
}

/**
 * Makes (if missing) and checks the folder a watcher binds its socket in:
 * afterwards only this user may enter it, so nobody else can connect.
 */
export function prepareSocketDir(socket: string, storeDir: string, uid: number): void {
  const dir = dirname(socket);
  const inStore = dir === storeDir;
  if (!inStore) {
    try {
      mkdirSync(dir, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  const problem = privateDirProblem(dir, uid, inStore);
  if (problem !== undefined) throw unsafeSocket(socket, storeDir, problem);
}

/** One command line for the watcher to run, as the calling process would. */
export interface WatchRequest {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
}

/** What the watcher answers: the command's exit code and everything it printed. */
export interface WatchAnswer {
  code: number;
  stdout: string;
  stderr: string;
}

/** The command words a forwarded command line starts with, or null when it is not one the watcher runs. */
export function forwardedCommand(argv: readonly string[]): string | null {
  const one = argv[0] ?? '';
  const two = `${one} ${argv[1] ?? ''}`;
  const name = FORWARDED.has(two) ? two : FORWARDED.has(one) ? one : null;
  if (name === null) return null;
  // A server, help, credentials and a stricter secret policy for one call are the CLI's own business.
  for (const arg of argv) {
    if (arg === '-h' || arg === '--help') return null;
    if (/^--(url|token|token-file|secrets|master-key-file)(=|$)/.test(arg)) return null;
  }
  return name;
}

/** What a forwarded command is told of the caller's environment: its store, and the short list above. */
export function forwardedEnv(
  env: Record<string, string | undefined>,
  store = env.CAIRN_STORE,
): Record<string, string> {
  const passed: Record<string, string> = store === undefined ? {} : { CAIRN_STORE: store };
  for (const name of FORWARDED_ENV) {
    const value = env[name];
    if (value !== undefined) passed[name] = value;
  }
  return passed;
}

/** The --store value as written on the command line (the watcher parses the line again itself). */
export function storeArgument(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') return undefined;
    if (arg === '--store') return argv[i + 1];
    if (arg.startsWith('--store=')) return arg.slice('--store='.length);
  }
  return undefined;
}

/**
 * Has the store's watcher run `request`; undefined when there is no watcher
 * (the caller runs the command itself). Before a byte is sent, the socket
 * must be this user's, in a folder only this user may enter (FORBIDDEN
 * otherwise). A watcher that goes away after it took the command is
 * IN_DOUBT: the command may have run.
 */
export function askWatcher(
  socket: string,
  storeDir: string,
  uid: number,
  request: WatchRequest,
): Promise<WatchAnswer | undefined> {
  let st: Stats;
  try {
    st = lstatSync(socket);
  } catch {
    return Promise.resolve(undefined);
  }
  const problem =
    privateDirProblem(dirname(socket), uid, dirname(socket) === storeDir) ??
    (!st.isSocket()
      ? `${socket} is not a socket`
      : uid >= 0 && st.uid !== uid
        ? `${socket} belongs to uid ${st.uid}, not to you (uid ${uid})`
        : undefined);
  if (problem !== undefined) return Promise.reject(unsafeSocket(socket, storeDir, problem));
  return new Promise((resolve, reject) => {
    const conn = connect(socket);
    const chunks: Buffer[] = [];
    let sent = false;
    conn.on('connect', () => {
      sent = true;
      conn.end(`${JSON.stringify(request)}\n`);
    });
    conn.on('data', (chunk: Buffer) => chunks.push(chunk));
    conn.on('error', (error: NodeJS.ErrnoException) => {
      if (!sent) resolve(undefined);
      else reject(lostWatcher(socket, error.message));
    });
    conn.on('close', () => {
      if (!sent) return;
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        const answer = JSON.parse(text) as WatchAnswer;
        if (typeof answer.code !== 'number') throw new Error('no exit code');
        resolve(answer);
      } catch {
        reject(lostWatcher(socket, 'it closed the connection before answering'));
      }
    });
  });
}

function lostWatcher(socket: string, why: string): CairnError {
  return inDoubt(
    `the watcher at ${socket} took the command but did not answer (${why}): it may or may not have run; look with \`cairn status\` before running it again`,
    { socket },
  );
}

/** A reader that stopped reading (`cairn log show | head`) is not an error worth a stack trace. */
export function ignoreClosedPipe(stream: NodeJS.WritableStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

/** Where the CLI's front writes, and what it reads: the process's own streams, passed in. */
export interface Front {
  argv: string[];
  env: Record<string, string | undefined>;
  cwd: string;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/**
 * A workspace command on a local store, when a `cairn watch` holds that
 * store: run by the watcher, so this process loads no command and scans
 * nothing; its exit code. Undefined: run it here (`bin/cairn.js` then loads
 * the CLI).
 */
export async function forward(front: Front): Promise<number | undefined> {
  const { argv, env } = front;
  if (forwardedCommand(argv) === null) return undefined;
  ignoreClosedPipe(front.stdout);
  ignoreClosedPipe(front.stderr);
  const store = storeArgument(argv);
  if (store === undefined && fromEnv(env, 'CAIRN_URL') !== undefined) return undefined;
  try {
    const dir = storeDir({ store }, env, front.cwd).dir;
    const places = socketPlaces(env);
    const socket = watchSocketPath(dir, places);
    if (socket === undefined) return undefined;
    const request = { argv, cwd: front.cwd, env: forwardedEnv(env, dir) };
    const answer = await askWatcher(socket, dir, places.uid, request);
    if (answer === undefined) return undefined;
    front.stdout.write(answer.stdout);
    front.stderr.write(answer.stderr);
    return answer.code;
  } catch (error) {
    // Reported as the CLI reports any failure (its exit code, and the error document with --json).
    const [{ Output }, { wantsJson }] = await Promise.all([import('./output.js'), import('./args.js')]);
    return new Output(wantsJson(argv), front, env.CAIRN_DEBUG === '1').fail(error);
  }
}
