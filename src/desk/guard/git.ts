/**
 * Git history inside a workspace. `.git` is part of an agent's work and is
 * kept, but what it holds is compressed: a credential committed and then
 * deleted from the working tree lives on in a loose object (zlib) or a pack
 * (zlib and deltas), where a byte scan of the file sees nothing.
 *
 * - Loose objects (`.git/objects/ab/cdef…`) are inflated here and their
 *   content scanned.
 * - Packs (`.git/objects/pack/pack-*.pack`) are read through git itself when
 *   it is installed (`git show-index` lists the pack's objects, `git cat-file
 *   --batch` hands over each one with its deltas resolved). Without git a pack
 *   is kept unscanned and reported (`git-history:pack-not-scanned`).
 *
 * A finding names the object and, where `git log --find-object` can tell,
 * a commit and path it appears under.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { inflateSync } from 'node:zlib';

const LOOSE = /(?:^|\/)\.git\/objects\/([0-9a-f]{2})\/([0-9a-f]{38})$/;
const PACK = /(?:^|\/)\.git\/objects\/pack\/pack-[0-9a-f]{40,64}\.pack$/;
/** Loose objects inflated in memory up to this size; larger ones are reported unscanned. */
const MAX_INFLATE = 256 * 1024 * 1024;

const GIT_ENV = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_TERMINAL_PROMPT: '0',
  LC_ALL: 'C',
};

export function isLooseObject(relPath: string): boolean {
  return LOOSE.test(relPath);
}

export function isPack(relPath: string): boolean {
  return PACK.test(relPath);
}

/** The object id a loose object's path names. */
export function looseObjectId(relPath: string): string {
  const m = LOOSE.exec(relPath);
  return m ? `${m[1]}${m[2]}` : '';
}

/** A loose object's content (after the `type size\0` header), or null when it does not inflate. */
export function inflateLoose(bytes: Uint8Array): { type: string; content: Buffer } | null {
  let raw: Buffer;
  try {
    raw = inflateSync(bytes, { maxOutputLength: MAX_INFLATE });
  } catch {
    return null;
  }
  const nul = raw.indexOf(0);
  if (nul < 0 || nul > 32) return null;
  const type = raw.subarray(0, nul).toString('latin1').split(' ')[0] ?? '';
  return { type, content: raw.subarray(nul + 1) };
}

let gitAvailable: boolean | null = null;

export function hasGit(): boolean {
  gitAvailable ??= spawnSync('git', ['--version'], { env: GIT_ENV, stdio: 'ignore' }).status === 0;
  return gitAvailable;
}

function gitDirOf(absPath: string, relPath: string): string {
  // relPath ends in `.git/objects/…`: the git directory is the `.git` it names.
  const inGit = relPath.slice(relPath.lastIndexOf('.git/') + 5);
  let dir = absPath;
  for (let i = 0; i < inGit.split('/').length; i++) dir = dirname(dir);
  return dir;
}

/**
 * The path of every object reachable from any ref (`git rev-list --objects
 * --all`): one call for a whole repository, so every finding in its packs
 * is judged by the path it lives under. Empty when git cannot tell.
 */
export function reachablePaths(absPath: string, relPath: string): Map<string, string> {
  const paths = new Map<string, string>();
  if (!hasGit()) return paths;
  const run = spawnSync('git', ['--git-dir', gitDirOf(absPath, relPath), 'rev-list', '--objects', '--all'], {
    env: GIT_ENV,
    encoding: 'utf8',
    timeout: 120_000,
    maxBuffer: 512 * 1024 * 1024,
  });
  if (run.status !== 0) return paths;
  for (const line of run.stdout.split('\n')) {
    const space = line.indexOf(' ');
    if (space > 0) paths.set(line.slice(0, space), line.slice(space + 1));
  }
  return paths;
}

/** A commit and path an object appears under, where git can tell cheaply. */
export function describeObject(
  absPath: string,
  relPath: string,
  oid: string,
): { commit?: string; inPath?: string } {
  if (!hasGit()) return {};
  const run = spawnSync(
    'git',
    [
      '--git-dir',
      gitDirOf(absPath, relPath),
      'log',
      '--all',
      '-n',
      '1',
      '--format=%H',
      '--name-only',
      `--find-object=${oid}`,
    ],
    { env: GIT_ENV, encoding: 'utf8', timeout: 10_000, maxBuffer: 1024 * 1024 },
  );
  if (run.status !== 0) return {};
  const lines = run.stdout.split('\n').filter((l) => l !== '');
  return { ...(lines[0] ? { commit: lines[0] } : {}), ...(lines[1] ? { inPath: lines[1] } : {}) };
}

/**
 * Every object of one pack, deltas resolved, handed to `visit` (type, id,
 * content) one at a time; resolves false when git is not installed. A
 * `visit` that returns false stops the walk.
 */
export async function walkPack(
  absPack: string,
  relPath: string,
  visit: (type: string, oid: string, content: Buffer) => Promise<boolean>,
): Promise<boolean> {
  if (!hasGit()) return false;
  const gitDir = gitDirOf(absPack, relPath);
  const index = spawnSync('git', ['--git-dir', gitDir, 'show-index'], {
    env: GIT_ENV,
    input: readFileSync(absPack.replace(/\.pack$/, '.idx')),
    encoding: 'latin1',
    maxBuffer: 512 * 1024 * 1024,
  });
  if (index.status !== 0) return false;
  const oids = index.stdout
    .split('\n')
    .map((line) => line.split(' ')[1])
    .filter((oid): oid is string => oid !== undefined && /^[0-9a-f]{40,64}$/.test(oid));
  const child = spawn('git', ['--git-dir', gitDir, 'cat-file', '--batch'], {
    env: GIT_ENV,
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  child.stdin.end(`${oids.join('\n')}\n`);
  let pending: Buffer = Buffer.alloc(0);
  let stopped = false;
  try {
    for await (const data of child.stdout as AsyncIterable<Buffer>) {
      pending = pending.length === 0 ? data : Buffer.concat([pending, data]);
      for (;;) {
        const eol = pending.indexOf(10);
        if (eol < 0) break;
        const [oid = '', type = '', size = ''] = pending.subarray(0, eol).toString('latin1').split(' ');
        if (type === 'missing') {
          pending = pending.subarray(eol + 1);
          continue;
        }
        const length = Number(size);
        if (pending.length < eol + 1 + length + 1) break;
        const content = pending.subarray(eol + 1, eol + 1 + length);
        pending = pending.subarray(eol + 1 + length + 1);
        if (!(await visit(type, oid, content))) {
          stopped = true;
          break;
        }
      }
      if (stopped) break;
    }
  } finally {
    child.kill();
  }
  return true;
}
