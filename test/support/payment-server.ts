import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A fake payment service for the step-journal crash tests, run in the test
 * process on 127.0.0.1. It counts real effects:
 *
 * - `POST /pay` with a JSON body `{step, amount, ref?}` and an
 *   `Idempotency-Key` header records a payment and answers `{id}`. When
 *   `honoursKeys` is set, a key seen before answers the first payment's id
 *   and records nothing; otherwise every POST is a new payment.
 * - `GET /payments?ref=<ref>` answers `{id}` of the payment with that `ref`
 *   (404 if none): what a probe asks when the service does not dedup.
 *
 * Each request waits a random 0–3 ms (half before the payment is decided,
 * half after), so a kill can land inside a call. `onRequest` lets the test
 * kill the caller at a chosen request: `drop-before` records nothing and
 * never answers, `drop-after` records the payment and never answers (the
 * answer is lost with the caller).
 */
export interface Payment {
  id: string;
  /** The Idempotency-Key header it came with. */
  key: string;
  ref: string | null;
  step: number;
  amount: number;
}

export interface PaymentRequest {
  method: 'POST' | 'GET';
  /** The caller's `X-Run` header: which worker process sent it. */
  run: string;
  key: string;
}

export type RequestAction = 'answer' | 'drop-before' | 'drop-after';

export interface PaymentServer {
  url: string;
  /** Every payment recorded, in order. */
  payments: Payment[];
  /** POSTs whose body was read and decided (answered from a key, recorded, or dropped). */
  posts: number;
  /** POSTs answered from an earlier payment with the same key (honoursKeys only). */
  deduped: number;
  /** GET /payments look-ups. */
  lookups: number;
  onRequest: ((request: PaymentRequest) => RequestAction) | undefined;
  /** Resolves once no request is being handled and no connection is open. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

function delay(maxMs: number): Promise<void> {
  return new Promise((done) => setTimeout(done, Math.random() * maxMs));
}

async function readBody(req: IncomingMessage): Promise<string> {
  let text = '';
  req.setEncoding('utf8');
  for await (const chunk of req) text += chunk;
  return text;
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export async function startPaymentServer(options: { honoursKeys: boolean }): Promise<PaymentServer> {
  const byKey = new Map<string, Payment>();
  const byRef = new Map<string, Payment>();
  const sockets = new Set<Socket>();
  let active = 0;
  let waiters: (() => void)[] = [];
  const checkIdle = () => {
    if (active === 0 && sockets.size === 0) {
      const ready = waiters;
      waiters = [];
      for (const done of ready) done();
    }
  };

  const state: PaymentServer = {
    url: '',
    payments: [],
    posts: 0,
    deduped: 0,
    lookups: 0,
    onRequest: undefined,
    idle: () =>
      new Promise<void>((done) => {
        waiters.push(done);
        checkIdle();
      }),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://x');
    const run = String(req.headers['x-run'] ?? '');
    if (req.method === 'GET' && url.pathname === '/payments') {
      const ref = url.searchParams.get('ref') ?? '';
      const action = state.onRequest?.({ method: 'GET', run, key: ref }) ?? 'answer';
      if (action !== 'answer') return; // the caller is being killed: never answer
      await delay(3);
      state.lookups++;
      const found = byRef.get(ref);
      if (found) answer(res, 200, { id: found.id });
      else answer(res, 404, { error: 'no such payment' });
      return;
    }
    if (req.method !== 'POST' || url.pathname !== '/pay') {
      answer(res, 404, { error: 'not found' });
      return;
    }
    const key = String(req.headers['idempotency-key'] ?? '');
    const body = JSON.parse(await readBody(req)) as { step: number; amount: number; ref?: string };
    if (key === '' || !Number.isInteger(body.step)) {
      answer(res, 400, { error: 'a payment needs an Idempotency-Key and a step' });
      return;
    }
    await delay(1.5);
    state.posts++;
    const action = state.onRequest?.({ method: 'POST', run, key }) ?? 'answer';
    if (action === 'drop-before') return;
    // Decided synchronously: two requests with one key never both record a payment.
    let payment = options.honoursKeys ? byKey.get(key) : undefined;
    if (payment) {
      state.deduped++;
    } else {
      payment = {
        id: `pay_${randomBytes(8).toString('hex')}`,
        key,
        ref: body.ref ?? null,
        step: body.step,
        amount: body.amount,
      };
      state.payments.push(payment);
      if (!byKey.has(key)) byKey.set(key, payment);
      if (payment.ref !== null && !byRef.has(payment.ref)) byRef.set(payment.ref, payment);
    }
    if (action === 'drop-after') return;
    await delay(1.5);
    answer(res, 200, { id: payment.id });
  };

  const server = createServer((req, res) => {
    active++;
    handle(req, res)
      .catch(() => {
        // A body cut off by a killed caller: nothing was decided.
        if (!res.headersSent && !res.destroyed) answer(res, 400, { error: 'bad request' });
      })
      .finally(() => {
        active--;
        checkIdle();
      });
  });
  server.keepAliveTimeout = 60_000;
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      checkIdle();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}
