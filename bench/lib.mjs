// Shared helpers for the benchmarks. Benchmarks print; they never assert.
import { spawn } from 'node:child_process';
import fs, { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The build benchmarks load: this checkout's dist/, or another build's (CAIRN_BENCH_DIST, bench/http-builds.mjs). */
export const DIST = resolve(
  process.env.CAIRN_BENCH_DIST ?? fileURLToPath(new URL('../dist/', import.meta.url)),
);

/** Imports a module from the built library, e.g. `fromDist('index.js')`. */
export function fromDist(path) {
  return import(pathToFileURL(join(DIST, path)).href);
}

/** Nanoseconds since an arbitrary origin. */
export const now = () => process.hrtime.bigint();

/** Milliseconds between two `now()` readings. */
export const ms = (start, end = now()) => Number(end - start) / 1e6;

/** git with no user or system config (so nothing of the machine's leaks in), a fixed author. */
export const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.invalid',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.invalid',
};

/** A fresh temporary folder (under $CAIRN_BENCH_DIR or the OS temp dir) and its cleanup. */
export function tempDir(label) {
  const base = process.env.CAIRN_BENCH_DIR || tmpdir();
  const dir = mkdtempSync(join(base, `cairn-bench-${label}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Nearest-rank percentile of an unsorted sample, q in [0, 1]. */
export function percentile(sample, q) {
  const sorted = Float64Array.from(sample).sort();
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[rank - 1];
}

export function summarize(sample) {
  return {
    n: sample.length,
    p50: percentile(sample, 0.5),
    p99: percentile(sample, 0.99),
    max: percentile(sample, 1),
  };
}

/** A payload whose event serializes to roughly 200 bytes once ids and metadata are added. */
export function payload(i) {
  return { role: 'assistant', text: `step ${i}: thinking about the next tool call` };
}

export function fmt(value, digits = 3) {
  if (value === null || value === undefined || Number.isNaN(value)) return '—';
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString('en-US');
  return value.toFixed(digits);
}

export function fmtRatio(ratio) {
  return ratio === null || ratio === undefined || !Number.isFinite(ratio) ? '—' : `${ratio.toFixed(2)}×`;
}

/**
 * Records one figure: prints it, and when run under bench/run.mjs also hands
 * it to the summary (one JSON line per figure in $CAIRN_BENCH_RESULTS).
 * `pass` is true/false against the target, or null when the figure has none.
 */
export function report({ metric, unit, ours, baseline, baselineLabel, ratio, target, pass }) {
  const row = {
    metric,
    unit,
    ours,
    baseline: baseline ?? null,
    baselineLabel: baselineLabel ?? '',
    ratio: ratio ?? (baseline ? ours / baseline : null),
    target: target ?? '',
    pass: pass ?? null,
  };
  const verdict = row.pass === null ? '' : row.pass ? '  PASS' : '  MISS';
  const base = row.baseline === null ? '' : `   baseline ${fmt(row.baseline)} ${unit} (${row.baselineLabel})`;
  const ratioText = row.ratio === null ? '' : `   ratio ${fmtRatio(row.ratio)}`;
  const targetText = row.target ? `   target ${row.target}` : '';
  console.log(`  ${metric}: ${fmt(ours)} ${unit}${base}${ratioText}${targetText}${verdict}`);
  if (process.env.CAIRN_BENCH_RESULTS)
    appendFileSync(process.env.CAIRN_BENCH_RESULTS, `${JSON.stringify(row)}\n`);
  return row;
}

/**
 * Counts the WAL syncs Cairn's SQLite engine issues from now on (WalSync
 * calls fs.fdatasync / fdatasyncSync; SQLite's own checkpoint syncs are not
 * among them). syncBuiltinESMExports makes `import { fdatasync } from
 * 'node:fs'` see the wrapper. Call before importing the library; read
 * `counter.syncs`.
 */
export function countWalSyncs() {
  const counter = { syncs: 0 };
  const fdatasync = fs.fdatasync;
  const fdatasyncSync = fs.fdatasyncSync;
  fs.fdatasync = (...args) => {
    counter.syncs++;
    return fdatasync(...args);
  };
  fs.fdatasyncSync = (...args) => {
    counter.syncs++;
    return fdatasyncSync(...args);
  };
  syncBuiltinESMExports();
  return counter;
}

/**
 * Starts `bench/server-child.mjs` with `args` (its mode, then a store folder)
 * in a process of its own, so clients and server do not share an event loop.
 * Resolves to the child's {url, token} and `stop()`.
 */
export function startServerChild(args, env = process.env) {
  const child = spawn(
    process.execPath,
    [fileURLToPath(new URL('./server-child.mjs', import.meta.url)), ...args],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
      env,
    },
  );
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`server child exited early (code ${code})`)));
    createInterface({ input: child.stdout }).once('line', (line) =>
      resolve({
        ...JSON.parse(line),
        stop: () =>
          new Promise((done) => {
            child.removeAllListeners('exit');
            child.once('exit', () => done());
            child.stdin.end();
          }),
      }),
    );
  });
}

/**
 * Runs `clients` loops of `call(client, i)` for `seconds` after one warm-up
 * call each; returns the rate (calls/s), errors and latency summary (ms).
 */
export async function drive(clients, seconds, call) {
  for (let c = 0; c < clients; c++) await call(c, -1); // warm up connections
  const latencies = [];
  let errors = 0;
  const deadline = now() + BigInt(Math.round(seconds * 1e9));
  const t0 = now();
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      let i = 0;
      while (now() < deadline) {
        const t = now();
        try {
          await call(c, i++);
          latencies.push(ms(t));
        } catch (error) {
          if (errors++ === 0) console.error(`  first error: ${error.message}`);
        }
      }
    }),
  );
  const elapsed = ms(t0) / 1000;
  return { rate: latencies.length / elapsed, errors, ...summarize(latencies) };
}

/**
 * JSON POSTs to a server child ({url, token}) over `sockets` keep-alive
 * connections: `post(path, body)` resolves with the answer, rejects on a
 * status of 300 and up; `close()` ends the connections.
 */
export function jsonPoster(server, sockets) {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  const post = (path, body) =>
    new Promise((resolve, reject) => {
      const request = httpRequest(
        `${server.url}${path}`,
        {
          method: 'POST',
          agent,
          headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
        },
        (response) => {
          const chunks = [];
          response.on('data', (c) => chunks.push(c));
          response.on('end', () =>
            response.statusCode < 300
              ? resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')))
              : reject(new Error(`HTTP ${response.statusCode}: ${Buffer.concat(chunks)}`)),
          );
        },
      );
      request.on('error', reject);
      request.end(JSON.stringify(body));
    });
  return { post, close: () => agent.destroy() };
}
