import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, staleBundleInputs, staleSources } from './support/build.js';
import { tempDir } from './support/stores.js';

// The global setup rebuilds dist/ when this finds a source newer than its build (test/support/build.ts).
const temp = tempDir('cairn-build-check-');
afterAll(() => temp.remove());

function file(rel: string, seconds: number, text = ''): void {
  const abs = join(temp.dir, rel);
  mkdirSync(join(abs, '..'), { recursive: true });
  writeFileSync(abs, text);
  utimesSync(abs, seconds, seconds);
}

describe('the stale dist/ check', () => {
  it('names a source newer than its build, one never built, and all of them after tsconfig.json changed', () => {
    file('tsconfig.json', 1_000);
    file('src/fresh.ts', 2_000);
    file('dist/fresh.js', 2_001);
    file('src/deep/edited.ts', 3_000);
    file('dist/deep/edited.js', 2_001);
    file('src/never.ts', 2_000);
    file('src/types.d.ts', 9_000);
    expect(staleSources(temp.dir).sort()).toEqual(['src/deep/edited.ts', 'src/never.ts']);
    // A source saved after the build began is not the build's to cover.
    expect(staleSources(temp.dir, 2_500_000)).toEqual(['src/never.ts']);
    file('tsconfig.json', 5_000);
    expect(staleSources(temp.dir).sort()).toEqual(['src/deep/edited.ts', 'src/fresh.ts', 'src/never.ts']);
  });

  it('names an input of the browser bundle newer than it: a source the entry loads, its config; not other sources', () => {
    const root = join(temp.dir, 'bundle');
    const at = (rel: string, seconds: number, text = '') => file(join('bundle', rel), seconds, text);
    at('src/entry/browser.ts', 1_000, "import { held } from '../client/held.js';\n");
    at('src/client/held.ts', 1_000, "import type { T } from '../types/only.js';\n");
    at('src/types/only.ts', 9_000);
    at('src/server/elsewhere.ts', 9_000);
    at('vite.browser.config.ts', 1_000);
    at('package-lock.json', 1_000);
    expect(staleBundleInputs(root).sort()).toEqual([
      'package-lock.json',
      'src/client/held.ts',
      'src/entry/browser.ts',
      'vite.browser.config.ts',
    ]);
    at('dist/browser/cairn.js', 2_000);
    expect(staleBundleInputs(root)).toEqual([]);
    at('src/client/held.ts', 3_000, "import type { T } from '../types/only.js';\n");
    at('vite.browser.config.ts', 3_000);
    expect(staleBundleInputs(root).sort()).toEqual(['src/client/held.ts', 'vite.browser.config.ts']);
  });

  it('names any source newer than the CLI’s bundle: a command line reaches nearly all of them', () => {
    const root = join(temp.dir, 'cli');
    const at = (rel: string, seconds: number) => file(join('cli', rel), seconds);
    at('src/cli/main.ts', 1_000);
    at('src/desk/far.ts', 1_000);
    at('vite.cli.config.ts', 1_000);
    at('package-lock.json', 1_000);
    at('dist/cli-bundle/main.js', 2_000);
    expect(staleBundleInputs(root, Number.POSITIVE_INFINITY, CLI)).toEqual([]);
    at('src/desk/far.ts', 3_000);
    expect(staleBundleInputs(root, Number.POSITIVE_INFINITY, CLI)).toEqual(['src/desk/far.ts']);
  });
});
