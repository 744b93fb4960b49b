import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Desk } from '../src/desk/desk.js';
import type { Store } from '../src/store.js';
import type { Identity } from '../src/types.js';
import { gitEvidence } from '../src/unit/evidence.js';
import { git } from './support/git.js';
import { backendStore, tempDir } from './support/stores.js';
import { put } from './support/trees.js';

/**
 * `.git` is the user's history, not the workspace's state: snapshots leave it
 * out by default, so a restore never rewinds it (nor deletes or rewrites a
 * file in it); a store setting (`includeGit`) snapshots it.
 */

describe('snapshots and .git', () => {
  let temp: { dir: string; remove(): void };
  let store: Store;
  let cleanup: () => Promise<void>;
  let who: Identity;
  const desks: Desk[] = [];

  beforeEach(async () => {
    temp = tempDir('cairn-git-');
    ({ store, cleanup, who } = await backendStore('sqlite', 'git'));
  });

  afterEach(async () => {
    for (const d of desks.splice(0)) await d.close();
    await cleanup();
    temp.remove();
  });

  function deskOf(includeGit = false): Desk {
    const desk = store.desk(who, { host: 'git-test', stateDir: join(temp.dir, 'state'), includeGit });
    desks.push(desk);
    return desk;
  }

  function repo(): string {
    const dir = join(temp.dir, 'repo');
    put(dir, 'app.txt', 'one\n');
    git(dir, 'init', '-q', '-b', 'main');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'one');
    return dir;
  }

  it('leaves .git out of snapshots, and a restore keeps the newer git history', async () => {
    const dir = repo();
    const desk = deskOf();
    const { workspace, checkpoint } = await desk.attach({ dir });
    expect(checkpoint.snapshot.files).toBe(1); // app.txt alone
    const first = git(dir, 'rev-parse', 'HEAD');
    writeFileSync(join(dir, 'app.txt'), 'two\n');
    git(dir, 'commit', '-qam', 'two');
    const second = git(dir, 'rev-parse', 'HEAD');
    expect(second).not.toBe(first);

    const preview = await desk.previewRestore(workspace.id, checkpoint.snapshot.id);
    expect(preview.changes.map((c) => c.path)).toEqual(['app.txt']);
    await desk.restore(workspace.id, checkpoint.snapshot.id);
    expect(readFileSync(join(dir, 'app.txt'), 'utf8')).toBe('one\n');
    // The work tree went back; git's history did not: HEAD is still the newer commit.
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(second);
    expect(git(dir, 'log', '--format=%s')).toBe('two\none');
    expect(gitEvidence(dir)).toEqual({ revision: second, branch: 'main', dirty: true });
  });

  it('a snapshot taken with .git (an older store, or includeGit) never rewinds it when the desk leaves it out', async () => {
    const dir = repo();
    const withGit = deskOf(true);
    const { workspace, checkpoint } = await withGit.attach({ dir });
    expect(checkpoint.snapshot.files).toBeGreaterThan(3); // .git's files are in it
    await withGit.close();
    writeFileSync(join(dir, 'app.txt'), 'two\n');
    git(dir, 'commit', '-qam', 'two');
    const second = git(dir, 'rev-parse', 'HEAD');
    put(dir, '.git/added-by-git', 'x');

    const desk = deskOf(false);
    const preview = await desk.previewRestore(workspace.id, checkpoint.snapshot.id);
    expect(preview.changes.filter((c) => c.path.startsWith('.git'))).toEqual([]);
    await desk.restore(workspace.id, checkpoint.snapshot.id);
    expect(readFileSync(join(dir, 'app.txt'), 'utf8')).toBe('one\n');
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(second);
    expect(existsSync(join(dir, '.git/added-by-git'))).toBe(true);
  });

  it('with includeGit the store snapshots .git and a restore rewinds it, as asked', async () => {
    const dir = repo();
    const desk = deskOf(true);
    const { workspace, checkpoint } = await desk.attach({ dir });
    const first = git(dir, 'rev-parse', 'HEAD');
    writeFileSync(join(dir, 'app.txt'), 'two\n');
    git(dir, 'commit', '-qam', 'two');
    await desk.restore(workspace.id, checkpoint.snapshot.id);
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(first);
  });
});
