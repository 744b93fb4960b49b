// Target 4 (issue #2): over HTTP on loopback, at least 5,000 durable appends/s
// with p99 at most 50 ms.
//
// The server runs in a child process (bench/server-child.mjs) so it does not
// share an event loop with the clients. CLIENTS concurrent clients, each with
// its own session, append through the remote fabric (`connect`) for SECONDS.
// Baseline, same run, same client concurrency and fetch client: a plain
// node:http server in a child process answering a small JSON POST — the cost
// of HTTP alone on this machine.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { fmt, fromDist, ms, now, payload, report, summarize, tempDir } from './lib.mjs';

const CLIENTS = Number(process.env.CAIRN_BENCH_CLIENTS ?? 32);
const SECONDS = Number(process.env.CAIRN_BENCH_HTTP_SECONDS ?? 5);
const TARGET_RATE = 5_000;
const TARGET_P99_MS = 50;

function startChild(args) {
  const child = spawn(
    process.execPath,
    [fileURLToPath(new URL('./server-child.mjs', import.meta.url)), ...args],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`server child exited early (code ${code})`)));
    createInterface({ input: child.stdout }).once('line', (line) => {
      const info = JSON.parse(line);
      resolve({
        ...info,
        stop: () =>
          new Promise((done) => {
            child.removeAllListeners('exit');
            child.once('exit', () => done());
            child.stdin.end();
          }),
      });
    });
  });
}

/** Runs `clients` loops of `call` until the deadline; returns rate and latencies. */
async function drive(clients, call) {
  for (let c = 0; c < clients; c++) await call(c, -1); // warm up connections
  const latencies = [];
  let errors = 0;
  const deadline = now() + BigInt(Math.round(SECONDS * 1e9));
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

const { connect } = await fromDist('index.js');
const { dir, cleanup } = tempDir('http');
try {
  const plain = await startChild(['plain']);
  const body = JSON.stringify({ branch: 'main', kind: 'message', payload: payload(0) });
  let base;
  try {
    base = await drive(CLIENTS, async () => {
      const response = await fetch(`${plain.url}/v1/sessions/x/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer x' },
        body,
      });
      await response.json();
    });
  } finally {
    await plain.stop();
  }

  const server = await startChild(['cairn', dir]);
  let ours;
  try {
    const fabric = connect({ url: server.url, token: server.token });
    const sessions = [];
    for (let c = 0; c < CLIENTS; c++)
      sessions.push((await fabric.createSession({ title: `client ${c}` })).id);
    ours = await drive(CLIENTS, (c, i) =>
      fabric.append({ session: sessions[c], kind: 'message', payload: payload(i) }),
    );
  } finally {
    await server.stop();
  }

  console.log(`http — ${CLIENTS} concurrent clients, ${SECONDS} s each, server in a child process`);
  console.log(
    `  plain node:http JSON POST: ${fmt(base.rate)} req/s      p50 ${fmt(base.p50)} ms  p99 ${fmt(base.p99)} ms  errors ${base.errors}`,
  );
  console.log(
    `  cairn durable append:      ${fmt(ours.rate)} appends/s  p50 ${fmt(ours.p50)} ms  p99 ${fmt(ours.p99)} ms  errors ${ours.errors}`,
  );
  report({
    metric: `HTTP appends, ${CLIENTS} clients`,
    unit: '/s',
    ours: ours.rate,
    baseline: base.rate,
    baselineLabel: 'plain node:http POST',
    target: `≥ ${TARGET_RATE.toLocaleString('en-US')}`,
    pass: ours.rate >= TARGET_RATE && ours.errors === 0,
  });
  report({
    metric: `HTTP append p99, ${CLIENTS} clients`,
    unit: 'ms',
    ours: ours.p99,
    baseline: base.p99,
    baselineLabel: 'plain node:http POST',
    target: `≤ ${TARGET_P99_MS} ms`,
    pass: ours.p99 <= TARGET_P99_MS && ours.errors === 0,
  });
  report({
    metric: `HTTP append p50, ${CLIENTS} clients`,
    unit: 'ms',
    ours: ours.p50,
    baseline: base.p50,
    baselineLabel: 'plain node:http POST',
  });
} finally {
  cleanup();
}
