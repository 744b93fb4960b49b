/**
 * The browser bundle: `cairn/browser` (src/entry/browser.ts) as one ES module,
 * dist/browser/cairn.js, zod inlined. `npm run build` runs it after tsc; the
 * tests rebuild it when a source it holds is newer (test/support/build.ts).
 */
import { defineConfig } from 'vite';

export default defineConfig({
  publicDir: false,
  logLevel: 'warn',
  build: {
    lib: { entry: 'src/entry/browser.ts', formats: ['es'], fileName: () => 'cairn.js' },
    outDir: 'dist/browser',
    emptyOutDir: true,
    target: 'es2022',
    minify: true,
    sourcemap: true,
    reportCompressedSize: false,
  },
});
