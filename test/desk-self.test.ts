import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Store } from '../src/store.js';
import { tempDir } from './support/stores.js';

// Precision of the secret guard on a real tree: a clean clone of this repository (as CI has it) with
// its node_modules. Nothing may be withheld (a withheld file breaks the fork), and the fork builds.
const root = fileURLToPath(new URL('..', import.meta.url));

/** Files whose findings are deliberate: the guard's own corpus and tests that plant credentials. */
const FIXTURES = /^test\/|^node_modules\/.*(test|README|CONTRIBUTING|\.map$|secretlint)/i;

describe('the secret guard on this repository', () => {
  const temp = tempDir('cairn-self-');
  afterAll(() => temp.remove());

  it.skipIf(!existsSync(join(root, '.git')) || !existsSync(join(root, 'node_modules')))(
    'withholds nothing of a clone with node_modules, redacts only deliberate examples, and a copy fork builds',
    async () => {
      const clone = join(temp.dir, 'clone');
      execFileSync('git', ['clone', '-q', '--no-local', root, clone], { stdio: 'ignore' });
      execFileSync('cp', ['-a', join(root, 'node_modules'), join(clone, 'node_modules')]);
      const store = await Store.openDir(join(temp.dir, 'store'));
      // With .git snapshotted (the store setting snapshots.git: include), so the guard reads the repository's objects too.
      const desk = store.desk(await store.localIdentity(), {
        stateDir: join(temp.dir, 'state'),
        includeGit: true,
      });
      try {
        const { workspace, checkpoint } = await desk.attach({ dir: clone });
        expect(
          checkpoint.withheld,
          JSON.stringify(checkpoint.findings.filter((f) => f.action === 'withheld')),
        ).toEqual([]);
        for (const path of checkpoint.redacted) expect(path).toMatch(FIXTURES);
        const forked = await desk.fork(workspace.id, { dir: join(temp.dir, 'fork'), driver: 'copy' });
        expect(forked.redacted).toEqual(checkpoint.redacted);
        const fork = forked.workspace.dir;
        const build = spawnSync(
          process.execPath,
          ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json'],
          {
            cwd: fork,
            encoding: 'utf8',
          },
        );
        expect(build.status, build.stdout + build.stderr).toBe(0);
        expect(existsSync(join(fork, 'dist', 'index.js'))).toBe(true);
        // The fork's repository is whole: every object a ref reaches is there.
        const fsck = spawnSync('git', ['fsck', '--connectivity-only'], { cwd: fork, encoding: 'utf8' });
        expect(fsck.status, fsck.stderr).toBe(0);
      } finally {
        await desk.close();
        await store.close();
      }
    },
    120_000,
  );
});
