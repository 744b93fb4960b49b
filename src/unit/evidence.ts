import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { sha256Hex } from '../digest.js';

// Acceptance evidence for a unit checkpoint: each check command's exit code
// and output digest, and the git revision where the workspace is a repository.

export interface CheckResult {
  command: string;
  exit: number;
  /** sha256 of stdout followed by stderr. */
  outputDigest: string;
  durationMs: number;
  passed: boolean;
  /**
   * The last lines of a failed check's output (at most 4 KiB), for the person
   * who ran it. Returned, never recorded: output may hold anything, and the
   * log keeps only the digest.
   */
  outputTail?: string;
}

/** How much of a failed check's output comes back: its last 4 KiB, at most 40 lines. */
const TAIL_BYTES = 4096;
const TAIL_LINES = 40;

function outputTail(output: Buffer): string {
  const text = output.subarray(Math.max(0, output.length - TAIL_BYTES)).toString('utf8');
  return text.replace(/\s+$/, '').split('\n').slice(-TAIL_LINES).join('\n');
}

/** Runs one check command in the workspace: exit code and output digest, never the output itself. */
export function runCheck(command: string, cwd: string): CheckResult {
  const started = performance.now();
  const run = spawnSync('sh', ['-c', command], { cwd, encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 });
  const exit = run.status ?? 128;
  const output = Buffer.concat([run.stdout ?? Buffer.alloc(0), run.stderr ?? Buffer.alloc(0)]);
  return {
    command,
    exit,
    outputDigest: sha256Hex(output),
    durationMs: Math.round(performance.now() - started),
    passed: exit === 0,
    ...(exit === 0 ? {} : { outputTail: outputTail(output) }),
  };
}

/** Where the workspace's git repository stands: snapshots leave `.git` out, so this is what a checkpoint keeps of it. */
export interface GitEvidence {
  /** The HEAD commit. */
  revision: string;
  /** The checked-out branch; null when HEAD is detached. */
  branch: string | null;
  /** Uncommitted changes or untracked files. */
  dirty: boolean;
}

export function gitEvidence(dir: string): GitEvidence | undefined {
  // Spawning git costs milliseconds: only where a repository is.
  if (!existsSync(join(dir, '.git'))) return undefined;
  const rev = spawnSync('git', ['-C', dir, 'rev-parse', 'HEAD'], { encoding: 'utf8' });
  if (rev.status !== 0) return undefined;
  const branch = spawnSync('git', ['-C', dir, 'symbolic-ref', '--short', '-q', 'HEAD'], { encoding: 'utf8' });
  const status = spawnSync('git', ['-C', dir, 'status', '--porcelain'], { encoding: 'utf8' });
  return {
    revision: rev.stdout.trim(),
    branch: branch.status === 0 ? branch.stdout.trim() : null,
    dirty: status.stdout.trim() !== '',
  };
}
