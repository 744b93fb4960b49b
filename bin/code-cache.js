'use strict';
// Loads the CLI's chunks (dist/cli-bundle/, CommonJS) with V8's code cache, so
// a command starts without compiling the half megabyte of JavaScript it runs
// (docs/benchmarks.md: `cairn session ls` 0.21 → 0.16 s). Node 20 has no
// compile cache of its own (module.enableCompileCache came in Node 22), so
// this does what it would: each chunk is compiled as a vm.Script given the
// bytecode scripts/cli-cache.mjs recorded after `npm run build:cli` ran a few
// commands. A cache file is `<chunk>.cache`: the SHA-256 of the chunk's source
// as compiled (wrapped as a CommonJS function) and V8's data together, then
// that data. V8 checks only a source's length
// (and no checksum of its data in a release build), so the digest is what
// keeps a cache from serving another source's bytecode or damaged bytes; a
// cache that does not match, or that V8 refuses (another Node, other flags),
// is ignored and the chunk compiled as usual. Packages outside the bundle load
// with `require`; a chunk has no `import()` (vite.cli.config.ts: on Node 20 a
// function started from the cache cannot run one).
const { createHash } = require('node:crypto');
const { readFileSync, writeFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { join } = require('node:path');
const vm = require('node:vm');

const DIGEST_BYTES = 32;

const digestOf = (text, data) => createHash('sha256').update(text).update(data).digest();

/** A chunk's source as the CommonJS function V8 compiles: what its cache is bytecode of, and sealed to. */
const wrap = (source) => `(function (exports, require, module, __filename, __dirname) {${source}\n})`;

/** The V8 data of `file`'s cache, if it has one recorded for `text` (a wrapped chunk). */
function cachedData(file, text) {
  let cache;
  try {
    cache = readFileSync(`${file}.cache`);
  } catch {
    return undefined;
  }
  const data = cache.subarray(DIGEST_BYTES);
  return cache.length > DIGEST_BYTES && digestOf(text, data).equals(cache.subarray(0, DIGEST_BYTES))
    ? data
    : undefined;
}

/**
 * A loader of the chunks in `dir`: `load('main.js')` runs a chunk (once) and
 * returns its exports. With `record`, it keeps each chunk's script so
 * `save()` can write its cache, bytecode of every function run so far.
 * `counts` says how many chunks started from a cache, how many caches V8
 * refused, and how many were compiled without one.
 */
function chunkLoader(dir, { record = false } = {}) {
  const loaded = new Map();
  const scripts = [];
  const counts = { cached: 0, rejected: 0, compiled: 0 };
  const load = (name) => {
    const file = join(dir, name);
    const known = loaded.get(file);
    if (known) return known.exports;
    const text = wrap(readFileSync(file, 'utf8'));
    const cache = record ? undefined : cachedData(file, text);
    const script = new vm.Script(text, { filename: file, cachedData: cache });
    if (cache === undefined) counts.compiled++;
    else if (script.cachedDataRejected) counts.rejected++;
    else counts.cached++;
    if (record) scripts.push({ file, text, script });
    const module = { exports: {} };
    loaded.set(file, module);
    const outside = createRequire(file);
    const require = (id) => (id.startsWith('./') ? load(id.slice(2)) : outside(id));
    require.resolve = outside.resolve;
    try {
      script.runInThisContext().call(module.exports, module.exports, require, module, file, dir);
    } catch (error) {
      // As Node's loader does: a chunk that failed is not kept half-made; the next load runs it again.
      loaded.delete(file);
      throw error;
    }
    return module.exports;
  };
  const save = () => {
    for (const { file, text, script } of scripts) {
      const data = script.createCachedData();
      writeFileSync(`${file}.cache`, Buffer.concat([digestOf(text, data), data]));
    }
    return scripts.length;
  };
  return { load, save, counts };
}

module.exports = { chunkLoader, wrap };
