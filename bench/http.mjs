// Target 4 (issue #2): over HTTP on loopback, at least 5,000 durable appends/s
// with p99 at most 50 ms.
//
// The server runs in a child process (bench/server-child.mjs) so it does not
// share an event loop with the clients. CLIENTS concurrent clients, each with
// its own session, append through the remote fabric (`connect`) for SECONDS.
// Baseline, same run, same client concurrency and transport: a plain
// node:http server in a child process answering a small JSON POST — the cost
// of HTTP alone on this machine.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { drive, fmt, fromDist, payload, report, startServerChild, tempDir } from './lib.mjs';

const CLIENTS = Number(process.env.CAIRN_BENCH_CLIENTS ?? 32);
const SECONDS = Number(process.env.CAIRN_BENCH_HTTP_SECONDS ?? 5);
const TARGET_RATE = 5_000;
const TARGET_P99_MS = 50;

/**
 * The same load from wrk (a C load generator, Debian package `wrk`), when it
 * is installed: the JS client above tops out near the server's own speed on a
 * small machine, so wrk shows what the server itself sustains.
 */
function wrk(url, token, bodyText, connections) {
  const script = join(dir, 'append.lua');
  writeFileSync(
    script,
    `wrk.method = "POST"\nwrk.body = [[${bodyText}]]\nwrk.headers["Content-Type"] = "application/json"\nwrk.headers["Authorization"] = "Bearer ${token}"\n`,
  );
  const run = spawnSync('wrk', ['-t1', `-c${connections}`, `-d${SECONDS}s`, '--latency', '-s', script, url], {
    encoding: 'utf8',
  });
  const out = run.stdout ?? '';
  const toMs = (text) => {
    const m = /([\d.]+)(us|ms|s)/.exec(text ?? '');
    if (!m) return Number.NaN;
    return Number(m[1]) * (m[2] === 'us' ? 0.001 : m[2] === 's' ? 1000 : 1);
  };
  return {
    rate: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? Number.NaN),
    p50: toMs(/\s50%\s+(\S+)/.exec(out)?.[1]),
    p99: toMs(/\s99%\s+(\S+)/.exec(out)?.[1]),
    errors: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0),
  };
}

const haveWrk = spawnSync('wrk', ['--version'], { encoding: 'utf8' }).error === undefined;

const { connect } = await fromDist('index.js');
const { dir, cleanup } = tempDir('http');
try {
  const plain = await startServerChild(['plain']);
  const body = JSON.stringify({ branch: 'main', kind: 'message', payload: payload(0) });
  let base;
  try {
    // The same transport as the remote client: node:http with a keep-alive agent.
    const agent = new Agent({ keepAlive: true, maxSockets: 64 });
    base = await drive(
      CLIENTS,
      SECONDS,
      () =>
        new Promise((resolve, reject) => {
          const request = httpRequest(
            `${plain.url}/v1/sessions/x/events`,
            {
              method: 'POST',
              agent,
              headers: {
                'content-type': 'application/json',
                authorization: 'Bearer x',
                'content-length': Buffer.byteLength(body),
              },
            },
            (response) => {
              const chunks = [];
              response.on('data', (chunk) => chunks.push(chunk));
              response.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
            },
          );
          request.on('error', reject);
          request.end(body);
        }),
    );
    agent.destroy();
  } finally {
    await plain.stop();
  }

  let wrkBase;
  if (haveWrk) {
    const plainAgain = await startServerChild(['plain']);
    try {
      wrkBase = wrk(`${plainAgain.url}/v1/sessions/x/events`, 'x', body, CLIENTS);
    } finally {
      await plainAgain.stop();
    }
  }

  const server = await startServerChild(['cairn', dir]);
  let ours;
  let wrkOurs;
  try {
    const fabric = connect({ url: server.url, token: server.token });
    const sessions = [];
    for (let c = 0; c < CLIENTS; c++)
      sessions.push((await fabric.createSession({ title: `client ${c}` })).id);
    ours = await drive(CLIENTS, SECONDS, (c, i) =>
      fabric.append({ session: sessions[c], kind: 'message', payload: payload(i) }),
    );
    if (haveWrk)
      wrkOurs = wrk(`${server.url}/v1/sessions/${sessions[0]}/events`, server.token, body, CLIENTS);
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
    metric: `HTTP appends, ${CLIENTS} clients, against plain node:http`,
    unit: '/s',
    ours: ours.rate,
    baseline: base.rate,
    baselineLabel: 'plain node:http POST',
    target: '≥ 0.5× baseline (issue 22)',
    pass: ours.rate >= 0.5 * base.rate && ours.errors === 0,
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
  if (wrkOurs && wrkBase) {
    console.log(
      `  wrk, ${CLIENTS} connections, one branch: cairn ${fmt(wrkOurs.rate)} appends/s p50 ${fmt(wrkOurs.p50)} ms p99 ${fmt(wrkOurs.p99)} ms (non-2xx ${wrkOurs.errors}); plain ${fmt(wrkBase.rate)} req/s p99 ${fmt(wrkBase.p99)} ms`,
    );
    report({
      metric: `HTTP appends, wrk ${CLIENTS} conns`,
      unit: '/s',
      ours: wrkOurs.rate,
      baseline: wrkBase.rate,
      baselineLabel: 'plain node:http POST, wrk',
      target: `≥ ${TARGET_RATE.toLocaleString('en-US')}`,
      pass: wrkOurs.rate >= TARGET_RATE && wrkOurs.errors === 0,
    });
    report({
      metric: `HTTP append p99, wrk ${CLIENTS} conns`,
      unit: 'ms',
      ours: wrkOurs.p99,
      baseline: wrkBase.p99,
      baselineLabel: 'plain node:http POST, wrk',
      target: `≤ ${TARGET_P99_MS} ms`,
      pass: wrkOurs.p99 <= TARGET_P99_MS && wrkOurs.errors === 0,
    });
  } else {
    console.log('  (wrk not installed: `apt-get install wrk` adds a C load generator run)');
  }
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
