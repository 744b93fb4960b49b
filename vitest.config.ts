import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The kill -9 suites: bounded by their count of kills (a child that stalls is
 * caught by the harness, test/support/kill.ts), so they have no time budget,
 * only an hour's backstop against a hang. They run after the rest, two files at
 * a time (one a core: one at a time made CI's run 8.5 min longer).
 */
const KILL_SUITES = ['test/crash.test.ts', 'test/*-crash.test.ts'];

export default defineConfig({
  test: {
    pool: 'forks',
    // Rebuilds a stale dist/ before the suites that spawn bin/cairn.js or a fixture.
    globalSetup: ['test/support/build.ts'],
    // Without a terminal (CI, a pipe) the default reporter prints a file only once all of it has run:
    // 'verbose' prints each test as it ends, so progress shows from the first seconds.
    reporters: process.stdout.isTTY ? ['default'] : ['verbose'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...KILL_SUITES],
          // Generous for a loaded 2-core machine: the slowest (cli.test.ts) took 95 s with the load average
          // at 20 on 2 cores; a hung test still fails.
          testTimeout: 300_000,
          hookTimeout: 300_000,
          // Two files at a time (vitest's default is one fewer than the cores: one, on 2 cores). Most
          // files wait on child processes, sockets and fsync more than they compute.
          maxWorkers: 2,
          // A worker runs file after file with its module cache kept: a fork per file cost a second or
          // two of CPU each (Node's start, vitest's runtime, zod and the contract compiled again) on a
          // machine the suite keeps busy. Files share no state through modules: each makes its own
          // stores, servers, ports and temp folders, and none changes the process (env, cwd, mocks).
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'kill',
          include: KILL_SUITES,
          testTimeout: 3_600_000,
          hookTimeout: 180_000,
          maxWorkers: 2,
          // After the unit files: run in one group, vitest keeps two files at a time in all (measured:
          // 824 s against 791–810 s for the two groups one after the other).
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
