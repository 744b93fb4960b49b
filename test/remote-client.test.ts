import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../src/client/connect.js';
import { connect as connectOverFetch } from '../src/entry/browser.js';
import { CairnError } from '../src/errors.js';

/** A server that reads each request whole, then drops the connection without answering. */
let dropper: Server;
let dropperUrl = '';

beforeAll(async () => {
  dropper = createServer((request) => {
    request.resume();
    request.on('end', () => request.socket.destroy());
  });
  await new Promise<void>((done) => dropper.listen(0, '127.0.0.1', done));
  dropperUrl = `http://127.0.0.1:${(dropper.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((done) => dropper.close(() => done())));

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CairnError);
  return (error as CairnError).code;
}

// One client, two transports: node:http (cairn/client) and fetch (cairn/browser, here Node's own fetch).
describe.each([
  { transport: 'node:http', open: connect },
  { transport: 'fetch', open: connectOverFetch },
])('remote client transport errors ($transport)', ({ open: connect }) => {
  it('reports a server that is not there as UNAVAILABLE', async () => {
    const port = (dropper.address() as AddressInfo).port;
    const closed = connect({ url: `http://127.0.0.1:${port === 65535 ? 65534 : port + 1}`, token: 't' });
    expect(await codeOf(closed.append({ session: 'ss_00000000000000000000000000', kind: 'x' }))).toBe(
      'UNAVAILABLE',
    );
  });

  it('reports a write whose connection broke after sending as IN_DOUBT, a read as UNAVAILABLE', async () => {
    const client = connect({ url: dropperUrl, token: 't' });
    expect(await codeOf(client.append({ session: 'ss_00000000000000000000000000', kind: 'x' }))).toBe(
      'IN_DOUBT',
    );
    expect(await codeOf(client.getSession({ session: 'ss_00000000000000000000000000' }))).toBe('UNAVAILABLE');
  });
});
