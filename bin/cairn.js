#!/usr/bin/env node
'use strict';
// The `cairn` command: a thin launcher for the built CLI in dist/cli-bundle/
// (vite.cli.config.ts: a few chunks, not one module per source file, loaded
// from V8's code cache by code-cache.js). A workspace command goes first to
// the store's `cairn watch`, if one runs; else (and for every other command)
// the CLI itself is loaded.
const { join } = require('node:path');
const { chunkLoader } = require('./code-cache.js');

const argv = process.argv.slice(2);
const { load } = chunkLoader(join(__dirname, '..', 'dist', 'cli-bundle'));
const unbuilt = (error) => {
  process.stderr.write(`cairn: could not load the CLI (${error.message}): run \`npm run build\` first\n`);
  process.exitCode = 70;
};

async function run() {
  let front;
  try {
    front = load('front.js');
  } catch (error) {
    return unbuilt(error);
  }
  const code = await front.forward({
    argv,
    env: process.env,
    cwd: process.cwd(),
    stdout: process.stdout,
    stderr: process.stderr,
  });
  if (code !== undefined) {
    process.exitCode = code;
    return;
  }
  let cli;
  try {
    cli = load('main.js');
  } catch (error) {
    return unbuilt(error);
  }
  process.exitCode = await cli.main(argv);
}
run();
