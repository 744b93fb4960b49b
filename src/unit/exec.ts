import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { constants as os } from 'node:os';
import { delimiter, isAbsolute, join } from 'node:path';
import type { CheckpointResult, Desk } from '../desk/desk.js';
import { sha256Hex } from '../digest.js';
import { invalidArgument } from '../errors.js';
import type { Fabric } from '../fabric.js';
import type { WorkspaceId } from '../ids.js';
import type { Keys } from '../keys/keys.js';
import { Journal } from '../steps/journal.js';

/**
 * Variables never passed to a child: the operator's keys to the vault, and
 * the way to the store itself. This keeps them out of the child's own
 * environment only: a child running as the same OS user can read its
 * parent's /proc entries and any file that user can, and so act as the
 * store's local admin; see GUARANTEES.md.
 */
export const WITHHELD_VARIABLES = [
  'CAIRN_MASTER_KEY',
  'CAIRN_MASTER_KEY_FILE',
  'CAIRN_TOKEN',
  'CAIRN_URL',
  'CAIRN_STORE',
] as const;
/** A child's handle expires after this long even if revoking it on exit never happens (a crash). */
export const EXEC_HANDLE_TTL_MS = 24 * 60 * 60 * 1000;

/** How a child reaches its branch's grants: a proxy URL and a handle, never a secret (unless `envCredentials`). */
export interface ExecKeys {
  keys: Keys;
  proxyUrl: string;
  /** `env` credentials to inject into this one child, each allowed by an active grant of the branch. */
  envCredentials?: string[];
}

/**
 * `cairn exec`: a command run in a workspace as a recorded step — intent
 * first, then exit code, output digest and duration — followed by a
 * checkpoint when the workspace changed. This is how a harness's shell tool
 * gets captured. A command cut off by a crash is in doubt with policy
 * `escalate`: a shell command is never re-run blindly.
 */
export interface ExecResult {
  position: number;
  key: string;
  exit: number;
  outputDigest: string;
  durationMs: number;
  stdout: Buffer;
  stderr: Buffer;
  checkpoint: CheckpointResult;
}

/** Finds a command on a PATH string (passed in: the library reads no environment). */
export function findCommand(command: string, path: string, cwd: string): string | null {
  const executable = (file: string) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (command.includes('/')) {
    const file = isAbsolute(command) ? command : join(cwd, command);
    return executable(file) ? file : null;
  }
  for (const dir of path.split(delimiter)) {
    if (dir !== '' && executable(join(dir, command))) return join(dir, command);
  }
  return null;
}

const osSignals = os.signals as Record<string, number>;

/** After asking a child to stop (SIGTERM), how long it has before SIGKILL. */
export const STOP_GRACE_MS = 5000;

export async function execInWorkspace(
  fabric: Fabric,
  desk: Desk,
  input: {
    workspace: WorkspaceId;
    command: string[];
    env: Record<string, string | undefined>;
    keys?: ExecKeys;
    /**
     * Aborting stops the child (SIGTERM, then SIGKILL after {@link STOP_GRACE_MS}); the step
     * records how it ended and the child's handle is revoked as on any exit. The CLI aborts on
     * SIGTERM, SIGINT and SIGHUP, so stopping `cairn exec` never leaves a child holding a handle.
     */
    signal?: AbortSignal;
  },
): Promise<ExecResult> {
  const [program, ...args] = input.command;
  if (program === undefined || program === '') {
    throw invalidArgument('exec needs a command: cairn exec -- CMD [ARGS…]');
  }
  const ws = await desk.getWorkspace(input.workspace);
  const resolved = findCommand(program, input.env.PATH ?? '', ws.dir);
  if (!resolved) {
    throw invalidArgument(`command "${program}" not found on PATH: check its name`, {
      command: program,
    });
  }
  const env: Record<string, string | undefined> = { ...input.env };
  for (const name of WITHHELD_VARIABLES) delete env[name];
  let handleId: string | undefined;
  try {
    if (input.keys) {
      // A handle for this child only: revoked when it exits (or when injecting a credential fails),
      // and expiring on its own should that revocation never run.
      const issued = await input.keys.keys.issueHandle({
        session: ws.session,
        branch: ws.branch,
        ttlMs: EXEC_HANDLE_TTL_MS,
      });
      handleId = issued.id;
      env.CAIRN_PROXY_URL = input.keys.proxyUrl;
      env.CAIRN_HANDLE = issued.handle;
      env.CAIRN_BRANCH = ws.branch;
      for (const credential of input.keys.envCredentials ?? []) {
        const injected = await input.keys.keys.envForChild({
          session: ws.session,
          branch: ws.branch,
          credential,
        });
        env[injected.variable] = injected.value;
      }
    }
    return await runStep(fabric, desk, ws, resolved, args, input.command, env, input.signal);
  } finally {
    if (handleId) await input.keys?.keys.revokeHandle(handleId);
  }
}

async function runStep(
  fabric: Fabric,
  desk: Desk,
  ws: Awaited<ReturnType<Desk['getWorkspace']>>,
  resolved: string,
  args: string[],
  command: string[],
  env: Record<string, string | undefined>,
  signal?: AbortSignal,
): Promise<ExecResult> {
  const journal = (await Journal.open(fabric, { session: ws.session, branch: ws.branch })).atEnd();
  let stdout = Buffer.alloc(0);
  let stderr = Buffer.alloc(0);
  let position = 0;
  let key = '';
  // The outcome is made durable even when starting the command failed (a recorded failure, not a step in doubt).
  const result = await journal
    .step(
      'exec',
      { command, workspace: ws.id },
      async (ctx) => {
        position = ctx.position;
        key = ctx.key;
        const started = performance.now();
        const child = spawn(resolved, args, { cwd: ws.dir, env: { ...env, CAIRN_STEP_KEY: ctx.key } });
        const out: Buffer[] = [];
        const err: Buffer[] = [];
        child.stdout.on('data', (d: Buffer) => out.push(d));
        child.stderr.on('data', (d: Buffer) => err.push(d));
        let killer: NodeJS.Timeout | undefined;
        const stop = () => {
          child.kill('SIGTERM');
          killer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
        };
        if (signal?.aborted) stop();
        else signal?.addEventListener('abort', stop, { once: true });
        const exit = await new Promise<number>((resolve, reject) => {
          child.on('error', reject);
          child.on('close', (code, ended) => resolve(code ?? (ended ? 128 + (osSignals[ended] ?? 0) : 1)));
        }).finally(() => {
          clearTimeout(killer);
          signal?.removeEventListener('abort', stop);
        });
        stdout = Buffer.concat(out);
        stderr = Buffer.concat(err);
        return {
          exit,
          outputDigest: sha256Hex(Buffer.concat([stdout, stderr])),
          durationMs: Math.round(performance.now() - started),
        };
      },
      { policy: 'escalate' },
    )
    .finally(() => journal.flush());
  const checkpoint = await desk.checkpoint(ws.id);
  return { position, key, ...result, stdout, stderr, checkpoint };
}
