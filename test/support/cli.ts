import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'vitest';

/** The built CLI (run `npx tsc -p tsconfig.json` first). */
export const bin = fileURLToPath(new URL('../../bin/cairn.js', import.meta.url));

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

// biome-ignore lint/suspicious/noExplicitAny: JSON read back from the CLI's stdout; the assertions check its shape.
export type Doc = Record<string, any>;

/** Exactly one JSON document, on one line. */
export function doc(run: Run): Doc {
  const lines = run.stdout.split('\n').filter((l) => l !== '');
  expect(lines, run.stderr).toHaveLength(1);
  return JSON.parse(lines[0]!);
}

/** Everything a child wrote, and its exit code. */
export function collect(child: ChildProcessWithoutNullStreams, input = ''): Promise<Run> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

/** The first line a long-lived command (serve, watch) prints on stdout, as JSON; rejects if it exits first. */
export function firstDocument<T>(child: ChildProcessWithoutNullStreams, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      if (buffered.includes('\n')) resolve(JSON.parse(buffered.split('\n')[0]!));
    });
    child.on('exit', (code) => reject(new Error(`${what} exited with ${code}`)));
  });
}

/**
 * Runs the CLI as child processes under `work`: the test process's
 * environment without CAIRN_* and with a home folder of the test's own, so a
 * developer's settings and default store can neither leak in nor be touched.
 */
export function cliIn(work: string, store: string) {
  function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([key]) => !key.startsWith('CAIRN_') && key !== 'XDG_DATA_HOME'),
    );
    return { ...env, HOME: join(work, 'default-home'), ...extra };
  }

  function start(
    args: string[],
    env: Record<string, string> = {},
    cwd = work,
  ): ChildProcessWithoutNullStreams {
    return spawn(process.execPath, [bin, ...args], { cwd, env: cleanEnv(env) });
  }

  function cairn(
    args: string[],
    options: { input?: string; env?: Record<string, string>; cwd?: string } = {},
  ): Promise<Run> {
    return collect(start(args, options.env, options.cwd), options.input ?? '');
  }

  /** Runs a command in --json mode against a store (the shared one by default) and expects success. */
  async function ok(
    args: string[],
    options: { input?: string; store?: string; cwd?: string } = {},
  ): Promise<Doc> {
    const run = await cairn([...args, '--json', '--store', options.store ?? store], options);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    return doc(run);
  }

  /** Expects a failure: the exit code, one `cairn: …` line on stderr, and the error document. */
  async function fails(args: string[], code: number, options: { input?: string; cwd?: string } = {}) {
    const run = await cairn([...args, '--json'], options);
    expect(run.code, run.stderr).toBe(code);
    const lines = run.stderr.split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^cairn: /);
    return doc(run).error as { code: string; message: string; data: Record<string, unknown> };
  }

  return { cleanEnv, start, cairn, ok, fails };
}

/**
 * Resolves once a connection waits in the accept queue of the listening unix
 * socket at `path` (its listener is stopped, so nobody takes it): the event a
 * test waits for instead of sleeping. Linux: `ss` reports the queue as Recv-Q.
 * Looks at most `looks` times, 25 ms apart.
 */
export async function connectionQueued(path: string, looks = 2_000): Promise<void> {
  for (let i = 0; i < looks; i++) {
    const { stdout } = await promisify(execFile)('ss', ['-xlnH'], { encoding: 'utf8' });
    for (const line of stdout.split('\n')) {
      // Netid State Recv-Q Send-Q Local-Address Port Peer-Address Port
      const fields = line.trim().split(/\s+/);
      if (fields[4] === path && Number(fields[2]) > 0) return;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no connection reached ${path} in ${looks} looks`);
}
