// Issue 20: no operation's HTTP throughput drops by more than 5 % from before
// the contract was split from its handlers. Two builds served in child
// processes (bench/server-child.mjs): this checkout's dist/, and an earlier
// build's dist/ named by CAIRN_BENCH_BASE_DIST (e.g. `git worktree add
// /tmp/base 6ddb210 && (cd /tmp/base && npx tsc -p tsconfig.json)`).
// Rounds alternate the two builds; each round measures appends and recalls
// from CLIENTS keep-alive clients for SECONDS; prints the median ratios.
import { drive, fmt, jsonPoster, payload, report, startServerChild, tempDir } from './lib.mjs';

const BASE = process.env.CAIRN_BENCH_BASE_DIST;
if (!BASE) {
  console.log('http-builds: set CAIRN_BENCH_BASE_DIST to an earlier build’s dist/ (see the header); skipped');
  process.exit(0);
}
const ROUNDS = Number(process.env.CAIRN_BENCH_BUILDS_ROUNDS ?? 5);
const SECONDS = Number(process.env.CAIRN_BENCH_HTTP_SECONDS ?? 4);
const CLIENTS = Number(process.env.CAIRN_BENCH_CLIENTS ?? 32);
const RECORDS = 200;

/** Appends/s and recalls/s of one build (its dist/ in `dist`, or this checkout's). */
async function rates(dist) {
  const { dir, cleanup } = tempDir('builds');
  const env = { ...process.env };
  if (dist) env.CAIRN_BENCH_DIST = dist;
  else delete env.CAIRN_BENCH_DIST;
  const server = await startServerChild(['cairn', dir], env);
  const { post, close } = jsonPoster(server, CLIENTS);
  try {
    const sessions = [];
    for (let c = 0; c < CLIENTS; c++) sessions.push((await post('/v1/sessions', {})).id);
    const append = await drive(CLIENTS, SECONDS, (c, i) =>
      post(`/v1/sessions/${sessions[c]}/events`, { branch: 'main', kind: 'message', payload: payload(i) }),
    );
    const words = ['invoice', 'deploy', 'retry', 'schema', 'billing', 'cache', 'token', 'queue'];
    const records = Array.from({ length: RECORDS }, (_, i) => ({
      scope: { user: 'alice' },
      text: `note ${i}: the ${words[i % words.length]} job needs ${words[(i * 3) % words.length]} before it runs`,
    }));
    await post('/v1/memory/batch', { records });
    const recall = await drive(CLIENTS, SECONDS, (_c, i) =>
      post('/v1/memory/recall', { query: words[Math.abs(i) % words.length], scope: { user: 'alice' }, k: 5 }),
    );
    return { append, recall };
  } finally {
    close();
    await server.stop();
    cleanup();
  }
}

console.log(
  `http builds — ${CLIENTS} clients, ${SECONDS} s a run, ${ROUNDS} rounds alternating; base ${BASE}`,
);
const ratios = { append: [], recall: [] };
for (let round = 0; round < ROUNDS; round++) {
  const base = await rates(BASE);
  const ours = await rates(null);
  for (const op of ['append', 'recall']) ratios[op].push(ours[op].rate / base[op].rate);
  console.log(
    `  round ${round + 1}: append ${fmt(ours.append.rate)}/s vs ${fmt(base.append.rate)}/s (errors ${ours.append.errors}/${base.append.errors}); recall ${fmt(ours.recall.rate)}/s vs ${fmt(base.recall.rate)}/s (errors ${ours.recall.errors}/${base.recall.errors})`,
  );
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const op of ['append', 'recall'])
  report({
    metric: `HTTP ${op} throughput, this build beside the base build`,
    unit: '×',
    ours: median(ratios[op]),
    baseline: 1,
    baselineLabel: 'base build',
    target: '>= 0.95× (issue 20)',
    pass: median(ratios[op]) >= 0.95,
  });
