'use strict';
// Loads the CLI's chunks (dist/cli-bundle/, CommonJS) with V8's code cache, so
// a command starts without compiling the half megabyte of JavaScript it runs
// (docs/benchmarks.md: `cairn session ls` 0.21 → 0.16 s). Node 20 has no
// compile cache of its own (module.enableCompileCache came in Node 22), so
// this does what it would: each chunk is compiled as a vm.Script given the
// bytecode scripts/cli-cache.mjs recorded after `npm run build:cli` ran a few
// commands. A cache file is `<chunk>.cache`: the SHA-256 of the chunk's source
// and V8's data together, then that data. V8 checks only a source's length
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

const digestOf = (source, data) => createHash('sha256').update(source).update(data).digest();

/** The V8 data of `file`'s cache, if it has one recorded for `source`. */
function cachedData(file, source) {
  let cache;
  try {
    cache = readFileSync(`${file}.cache`);
  } catch {
    return undefined;
  }
  const data = cache.subarray(DIGEST_BYTES);
  return cache.length > DIGEST_BYTES && digestOf(source, data).equals(cache.subarray(0, DIGEST_BYTES))
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
    const source = readFileSync(file, 'utf8');
    const cache = record ? undefined : cachedData(file, source);
    const script = new vm.Script(
      `(function (exports, require, module, __filename, __dirname) {${source}\n})`,
      { filename: file, cachedData: cache },
    );
    if (cache === undefined) counts.compiled++;
    else if (script.cachedDataRejected) counts.rejected++;
    else counts.cached++;
    if (record) scripts.push({ file, source, script });
    const module = { exports: {} };
    loaded.set(file, module);
    const outside = createRequire(file);
    const require = (id) => (id.startsWith('./') ? load(id.slice(2)) : outside(id));
    require.resolve = outside.resolve;
    script.runInThisContext().call(module.exports, module.exports, require, module, file, dir);
    return module.exports;
  };
  const save = () => {
    for (const { file, source, script } of scripts) {
      const data = script.createCachedData();
      writeFileSync(`${file}.cache`, Buffer.concat([digestOf(source, data), data]));
    }
    return scripts.length;
  };
  return { load, save, counts };
}

module.exports = { chunkLoader };
