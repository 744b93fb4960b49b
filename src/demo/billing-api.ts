import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small billing API written for `cairn demo`: a stand-in for the
 * third-party system of the invoice story. Each account (live, sandbox)
 * holds 200 invoices and 200 incoming payments and answers only to its own
 * bearer token. It records every write it accepted, so the demo (and its
 * test) can show which account each branch touched.
 */
export interface Invoice {
  id: string;
  customer: string;
  amountCents: number;
  status: 'open' | 'reconciled';
  payment: string | null;
}

export interface Payment {
  id: string;
  amountCents: number;
  /** The invoice number the payer wrote on the transfer; '' when they wrote none. */
  reference: string;
  matched: boolean;
}

export interface BillingWrite {
  method: string;
  path: string;
  invoice: string;
  payment: string;
}

export interface BillingAccount {
  name: string;
  invoices: Invoice[];
  payments: Payment[];
  writes: BillingWrite[];
  /** Requests refused for a wrong or missing token. */
  unauthorized: number;
}

export const INVOICE_COUNT = 200;

function seed(name: string, reconciled: number): BillingAccount {
  const invoices: Invoice[] = [];
  const payments: Payment[] = [];
  for (let i = 1; i <= INVOICE_COUNT; i++) {
    const id = `inv-${String(i).padStart(3, '0')}`;
    // Deterministic, distinct amounts; every seventh payer forgot the reference.
    const amountCents = 10_000 + ((i * 7919) % 90_000);
    invoices.push({ id, customer: `customer-${(i % 37) + 1}`, amountCents, status: 'open', payment: null });
    payments.push({
      id: `pay-${String(i).padStart(3, '0')}`,
      amountCents,
      reference: i % 7 === 0 ? '' : id,
      matched: false,
    });
  }
  for (let i = 0; i < reconciled; i++) {
    const inv = invoices[i] as Invoice;
    const pay = payments[i] as Payment;
    inv.status = 'reconciled';
    inv.payment = pay.id;
    pay.matched = true;
  }
  return { name, invoices, payments, writes: [], unauthorized: 0 };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** One account's routes under `/<account>/…`. */
function route(
  account: BillingAccount,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  body: string,
): void {
  const url = new URL(path, 'http://billing.local');
  if (req.method === 'GET' && url.pathname === '/invoices') {
    const status = url.searchParams.get('status');
    send(
      res,
      200,
      account.invoices.filter((i) => status === null || i.status === status),
    );
    return;
  }
  if (req.method === 'GET' && url.pathname === '/payments') {
    const unmatched = url.searchParams.get('unmatched') === '1';
    send(
      res,
      200,
      account.payments.filter((p) => !unmatched || !p.matched),
    );
    return;
  }
  const reconcile = /^\/invoices\/(inv-\d{3})\/reconcile$/.exec(url.pathname);
  if (req.method === 'POST' && reconcile) {
    const invoice = account.invoices.find((i) => i.id === reconcile[1]);
    let paymentId = '';
    try {
      paymentId = String((JSON.parse(body) as { payment?: unknown }).payment ?? '');
    } catch {
      send(res, 400, { error: 'body must be JSON {"payment": "pay-…"}' });
      return;
    }
    const payment = account.payments.find((p) => p.id === paymentId);
    if (!invoice || !payment) {
      send(res, 404, { error: 'no such invoice or payment' });
      return;
    }
    if (invoice.status === 'reconciled' || payment.matched) {
      send(res, 409, { error: `${invoice.id} or ${payment.id} is already reconciled` });
      return;
    }
    invoice.status = 'reconciled';
    invoice.payment = payment.id;
    payment.matched = true;
    account.writes.push({ method: 'POST', path: url.pathname, invoice: invoice.id, payment: payment.id });
    send(res, 200, invoice);
    return;
  }
  send(res, 404, { error: `no route ${req.method} ${url.pathname}` });
}

export async function startBillingApi(options: {
  liveToken: string;
  sandboxToken: string;
  /** Invoices already reconciled in each account when it starts. */
  reconciled?: { live: number; sandbox: number };
}): Promise<{
  url: string;
  live: BillingAccount;
  sandbox: BillingAccount;
  close(): Promise<void>;
}> {
  const live = seed('live', options.reconciled?.live ?? 0);
  const sandbox = seed('sandbox', options.reconciled?.sandbox ?? 0);
  const accounts: Record<string, { account: BillingAccount; token: string }> = {
    live: { account: live, token: options.liveToken },
    sandbox: { account: sandbox, token: options.sandboxToken },
  };
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', () => {
      const match = /^\/(live|sandbox)(\/.*)$/.exec(req.url ?? '');
      const entry = match ? accounts[match[1] as string] : undefined;
      if (!match || !entry) {
        send(res, 404, { error: 'use /live/… or /sandbox/…' });
        return;
      }
      const auth = String(req.headers.authorization ?? '');
      if (!sameSecret(auth, `Bearer ${entry.token}`)) {
        entry.account.unauthorized++;
        send(res, 401, { error: 'a valid bearer token for this account is required' });
        return;
      }
      route(entry.account, req, res, match[2] as string, Buffer.concat(parts).toString('utf8'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    live,
    sandbox,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
