import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from './support/stores.js';

// bin/code-cache.js: the CLI's chunks start from the V8 code cache recorded at build time.
interface Loader {
  load(name: string): unknown;
  save(): number;
  counts: { cached: number; rejected: number; compiled: number };
}
const { chunkLoader, wrap } = createRequire(import.meta.url)('../bin/code-cache.js') as {
  chunkLoader(dir: string, options?: { record?: boolean }): Loader;
  wrap(source: string): string;
};
const BUNDLE = fileURLToPath(new URL('../dist/cli-bundle', import.meta.url));
const temp = tempDir('cairn-code-cache-');
afterAll(() => temp.remove());

function chunks(name: string, files: Record<string, string>): void {
  for (const [file, text] of Object.entries(files)) writeFileSync(join(temp.dir, name, file), text);
}

function folder(name: string): string {
  const dir = join(temp.dir, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * A copy of `dir` to load from: V8 keeps what this process compiled, keyed by
 * source and file name, and would answer from that before reading a cache.
 */
let copies = 0;
function copy(dir: string): string {
  const to = `${dir}-${++copies}`;
  cpSync(dir, to, { recursive: true });
  return to;
}

describe('the CLI’s code cache', () => {
  it('the built chunks a command line loads start from a cache V8 accepts, and none holds an import()', () => {
    // On Node 20 a function started from the cache fails `import()` ("A dynamic import callback was not specified").
    for (const name of readdirSync(BUNDLE).filter((f) => f.endsWith('.js')))
      expect(readFileSync(join(BUNDLE, name), 'utf8'), name).not.toMatch(/\bimport\(/);
    const loader = chunkLoader(BUNDLE);
    const main = loader.load('main.js') as { main: unknown };
    expect(typeof main.main).toBe('function');
    expect(loader.counts.rejected).toBe(0);
    expect(loader.counts.compiled).toBe(0);
    expect(loader.counts.cached).toBeGreaterThan(0);
  });

  // A cache sealed as the loader seals one: SHA-256 of the chunk as compiled (wrapped) and the data.
  const sealed = (source: string, data: Buffer) =>
    Buffer.concat([createHash('sha256').update(wrap(source)).update(data).digest(), data]);

  it('a cache recorded for other source of the same length is not used, though V8 alone would take it', () => {
    const dir = folder('stale');
    chunks('stale', { 'a.js': 'module.exports = 111;\n' });
    const recorder = chunkLoader(dir, { record: true });
    expect(recorder.load('a.js')).toBe(111);
    expect(recorder.save()).toBe(1);
    chunks('stale', { 'a.js': 'module.exports = 222;\n' });
    const loader = chunkLoader(dir);
    expect(loader.load('a.js')).toBe(222);
    expect(loader.counts).toEqual({ cached: 0, rejected: 0, compiled: 1 });
    // The digest is what refused it: the same data sealed for the new source serves the old bytecode.
    const data = readFileSync(join(dir, 'a.js.cache')).subarray(32);
    writeFileSync(join(dir, 'a.js.cache'), sealed('module.exports = 222;\n', data));
    const fooled = chunkLoader(copy(dir));
    expect(fooled.load('a.js')).toBe(111);
    expect(fooled.counts).toEqual({ cached: 1, rejected: 0, compiled: 0 });
  });

  it('a damaged cache is not used; one V8 refuses is compiled from its source', () => {
    const dir = folder('damaged');
    chunks('damaged', { 'a.js': 'module.exports = 7;\n' });
    const recorder = chunkLoader(dir, { record: true });
    recorder.load('a.js');
    recorder.save();
    const cache = readFileSync(join(dir, 'a.js.cache'));
    cache.fill(0xa5, 40, 80);
    writeFileSync(join(dir, 'a.js.cache'), cache);
    const loader = chunkLoader(dir);
    expect(loader.load('a.js')).toBe(7);
    expect(loader.counts).toEqual({ cached: 0, rejected: 0, compiled: 1 });
    // Data V8 cannot read (as another Node's would be), sealed right: V8 refuses it.
    writeFileSync(join(dir, 'a.js.cache'), sealed('module.exports = 7;\n', Buffer.alloc(64, 0xa5)));
    const refused = chunkLoader(copy(dir));
    expect(refused.load('a.js')).toBe(7);
    expect(refused.counts).toEqual({ cached: 0, rejected: 1, compiled: 0 });
  });

  it('chunks require each other (once each, cycles included), and packages, as in CommonJS', async () => {
    const dir = folder('graph');
    chunks('graph', {
      'a.js':
        "exports.name = 'a'; const b = require('./b.js'); exports.b = () => b.name; exports.file = __filename;",
      'b.js':
        "const a = require('./a.js'); exports.name = 'b'; exports.a = () => a.name; exports.path = require('node:path').sep;" +
        "exports.later = () => Promise.resolve().then(() => typeof require('node:os').tmpdir);",
      'c.js': "module.exports = { same: require('./a.js') === require('./a.js') };",
    });
    const loader = chunkLoader(dir);
    const a = loader.load('a.js') as { b(): string; file: string };
    const b = loader.load('b.js') as { a(): string; path: string; later(): Promise<string> };
    expect([a.b(), b.a(), b.path, a.file]).toEqual(['b', 'a', '/', join(dir, 'a.js')]);
    expect((loader.load('c.js') as { same: boolean }).same).toBe(true);
    expect(await b.later()).toBe('function');
    expect(loader.counts.compiled).toBe(3);
  });

  it('a chunk that throws while it loads is not kept half-made: the next load runs it again', () => {
    const dir = folder('throws');
    chunks('throws', {
      'a.js':
        "globalThis.__cairnLoads = (globalThis.__cairnLoads ?? 0) + 1; if (globalThis.__cairnLoads === 1) throw new Error('first time'); exports.fn = () => 'made';",
    });
    const loader = chunkLoader(dir);
    expect(() => loader.load('a.js')).toThrow('first time');
    expect((loader.load('a.js') as { fn(): string }).fn()).toBe('made');
    delete (globalThis as { __cairnLoads?: number }).__cairnLoads;
  });
});
