/**
 * The `cairn` command as a few CommonJS modules: bin/cairn.js loads
 * dist/cli-bundle/front.js and main.js, each command's code a chunk loaded
 * when a command line asks for it, zod and secretlint inlined. One module per
 * chunk rather than one per source file: a command line loads ~30 modules,
 * not ~140, and module loading was most of a command's start
 * (docs/benchmarks.md). CommonJS rather than ES modules because Node 20 can
 * start a script from V8's code cache but not an ES module: bin/code-cache.js
 * loads the chunks with the cache that scripts/cli-cache.mjs records at the
 * end of this build. The library (dist/, `cairn` and its subpaths) is unchanged; packages
 * other than zod and secretlint (ES modules only, which Node 20 cannot
 * `require`) stay outside the bundle. `npm run build` runs it after tsc.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

/**
 * dist/cli-bundle/package.json, so Node reads the chunks' `.js` as CommonJS
 * (the package's own type is module); and, once the chunks are written, their
 * code cache (scripts/cli-cache.mjs, in a process of its own).
 */
const cli: Plugin = {
  name: 'cairn-cli-bundle',
  generateBundle() {
    this.emitFile({ type: 'asset', fileName: 'package.json', source: '{ "type": "commonjs" }\n' });
  },
  closeBundle() {
    const recorded = spawnSync(process.execPath, [fileURLToPath(new URL('scripts/cli-cache.mjs', import.meta.url))], {
      stdio: 'inherit',
    });
    if (recorded.status !== 0) throw new Error(`scripts/cli-cache.mjs failed (exit ${recorded.status})`);
  },
};

const INLINED = /^(zod|@secretlint\/[^/]+)(\/|$)/;

export default defineConfig({
  publicDir: false,
  logLevel: 'warn',
  plugins: [cli],
  build: {
    ssr: true,
    outDir: 'dist/cli-bundle',
    emptyOutDir: true,
    target: 'node20',
    minify: false,
    sourcemap: true,
    reportCompressedSize: false,
    rollupOptions: {
      // The guard's scan worker is a module of its own: the pool starts it by its URL beside the chunks.
      input: { front: 'src/cli/front.ts', main: 'src/cli/main.ts', 'scan-worker': 'src/desk/guard/scan-worker.ts' },
      external: (id: string) => !id.startsWith('.') && !id.startsWith('/') && !INLINED.test(id),
      output: {
        format: 'cjs',
        entryFileNames: '[name].js',
        chunkFileNames: '[name]-[hash].js',
        // A function started from V8's code cache cannot run `import()` on Node 20: packages are `require`d.
        dynamicImportInCjs: false,
      },
      // front.ts imports the output module lazily for the launcher's sake (dist/cli/front.js alone);
      // in the bundle it shares a chunk with the rest, which is what this warning says.
      onwarn(warning, warn) {
        if (warning.code !== 'INEFFECTIVE_DYNAMIC_IMPORT') warn(warning);
      },
    },
  },
  ssr: { noExternal: [INLINED] },
});
