// A server in its own process, so benchmark clients and server do not share an
// event loop. `node bench/server-child.mjs cairn <dir>` serves a Cairn store in
// <dir>; `cairn-unchecked` the same with append's checks bypassed (the
// reserved-kind refusal and the payload's secret guard: bench/authority-cost.mjs,
// bench only); `node bench/server-child.mjs plain` serves a trivial JSON POST handler
// (the HTTP baseline). Prints one JSON line {url, token} once listening; exits
// when its stdin closes or on SIGTERM.
import { createServer } from 'node:http';
import { fromDist } from './lib.mjs';

const [mode, dir] = process.argv.slice(2);

/** Bench only: append without its checks (the same write the table's append makes). */
async function bypassAppendChecks() {
  const { OPERATIONS } = await fromDist('ops/table.js');
  const log = await fromDist('log/session-log.js');
  OPERATIONS.append.run = (ctx, input) =>
    ctx.write((tx, now) => log.appendEvent(tx, ctx.who, input, log.encodePayload(input.payload), now, 0));
}

async function startCairn() {
  if (mode === 'cairn-unchecked') await bypassAppendChecks();
  const { Store } = await fromDist('index.js');
  const { startServer } = await fromDist('server/index.js');
  const store = await Store.openDir(dir, { checkpoints: 'background' }); // as `cairn serve` opens it
  const who = await store.localIdentity();
  const created = await store.fabric(who).createToken({ principal: who.principal });
  const token = created.token;
  const server = await startServer(store, { port: 0 });
  return {
    url: server.url,
    token,
    close: async () => {
      await server.close();
      await store.close();
    },
  };
}

function startPlain() {
  let n = 0;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const answer = JSON.stringify({
        id: `ev_${++n}`,
        seq: n,
        kind: body.kind ?? null,
        deduplicated: false,
      });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
      res.end(answer);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({
        url: `http://127.0.0.1:${server.address().port}`,
        token: '',
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

const running = mode === 'plain' ? await startPlain() : await startCairn();
let closing = false;
async function shutdown() {
  if (closing) return;
  closing = true;
  await running.close();
  process.exit(0);
}
process.on('SIGTERM', shutdown);
process.stdin.on('end', shutdown);
process.stdin.resume();
process.stdout.write(`${JSON.stringify({ url: running.url, token: running.token })}\n`);
