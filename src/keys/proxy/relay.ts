import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline, type Readable } from 'node:stream';
import zlib from 'node:zlib';
import { EchoGuard, type EchoHit, type SecretForms } from './echo-scanner.js';
import { responseHeaderAllowed } from './headers.js';

/**
 * Passes an upstream's answer to the agent: headers by allow-list, each
 * value and the body scanned for the injected secret (`SecretForms`). A
 * body is held (up to `holdBytes`) before the status line is sent, so an
 * echo found in it — the usual case, a JSON answer — becomes a typed JSON
 * error and nothing of the answer reaches the agent; past that the body
 * streams, with the scanner's window held back, and an echo found later
 * cuts the connection mid-body (the agent's client sees an incomplete
 * answer, never the secret). A compressed body is decompressed first:
 * compression would hide an echo from the scanner.
 */
export const DEFAULT_HOLD_BYTES = 64 * 1024;

export interface RelayContext {
  method: string;
  /** The credential's extra headers. */
  extra: ReadonlySet<string>;
  forms: SecretForms;
  holdBytes: number;
  /** Audits an echo (awaited before the agent gets its error). */
  onLeak(detail: {
    where: 'header' | 'body';
    form: string;
    headers?: string[];
    bytesSent?: number;
  }): Promise<void>;
  /** Answers with a typed JSON error (headers not sent yet). */
  answer(status: number, code: string, message: string, data: Record<string, unknown>): void;
}

const DECODERS: Record<string, () => zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress> = {
  gzip: () => zlib.createGunzip(),
  'x-gzip': () => zlib.createGunzip(),
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress(),
};

export function relayResponse(up: IncomingMessage, res: ServerResponse, ctx: RelayContext): Promise<void> {
  const status = up.statusCode ?? 502;
  const out: Record<string, string | string[]> = {};
  const echoed: string[] = [];
  for (const [name, value] of Object.entries(up.headers)) {
    if (value === undefined || !responseHeaderAllowed(name, ctx.extra)) continue;
    if (ctx.forms.find(Array.isArray(value) ? value.join('\n') : value)) {
      echoed.push(name);
      continue;
    }
    out[name] = value;
  }
  const noBody = ctx.method === 'HEAD' || status === 204 || status === 304 || status < 200;
  return (async () => {
    if (echoed.length > 0) await ctx.onLeak({ where: 'header', form: 'header', headers: echoed });
    if (noBody) {
      up.resume();
      res.writeHead(status, out);
      res.end();
      return;
    }
    const encoding = String(up.headers['content-encoding'] ?? 'identity')
      .trim()
      .toLowerCase();
    let source: Readable = up;
    if (encoding !== 'identity' && encoding !== '') {
      const decoder = DECODERS[encoding];
      if (!decoder) {
        up.destroy();
        ctx.answer(
          502,
          'UNAVAILABLE',
          `the upstream answered in content-encoding ${encoding.slice(0, 40)}, which the proxy cannot scan: nothing of it was passed on`,
          { rule: 'encoding' },
        );
        return;
      }
      const decoded = decoder();
      pipeline(up, decoded, () => {});
      source = decoded;
    }
    delete out['content-length'];
    await streamScanned(source, up, res, status, out, ctx);
  })();
}

function streamScanned(
  source: Readable,
  up: IncomingMessage,
  res: ServerResponse,
  status: number,
  out: Record<string, string | string[]>,
  ctx: RelayContext,
): Promise<void> {
  return new Promise<void>((resolve) => {
    const guard = new EchoGuard(ctx.forms);
    let held: Buffer[] = [];
    let heldBytes = 0;
    let streaming = false;
    let sent = 0;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      resolve();
    };
    const leak = (hit: EchoHit) => {
      done = true;
      source.destroy();
      up.destroy();
      void ctx
        .onLeak({ where: 'body', form: hit.form, bytesSent: sent })
        .catch(() => {})
        .finally(() => {
          if (res.headersSent) res.destroy();
          else
            ctx.answer(
              502,
              'UNAVAILABLE',
              `the upstream's answer held the injected credential (${hit.form}): it was withheld and the event audited as keys.leak; nothing of the answer reached you`,
              { rule: 'secret_echo', form: hit.form },
            );
          resolve();
        });
    };
    const send = (bytes: Buffer) => {
      if (bytes.length === 0) return;
      sent += bytes.length;
      if (!res.write(bytes)) source.pause();
    };
    source.on('data', (chunk: Buffer) => {
      if (done) return;
      const safe = guard.write(chunk);
      if (!Buffer.isBuffer(safe)) {
        leak(safe);
        return;
      }
      if (streaming) {
        send(safe);
        return;
      }
      if (safe.length > 0) held.push(safe);
      heldBytes += safe.length;
      if (heldBytes >= ctx.holdBytes) {
        streaming = true;
        res.writeHead(status, out);
        const parts = held;
        held = [];
        for (const part of parts) send(part);
      }
    });
    res.on('drain', () => source.resume());
    source.on('end', () => {
      if (done) return;
      const rest = guard.end();
      if (streaming) {
        sent += rest.length;
        res.end(rest);
      } else {
        const body = Buffer.concat([...held, rest]);
        res.writeHead(status, { ...out, 'content-length': String(body.length) });
        res.end(body);
      }
      finish();
    });
    source.on('error', (error: Error) => {
      if (done) return;
      done = true;
      up.destroy();
      if (res.headersSent) res.destroy();
      else
        ctx.answer(502, 'UNAVAILABLE', `the upstream's answer broke off: ${error.message}`, {
          rule: 'upstream',
        });
      resolve();
    });
    res.on('close', () => {
      if (!res.writableFinished) {
        source.destroy();
        up.destroy();
      }
      finish();
    });
  });
}
