// Issue 19: `/healthz` p99 at most 100 ms while one tenant sends maximum-size
// memory batches back to back, beside `/healthz` p99 on the same server idle.
//
// The server runs in a child process (bench/server-child.mjs). A prober asks
// `/healthz` every PROBE_MS on its own keep-alive connection: first for
// IDLE_PROBES probes with nothing else running, then for as long as one
// tenant sends BATCHES batches of 1,000 records each (the most rememberMany
// takes), each just under its 1 Mi characters of text, one after the other. Prints both p99s, their ratio, and how long each batch took.
import { Agent, request as httpRequest } from 'node:http';
import { fmt, ms, now, report, startServerChild, summarize, tempDir } from './lib.mjs';

const BATCHES = Number(process.env.CAIRN_BENCH_HEALTHZ_BATCHES ?? 4);
const IDLE_PROBES = Number(process.env.CAIRN_BENCH_HEALTHZ_IDLE_PROBES ?? 300);
const PROBE_MS = 10;
const TARGET_P99_MS = 100;
const RECORDS = 1000;
const TEXT_CHARS = 1_024 - 40; // a word or so over, and 2 for `data`: under 1 Mi in all

const { dir, cleanup } = tempDir('healthz');

const probeAgent = new Agent({ keepAlive: true, maxSockets: 1 });

/** One GET /healthz: its latency in ms. */
function probe(url) {
  const start = now();
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${url}/healthz`, { agent: probeAgent }, (response) => {
      response.resume();
      response.on('end', () => resolve(ms(start)));
    });
    request.on('error', reject);
    request.end();
  });
}

/** Probes every PROBE_MS until `done()` says stop (or `count` probes); latencies in ms. */
async function probeWhile(url, done, count = Number.POSITIVE_INFINITY) {
  const sample = [];
  while (!done() && sample.length < count) {
    sample.push(await probe(url));
    await new Promise((resolve) => setTimeout(resolve, PROBE_MS));
  }
  return sample;
}

const WORDS =
  'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau'.split(
    ' ',
  );

/** A batch body of RECORDS records, each about TEXT_CHARS of prose-like text, distinct per batch. */
function batchBody(batch) {
  const records = [];
  for (let i = 0; i < RECORDS; i++) {
    const words = [];
    let length = 0;
    for (let k = i; length < TEXT_CHARS; k++) {
      const word = `${WORDS[k % WORDS.length]} ${(k * 7919 + batch * 31) % 100_000}`;
      words.push(word);
      length += word.length + 1;
    }
    records.push({ scope: { user: `bench-${batch}` }, text: words.join(' ') });
  }
  return Buffer.from(JSON.stringify({ records }));
}

function sendBatch(url, token, body) {
  const start = now();
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      `${url}/v1/memory/batch`,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': body.length,
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode, ms: ms(start) }));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

const server = await startServerChild(['cairn', dir]);
try {
  const bodies = Array.from({ length: BATCHES }, (_, b) => batchBody(b));
  console.log(
    `healthz under load: ${BATCHES} batches of ${RECORDS} records, ${fmt(bodies[0].length / 1048576)} MiB each; probe every ${PROBE_MS} ms`,
  );
  const idle = summarize(await probeWhile(server.url, () => false, IDLE_PROBES));
  let sending = true;
  const sent = [];
  const loader = (async () => {
    for (const body of bodies) sent.push(await sendBatch(server.url, server.token, body));
    sending = false;
  })();
  const loaded = summarize(await probeWhile(server.url, () => !sending));
  await loader;
  console.log(`  batches: ${sent.map((s) => `${s.status} in ${fmt(s.ms)} ms`).join(', ')}`);
  console.log(
    `  idle   /healthz p50 ${fmt(idle.p50)} ms  p99 ${fmt(idle.p99)} ms  max ${fmt(idle.max)} ms (n=${idle.n})`,
  );
  console.log(
    `  loaded /healthz p50 ${fmt(loaded.p50)} ms  p99 ${fmt(loaded.p99)} ms  max ${fmt(loaded.max)} ms (n=${loaded.n})`,
  );
  report({
    metric: '/healthz p99 while one tenant sends maximum-size memory batches',
    unit: 'ms',
    ours: loaded.p99,
    baseline: idle.p99,
    baselineLabel: '/healthz p99 idle',
    target: `<= ${TARGET_P99_MS} ms`,
    pass: loaded.p99 <= TARGET_P99_MS,
  });
} finally {
  probeAgent.destroy();
  await server.stop();
  cleanup();
}
