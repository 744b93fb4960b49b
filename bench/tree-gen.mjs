// A synthetic workspace for the desk benchmarks, the same bytes for the same
// seed on every machine: mostly small source-like text files in directories
// three or four levels deep (20–50 files each), plus a few large binaries of
// random bytes. The default is 10,000 files and ~200 MB; `scale` multiplies
// both (0.1 → 1,000 files, ~20 MB).
//
//   node bench/tree-gen.mjs <dir> [--scale 0.1] [--files N] [--mb M] [--seed S]
//
// Text comes from a small seeded PRNG (mulberry32); the binaries' bytes are an
// AES-256-CTR keystream keyed by the seed and the path, which is deterministic
// and runs at disk speed even for gigabytes.
import { createCipheriv, createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const DEFAULT_FILES = 10_000;
export const DEFAULT_MB = 200;
const MB = 1024 * 1024;

/** A seeded PRNG returning floats in [0, 1) (mulberry32). */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const int = (rand, lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
const pick = (rand, list) => list[Math.floor(rand() * list.length)];

// biome-ignore format: a word list
const DIR_WORDS = [
  'src', 'lib', 'core', 'util', 'api', 'models', 'views', 'handlers', 'store', 'net', 'parser', 'render',
  'config', 'jobs', 'tools', 'agents', 'memory', 'plan', 'tests', 'fixtures', 'docs', 'internal', 'cmd', 'pkg',
];
// biome-ignore format: a word list
const WORDS = [
  'alpha', 'beta', 'count', 'index', 'value', 'result', 'item', 'node', 'tree', 'list', 'queue', 'state', 'event',
  'cache', 'route', 'parse', 'build', 'merge', 'split', 'fetch', 'load', 'save', 'step', 'plan', 'task', 'agent',
  'buffer', 'stream', 'frame', 'chunk', 'entry', 'record', 'schema', 'field', 'table', 'query', 'limit', 'offset',
];
const EXTS = ['ts', 'ts', 'ts', 'js', 'py', 'go', 'rs', 'md', 'json', 'txt'];

function ident(rand) {
  const a = pick(rand, WORDS);
  const b = pick(rand, WORDS);
  return `${a}${b[0].toUpperCase()}${b.slice(1)}`;
}

/** About `size` bytes of source-like text (imports, functions, comments); never credential-shaped. */
export function sourceText(rand, size) {
  const lines = [];
  let bytes = 0;
  let depth = 0;
  while (bytes < size) {
    let line;
    const r = rand();
    if (r < 0.08) line = `import { ${ident(rand)} } from './${pick(rand, WORDS)}.js';`;
    else if (r < 0.2 && depth === 0) {
      line = `export function ${ident(rand)}(${ident(rand)}, ${ident(rand)}) {`;
      depth = 1;
    } else if (r < 0.4)
      line = `${'  '.repeat(depth)}const ${ident(rand)} = ${ident(rand)}(${int(rand, 0, 999)});`;
    else if (r < 0.55)
      line = `${'  '.repeat(depth)}if (${ident(rand)} > ${int(rand, 0, 99)}) return ${ident(rand)};`;
    else if (r < 0.7)
      line = `${'  '.repeat(depth)}// ${pick(rand, WORDS)} the ${pick(rand, WORDS)} before the ${pick(rand, WORDS)}`;
    else if (r < 0.8 && depth > 0) {
      line = '}';
      depth = 0;
    } else line = `${'  '.repeat(depth)}${ident(rand)}.${pick(rand, WORDS)}(${ident(rand)});`;
    lines.push(line);
    bytes += line.length + 1;
  }
  if (depth > 0) lines.push('}');
  return `${lines.join('\n')}\n`;
}

/**
 * The layout of a tree, without writing it: directories, and files with their
 * kind and size. `files` counts every file (binaries included); `totalMB` is
 * the approximate sum of sizes, `textShare` of it in text, the rest in
 * binaries of `binMinMB`–`binMaxMB` each.
 */
export function planTree({
  files = DEFAULT_FILES,
  totalMB = DEFAULT_MB,
  seed = 1,
  textShare = 0.25,
  binMinMB = 5,
  binMaxMB = 20,
} = {}) {
  const rand = prng(seed);
  const total = Math.round(totalMB * MB);
  // Binaries first: they take (1 - textShare) of the bytes, a few large files.
  const binaries = [];
  let binLeft = Math.round(total * (1 - textShare));
  while (binLeft > 0 && binaries.length < files - 1) {
    let size = Math.min(binLeft, int(rand, binMinMB * MB, binMaxMB * MB));
    if (binLeft - size < binMinMB * MB) size = binLeft; // the remainder joins the last one
    binaries.push(size);
    binLeft -= size;
  }
  const textCount = files - binaries.length;
  const textBytes = total - binaries.reduce((a, b) => a + b, 0);
  const mean = Math.max(64, textBytes / Math.max(1, textCount));

  // Directories: ~35 files each, a handful at the top, the rest hung under
  // random parents of depth 1–3 so most sit three or four levels down.
  const dirCount = Math.max(1, Math.ceil(files / 35));
  const dirs = [];
  const used = new Set();
  const addDir = (parent, depth) => {
    let name;
    do {
      name = `${pick(rand, DIR_WORDS)}${int(rand, 0, 99)}`;
    } while (used.has(`${parent}/${name}`));
    const path = parent === '' ? name : `${parent}/${name}`;
    used.add(`${parent}/${name}`);
    dirs.push({ path, depth });
  };
  for (let i = 0; i < Math.min(8, dirCount); i++) addDir('', 1);
  while (dirs.length < dirCount) {
    const parents = dirs.filter((d) => d.depth <= 3);
    const parent = pick(rand, parents);
    addDir(parent.path, parent.depth + 1);
  }

  // Files: 20–50 per directory, in order, until all are placed.
  const slots = [];
  for (let i = 0; slots.length < files; i++) {
    const dir = dirs[i % dirs.length];
    const n = int(rand, 20, 50);
    for (let k = 0; k < n && slots.length < files; k++) slots.push(dir.path);
  }
  const binaryAt = new Set();
  while (binaryAt.size < binaries.length) binaryAt.add(int(rand, 0, files - 1));
  const entries = [];
  let b = 0;
  const names = new Set();
  for (let i = 0; i < files; i++) {
    const binary = binaryAt.has(i);
    let path;
    do {
      path = `${slots[i]}/${pick(rand, WORDS)}_${int(rand, 0, 9999)}.${binary ? 'bin' : pick(rand, EXTS)}`;
    } while (names.has(path));
    names.add(path);
    if (binary) entries.push({ path, kind: 'binary', size: binaries[b++] });
    else {
      // Exponential sizes around the mean: many tiny files, a tail of larger ones.
      const size = Math.max(32, Math.min(Math.round(-Math.log(1 - rand()) * mean), 20 * mean, 256 * 1024));
      entries.push({ path, kind: 'text', size, seed: int(rand, 1, 2 ** 31) });
    }
  }
  return { dirs: dirs.map((d) => d.path), entries };
}

function writeBinary(abs, rel, size, seed) {
  const key = createHash('sha256').update(`cairn-bench-${seed}-${rel}`).digest();
  const cipher = createCipheriv('aes-256-ctr', key, Buffer.alloc(16));
  const zeros = Buffer.alloc(4 * MB);
  const fd = openSync(abs, 'w');
  try {
    for (let done = 0; done < size; ) {
      const n = Math.min(zeros.length, size - done);
      writeSync(fd, cipher.update(n === zeros.length ? zeros : zeros.subarray(0, n)));
      done += n;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes the planned tree into `dir` (created if missing). Returns the file
 * count, total bytes and the relative paths of the text files (the ones a
 * benchmark edits).
 */
export function generateTree(dir, options = {}) {
  const seed = options.seed ?? 1;
  const plan = planTree({ ...options, seed });
  mkdirSync(dir, { recursive: true });
  for (const d of plan.dirs) mkdirSync(join(dir, d), { recursive: true });
  let bytes = 0;
  const textFiles = [];
  const binaries = [];
  for (const e of plan.entries) {
    const abs = join(dir, e.path);
    if (e.kind === 'binary') {
      writeBinary(abs, e.path, e.size, seed);
      bytes += e.size;
      binaries.push(e.path);
    } else {
      const text = sourceText(prng(e.seed), e.size);
      writeFileSync(abs, text);
      bytes += Buffer.byteLength(text);
      textFiles.push(e.path);
    }
  }
  return { dir, files: plan.entries.length, dirs: plan.dirs.length, bytes, textFiles, binaries };
}

/** `--scale S` on the command line, else $CAIRN_BENCH_SCALE, else 1. */
export function scaleFrom(argv = process.argv, env = process.env) {
  const at = argv.indexOf('--scale');
  const value = at >= 0 ? Number(argv[at + 1]) : Number(env.CAIRN_BENCH_SCALE ?? 1);
  if (!(value > 0))
    throw new Error(`bad scale ${at >= 0 ? argv[at + 1] : env.CAIRN_BENCH_SCALE}: pass a number > 0`);
  return value;
}

/** Tree options at a scale: files and megabytes both multiplied. */
export function scaled(scale) {
  return { files: Math.max(10, Math.round(DEFAULT_FILES * scale)), totalMB: DEFAULT_MB * scale };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  const flag = (name) => {
    const at = argv.indexOf(name);
    return at >= 0 ? Number(argv[at + 1]) : undefined;
  };
  const dir = argv.find((a, i) => !a.startsWith('--') && !argv[i - 1]?.startsWith('--'));
  if (!dir) {
    console.error('usage: node bench/tree-gen.mjs <dir> [--scale S] [--files N] [--mb M] [--seed S]');
    process.exit(2);
  }
  const base = scaled(scaleFrom(process.argv));
  const t0 = process.hrtime.bigint();
  const tree = generateTree(resolve(dir), {
    files: flag('--files') ?? base.files,
    totalMB: flag('--mb') ?? base.totalMB,
    seed: flag('--seed') ?? 1,
  });
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  console.log(
    `${tree.dir}: ${tree.files} files (${tree.binaries.length} binaries) in ${tree.dirs} directories, ` +
      `${(tree.bytes / MB).toFixed(1)} MB, ${secs.toFixed(1)} s`,
  );
}
