/**
 * The harness the kill -9 tests share (crash, desk-crash, steps-crash): a
 * scratch directory for a test whose children import the built dist/, jobs run
 * a few at a time, and child processes that are spawned ahead of their round,
 * let go through stdin, read line by line and SIGKILLed.
 *
 * The children's side is test/fixtures/child-io.mjs.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';

const DIST = fileURLToPath(new URL('../../dist/index.js', import.meta.url));

/**
 * How long a child may go without reaching its next mark (its first ack, its
 * kill point, its end) before the run calls it stuck and fails. Not a budget:
 * the kill suites are bounded by their count of kills and have no per-test
 * timeout. It only turns a hung child into a failure, so it is far above what
 * a loaded 2-core machine takes (under a second alone, a few seconds loaded).
 */
export const STALL_MS = 180_000;

/**
 * For a test whose child processes import the built dist/: before all tests,
 * checks that it is built and makes a scratch directory named `prefix…` in the
 * system's temporary folder; after all, removes it. Returns the directory's
 * path, once the tests run.
 */
export function scratchRoot(prefix: string): () => string {
  let root = '';
  beforeAll(() => {
    if (!existsSync(DIST))
      throw new Error(`${DIST} is missing: run \`npx tsc -p tsconfig.json\` before this test`);
    root = mkdtempSync(join(tmpdir(), prefix));
  });
  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });
  return () => root;
}

/**
 * Runs `job(0)` … `job(count - 1)`, at most `parallel` at a time. After a
 * failure no new job starts and running ones stop at their next round
 * (`stopped()`); all have ended before the first error is rethrown, so no
 * child outlives the test.
 */
export async function inParallel(
  count: number,
  parallel: number,
  job: (n: number, stopped: () => boolean) => Promise<void>,
): Promise<void> {
  let failed = false;
  let nextJob = 0;
  const errors: unknown[] = [];
  const worker = async () => {
    while (!failed && nextJob < count) {
      const n = nextJob++;
      try {
        await job(n, () => failed);
      } catch (error) {
        failed = true;
        errors.push(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, count) }, worker));
  if (errors.length > 0) throw errors[0];
}

/** A whole number from `lo` to `hi`, both included. */
export function randomInt(lo: number, hi: number): number {
  return lo + Math.floor(Math.random() * (hi - lo + 1));
}

// ---------------------------------------------------------------------------
// Child processes.

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface Child {
  /** What the child is, for error messages ('writer', 'worker', …). */
  readonly name: string;
  /** Everything the child printed on stdout so far. */
  readonly out: string;
  /** Everything it printed on stderr so far. */
  readonly err: string;
  /** The complete lines of `out`: text after the last newline (a line cut by the kill) is not one. */
  readonly lines: readonly string[];
  /** Whether `kill()` was called. */
  readonly killed: boolean;
  /**
   * Resolves once the process ended. 'close' waits for the pipes to drain, so
   * every line written before a kill has been read by then.
   */
  readonly closed: Promise<ChildExit>;
  /** SIGKILL. */
  kill(): void;
  /**
   * Lets a child that waits on stdin go: writes `input` and ends stdin. From
   * then on `onLine` sees each complete line as it arrives. Throws if the child
   * printed anything before.
   */
  go(input: string, onLine?: (line: string) => void): void;
  /** Kills the child (one that was never let go, or is no longer needed) and waits for its end. */
  discard(): Promise<void>;
}

/** Spawns `node script ...args` with piped stdio; `name` says what it is in error messages. */
export function spawnChild(name: string, script: string, args: string[]): Child {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let seen = 0;
  let killed = false;
  const lines: string[] = [];
  let onLine: ((line: string) => void) | undefined;
  child.stdin.on('error', () => {}); // EPIPE if the child died first: reported through `closed`
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    err += chunk;
  });
  child.stdout.on('data', (chunk: string) => {
    out += chunk;
    for (let nl = out.indexOf('\n', seen); nl >= 0; nl = out.indexOf('\n', seen)) {
      const line = out.slice(seen, nl);
      seen = nl + 1;
      lines.push(line);
      onLine?.(line);
    }
  });
  const closed = new Promise<ChildExit>((done, fail) => {
    child.on('error', fail);
    child.on('close', (code, signal) => done({ code, signal }));
  });
  closed.catch(() => {});
  const kill = () => {
    killed = true;
    child.kill('SIGKILL');
  };
  return {
    name,
    get out() {
      return out;
    },
    get err() {
      return err;
    },
    lines,
    get killed() {
      return killed;
    },
    closed,
    kill,
    go(input, lineHandler) {
      if (out !== '') throw new Error(`${name} printed before it was started: ${JSON.stringify(out)}`);
      onLine = lineHandler;
      child.stdin.end(input);
    },
    async discard() {
      kill();
      await closed.catch(() => {});
    },
  };
}

export interface KillPoint {
  /** True for the line after which the kill is due (asked for each line until it answers true). */
  after(line: string): boolean;
  /** How long after that line. */
  delayMs: number;
  /** A child that has not reached its kill point by then is broken: killed, and the run fails. */
  stallMs: number;
  /** What the failure says then. */
  stall: string;
}

/**
 * Lets `child` go with `input` and SIGKILLs it at `point`. Resolves once it
 * has ended; throws if it stalled before the kill point or ended by itself.
 */
export async function runToKill(child: Child, input: string, point: KillPoint): Promise<ChildExit> {
  let failure = '';
  let armed = false;
  let stall: NodeJS.Timeout | undefined;
  child.go(input, (line) => {
    if (armed || !point.after(line)) return;
    armed = true;
    clearTimeout(stall);
    setTimeout(child.kill, point.delayMs);
  });
  stall = setTimeout(() => {
    failure = point.stall;
    child.kill();
  }, point.stallMs);
  const exit = await child.closed;
  clearTimeout(stall);
  if (failure) throw new Error(`${child.name}: ${failure}; output: ${child.out}; stderr: ${child.err}`);
  if (!child.killed || exit.signal !== 'SIGKILL') {
    throw new Error(
      `${child.name} exited by itself (code ${exit.code}, signal ${exit.signal}); stderr: ${child.err}`,
    );
  }
  return exit;
}
