/**
 * Text that is not UTF-8: UTF-16 and UTF-32, little or big endian, told by a
 * byte-order mark or by a regular pattern of NUL bytes (ASCII text in UTF-16
 * has a NUL in every other byte). Such text is decoded before it is scanned,
 * so a credential cannot hide behind an encoding. What a scanner sees is one
 * byte per character (characters past U+00FF become a space): the rules look
 * for ASCII shapes, and positions stay simple.
 */

export type TextEncoding = 'utf16le' | 'utf16be' | 'utf32le' | 'utf32be';

const SAMPLE = 4096;

/** The encoding a byte-order mark at the start of `bytes` names, with the mark's length. */
export function bomEncoding(bytes: Uint8Array): { encoding: TextEncoding; bom: number } | null {
  const [a, b, c, d] = [bytes[0], bytes[1], bytes[2], bytes[3]];
  if (a === 0xff && b === 0xfe && c === 0 && d === 0) return { encoding: 'utf32le', bom: 4 };
  if (a === 0 && b === 0 && c === 0xfe && d === 0xff) return { encoding: 'utf32be', bom: 4 };
  if (a === 0xff && b === 0xfe) return { encoding: 'utf16le', bom: 2 };
  if (a === 0xfe && b === 0xff) return { encoding: 'utf16be', bom: 2 };
  return null;
}

/**
 * The encoding a regular NUL pattern in the first bytes suggests, or null:
 * at least 90% of the bytes at the positions that are zero for ASCII text in
 * that encoding are NUL, and under 10% elsewhere.
 */
export function nulPatternEncoding(bytes: Uint8Array): TextEncoding | null {
  const n = Math.min(bytes.length, SAMPLE) & ~3;
  if (n < 16) return null;
  const zeros = [0, 0, 0, 0];
  for (let i = 0; i < n; i++) if (bytes[i] === 0) zeros[i & 3]!++;
  const q = n / 4;
  const hi = (k: number) => zeros[k]! >= 0.9 * q;
  const lo = (k: number) => zeros[k]! < 0.1 * q;
  if (lo(0) && hi(1) && hi(2) && hi(3)) return 'utf32le';
  if (hi(0) && hi(1) && hi(2) && lo(3)) return 'utf32be';
  if (lo(0) && hi(1) && lo(2) && hi(3)) return 'utf16le';
  if (hi(0) && lo(1) && hi(2) && lo(3)) return 'utf16be';
  return null;
}

export function unitSize(encoding: TextEncoding): number {
  return encoding.startsWith('utf32') ? 4 : 2;
}

/**
 * Decodes whole code units of `bytes` (trailing partial units are dropped)
 * into one byte per character. `bytes` must start on a code-unit boundary.
 */
export function decodeUnits(bytes: Uint8Array, encoding: TextEncoding): Buffer {
  const unit = unitSize(encoding);
  const count = Math.floor(bytes.length / unit);
  const out = Buffer.allocUnsafe(count);
  const little = encoding.endsWith('le');
  for (let i = 0, o = 0; o < count; i += unit, o++) {
    let code: number;
    if (unit === 2) code = little ? bytes[i]! | (bytes[i + 1]! << 8) : (bytes[i]! << 8) | bytes[i + 1]!;
    else
      code = little
        ? (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24)) >>> 0
        : ((bytes[i]! << 24) | (bytes[i + 1]! << 16) | (bytes[i + 2]! << 8) | bytes[i + 3]!) >>> 0;
    out[o] = code <= 0xff ? code : 0x20;
  }
  return out;
}
