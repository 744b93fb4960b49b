import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { escapeControl } from '../src/cli/output.js';
import { cliIn } from './support/cli.js';
import { git } from './support/git.js';

// End-to-end: these spawn the built CLI (run `npx tsc -p tsconfig.json` first).
const work = mkdtempSync(join(tmpdir(), 'cairn-intent-'));
const { cairn, ok, fails } = cliIn(work, join(work, 'default-store'));

afterAll(() => rmSync(work, { recursive: true, force: true }));

function project(name: string, files: Record<string, string>): string {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  for (const [path, text] of Object.entries(files)) writeFileSync(join(dir, path), text);
  return dir;
}

describe('cairn checkpoint validates as the table does', () => {
  it('refuses a 300-character label as the checkpoint operation refuses it, before anything is written', async () => {
    const store = join(work, 'label-store');
    const dir = project('label-ws', { 'a.txt': 'a\n' });
    await ok(['ws', 'attach', dir], { store });
    const refused = await fails(['checkpoint', '--label', 'x'.repeat(300), '--store', store], 2, {
      cwd: dir,
    });
    expect(refused.code).toBe('INVALID_ARGUMENT');
    expect(refused.message).toContain('label');
    // The table's limit, 200 characters, is taken.
    const fine = await ok(['checkpoint', '--label', 'x'.repeat(200)], { store, cwd: dir });
    expect(fine.label).toBe('x'.repeat(200));
  });
});

describe('cairn restore acts on the workspace where it runs', () => {
  it('refuses in an unattached directory, and in another workspace, naming both; changes nothing', async () => {
    const store = join(work, 'restore-store');
    const a = project('restore-a', { 'state.txt': '42\n' });
    const b = join(work, 'restore-b');
    const nowhere = project('restore-nowhere', { 'keep.txt': 'mine\n' });
    await ok(['ws', 'attach', a], { store });
    // Another workspace of the same session: a fork of it, then changed.
    await ok(['ws', 'fork', b, '--driver', 'copy'], { store, cwd: a });
    writeFileSync(join(b, 'other.txt'), 'b\n');
    const cp = await ok(['checkpoint'], { store, cwd: a });
    writeFileSync(join(a, 'state.txt'), '43\n');
    writeFileSync(join(a, 'new.txt'), 'new\n');

    // In a directory no workspace is attached at: refused, saying where the checkpoint's workspace is.
    const here = await fails(['restore', cp.id, '--store', store], 3, { cwd: nowhere });
    expect(here.code).toBe('NOT_FOUND');
    expect(here.message).toContain(`no workspace is attached at ${nowhere}`);
    expect(here.message).toContain(a);
    // In another workspace of the same session: refused, naming both.
    const other = await fails(['restore', cp.id, '--store', store], 5, { cwd: b });
    expect(other.code).toBe('INVALID_ARGUMENT');
    expect(other.message).toContain(a);
    expect(other.message).toContain(b);
    expect(other.message).toContain(`--ws ${cp.workspace}`);
    const preview = await fails(['restore', cp.id, '--preview', '--store', store], 5, { cwd: b });
    expect(preview.code).toBe('INVALID_ARGUMENT');
    const forked = await fails(['fork', cp.id, '--store', store], 5, { cwd: b });
    expect(forked.code).toBe('INVALID_ARGUMENT');
    expect(readFileSync(join(a, 'state.txt'), 'utf8')).toBe('43\n');
    expect(readdirSync(a).sort()).toEqual(['new.txt', 'state.txt']);
    expect(readdirSync(b).sort()).toEqual(['other.txt', 'state.txt']);
    expect(readdirSync(nowhere)).toEqual(['keep.txt']);

    // Named with --ws from anywhere, or run in its directory: the preview and the result name the directory.
    const named = await cairn(['restore', cp.id, '--preview', '--ws', a, '--store', store], { cwd: nowhere });
    expect(named.code, named.stderr).toBe(0);
    expect(named.stdout).toContain(`in ${a} (${cp.workspace})`);
    const done = await ok(['restore', cp.id], { store, cwd: a });
    expect(done.dir).toBe(a);
    expect(done.workspace).toBe(cp.workspace);
    expect(readFileSync(join(a, 'state.txt'), 'utf8')).toBe('42\n');
  });
});

describe('human output escapes control characters in stored text', () => {
  it('escapes ESC, CR and bidi overrides; --json keeps the text as it is', () => {
    expect(escapeControl('a\x1b[2Jb\rc\u202ed\te')).toBe('a\\x1b[2Jb\\rc\\u202ed\te');
    expect(escapeControl('one\ntwo\x7f\x9b')).toBe('one\\ntwo\\x7f\\x9b');
  });

  it('a file name and a label holding ESC [ 2 J and \\r print escaped', async () => {
    const store = join(work, 'escape-store');
    const name = 'evil\x1b[2J\rname.txt';
    const dir = project('escape', { 'plain.txt': 'x\n' });
    await ok(['ws', 'attach', dir], { store });
    const cp = await ok(['checkpoint', '--label', 'lab\x1b[2J\rel'], { store, cwd: dir });
    writeFileSync(join(dir, name), 'y\n');
    const shown = await cairn(['ws', 'diff', cp.snapshot, '--store', store], { cwd: dir });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).not.toContain('\x1b');
    expect(shown.stdout).not.toContain('\r');
    expect(shown.stdout).toContain('evil\\x1b[2J\\rname.txt');
    const preview = await cairn(['restore', cp.id, '--preview', '--store', store], { cwd: dir });
    expect(preview.code, preview.stderr).toBe(0);
    expect(preview.stdout).toContain('evil\\x1b[2J\\rname.txt');
    expect(preview.stdout).not.toContain('\x1b');
    const label = await cairn(['checkpoint', '--label', 'lab\x1b[2J\rel', '--store', store], { cwd: dir });
    expect(label.stdout).toContain('"lab\\x1b[2J\\rel"');
    expect(label.stdout).not.toContain('\r');
    // With --json the document holds the name as it is.
    const json = await ok(['ws', 'diff', cp.snapshot], { store, cwd: dir });
    expect(json.items.map((i: { path: string }) => i.path)).toContain(name);
  });
});

describe('cairn restore and git', () => {
  it('a checkpoint records HEAD, branch and dirty state; a restore leaves git history as it is', async () => {
    const store = join(work, 'git-store');
    const dir = project('git-repo', { 'app.txt': 'one\n' });
    git(dir, 'init', '-q', '-b', 'trunk');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'one');
    const first = git(dir, 'rev-parse', 'HEAD');
    await ok(['ws', 'attach', dir], { store });
    const cp = await ok(['checkpoint'], { store, cwd: dir });
    expect(cp.evidence.git).toEqual({ revision: first, branch: 'trunk', dirty: false });
    writeFileSync(join(dir, 'app.txt'), 'two\n');
    git(dir, 'commit', '-qam', 'two');
    const second = git(dir, 'rev-parse', 'HEAD');

    const done = await ok(['restore', cp.id], { store, cwd: dir });
    expect(done.files.map((f: { path: string }) => f.path)).toEqual(['app.txt']);
    expect(readFileSync(join(dir, 'app.txt'), 'utf8')).toBe('one\n');
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(second);
    expect(git(dir, 'log', '--format=%s')).toBe('two\none');

    // The store's setting snapshots .git: then a restore takes it back too, as the admin asked.
    const included = join(work, 'git-store-included');
    mkdirSync(included);
    writeFileSync(join(included, 'config.json'), JSON.stringify({ snapshots: { git: 'include' } }));
    const other = project('git-repo-2', { 'app.txt': 'one\n' });
    git(other, 'init', '-q', '-b', 'trunk');
    git(other, 'add', '-A');
    git(other, 'commit', '-qm', 'one');
    const attached = await ok(['ws', 'attach', other], { store: included });
    expect(attached.checkpoint.snapshot.files).toBeGreaterThan(1);
  });
});
