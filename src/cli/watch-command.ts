/**
 * `cairn watch`: a long-lived process beside a local store that keeps the
 * store open and the desk watching every workspace attached on this host
 * (inotify, one watch per directory), and runs workspace command lines for
 * the CLI over a Unix socket (see front.ts). A `cairn checkpoint`
 * then looks only at what changed instead of stat-scanning the tree, and
 * its process loads nothing but the CLI's front.
 */
import { existsSync, unlinkSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { hostname } from 'node:os';
import { isAbsolute } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { conflict, forbidden, unavailable } from '../errors.js';
import { wantsJson } from './args.js';
import type { SharedDesk, StoreCommand } from './command.js';
import {
  forwardedCommand,
  forwardedEnv,
  prepareSocketDir,
  socketPlaces,
  storeArgument,
  type WatchAnswer,
  type WatchRequest,
  watchSocketPath,
} from './front.js';
import type { CliWorld } from './main.js';
import { EXIT, Output } from './output.js';
import { openConfiguredStore, untilStopSignal } from './store-commands.js';
import { deskSettings, readStoreConfig } from './store-config.js';
import { storeDir } from './store-dir.js';

/** A request line larger than this is refused (a command line and its environment fit easily). */
const MAX_REQUEST_BYTES = 1024 * 1024;

/** A Writable that keeps what is written, for a command's stdout or stderr. */
class Collected extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

function parseRequest(line: string): WatchRequest {
  const request = JSON.parse(line) as Partial<WatchRequest>;
  const strings = (xs: unknown): xs is string[] =>
    Array.isArray(xs) && xs.every((x) => typeof x === 'string');
  if (
    !strings(request.argv) ||
    typeof request.cwd !== 'string' ||
    !isAbsolute(request.cwd) ||
    typeof request.env !== 'object' ||
    request.env === null ||
    !Object.values(request.env).every((v) => typeof v === 'string')
  )
    throw new Error('a request is {argv: string[], cwd: absolute path, env: {name: string}}');
  return request as WatchRequest;
}

/**
 * Refuses what the front never forwards: another command, or another store
 * than this watcher's. The environment is cut to what the front may send.
 */
function admit(request: WatchRequest, dir: string): WatchRequest {
  if (forwardedCommand(request.argv) === null)
    throw forbidden(
      `cairn watch runs only the workspace commands the CLI forwards to it, not "${request.argv.slice(0, 2).join(' ')}": run that command yourself`,
      {},
    );
  const env = forwardedEnv(request.env);
  const named = storeDir({ store: storeArgument(request.argv) }, env, request.cwd).dir;
  if (named !== dir)
    throw forbidden(`this cairn watch serves the store ${dir}, not ${named}: run the command yourself`, {});
  return { ...request, env };
}

/** True when something answers on the socket (another watcher); a leftover file from a dead one does not. */
function answers(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect(socket);
    probe.on('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.on('error', () => resolve(false));
  });
}

/** Binds in a folder only this user may enter, under a umask that leaves the socket 0600 (no chmod after bind). */
async function listen(
  socket: string,
  dir: string,
  uid: number,
  onConnection: (conn: Socket) => void,
): Promise<Server> {
  prepareSocketDir(socket, dir, uid);
  if (existsSync(socket)) {
    if (await answers(socket))
      throw conflict(
        `a cairn watch already serves this store (its socket ${socket} answers): one is enough`,
        { socket },
      );
    unlinkSync(socket);
  }
  const server = createServer({ allowHalfOpen: true }, onConnection);
  // Whoever may connect acts as the store's local principal: the owner only.
  const umask = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socket, () => resolve());
    });
  } finally {
    process.umask(umask);
  }
  return server;
}

const watch: StoreCommand = {
  target: 'store',
  createsStore: false,
  names: ['watch'],
  example: 'cairn watch',
  args: [],
  flags: [],
  summary:
    'keep the store open and its workspaces watched until SIGINT/SIGTERM; workspace commands on this store then run here, without a scan',
  async run(dir, call) {
    const { out } = call;
    const store = await openConfiguredStore(dir, 'background');
    const config = readStoreConfig(dir);
    const who = await store.localIdentity();
    const host = hostname();
    const desk = store.desk(who, {
      host,
      ...deskSettings(config),
      watch: true,
    });
    const shared: SharedDesk = {
      dir,
      config: JSON.stringify(config),
      ctx: { desk, fabric: store.fabric(who), local: { store, who } },
    };
    const { main } = await import('./main.js');
    // One command at a time: the desk runs one operation per workspace anyway, and the answers stay in order.
    let queue: Promise<unknown> = Promise.resolve();
    const run = (request: WatchRequest): Promise<WatchAnswer> => {
      const stdout = new Collected();
      const stderr = new Collected();
      const world: CliWorld = {
        stdout,
        stderr,
        stdin: Readable.from([]),
        env: request.env,
        cwd: request.cwd,
        shared,
      };
      const done = queue.then(async () => ({
        code: await main(request.argv, world),
        stdout: stdout.text,
        stderr: stderr.text,
      }));
      queue = done.catch(() => undefined);
      return done;
    };
    const onConnection = (conn: Socket) => {
      let text = '';
      conn.setEncoding('utf8');
      conn.on('error', () => conn.destroy());
      conn.on('data', (chunk: string) => {
        text += chunk;
        if (text.length > MAX_REQUEST_BYTES) conn.destroy();
      });
      conn.on('end', () => {
        let request: WatchRequest;
        try {
          request = parseRequest(text.trim());
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          conn.end(JSON.stringify({ code: EXIT.usage, stdout: '', stderr: `cairn watch: ${reason}\n` }));
          return;
        }
        try {
          request = admit(request, dir);
        } catch (error) {
          const stdout = new Collected();
          const stderr = new Collected();
          const code = new Output(wantsJson(request.argv), { stdout, stderr }, false).fail(error);
          conn.end(JSON.stringify({ code, stdout: stdout.text, stderr: stderr.text }));
          return;
        }
        void run(request).then((answer) => conn.end(JSON.stringify(answer)));
      });
    };
    const places = socketPlaces(call.env);
    const socket = watchSocketPath(dir, places);
    if (socket === undefined)
      throw unavailable(
        `no folder gives ${dir} a watch socket path short enough (108 bytes): set $XDG_RUNTIME_DIR or $TMPDIR to a short folder`,
        { store: dir },
      );
    let server: Server | undefined;
    try {
      const here = (await desk.listWorkspaces()).filter((w) => w.state === 'attached' && w.host === host);
      for (const ws of here) {
        // A workspace that cannot be read now is reported and scanned again at its next command.
        await desk.prepare(ws.id).catch((error: unknown) => {
          out.problem(`workspace ${ws.id} (${ws.dir}): ${error instanceof Error ? error.message : error}`);
        });
      }
      server = await listen(socket, dir, places.uid, onConnection);
      const stopped = untilStopSignal();
      out.result({ store: dir, socket, workspaces: here.map((w) => w.id) }, [
        `Cairn watching ${here.length} workspace${here.length === 1 ? '' : 's'} of ${dir}`,
        `socket: ${socket}`,
      ]);
      await stopped;
    } finally {
      if (server) await new Promise((resolve) => server?.close(resolve));
      await queue;
      await desk.close();
      await store.close();
    }
    return EXIT.ok;
  },
};

export const WATCH_COMMANDS: StoreCommand[] = [watch];
