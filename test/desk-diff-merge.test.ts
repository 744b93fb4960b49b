import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { diffEntryMaps, isText, withPatches } from '../src/desk/diff.js';
import { isMergedFile, type MergedEntry, mergeText, mergeTrees } from '../src/desk/merge.js';
import type { DirEntry, Entry, EntryMap, FileEntry, ReadContent, SymlinkEntry } from '../src/desk/types.js';

/** A fake content table: one synthetic chunk per file, keyed by the sha256 of its bytes. */
const table = new Map<string, Buffer>();
const reads: string[] = [];
const read: ReadContent = async (entry) => {
  reads.push(entry.path);
  const bytes = Buffer.concat(entry.chunks.map((c) => table.get(c)!));
  if (bytes.length !== entry.size) throw new Error(`bad fake entry ${entry.path}`);
  return bytes;
};

function file(path: string, content: string | Buffer, exec = false): FileEntry {
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  if (bytes.length === 0) return { kind: 'file', path, size: 0, exec, chunks: [] };
  const id = createHash('sha256').update(bytes).digest('hex');
  table.set(id, bytes);
  return { kind: 'file', path, size: bytes.length, exec, chunks: [id] };
}
const dir = (path: string): DirEntry => ({ kind: 'dir', path });
const link = (path: string, target: string): SymlinkEntry => ({ kind: 'symlink', path, target });
const tree = (...entries: Entry[]): EntryMap => new Map(entries.map((e) => [e.path, e]));

async function bytesOf(entry: MergedEntry | undefined): Promise<Buffer> {
  if (entry === undefined || entry.kind !== 'file') throw new Error('not a file');
  return isMergedFile(entry) ? entry.content : read(entry);
}
async function textOf(entry: MergedEntry | undefined): Promise<string> {
  return (await bytesOf(entry)).toString('utf8');
}

/** Every entry's parent is a dir entry. */
function expectConsistent(entries: Map<string, MergedEntry>): void {
  for (const path of entries.keys()) {
    const slash = path.lastIndexOf('/');
    if (slash < 0) continue;
    expect(entries.get(path.slice(0, slash))?.kind, `parent of ${path}`).toBe('dir');
  }
}

const labels = { ours: 'mine', theirs: 'yours' };
const binary = (...bytes: number[]) => Buffer.from([0, ...bytes]);

describe('isText', () => {
  it('accepts UTF-8 without NUL, rejects NUL and invalid UTF-8', () => {
    expect(isText(Buffer.from('héllo\r\nwörld'))).toBe(true);
    expect(isText(Buffer.alloc(0))).toBe(true);
    expect(isText(Buffer.from([0x61, 0x00, 0x62]))).toBe(false);
    expect(isText(Buffer.from([0xc3, 0x28]))).toBe(false);
    // A NUL past the first 8 KiB alone does not make it binary.
    expect(isText(Buffer.concat([Buffer.alloc(8192, 0x61), Buffer.from([0])]))).toBe(true);
  });
});

describe('diffEntryMaps', () => {
  it('reports each change kind, sorted by path, from metadata alone', () => {
    const before = tree(
      dir('d'),
      file('d/same', 'x\n'),
      file('mod', 'a\n'),
      file('mode', 'm\n'),
      file('gone', 'g\n'),
      dir('olddir'),
      file('kind', 'k\n'),
      link('ln', 'target-a'),
      link('ln-same', 't'),
    );
    const after = tree(
      dir('d'),
      file('d/same', 'x\n'),
      file('mod', 'b\n'),
      file('mode', 'm\n', true),
      file('new', 'n\n'),
      dir('newdir'),
      dir('kind'),
      link('ln', 'target-b'),
      link('ln-same', 't'),
    );
    reads.length = 0;
    const items = diffEntryMaps(before, after);
    expect(reads).toEqual([]);
    expect(items.map((i) => [i.path, i.change])).toEqual([
      ['gone', 'removed'],
      ['kind', 'type-changed'],
      ['ln', 'modified'],
      ['mod', 'modified'],
      ['mode', 'mode-changed'],
      ['new', 'added'],
      ['newdir', 'added'],
      ['olddir', 'removed'],
    ]);
    const gone = items[0]!;
    expect(gone.before).toEqual(before.get('gone'));
    expect(gone.after).toBeNull();
  });

  it('a content change that also flips exec is modified', () => {
    const items = diffEntryMaps(tree(file('f', 'a')), tree(file('f', 'b', true)));
    expect(items.map((i) => i.change)).toEqual(['modified']);
  });
});

describe('withPatches', () => {
  it('writes a git-style unified diff for a small text change', async () => {
    const items = diffEntryMaps(
      tree(file('src/a.txt', 'one\ntwo\nthree\n')),
      tree(file('src/a.txt', 'one\n2\nthree\n')),
    );
    const [item] = await withPatches(items, read);
    expect(item!.patch).toBe('--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n');
    expect(item!.binary).toBeUndefined();
    expect(items[0]!.patch).toBeUndefined(); // inputs are not mutated
  });

  it('uses /dev/null for the absent side of added and removed files', async () => {
    const items = diffEntryMaps(tree(file('old', 'bye\n')), tree(file('new', 'hi\n')));
    const patched = await withPatches(items, read);
    expect(patched[0]!.patch).toBe('--- /dev/null\n+++ b/new\n@@ -0,0 +1,1 @@\n+hi\n');
    expect(patched[1]!.patch).toBe('--- a/old\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-bye\n');
  });

  it('diffs link text for symlinks; dirs, kind and mode changes get no patch', async () => {
    const items = diffEntryMaps(
      tree(link('l', 'a'), file('m', 'x'), file('k', 'x')),
      tree(link('l', 'b'), file('m', 'x', true), dir('k'), dir('d')),
    );
    const patched = await withPatches(items, read);
    const byPath = new Map(patched.map((i) => [i.path, i]));
    expect(byPath.get('l')!.patch).toContain('-a\n\\ No newline at end of file\n+b\n');
    for (const p of ['m', 'k', 'd']) {
      expect(byPath.get(p)!.patch).toBeUndefined();
      expect(byPath.get(p)!.binary).toBeUndefined();
    }
  });

  it('reports sizes only for binary content', async () => {
    const items = diffEntryMaps(
      tree(file('img', binary(1, 2, 3)), file('txt2bin', 'text')),
      tree(file('img', binary(1, 2, 3, 4, 5)), file('txt2bin', binary(9)), file('newbin', binary())),
    );
    const patched = await withPatches(items, read);
    const byPath = new Map(patched.map((i) => [i.path, i]));
    expect(byPath.get('img')).toMatchObject({ change: 'modified', binary: { before: 4, after: 6 } });
    expect(byPath.get('img')!.patch).toBeUndefined();
    expect(byPath.get('txt2bin')!.binary).toEqual({ before: 4, after: 2 });
    expect(byPath.get('newbin')!.binary).toEqual({ before: 0, after: 1 });
  });

  it('reports sizes only, without reading, above maxBytes', async () => {
    const big = 'x\n'.repeat(600_000); // 1.2 MB > the 1 MiB default
    const items = diffEntryMaps(tree(file('big', big)), tree(file('big', `${big}y\n`)));
    reads.length = 0;
    const [item] = await withPatches(items, read);
    expect(item!.binary).toEqual({ before: 1_200_000, after: 1_200_002 });
    expect(item!.patch).toBeUndefined();
    expect(reads).toEqual([]);

    const small = diffEntryMaps(tree(file('s', 'abcdef\n')), tree(file('s', 'abc\n')));
    expect((await withPatches(small, read, { maxBytes: 5 }))[0]!.binary).toEqual({ before: 7, after: 4 });
    expect((await withPatches(small, read, { maxBytes: 7 }))[0]!.patch).toContain('+abc\n');
  });
});

describe('mergeText', () => {
  it('round trips a file without a trailing newline byte for byte', () => {
    const base = 'a\nb\nc\nd\ne';
    const ours = 'A\nb\nc\nd\ne';
    const theirs = 'a\nb\nc\nd\nE';
    expect(mergeText(base, ours, theirs, labels)).toEqual({ text: 'A\nb\nc\nd\nE', conflict: false });
    expect(mergeText(base, base, base, labels)).toEqual({ text: base, conflict: false });
  });

  it('ends an unterminated conflicted last line before the next marker', () => {
    const { text, conflict } = mergeText('x\nlast', 'x\nours', 'x\ntheirs', labels);
    expect(conflict).toBe(true);
    expect(text).toBe('x\n<<<<<<< mine\nours\n||||||| base\nlast\n=======\ntheirs\n>>>>>>> yours\n');
  });
});

describe('mergeTrees', () => {
  it('merges non-overlapping edits to one file cleanly', async () => {
    const base = tree(dir('src'), file('src/f.txt', '1\n2\n3\n4\n5\n6\n7\n'));
    const ours = tree(dir('src'), file('src/f.txt', 'one\n2\n3\n4\n5\n6\n7\n'));
    const theirs = tree(dir('src'), file('src/f.txt', '1\n2\n3\n4\n5\n6\nseven\n'));
    const m = await mergeTrees(base, ours, theirs, read);
    expect(m.conflicts).toEqual([]);
    expect(await textOf(m.entries.get('src/f.txt'))).toBe('one\n2\n3\n4\n5\n6\nseven\n');
    expect(m.changed).toEqual(['src/f.txt']);
    expect([...m.entries.keys()]).toEqual(['src', 'src/f.txt']);
  });

  it('marks conflicting edits (diff3 style) and records the three texts', async () => {
    const baseText = 'head\nmiddle\ntail\n';
    const oursText = 'head\nours-middle\ntail\n';
    const theirsText = 'head\ntheirs-middle\ntail\n';
    const m = await mergeTrees(
      tree(file('f', baseText)),
      tree(file('f', oursText, true)),
      tree(file('f', theirsText)),
      read,
      labels,
    );
    expect(m.conflicts).toEqual([
      { path: 'f', reason: 'content', base: baseText, ours: oursText, theirs: theirsText },
    ]);
    const merged = m.entries.get('f')!;
    expect(isMergedFile(merged)).toBe(true);
    expect(merged).toMatchObject({ kind: 'file', exec: true });
    expect(await textOf(merged)).toBe(
      'head\n<<<<<<< mine\nours-middle\n||||||| base\nmiddle\n=======\ntheirs-middle\n>>>>>>> yours\ntail\n',
    );
    expect(m.changed).toEqual(['f']);
  });

  it('uses default labels ours/theirs', async () => {
    const m = await mergeTrees(tree(file('f', 'a\n')), tree(file('f', 'b\n')), tree(file('f', 'c\n')), read);
    expect(await textOf(m.entries.get('f'))).toBe(
      '<<<<<<< ours\nb\n||||||| base\na\n=======\nc\n>>>>>>> theirs\n',
    );
  });

  it('takes one side when the other left the path alone, including deletions', async () => {
    const base = tree(file('a', 'a\n'), file('b', 'b\n'), file('c', 'c\n'));
    const ours = tree(file('a', 'A\n'), file('b', 'b\n'));
    const theirs = tree(file('a', 'a\n'), file('b', 'B\n'), file('c', 'c\n'), file('d', 'd\n'));
    const m = await mergeTrees(base, ours, theirs, read);
    expect(m.conflicts).toEqual([]);
    expect([...m.entries.keys()]).toEqual(['a', 'b', 'd']);
    expect(await textOf(m.entries.get('a'))).toBe('A\n');
    expect(await textOf(m.entries.get('b'))).toBe('B\n');
    expect(m.entries.get('b')).toEqual(theirs.get('b')); // an existing entry, not new bytes
    expect(m.changed).toEqual(['b', 'd']);
  });

  it('takes identical changes on both sides without conflict', async () => {
    const base = tree(file('f', 'a\nb\n'), file('gone', 'x'), link('l', 'old'));
    const side = () => tree(file('f', 'a\nB\n', true), file('new', 'n\n'), link('l', 'new'));
    const m = await mergeTrees(base, side(), side(), read);
    expect(m.conflicts).toEqual([]);
    expect(m.changed).toEqual([]);
    expect([...m.entries.values()]).toEqual([...side().values()].sort((a, b) => (a.path < b.path ? -1 : 1)));
  });

  it('merges overlapping but identical line edits cleanly', async () => {
    const m = await mergeTrees(
      tree(file('f', '1\n2\n3\n4\n5\n6\n')),
      tree(file('f', '1\nTWO\n3\n4\n5\nsix\n')),
      tree(file('f', '1\nTWO\n3\n4\n5\n6\n')),
      read,
    );
    expect(m.conflicts).toEqual([]);
    expect(await textOf(m.entries.get('f'))).toBe('1\nTWO\n3\n4\n5\nsix\n');
    expect(m.changed).toEqual([]);
  });

  it('add/add of different text: markers over an empty base', async () => {
    const m = await mergeTrees(
      tree(),
      tree(file('n', 'shared\nours\n')),
      tree(file('n', 'shared\ntheirs\n')),
      read,
      labels,
    );
    expect(m.conflicts).toEqual([
      { path: 'n', reason: 'add-add', base: null, ours: 'shared\nours\n', theirs: 'shared\ntheirs\n' },
    ]);
    const text = await textOf(m.entries.get('n'));
    expect(text).toContain('<<<<<<< mine\n');
    expect(text).toContain('||||||| base\n=======\n');
    expect(text).toContain('>>>>>>> yours\n');
    expect(text).toContain('ours\n');
    expect(text).toContain('theirs\n');
  });

  it('add/add of the same bytes with different exec bits keeps ours and reports it', async () => {
    const ours = tree(file('s', 'run\n', true));
    const m = await mergeTrees(tree(), ours, tree(file('s', 'run\n')), read);
    expect(m.entries.get('s')).toEqual(ours.get('s'));
    expect(m.conflicts).toEqual([
      { path: 's', reason: 'add-add', base: null, ours: 'run\n', theirs: 'run\n' },
    ]);
  });

  it('add/add of binary: keeps ours, reports sizes', async () => {
    const ours = tree(file('bin', binary(1)));
    const m = await mergeTrees(tree(), ours, tree(file('bin', binary(2, 3))), read);
    expect(m.entries.get('bin')).toEqual(ours.get('bin'));
    expect(m.conflicts).toEqual([
      {
        path: 'bin',
        reason: 'add-add',
        base: null,
        ours: null,
        theirs: null,
        sizes: { base: null, ours: 2, theirs: 3 },
      },
    ]);
    expect(m.changed).toEqual([]);
  });

  it('modify/delete keeps the modified file, whichever side modified it', async () => {
    const base = tree(dir('d'), file('d/f', 'v1\n'), file('g', 'g1\n'));
    const ours = tree(dir('d'), file('d/f', 'v2\n'));
    const theirs = tree(file('g', 'g2\n'));
    const m = await mergeTrees(base, ours, theirs, read);
    expect(m.conflicts).toEqual([
      { path: 'd/f', reason: 'modify-delete', base: 'v1\n', ours: 'v2\n', theirs: null },
      { path: 'g', reason: 'modify-delete', base: 'g1\n', ours: null, theirs: 'g2\n' },
    ]);
    expect([...m.entries.keys()]).toEqual(['d', 'd/f', 'g']);
    expect(await textOf(m.entries.get('g'))).toBe('g2\n');
    expect(m.changed).toEqual(['g']);
    expectConsistent(m.entries);
  });

  it('type conflict keeps ours', async () => {
    const base = tree(file('p', 'base\n'), file('q', 'q\n'));
    const ours = tree(link('p', 'elsewhere'), dir('q'));
    const theirs = tree(file('p', 'changed\n'), file('q', 'q2\n'));
    const m = await mergeTrees(base, ours, theirs, read);
    expect(m.entries.get('p')).toEqual(link('p', 'elsewhere'));
    expect(m.entries.get('q')).toEqual(dir('q'));
    expect(m.conflicts).toEqual([
      { path: 'p', reason: 'type', base: 'base\n', ours: 'elsewhere', theirs: 'changed\n' },
      { path: 'q', reason: 'type', base: 'q\n', ours: null, theirs: 'q2\n' },
    ]);
  });

  it('a file on one side where the other added files in the dir: ours wins, the tree stays consistent', async () => {
    const base = tree(dir('p'), file('p/a', 'a\n'));
    // ours replaced the dir with a file; theirs added a file inside it.
    const m1 = await mergeTrees(
      base,
      tree(file('p', 'file\n')),
      tree(dir('p'), file('p/a', 'a\n'), file('p/b', 'b\n')),
      read,
    );
    expect([...m1.entries.keys()]).toEqual(['p']);
    expect(m1.entries.get('p')!.kind).toBe('file');
    expect(m1.conflicts.map((c) => [c.path, c.reason])).toEqual([['p', 'type']]);
    // The other way round: ours keeps the dir and adds inside; theirs replaced it with a file.
    const m2 = await mergeTrees(
      base,
      tree(dir('p'), file('p/a', 'a\n'), file('p/b', 'b\n')),
      tree(file('p', 'file\n')),
      read,
    );
    expect([...m2.entries.keys()]).toEqual(['p', 'p/b']);
    expect(m2.entries.get('p')).toEqual(dir('p'));
    expect(m2.conflicts).toEqual([{ path: 'p', reason: 'type', base: null, ours: null, theirs: 'file\n' }]);
    expect(m2.changed).toEqual(['p/a']);
    expectConsistent(m1.entries);
    expectConsistent(m2.entries);
  });

  it('binary modified differently on both sides keeps ours', async () => {
    const ours = tree(file('img', binary(2, 2), true));
    const m = await mergeTrees(tree(file('img', binary(1))), ours, tree(file('img', binary(3, 3, 3))), read);
    expect(m.entries.get('img')).toEqual(ours.get('img'));
    expect(m.conflicts).toEqual([
      {
        path: 'img',
        reason: 'binary',
        base: null,
        ours: null,
        theirs: null,
        sizes: { base: 2, ours: 3, theirs: 4 },
      },
    ]);
    expect(m.changed).toEqual([]);
  });

  it('binary changed on one side only merges cleanly', async () => {
    const m = await mergeTrees(
      tree(file('img', binary(1))),
      tree(file('img', binary(1))),
      tree(file('img', binary(9))),
      read,
    );
    expect(m.conflicts).toEqual([]);
    expect(await bytesOf(m.entries.get('img'))).toEqual(binary(9));
  });

  it('exec bit: a one-sided flip wins, alongside the other side content change', async () => {
    const base = tree(file('a', 'x\n'), file('b', '1\n2\n3\n4\n'), file('c', 'c\n', true));
    const ours = tree(file('a', 'x\n', true), file('b', 'one\n2\n3\n4\n'), file('c', 'c\n', true));
    const theirs = tree(file('a', 'y\n'), file('b', '1\n2\n3\nfour\n', true), file('c', 'c\n', false));
    const m = await mergeTrees(base, ours, theirs, read);
    expect(m.conflicts).toEqual([]);
    const a = m.entries.get('a')!;
    expect(a).toMatchObject({ kind: 'file', exec: true });
    expect(await textOf(a)).toBe('y\n');
    expect(isMergedFile(a)).toBe(false); // theirs' bytes, ours' mode: no new content to write
    const b = m.entries.get('b')!;
    expect(b).toMatchObject({ kind: 'file', exec: true });
    expect(await textOf(b)).toBe('one\n2\n3\nfour\n');
    expect(m.entries.get('c')).toMatchObject({ exec: false });
    expect(m.changed).toEqual(['a', 'b', 'c']);
  });

  it('a dir removed on one side survives when the other added files inside', async () => {
    const base = tree(
      dir('d'),
      dir('d/sub'),
      file('d/sub/old', 'o\n'),
      dir('empty'),
      dir('gone'),
      file('gone/x', 'x\n'),
    );
    const ours = tree(dir('empty'), dir('gone'), file('gone/x', 'x\n')); // removed d entirely
    const theirs = tree(dir('d'), dir('d/sub'), file('d/sub/old', 'o\n'), file('d/sub/new', 'n\n')); // removed empty and gone
    const m = await mergeTrees(base, ours, theirs, read);
    expect(m.conflicts).toEqual([]);
    expect([...m.entries.keys()]).toEqual(['d', 'd/sub', 'd/sub/new']);
    expect(m.entries.get('d')).toEqual(dir('d'));
    expect(m.entries.get('d/sub')).toEqual(dir('d/sub'));
    expect(m.changed).toEqual(['d', 'd/sub', 'd/sub/new', 'empty', 'gone', 'gone/x']);
    expectConsistent(m.entries);
  });

  it('a dir removed on one side survives when the other modified a file inside (modify/delete)', async () => {
    const base = tree(dir('d'), file('d/f', 'v1\n'));
    const m = await mergeTrees(base, tree(), tree(dir('d'), file('d/f', 'v2\n')), read);
    expect([...m.entries.keys()]).toEqual(['d', 'd/f']);
    expect(m.conflicts.map((c) => [c.path, c.reason])).toEqual([['d/f', 'modify-delete']]);
    expectConsistent(m.entries);
  });

  it('round trips files without a trailing newline through a clean merge', async () => {
    const m = await mergeTrees(
      tree(file('f', 'a\nb\nc\nd\ne')),
      tree(file('f', 'A\nb\nc\nd\ne')),
      tree(file('f', 'a\nb\nc\nd\nE')),
      read,
    );
    expect(m.conflicts).toEqual([]);
    expect(await bytesOf(m.entries.get('f'))).toEqual(Buffer.from('A\nb\nc\nd\nE'));
    // Adding the final newline on one side merges with an edit elsewhere.
    const m2 = await mergeTrees(
      tree(file('f', 'a\nb\nc\nd\ne')),
      tree(file('f', 'a\nb\nc\nd\ne\n')),
      tree(file('f', 'A\nb\nc\nd\ne')),
      read,
    );
    expect(m2.conflicts).toEqual([]);
    expect(await bytesOf(m2.entries.get('f'))).toEqual(Buffer.from('A\nb\nc\nd\ne\n'));
  });

  it('preserves CRLF line endings, in merged text and in markers', async () => {
    const m = await mergeTrees(
      tree(file('w.txt', 'a\r\nb\r\nc\r\nd\r\ne\r\n'), file('x.txt', 'a\r\nb\r\n')),
      tree(file('w.txt', 'A\r\nb\r\nc\r\nd\r\ne\r\n'), file('x.txt', 'a\r\nours\r\n')),
      tree(file('w.txt', 'a\r\nb\r\nc\r\nd\r\nE\r\n'), file('x.txt', 'a\r\ntheirs\r\n')),
      read,
    );
    expect(await bytesOf(m.entries.get('w.txt'))).toEqual(Buffer.from('A\r\nb\r\nc\r\nd\r\nE\r\n'));
    expect(await textOf(m.entries.get('x.txt'))).toBe(
      'a\r\n<<<<<<< ours\r\nours\r\n||||||| base\r\nb\r\n=======\r\ntheirs\r\n>>>>>>> theirs\r\n',
    );
    expect(m.conflicts.map((c) => c.path)).toEqual(['x.txt']);
  });

  it('symlinks changed differently on both sides conflict and keep ours', async () => {
    const m = await mergeTrees(tree(link('l', 'a')), tree(link('l', 'b')), tree(link('l', 'c')), read);
    expect(m.entries.get('l')).toEqual(link('l', 'b'));
    expect(m.conflicts).toEqual([{ path: 'l', reason: 'content', base: 'a', ours: 'b', theirs: 'c' }]);
  });

  it('does not read contents it does not need', async () => {
    reads.length = 0;
    await mergeTrees(
      tree(file('a', 'a'), file('b', 'b')),
      tree(file('a', 'A'), file('b', 'b')),
      tree(file('a', 'a'), file('b', 'B')),
      read,
    );
    expect(reads).toEqual([]);
  });
});
