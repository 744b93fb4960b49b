/**
 * A `content` answer over HTTP (stored bytes: an artifact's): the range a
 * GET asks for — its `Range` header, or the query's `offset` and `length`,
 * or all of it — read through the operation a window at a time and streamed,
 * so a download of any size holds one window, with the bytes' type, digest
 * (ETag) and place (206, Content-Range) as headers.
 */
import type { Context } from 'hono';
import { wholeNumberText } from '../contract/json-schema.js';
import { CONTENT_OFFSET_HEADER, CONTENT_SIZE_HEADER, type ContentAnswer } from '../contract/spec.js';
import { corrupt, invalidArgument } from '../errors.js';
import type { Env } from './body.js';

/** Bytes read through the operation per call while an answer streams. */
export const CONTENT_WINDOW = 16 * 1024 * 1024;

/**
 * `Range: bytes=FIRST-LAST` or `bytes=FIRST-` (RFC 9110 §14.1.2) as a
 * `content` answer's `offset` and `length`; one range only, no suffix. A
 * last byte past the end is clamped to it.
 */
export function rangeOf(c: Context<Env>): { offset?: number; length?: number } {
  const header = c.req.header('range');
  if (header === undefined) return {};
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  const [first, last] = [match?.[1] ?? '', match?.[2] ?? ''];
  if (!match || (first === '' && last === ''))
    throw invalidArgument(
      `Range ${header.slice(0, 80)}: ask for one range, bytes=FIRST-LAST or bytes=FIRST-`,
      {
        field: 'range',
      },
    );
  if (first === '')
    throw invalidArgument('a suffix range (bytes=-N) is not supported: ask for bytes=FIRST-LAST', {
      field: 'range',
    });
  const offset = wholeNumberText(first, 'the Range header', 'offset');
  if (last === '') return { offset };
  const end = wholeNumberText(last, 'the Range header', 'length');
  if (end < offset)
    throw invalidArgument(`Range ${header}: its last byte is before its first`, { field: 'range' });
  return { offset, length: end - offset + 1 };
}

/**
 * Answers `input`'s range (`offset`, `length`; all of it when left out):
 * the first window read before anything is sent (so a refusal is a typed
 * error), the rest as the client takes it. Each window must be of the same
 * stored bytes (the digest): if they were removed or replaced meanwhile the
 * answer is cut off, never spliced.
 */
export async function contentAnswer(
  c: Context<Env>,
  input: Record<string, unknown>,
  read: (window: { offset: number; length: number }) => Promise<unknown>,
): Promise<Response> {
  const from = typeof input.offset === 'number' ? input.offset : 0;
  const wanted = typeof input.length === 'number' ? input.length : Number.POSITIVE_INFINITY;
  const first = (await read({ offset: from, length: Math.min(wanted, CONTENT_WINDOW) })) as ContentAnswer;
  const { offset, size, mediaType, digest } = first;
  const end = Math.min(size, offset + Math.min(wanted, size - offset));
  const headers: Record<string, string> = {
    'content-type': mediaType,
    etag: `"${digest}"`,
    'accept-ranges': 'bytes',
    [CONTENT_OFFSET_HEADER]: String(offset),
    [CONTENT_SIZE_HEADER]: String(size),
    'cache-control': 'private, no-cache',
    'x-content-type-options': 'nosniff',
    // Stored bytes are never a page of this origin: a browser downloads them, runs nothing in them.
    'content-disposition': 'attachment',
    'content-security-policy': 'sandbox',
    'content-length': String(end - offset),
  };
  // A 206 must carry a Content-Range, and none can say an empty range: an empty part is a 200, its place in cairn-offset.
  const partial = end > offset && !(offset === 0 && end === size);
  if (partial) headers['content-range'] = `bytes ${offset}-${end - 1}/${size}`;
  const status = partial ? 206 : 200;
  if (offset + first.bytes.length >= end)
    return c.body(first.bytes as Uint8Array<ArrayBuffer>, status, headers);
  let at = offset + first.bytes.length;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(first.bytes);
    },
    async pull(controller) {
      try {
        const next = (await read({
          offset: at,
          length: Math.min(CONTENT_WINDOW, end - at),
        })) as ContentAnswer;
        if (next.digest !== digest || next.bytes.length === 0)
          throw corrupt(`the stored bytes changed while they were being sent (at byte ${at}): ask again`, {
            digest,
          });
        controller.enqueue(next.bytes);
        at += next.bytes.length;
        if (at >= end) controller.close();
      } catch (error) {
        // The status and headers are gone: the client sees the body cut short of its Content-Length.
        controller.error(error);
      }
    },
  });
  return c.body(body, status, headers);
}
