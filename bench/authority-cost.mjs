// Issue 19: deriving authority and the per-operation checks add at most 5 %
// to HTTP append throughput. The same build, served twice in child processes
// (bench/server-child.mjs): `cairn` as shipped, and `cairn-unchecked` with
// append's checks bypassed in the bench only (the reserved-kind refusal and
// the secret guard over the payload; the gate of a caller-`any` operation is
// one comparison). Rounds alternate the two, so drift on this noisy machine
// falls on both; prints each round's rates and the median ratio.
import { drive, fmt, jsonPoster, payload, report, startServerChild, tempDir } from './lib.mjs';

const ROUNDS = Number(process.env.CAIRN_BENCH_AUTHORITY_ROUNDS ?? 3);
const SECONDS = Number(process.env.CAIRN_BENCH_HTTP_SECONDS ?? 4);
const CLIENTS = Number(process.env.CAIRN_BENCH_CLIENTS ?? 32);
const TARGET = 0.05;

/** Appends from CLIENTS keep-alive clients, each to a session of its own, for SECONDS: appends/s. */
async function appendRate(mode) {
  const { dir, cleanup } = tempDir(`authority-${mode}`);
  const server = await startServerChild([mode, dir]);
  const { post, close } = jsonPoster(server, CLIENTS);
  try {
    const sessions = [];
    for (let c = 0; c < CLIENTS; c++) sessions.push((await post('/v1/sessions', {})).id);
    return await drive(CLIENTS, SECONDS, (c, i) =>
      post(`/v1/sessions/${sessions[c]}/events`, { branch: 'main', kind: 'message', payload: payload(i) }),
    );
  } finally {
    close();
    await server.stop();
    cleanup();
  }
}

console.log(
  `authority cost — HTTP appends, ${CLIENTS} clients, ${SECONDS} s a run, ${ROUNDS} rounds alternating`,
);
const ratios = [];
for (let round = 0; round < ROUNDS; round++) {
  const unchecked = await appendRate('cairn-unchecked');
  const checked = await appendRate('cairn');
  ratios.push(checked.rate / unchecked.rate);
  console.log(
    `  round ${round + 1}: checked ${fmt(checked.rate)} appends/s (errors ${checked.errors}), unchecked ${fmt(unchecked.rate)} (errors ${unchecked.errors}): ${fmt(checked.rate / unchecked.rate)}×`,
  );
}
const median = [...ratios].sort((a, b) => a - b)[Math.floor(ratios.length / 2)];
report({
  metric:
    'HTTP append throughput with authority derived and checked, beside the same build with the checks bypassed',
  unit: '×',
  ours: median,
  baseline: 1,
  baselineLabel: 'checks bypassed (bench only)',
  target: `>= ${1 - TARGET}× (cost <= ${TARGET * 100} %)`,
  pass: median >= 1 - TARGET,
});
