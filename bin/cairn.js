#!/usr/bin/env node
// The `cairn` command: a thin launcher for the built CLI in dist/.
import('../dist/cli/main.js').then(
  async ({ main }) => {
    process.exitCode = await main(process.argv.slice(2));
  },
  (error) => {
    process.stderr.write(`cairn: could not load the CLI (${error.message}): run \`npm run build\` first\n`);
    process.exitCode = 70;
  },
);
