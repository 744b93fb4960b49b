#!/usr/bin/env node
// Records V8's code cache for the CLI's chunks (bin/code-cache.js), run after
// `vite build --config vite.cli.config.ts`: loads the chunks in this process,
// runs a few common command lines against a temporary store, then writes each
// loaded chunk's `<chunk>.cache` with the bytecode of every function they ran.
// A chunk no sample loads has no cache and is compiled when first used.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const { chunkLoader } = createRequire(import.meta.url)('../bin/code-cache.js');
const loader = chunkLoader(join(root, 'dist', 'cli-bundle'), { record: true });
const store = mkdtempSync(join(tmpdir(), 'cairn-cli-cache-'));
const samples = [
  ['--version'],
  ['--help'],
  ['help', 'log', 'append'],
  ['init', '--store', store],
  ['session', 'new', '--store', store],
  ['session', 'ls', '--store', store],
  ['session', 'ls', '--store', store, '--json'],
];
const write = process.stdout.write;
try {
  process.stdout.write = () => true;
  const { forward } = loader.load('front.js');
  const { main } = loader.load('main.js');
  for (const argv of samples) {
    const front = { argv, env: {}, cwd: store, stdout: process.stdout, stderr: process.stderr };
    if ((await forward(front)) !== undefined || (await main(argv)) !== 0)
      throw new Error(`cairn ${argv.join(' ')} failed while recording the code cache`);
  }
} finally {
  process.stdout.write = write;
  rmSync(store, { recursive: true, force: true });
}
console.error(`cairn: recorded the code cache of ${loader.save()} CLI chunks`);
