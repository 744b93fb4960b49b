import { type CairnError, unavailable } from '../errors.js';

/**
 * Byte strings in one body (the desk's object reads over HTTP): each a u32
 * big-endian length, then its bytes.
 */
export function frameBytes(parts: readonly Buffer[]): Buffer {
  const out: Buffer[] = [];
  for (const part of parts) {
    const length = Buffer.allocUnsafe(4);
    length.writeUInt32BE(part.length);
    out.push(length, part);
  }
  return Buffer.concat(out);
}

/** The byte strings of a framed body; a body cut short is UNAVAILABLE (ask again). */
export function unframeBytes(body: Buffer): Buffer[] {
  const parts: Buffer[] = [];
  let at = 0;
  while (at < body.length) {
    if (at + 4 > body.length) throw cutShort(body.length);
    const length = body.readUInt32BE(at);
    if (at + 4 + length > body.length) throw cutShort(body.length);
    parts.push(body.subarray(at + 4, at + 4 + length));
    at += 4 + length;
  }
  return parts;
}

function cutShort(size: number): CairnError {
  return unavailable(`the answer was cut short after ${size} bytes: ask again`, { size });
}
