import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import { sha256Hex } from '../digest.js';
import type * as shapes from './shapes.js';

export type CheckResult = z.output<typeof shapes.CheckResult>;
export type GitEvidence = z.output<typeof shapes.GitEvidence>;

// Acceptance evidence for a unit checkpoint: each check command's exit code
// and output digest, and the git revision where the workspace is a repository.

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
