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

/** A bundle vite builds, and what it is built from besides its config and the lockfile. */
export interface Bundle {
  /** A file the build writes, whose time is the bundle's. */
  out: string;
  config: string;
  /** The sources it holds. */
  sources(root: string): string[];
  /** What `npm run` calls its build. */
  script: string;
}

/** The browser bundle: the sources of src/entry/browser.ts. */
export const BROWSER: Bundle = {
  out: 'dist/browser/cairn.js',
  config: 'vite.browser.config.ts',
  sources: (root) => importGraph('src/entry/browser.ts', root).filter((m) => m.startsWith('src/')),
  script: 'build:browser',
};
export const BROWSER_BUNDLE = BROWSER.out;

/**
 * The CLI's bundle: every source (a command line reaches nearly all of them
 * through its dynamic imports), and what records and reads its code cache.
 */
export const CLI: Bundle = {
  out: 'dist/cli-bundle/main.js',
  config: 'vite.cli.config.ts',
  sources: (root) => [...allSources(root), 'scripts/cli-cache.mjs', 'bin/code-cache.js'],
  script: 'build:cli',
};

function allSources(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const abs = join(dir, entry.name);
      if (entry.isDirectory()) walk(abs);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) found.push(relative(root, abs));
    }
  };
  walk(join(root, 'src'));
  return found;
}

/** The inputs of a bundle newer than it (all of them when it is missing); only those changed before `before`. */
export function staleBundleInputs(
  root = ROOT,
  before = Number.POSITIVE_INFINITY,
  bundle = BROWSER,
): string[] {
  const built = mtime(join(root, bundle.out));
  const inputs = [...bundle.sources(root), bundle.config, 'package-lock.json'];
  return inputs.filter((input) => {
    const changed = mtime(join(root, input));
    return changed < before && built < changed;
  });
}

/** Builds a bundle when it is older than an input (vite: a few seconds). */
function rebuildBundle(bundle: Bundle): void {
  const stale = staleBundleInputs(ROOT, Number.POSITIVE_INFINITY, bundle);
  if (stale.length === 0) return;
  console.log(`cairn: ${bundle.out} is older than ${stale[0]}: building (npm run ${bundle.script})…`);
  const started = Date.now();
  const vite = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  const result = spawnSync(process.execPath, [vite, 'build', '--config', bundle.config], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (result.status !== 0 || staleBundleInputs(ROOT, started, bundle).length > 0) {
    throw new Error(`${bundle.out} did not build (exit ${result.status}): ${result.stdout}${result.stderr}`);
  }
}

/** Set once this process has checked: each vitest project runs the global setup, one check is enough. */
const CHECKED = Symbol.for('cairn.test.dist-checked');

export default function setup(): void {
  const global = globalThis as { [CHECKED]?: boolean };
  if (global[CHECKED]) return;
  global[CHECKED] = true;
  rebuildBundle(BROWSER);
  rebuildBundle(CLI);
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
