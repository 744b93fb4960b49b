// Keys targets (issue #5): the egress proxy adds ≤ 1 ms p50 per request on
// loopback, and a grant check takes ≤ 50 µs.
//
//  1. Proxy overhead: a tiny node:http upstream on 127.0.0.1 answering 200
//     with a small JSON body. N sequential GETs straight to it, N through a
//     plain node:http forwarder (no decision, no store: what one extra HTTP
//     hop costs on this machine), and N through Cairn's egress proxy on a
//     read grant (handle in x-cairn-handle, secret injected, one durable
//     decision per request). The added p50 is the proxy's p50 minus the
//     direct p50 of the same run. One client function (node:http request,
//     one keep-alive Agent per server) serves every series.
//     To tell where the time goes, in the same rotation: the proxy's own
//     calls of `keys.authorizeRequest`, timed inside it; the same proxy code
//     with the decision stubbed (no store); the real proxy with the store's
//     fdatasync skipped (a diagnostic only: durability off); and
//     `keys.authorizeRequest` called alone (one durable write transaction:
//     handle, grant chain, use count, audit entry, fdatasync before it
//     answers), beside raw better-sqlite3 one-row-per-transaction commits
//     (WAL, synchronous=FULL) of a row the size of its audit entry. The
//     series run batch by batch in rotating order so drift and disk noise
//     hit all alike. The fdatasyncs Cairn's SQLite engine issues are timed by
//     wrapping `fs.fdatasync`. Issue 10: the same proxy with its header
//     allow-lists and response scanning switched off (`unguardedForBench`: a
//     deny-list and a plain pipe, as before the hardening) runs in the same
//     rotation on the same requests; the guards' cost is the real proxy's
//     p50 minus that one (target ≤ 0.1 ms). For context, POSTs through a live grant
//     without approval, beside direct POSTs.
//     Upstream, forwarder, proxies and client share this process's event
//     loop (the requests are sequential, so nothing overlaps).
//  2. Grant check: `decide()` (the pure decision over a grant chain) in a
//     tight loop, timed per batch of calls, on a root grant and on a
//     narrowed grant (chain of two), interleaved.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { Agent, createServer, request as httpRequest } from 'node:http';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { fmt, fromDist, ms, now, percentile, report, tempDir } from './lib.mjs';
import { INSERT, openRawDb, rowMaker } from './raw-sqlite.mjs';

const N = Number(process.env.CAIRN_BENCH_KEYS_N ?? 2000);
const N_POST = Number(process.env.CAIRN_BENCH_KEYS_POST_N ?? 500);
const BATCH = 100;
const WARMUP = 200;
const DECIDE_CALLS = 1000;
const DECIDE_BATCHES = 500;
const TARGET_ADDED_MS = 1;
const TARGET_CHECK_US = 50;
const TARGET_GUARDS_MS = 0.1;
const SECRET = 'sk_live_bench_4f9a1c7e2b8d6035';

// Time the WAL fdatasyncs Cairn's SQLite engine issues (WalSync calls fs.fdatasync on the
// thread pool, or fs.fdatasyncSync for a lone commit); syncBuiltinESMExports makes
// `import { fdatasync, fdatasyncSync } from 'node:fs'` see the wrappers.
// With `skipSync` set (one diagnostic series only) the sync is skipped: durability off, to show its share.
const syncMs = [];
let skipSync = false;
const fdatasync = fs.fdatasync;
fs.fdatasync = (fd, callback) => {
  if (skipSync) return setImmediate(() => callback(null));
  const t0 = now();
  return fdatasync(fd, (...args) => {
    syncMs.push(ms(t0));
    callback(...args);
  });
};
const fdatasyncSync = fs.fdatasyncSync;
fs.fdatasyncSync = (fd) => {
  if (skipSync) return;
  const t0 = now();
  fdatasyncSync(fd);
  syncMs.push(ms(t0));
};
syncBuiltinESMExports();

const { Store } = await fromDist('index.js');
const { MasterKey, decide } = await fromDist('entry/keys.js');
const { startProxy } = await fromDist('entry/proxy.js');
const { SecretForms } = await fromDist('keys/proxy/echo-scanner.js');

const sha256hex = (data) => createHash('sha256').update(data).digest('hex');

/** Starts a node:http server on loopback; returns its port and close(). */
async function listen(handler) {
  const server = createServer(handler);
  server.keepAliveTimeout = 60_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The stand-in third-party API: reads the body, answers 200 with a small JSON. */
function upstreamHandler(req, res) {
  let size = 0;
  req.on('data', (d) => {
    size += d.length;
  });
  req.on('end', () => {
    // /api/large: a 16 KiB JSON answer, for the response scan's cost on a page of results.
    const body = req.url.startsWith('/api/large')
      ? JSON.stringify({
          items: Array.from({ length: 200 }, (_, i) => ({
            id: `inv_${i}`,
            total: i * 7,
            note: 'x'.repeat(40),
          })),
        })
      : JSON.stringify({ ok: true, path: req.url, got: size });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
}

/** A plain reverse proxy: every request forwarded to `target` as is, no decision. */
function forwarderHandler(target, agent) {
  return (req, res) => {
    const headers = { ...req.headers };
    delete headers.host;
    delete headers.connection;
    const up = httpRequest(
      { host: '127.0.0.1', port: target, path: req.url, method: req.method, headers, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  };
}

/** One request with node:http; resolves to its status once the body is read. The same for every target. */
function call(agent, port, method, path, headers, body) {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        headers: { ...headers, 'content-length': body ? Buffer.byteLength(body) : 0 },
      },
      (res) => {
        res.on('data', () => {});
        res.on('end', () => resolve(res.statusCode));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

let recording = false;
/** The proxy's calls of authorizeRequest (ms) during the current call. */
const inProxy = [];

/**
 * `count` sequential calls of `target.send()`, each timed into `target.sample`
 * (ms) once recording, with the fdatasyncs that ran within it into
 * `target.syncs` and the proxy's authorizeRequest calls into `target.auth`;
 * throws on a status other than 200.
 */
async function timed(target, count) {
  for (let i = 0; i < count; i++) {
    const syncsBefore = syncMs.length;
    inProxy.length = 0;
    const t0 = now();
    const status = await target.send();
    const elapsed = ms(t0);
    if (status !== 200) throw new Error(`${target.label}: status ${status}`);
    if (!recording) continue;
    target.sample.push(elapsed);
    target.syncs.push(...syncMs.slice(syncsBefore));
    target.auth.push(...inProxy);
  }
}

/** Warms each target up, then runs them `total` times each, batch by batch, rotating which goes first. */
async function alternate(targets, total) {
  for (const target of targets) {
    target.sample = [];
    target.syncs = [];
    target.auth = [];
    await timed(target, WARMUP);
  }
  recording = true;
  const t0 = now();
  for (let round = 0; round * BATCH < total; round++) {
    const count = Math.min(BATCH, total - round * BATCH);
    for (let k = 0; k < targets.length; k++) await timed(targets[(round + k) % targets.length], count);
  }
  recording = false;
  return ms(t0) / 1000;
}

const stats = (sample) => ({
  n: sample.length,
  p50: percentile(sample, 0.5),
  p90: percentile(sample, 0.9),
  p99: percentile(sample, 0.99),
  max: percentile(sample, 1),
});

const row = (label, s, unit = 'ms', digits = 3) =>
  console.log(
    `  ${label.padEnd(48)} p50 ${fmt(s.p50, digits).padStart(8)}  p90 ${fmt(s.p90, digits).padStart(8)}  ` +
      `p99 ${fmt(s.p99, digits).padStart(8)}  max ${fmt(s.max, digits).padStart(8)} ${unit}  (n=${s.n})`,
  );

const { dir, cleanup } = tempDir('keys');
const closers = [];
let store;
try {
  store = await Store.openDir(join(dir, 'store'));
  const who = await store.localIdentity();
  const keys = store.keys(who, { masterKey: MasterKey.generate() });
  const fabric = store.fabric(who);

  const upstream = await listen(upstreamHandler);
  closers.push(upstream.close);
  const forwardAgent = new Agent({ keepAlive: true, maxSockets: 64 });
  const forwarder = await listen(forwarderHandler(upstream.port, forwardAgent));
  closers.push(forwarder.close, async () => forwardAgent.destroy());
  // The proxy's own calls of authorizeRequest, timed (the same instance underneath; the proxy sees no difference).
  const authorize = keys.authorizeRequest.bind(keys);
  const proxyKeys = Object.create(keys, {
    authorizeRequest: {
      value: async (...args) => {
        const t0 = now();
        try {
          return await authorize(...args);
        } finally {
          inProxy.push(ms(t0));
        }
      },
    },
  });
  const proxy = await startProxy({ keysFor: (tenant) => (tenant === who.tenant ? proxyKeys : undefined) });
  closers.push(proxy.close);
  // The same proxy with allow-lists and response scanning off: the guards' baseline.
  const unguarded = await startProxy({
    keysFor: (tenant) => (tenant === who.tenant ? proxyKeys : undefined),
    unguardedForBench: true,
  });
  closers.push(unguarded.close);
  const proxyPort = Number(new URL(proxy.url).port);
  // The same proxy code with the decision stubbed: what the proxy's HTTP handling costs without the store.
  let stubDecision;
  let stubLarge;
  const stubKeys = {
    authorizeRequest: async (r) => (r.pathAndQuery.startsWith('/large') ? stubLarge : stubDecision),
  };
  const stubbed = await startProxy({ keysFor: () => stubKeys });
  closers.push(stubbed.close);
  // The guards' cost measured without the store's fdatasync noise: the stubbed proxy, guards off.
  const stubbedOff = await startProxy({ keysFor: () => stubKeys, unguardedForBench: true });
  closers.push(stubbedOff.close);

  const session = (await fabric.createSession({ title: 'keys bench' })).id;
  await fabric.append({ session, kind: 'note', payload: 'x' });
  await keys.addCredential({
    name: 'billing',
    kind: 'bearer',
    upstream: `http://127.0.0.1:${upstream.port}/api`,
    value: Buffer.from(SECRET),
  });
  await fabric.fork({ session, from: 'main', name: 'b' });
  await fabric.fork({ session, from: 'main', name: 'w' });
  await fabric.fork({ session, from: 'b', name: 'c' });
  const readGrant = await keys.grant({ session, branch: 'b', credential: 'billing', mode: 'read' });
  await keys.grant({ session, branch: 'w', credential: 'billing', mode: 'live', approval: 'none' });
  const narrowed = await keys.grant({
    session,
    branch: 'c',
    credential: 'billing',
    parent: readGrant.id,
    mode: 'read',
    allow: { pathPrefixes: ['/invoices'] },
  });
  const handleB = (await keys.issueHandle({ session, branch: 'b' })).handle;
  const handleW = (await keys.issueHandle({ session, branch: 'w' })).handle;
  const host = `127.0.0.1:${upstream.port}`;

  // ---- 1. proxy overhead, and the decision alone, in one rotation -----------------------------

  const agent = (port) => ({ agent: new Agent({ keepAlive: true, maxSockets: 1 }), port });
  const direct = agent(upstream.port);
  const plain = agent(forwarder.port);
  const viaProxy = agent(proxyPort);
  const viaStub = agent(Number(new URL(stubbed.url).port));
  const viaUnguarded = agent(Number(new URL(unguarded.url).port));
  const viaStubOff = agent(Number(new URL(stubbedOff.url).port));
  closers.push(async () => {
    for (const a of [direct, plain, viaProxy, viaStub, viaUnguarded, viaStubOff]) a.agent.destroy();
  });
  const json = { 'content-type': 'application/json' };
  const asAgent = { ...json, authorization: `Bearer ${SECRET}` }; // what an agent holding the key would send
  const authRequest = {
    handle: handleB,
    credential: 'billing',
    method: 'GET',
    pathAndQuery: '/invoices?page=1',
    body: Buffer.alloc(0),
  };
  // The raw row carries about what a keys.use audit entry carries.
  const auditSize = Buffer.byteLength(
    JSON.stringify({
      user: who.principal,
      agent: who.principal,
      session,
      branch: 'b',
      credential: 'billing',
      grant: readGrant.id,
      mode: 'read',
      method: 'GET',
      url: `http://${host}/api/invoices?page=1`,
      bodyDigest: sha256hex(''),
    }),
  );
  stubDecision = await keys.authorizeRequest(authRequest);
  if (stubDecision.outcome !== 'forward') throw new Error(`authorizeRequest: ${stubDecision.outcome}`);
  stubLarge = await keys.authorizeRequest({ ...authRequest, pathAndQuery: '/large' });
  if (stubLarge.outcome !== 'forward') throw new Error(`authorizeRequest: ${stubLarge.outcome}`);
  const db = openRawDb(dir);
  closers.push(async () => db.close());
  const insert = db.prepare(INSERT);
  const nextRow = rowMaker('x'.repeat(auditSize));

  const proxyHeaders = { ...json, 'x-cairn-handle': handleB };
  const directGet = {
    label: 'direct to upstream GET',
    send: () => call(direct.agent, direct.port, 'GET', '/api/invoices?page=1', asAgent),
  };
  const plainGet = {
    label: 'plain node:http forwarder GET (no decision)',
    send: () => call(plain.agent, plain.port, 'GET', '/api/invoices?page=1', asAgent),
  };
  const proxyGet = {
    label: 'cairn proxy GET (read grant)',
    send: () => call(viaProxy.agent, viaProxy.port, 'GET', '/billing/invoices?page=1', proxyHeaders),
  };
  // What an agent's HTTP client typically sends besides the handle.
  const clientHeaders = {
    ...proxyHeaders,
    accept: 'application/json',
    'user-agent': 'agent-sdk/1.0',
    'x-request-id': 'req_0123456789',
  };
  const guardedGet = {
    label: 'cairn proxy GET, client headers, guards on',
    send: () => call(viaProxy.agent, viaProxy.port, 'GET', '/billing/invoices?page=1', clientHeaders),
  };
  const unguardedGet = {
    label: 'cairn proxy GET, client headers, guards off',
    send: () => call(viaUnguarded.agent, viaUnguarded.port, 'GET', '/billing/invoices?page=1', clientHeaders),
  };
  const stubOn = {
    label: 'stubbed decision, guards on',
    send: () => call(viaStub.agent, viaStub.port, 'GET', '/billing/invoices?page=1', clientHeaders),
  };
  const stubOff = {
    label: 'stubbed decision, guards off',
    send: () => call(viaStubOff.agent, viaStubOff.port, 'GET', '/billing/invoices?page=1', clientHeaders),
  };
  const stubLargeOn = {
    label: 'stubbed decision, 16 KiB answer, guards on',
    send: () => call(viaStub.agent, viaStub.port, 'GET', '/billing/large', clientHeaders),
  };
  const stubLargeOff = {
    label: 'stubbed decision, 16 KiB answer, guards off',
    send: () => call(viaStubOff.agent, viaStubOff.port, 'GET', '/billing/large', clientHeaders),
  };
  const stubGet = {
    label: 'cairn proxy GET, decision stubbed (no store)',
    send: () => call(viaStub.agent, viaStub.port, 'GET', '/billing/invoices?page=1', proxyHeaders),
  };
  const noSyncGet = {
    label: 'cairn proxy GET, fdatasync skipped (diagnostic)',
    send: async () => {
      skipSync = true;
      try {
        return await call(viaProxy.agent, viaProxy.port, 'GET', '/billing/invoices?page=1', proxyHeaders);
      } finally {
        skipSync = false;
      }
    },
  };
  const authAlone = {
    label: 'keys.authorizeRequest alone (1 write tx)',
    send: async () => {
      const decision = await keys.authorizeRequest(authRequest);
      return decision.outcome === 'forward' ? 200 : decision.outcome;
    },
  };
  const rawCommit = {
    label: `raw SQLite 1-row commit (FULL, WAL, ${auditSize} B)`,
    send: async () => {
      insert.run(nextRow()); // autocommit: one transaction per row
      return 200;
    },
  };
  const series = [
    directGet,
    plainGet,
    proxyGet,
    guardedGet,
    unguardedGet,
    stubOn,
    stubOff,
    stubLargeOn,
    stubLargeOff,
    stubGet,
    noSyncGet,
    authAlone,
    rawCommit,
  ];
  const getSeconds = await alternate(series, N);

  // ---- POST through a live grant, for context -------------------------------------------------

  const postBody = JSON.stringify({ invoice: 7, match: 'txn_2f9c', amount: 1250, currency: 'EUR' });
  const directPost = {
    label: 'direct to upstream POST',
    send: () => call(direct.agent, direct.port, 'POST', '/api/invoices/7/reconcile', asAgent, postBody),
  };
  const proxyPost = {
    label: 'cairn proxy POST (live grant, no approval)',
    send: () =>
      call(
        viaProxy.agent,
        viaProxy.port,
        'POST',
        '/billing/invoices/7/reconcile',
        { ...json, 'x-cairn-handle': handleW },
        postBody,
      ),
  };
  const unguardedPost = {
    label: 'cairn proxy POST, guards off',
    send: () =>
      call(
        viaUnguarded.agent,
        viaUnguarded.port,
        'POST',
        '/billing/invoices/7/reconcile',
        { ...json, 'x-cairn-handle': handleW },
        postBody,
      ),
  };
  await alternate([directPost, proxyPost, unguardedPost], N_POST);

  // ---- 2. grant check: decide() ---------------------------------------------------------------

  const shape = { method: 'GET', host, path: '/invoices' };
  const at = Date.now();
  let allowed = 0;
  const decideBatches = (chain, batches) => {
    const perCall = [];
    for (let b = 0; b < batches; b++) {
      const t0 = now();
      for (let i = 0; i < DECIDE_CALLS; i++) if (decide(chain, shape, at).allowed) allowed++;
      perCall.push((ms(t0) * 1000) / DECIDE_CALLS);
    }
    return perCall;
  };
  const root = [readGrant];
  const chain2 = [narrowed, readGrant];
  decideBatches(root, 50);
  decideBatches(chain2, 50);
  const decideRoot = [];
  const decideChain = [];
  for (let r = 0; r < 10; r++) {
    decideRoot.push(...decideBatches(root, DECIDE_BATCHES / 10));
    decideChain.push(...decideBatches(chain2, DECIDE_BATCHES / 10));
  }
  if (allowed !== (100 + 2 * DECIDE_BATCHES) * DECIDE_CALLS) throw new Error('decide refused a request');

  // ---- 3. the echo scan alone: SecretForms.find on a small and a 16 KiB answer ----------------

  const forms = new SecretForms([SECRET, `Bearer ${SECRET}`]);
  const smallAnswer = Buffer.from(JSON.stringify({ ok: true, path: '/api/invoices?page=1', got: 0 }));
  const largeAnswer = Buffer.from(
    JSON.stringify({
      items: Array.from({ length: 200 }, (_, i) => ({ id: `inv_${i}`, total: i * 7, note: 'x'.repeat(40) })),
    }),
  );
  const scanBatches = (data, batches, calls) => {
    const perCall = [];
    for (let b = 0; b < batches; b++) {
      const t0 = now();
      for (let i = 0; i < calls; i++) if (forms.find(data)) throw new Error('false positive');
      perCall.push((ms(t0) * 1000) / calls);
    }
    return perCall;
  };
  scanBatches(largeAnswer, 20, 100);
  const scanSmall = stats(scanBatches(smallAnswer, 200, 1000));
  const scanLarge = stats(scanBatches(largeAnswer, 200, 100));

  // ---- report ---------------------------------------------------------------------------------

  const dg = stats(directGet.sample);
  const pg = stats(plainGet.sample);
  const xg = stats(proxyGet.sample);
  const ap = stats(proxyGet.auth);
  const sg = stats(stubGet.sample);
  const ng = stats(noSyncGet.sample);
  const nsa = stats(noSyncGet.auth);
  const ps = stats(proxyGet.syncs);
  const a = stats(authAlone.sample);
  const as = stats(authAlone.syncs);
  const r = stats(rawCommit.sample);
  const dp = stats(directPost.sample);
  const xp = stats(proxyPost.sample);
  const up = stats(unguardedPost.sample);
  const gg = stats(guardedGet.sample);
  const ug = stats(unguardedGet.sample);
  const guardsGet = gg.p50 - ug.p50;
  const son = stats(stubOn.sample);
  const soff = stats(stubOff.sample);
  const slon = stats(stubLargeOn.sample);
  const sloff = stats(stubLargeOff.sample);
  const guardsStub = son.p50 - soff.p50;
  const guardsLarge = slon.p50 - sloff.p50;
  const guardsPost = xp.p50 - up.p50;
  const dr = stats(decideRoot);
  const dc = stats(decideChain);
  const added = xg.p50 - dg.p50;
  const plainAdded = pg.p50 - dg.p50;

  console.log(
    `egress proxy on loopback — N=${N} sequential calls per series in batches of ${BATCH}, the ${series.length} ` +
      `series rotating (${fmt(getSeconds, 1)} s), keep-alive agents, dir ${dir}`,
  );
  row(directGet.label, dg);
  row(plainGet.label, pg);
  row(proxyGet.label, xg);
  row('  of which authorizeRequest (timed in the proxy)', ap);
  row('  of which fdatasync', ps);
  row(guardedGet.label, gg);
  row(unguardedGet.label, ug);
  row(stubOn.label, son);
  row(stubOff.label, soff);
  row(stubLargeOn.label, slon);
  row(stubLargeOff.label, sloff);
  row(stubGet.label, sg);
  row(noSyncGet.label, ng);
  row('  of which authorizeRequest (timed in the proxy)', nsa);
  row(authAlone.label, a);
  row('  of which fdatasync', as);
  row(rawCommit.label, r);
  console.log(
    `  added p50: cairn proxy ${fmt(added)} ms (target ≤ ${TARGET_ADDED_MS} ms), plain forwarder ${fmt(plainAdded)} ms`,
  );
  console.log(
    `  where the added p50 goes: authorizeRequest inside the proxy ${fmt(ap.p50)} ms (its fdatasync ` +
      `${fmt(ps.p50)} ms; called alone ${fmt(a.p50)} ms), the rest ${fmt(added - ap.p50)} ms (HTTP hop, ` +
      `parsing, forwarding). Added by the proxy with its decision stubbed ${fmt(sg.p50 - dg.p50)} ms; ` +
      `with the store but no fdatasync ${fmt(ng.p50 - dg.p50)} ms (authorizeRequest ${fmt(nsa.p50)} ms)`,
  );
  console.log(
    `  allow-lists and response scanning add ${fmt(guardsGet)} ms p50 per GET (guards on ${fmt(gg.p50)} ms vs off ` +
      `${fmt(ug.p50)} ms, the same requests; target ≤ ${TARGET_GUARDS_MS} ms); without the store's ` +
      `fdatasync noise (decision stubbed): ${fmt(guardsStub)} ms on a small answer, ${fmt(guardsLarge)} ms on a 16 KiB one`,
  );
  console.log(
    `  fdatasyncs: ${proxyGet.syncs.length} in ${xg.n} proxied GETs, ${authAlone.syncs.length} in ${a.n} ` +
      `authorizeRequest calls, ${noSyncGet.syncs.length} in the skipped series, ` +
      `${directGet.syncs.length + plainGet.syncs.length + stubGet.syncs.length} in the direct, forwarded and stubbed ones`,
  );
  console.log(`POST — N=${N_POST} each, ${Buffer.byteLength(postBody)}-byte JSON body, alternating`);
  row(directPost.label, dp);
  row(proxyPost.label, xp);
  row(unguardedPost.label, up);
  console.log(
    `  added p50: ${fmt(xp.p50 - dp.p50)} ms; of which allow-lists, body check and response scanning ${fmt(guardsPost)} ms`,
  );
  console.log(
    `grant check — decide(), ${DECIDE_BATCHES} batches of ${DECIDE_CALLS} calls per chain, interleaved (µs per call)`,
  );
  row('decide(), root grant', dr, 'µs');
  row('decide(), narrowed grant (chain of 2)', dc, 'µs');
  console.log('echo scan — SecretForms.find over a whole answer (µs per call)');
  row(`scan, ${smallAnswer.length} B answer`, scanSmall, 'µs');
  row(`scan, ${largeAnswer.length} B answer`, scanLarge, 'µs');

  report({
    metric: 'keys proxy added p50, GET loopback',
    unit: 'ms',
    ours: added,
    baseline: plainAdded,
    baselineLabel: 'plain node:http forwarder',
    target: `≤ ${TARGET_ADDED_MS} ms`,
    pass: added <= TARGET_ADDED_MS,
  });
  report({
    metric: 'keys proxy guards added p50 (allow-lists + response scan), GET',
    unit: 'ms',
    ours: guardsGet,
    baseline: ug.p50,
    baselineLabel: 'same proxy, guards off',
    target: `≤ ${TARGET_GUARDS_MS} ms`,
    pass: guardsGet <= TARGET_GUARDS_MS,
  });
  report({
    metric: 'keys proxy guards added p50, decision stubbed (no disk noise), GET',
    unit: 'ms',
    ours: guardsStub,
    baseline: soff.p50,
    baselineLabel: 'same stubbed proxy, guards off',
    target: `≤ ${TARGET_GUARDS_MS} ms`,
    pass: guardsStub <= TARGET_GUARDS_MS,
  });
  report({
    metric: 'keys proxy guards added p50, decision stubbed, 16 KiB answer',
    unit: 'ms',
    ours: guardsLarge,
    baseline: sloff.p50,
    baselineLabel: 'same stubbed proxy, guards off',
    target: `≤ ${TARGET_GUARDS_MS} ms`,
    pass: guardsLarge <= TARGET_GUARDS_MS,
  });
  report({
    metric: 'keys proxy guards added p50 (allow-lists + body check + response scan), POST',
    unit: 'ms',
    ours: guardsPost,
    baseline: up.p50,
    baselineLabel: 'same proxy, guards off',
    target: `≤ ${TARGET_GUARDS_MS} ms`,
    pass: guardsPost <= TARGET_GUARDS_MS,
  });
  report({
    metric: 'keys proxy GET p50',
    unit: 'ms',
    ours: xg.p50,
    baseline: dg.p50,
    baselineLabel: 'direct to upstream',
  });
  report({
    metric: 'keys proxy POST p50, live grant',
    unit: 'ms',
    ours: xp.p50,
    baseline: dp.p50,
    baselineLabel: 'direct to upstream',
  });
  report({
    metric: 'keys grant check p50 (decide)',
    unit: 'µs',
    ours: Math.max(dr.p50, dc.p50),
    target: `≤ ${TARGET_CHECK_US} µs`,
    pass: dr.p50 <= TARGET_CHECK_US && dc.p50 <= TARGET_CHECK_US,
  });
  report({
    metric: 'keys authorizeRequest p50 (durable)',
    unit: 'ms',
    ours: a.p50,
    baseline: r.p50,
    baselineLabel: 'raw SQLite 1-row commit',
  });
} finally {
  for (const close of closers.reverse()) await close().catch(() => {});
  await store?.close().catch(() => {});
  cleanup();
}
