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
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CairnError, inDoubt } from '../errors.js';
import { fromEnv, storeDir } from './store-dir.js';

/** The commands a watcher runs for the CLI: workspace and unit commands that need no stdin and no terminal. */
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

/** Longest socket path Linux takes (sun_path is 108 bytes with its NUL), with room to spare. */
const MAX_SOCKET_PATH = 100;

/** A store's watch socket: in the store folder, or (when that path is too long for a socket) in the temp folder. */
export function watchSocketPath(storeDir: string): string {
  const beside = join(storeDir, 'watch.sock');
  if (Buffer.byteLength(beside) <= MAX_SOCKET_PATH) return beside;
  const tag = createHash('sha256').update(storeDir).digest('hex').slice(0, 16);
  return join(tmpdir(), `cairn-watch-${tag}.sock`);
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
  // A server, help and a stricter secret policy for one call are the CLI's own business.
  for (const arg of argv) {
    if (arg === '-h' || arg === '--help') return null;
    if (/^--(url|token|secrets)(=|$)/.test(arg)) return null;
  }
  return name;
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
 * (the caller runs the command itself). A watcher that goes away after it
 * took the command is IN_DOUBT: the command may have run.
 */
export function askWatcher(socket: string, request: WatchRequest): Promise<WatchAnswer | undefined> {
  if (!existsSync(socket)) return Promise.resolve(undefined);
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
    const passed: Record<string, string> = {};
    for (const [name, value] of Object.entries(env)) if (value !== undefined) passed[name] = value;
    const answer = await askWatcher(watchSocketPath(dir), { argv, cwd: front.cwd, env: passed });
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
