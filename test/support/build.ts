/**
 * vitest globalSetup: the suites that spawn `bin/cairn.js` or a fixture run
 * the built dist/, so a run never tests yesterday's build. `npm test` builds
 * first (scripts/prepare.mjs); this makes `npx vitest run test/cli.test.ts`
 * just as safe by rebuilding when a source is newer than what it compiles to
 * — and the browser bundle (dist/browser/cairn.js) when a source it holds is.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importGraph } from './import-graph.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function mtime(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return -1;
  }
}

/**
 * The sources under `root`/src whose compiled `.js` under dist/ is missing or
 * older than them (or than tsconfig.json); only those last changed before
 * `before`, if given.
 */
export function staleSources(root = ROOT, before = Number.POSITIVE_INFINITY): string[] {
  const config = mtime(join(root, 'tsconfig.json'));
  const stale: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const abs = join(dir, entry.name);
      if (entry.isDirectory()) walk(abs);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
        const rel = relative(join(root, 'src'), abs);
        const built = mtime(join(root, 'dist', rel.replace(/\.ts$/, '.js')));
        const changed = mtime(abs);
        if (changed < before && (built < changed || built < config)) stale.push(relative(root, abs));
      }
    }
  };
  walk(join(root, 'src'));
  return stale;
}

/** The browser bundle, and what it is built from besides the sources of src/entry/browser.ts. */
export const BROWSER_BUNDLE = 'dist/browser/cairn.js';
const BUNDLE_INPUTS = ['vite.browser.config.ts', 'package-lock.json'];

/** The inputs of the browser bundle newer than it (all of them when it is missing); only those changed before `before`. */
export function staleBundleInputs(root = ROOT, before = Number.POSITIVE_INFINITY): string[] {
  const built = mtime(join(root, BROWSER_BUNDLE));
  const inputs = [
    ...importGraph('src/entry/browser.ts', root).filter((m) => m.startsWith('src/')),
    ...BUNDLE_INPUTS,
  ];
  return inputs.filter((input) => {
    const changed = mtime(join(root, input));
    return changed < before && built < changed;
  });
}

/** Builds the browser bundle when it is older than a source it holds (vite: about a second). */
function rebuildBundle(): void {
  const stale = staleBundleInputs();
  if (stale.length === 0) return;
  console.log(`cairn: ${BROWSER_BUNDLE} is older than ${stale[0]}: building (npm run build:browser)…`);
  const started = Date.now();
  const vite = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  const result = spawnSync(process.execPath, [vite, 'build', '--config', 'vite.browser.config.ts'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (result.status !== 0 || staleBundleInputs(ROOT, started).length > 0) {
    throw new Error(
      `the browser bundle did not build (exit ${result.status}): ${result.stdout}${result.stderr}`,
    );
  }
}

/** Set once this process has checked: each vitest project runs the global setup, one check is enough. */
const CHECKED = Symbol.for('cairn.test.dist-checked');

export default function setup(): void {
  const global = globalThis as { [CHECKED]?: boolean };
  if (global[CHECKED]) return;
  global[CHECKED] = true;
  rebuildBundle();
  const stale = staleSources();
  if (stale.length === 0) return;
  const more = stale.length > 1 ? ` and ${stale.length - 1} more` : '';
  console.log(`cairn: dist/ is older than ${stale[0]}${more}: building (tsc -p tsconfig.json)…`);
  // tsc emits even when it reports type errors; those are `npm run build`'s to fail on, not the tests'.
  const started = Date.now();
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: ROOT, encoding: 'utf8' });
  // A source saved while tsc ran (an editor, a second checkout's run) is not this build's to cover.
  const left = staleSources(ROOT, started);
  if (left.length > 0) {
    throw new Error(
      `dist/ is still older than ${left.join(', ')} after tsc (exit ${result.status}): ${result.stdout}${result.stderr}`,
    );
  }
  if (result.status !== 0) {
    const errors = result.stdout.split('\n').filter((line) => line.includes('error TS')).length;
    console.log(
      `cairn: built, with ${errors} type errors reported by tsc (run \`npm run build\` to see them)`,
    );
  }
}
