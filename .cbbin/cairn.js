#!/usr/bin/env node
// The `cairn` command: a thin launcher for the built CLI in dist/. A workspace
// command goes first to the store's `cairn watch`, if one runs; else (and for
// every other command) the CLI itself is loaded.
const argv = process.argv.slice(2);
const loaded = (error) => {
  process.stderr.write(`cairn: could not load the CLI (${error.message}): run \`npm run build\` first\n`);
  process.exitCode = 70;
};
import('../dist/cli-bundle/front.js').then(async ({ forward }) => {
  const front = {
    argv,
    env: process.env,
    cwd: process.cwd(),
    stdout: process.stdout,
    stderr: process.stderr,
  };
  const code = await forward(front);
  if (code !== undefined) {
    process.exitCode = code;
    return;
  }
  await import('../dist/cli-bundle/main.js').then(async ({ main }) => {
    process.exitCode = await main(argv);
  }, loaded);
}, loaded);
