/**
 * The `cairn` command as a few ES modules: bin/cairn.js loads
 * dist/cli-bundle/front.js and main.js, each command's code a chunk loaded
 * when a command line asks for it, zod inlined. One module per chunk rather
 * than one per source file: a command line loads ~30 modules, not ~140, and
 * module loading was most of a command's start (docs/benchmarks.md). The
 * library (dist/, `cairn` and its subpaths) is unchanged; packages other than
 * zod stay outside the bundle. `npm run build` runs it after tsc.
 */
import { defineConfig } from 'vite';

export default defineConfig({
  publicDir: false,
  logLevel: 'warn',
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
      external: (id: string) => !id.startsWith('.') && !id.startsWith('/') && !/^zod(\/|$)/.test(id),
      output: { format: 'es', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js' },
      // front.ts imports the output module lazily for the launcher's sake (dist/cli/front.js alone);
      // in the bundle it shares a chunk with the rest, which is what this warning says.
      onwarn(warning, warn) {
        if (warning.code !== 'INEFFECTIVE_DYNAMIC_IMPORT') warn(warning);
      },
    },
  },
  ssr: { noExternal: ['zod'] },
});
