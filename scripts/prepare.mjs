#!/usr/bin/env node
// Makes `npm start` and `npm test` work on a fresh clone: installs the locked
// dependencies when they are missing or older than the lockfile, then builds.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const marker = join(root, 'node_modules', '.package-lock.json');
const lock = join(root, 'package-lock.json');

function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

if (!existsSync(marker) || statSync(marker).mtimeMs < statSync(lock).mtimeMs) {
  // Measured on a 2-core VM: ~100 s, most of it compiling better-sqlite3 (no prebuilt binary is fetched).
  console.error(
    'cairn: installing dependencies from package-lock.json (the first run compiles better-sqlite3: about 2 minutes on 2 cores)…',
  );
  const started = Date.now();
  run('npm', ['ci', '--no-audit', '--no-fund']);
  console.error(`cairn: installed in ${Math.round((Date.now() - started) / 1000)} s`);
}
// Said before it starts, so a run shows progress from its first second (tsc takes ~15 s, minutes on a loaded machine).
// The bundles (vite, from the sources: the browser's and the CLI's) build beside it.
console.error('cairn: building dist/ (tsc -p tsconfig.json) and the bundles (vite)…');
const building = Date.now();
const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
const builds = [
  [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'],
  [vite, 'build', '--config', 'vite.browser.config.ts'],
  [vite, 'build', '--config', 'vite.cli.config.ts'],
].map(
  (args) =>
    new Promise((done) => {
      const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit' });
      child.on('exit', (code) => done(code ?? 1));
    }),
);
const failed = (await Promise.all(builds)).find((code) => code !== 0);
if (failed !== undefined) process.exit(failed);
console.error(`cairn: built in ${Math.round((Date.now() - building) / 1000)} s`);
