import { createHash } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

/** What a snapshot must keep of one entry: kind, exec bit, bytes or link text. */
export type Described =
  | { kind: 'file'; exec: boolean; sha: string; size: number }
  | { kind: 'dir' }
  | { kind: 'symlink'; target: string };

/** Every entry below `root` by relative path, skipping names for which `skip` says so. */
export function describeTree(
  root: string,
  skip: (path: string) => boolean = () => false,
): Map<string, Described> {
  const out = new Map<string, Described>();
  const walk = (rel: string) => {
    for (const name of readdirSync(rel === '' ? root : join(root, rel)).sort()) {
      const path = rel === '' ? name : `${rel}/${name}`;
      if (skip(path)) continue;
      const abs = join(root, path);
      const st = lstatSync(abs);
      if (st.isDirectory()) {
        out.set(path, { kind: 'dir' });
        walk(path);
      } else if (st.isSymbolicLink()) {
        out.set(path, { kind: 'symlink', target: readlinkSync(abs) });
      } else {
        const bytes = readFileSync(abs);
        out.set(path, {
          kind: 'file',
          exec: (st.mode & 0o100) !== 0,
          size: bytes.length,
          sha: createHash('sha256').update(bytes).digest('hex'),
        });
      }
    }
  };
  walk('');
  return out;
}

/** Writes a file, creating its parent folders. */
export function put(root: string, path: string, content: string | Buffer, exec = false): void {
  const abs = join(root, path);
  mkdirSync(join(abs, '..'), { recursive: true });
  writeFileSync(abs, content);
  chmodSync(abs, exec ? 0o755 : 0o644);
}

/**
 * A tree with every case the desk promises to keep: regular and executable
 * files, symlinks (inside, dangling, pointing out), empty directories,
 * unicode and odd names, zero-byte, multi-chunk and sparse files.
 */
export function fidelityTree(root: string): void {
  put(root, 'README.md', '# hello\n');
  put(root, 'bin/run.sh', '#!/bin/sh\necho hi\n', true);
  put(root, 'src/a/b/c/deep.txt', 'deep\n');
  put(root, 'empty.txt', '');
  put(root, 'ünïcødé/日本語 ファイル.txt', 'unicode name\n');
  put(root, 'odd names/ spaces  and\ttab', 'odd\n');
  put(root, 'odd names/-leading-dash', 'dash\n');
  put(root, 'odd names/new\nline', 'newline in name\n');
  put(root, 'odd names/emoji 🎉.md', 'party\n');
  mkdirSync(join(root, 'empty-dir/nested-empty'), { recursive: true });
  symlinkSync('README.md', join(root, 'link-to-readme'));
  symlinkSync('src/a', join(root, 'link-to-dir'));
  symlinkSync('does/not/exist', join(root, 'dangling'));
  symlinkSync('/etc/passwd', join(root, 'points-outside'));
  // Several chunks: 3 MiB of varied bytes.
  const big = Buffer.alloc(3 * 1024 * 1024);
  for (let i = 0; i < big.length; i++) big[i] = (i * 2654435761) >>> 24;
  put(root, 'data/big.bin', big);
  // Sparse: 64 MiB with a few bytes at both ends.
  const fd = openSync(join(root, 'data/sparse.img'), 'w');
  writeSync(fd, Buffer.from('start'), 0, 5, 0);
  writeSync(fd, Buffer.from('end'), 0, 3, 64 * 1024 * 1024 - 3);
  closeSync(fd);
}
