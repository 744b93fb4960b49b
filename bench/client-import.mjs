// Issue 20: importing the remote client (`cairn/client`) beside importing the
// embedded fabric (`cairn`): modules loaded (a loader hook counts them) and
// whole-process time, medians of RUNS processes each, with `node -e 0` as the
// floor. Target: the client loads at most 25 % of the embedded fabric's modules.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DIST, fmt, ms, now, report, summarize, tempDir } from './lib.mjs';

const RUNS = Number(process.env.CAIRN_BENCH_IMPORT_RUNS ?? 11);
const { dir, cleanup } = tempDir('import');
try {
  const hooks = join(dir, 'hooks.mjs');
  writeFileSync(
    hooks,
    "export async function load(url, c, next) { process.stdout.write('LOAD\\n'); return next(url, c); }\n",
  );
  const register = join(dir, 'register.mjs');
  writeFileSync(
    register,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  const url = (path) => pathToFileURL(join(DIST, path)).href;
  const modules = (target) =>
    spawnSync(
      process.execPath,
      ['--import', pathToFileURL(register).href, '-e', `await import(${JSON.stringify(target)})`],
      {
        encoding: 'utf8',
      },
    )
      .stdout.split('\n')
      .filter((l) => l === 'LOAD').length;
  const timed = (args) => {
    const sample = [];
    for (let i = 0; i < RUNS; i++) {
      const start = now();
      spawnSync(process.execPath, args, { stdio: 'ignore' });
      sample.push(ms(start));
    }
    return summarize(sample);
  };
  const client = {
    modules: modules(url('entry/client.js')),
    time: timed(['-e', `await import(${JSON.stringify(url('entry/client.js'))})`]),
  };
  const embedded = {
    modules: modules(url('index.js')),
    time: timed(['-e', `await import(${JSON.stringify(url('index.js'))})`]),
  };
  const bare = timed(['-e', '0']);
  console.log(`import, whole process, median of ${RUNS}`);
  console.log(`  cairn/client: ${client.modules} modules, ${fmt(client.time.p50)} ms`);
  console.log(`  cairn (embedded fabric): ${embedded.modules} modules, ${fmt(embedded.time.p50)} ms`);
  console.log(`  node -e 0: ${fmt(bare.p50)} ms`);
  report({
    metric: 'modules loaded importing the remote client',
    unit: 'modules',
    ours: client.modules,
    baseline: embedded.modules,
    baselineLabel: 'importing the embedded fabric',
    target: '<= 25 % of the embedded fabric’s',
    pass: client.modules <= embedded.modules / 4,
  });
  report({
    metric: 'whole-process import of the remote client',
    unit: 'ms',
    ours: client.time.p50,
    baseline: embedded.time.p50,
    baselineLabel: 'importing the embedded fabric',
  });
} finally {
  cleanup();
}
