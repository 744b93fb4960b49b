import * as crypto from 'node:crypto';
import canonicalizeImport from 'canonicalize';

// canonicalize ships CommonJS with a default export; under NodeNext it arrives as a namespace.
const canonicalizeFn = canonicalizeImport as unknown as (value: unknown) => string | undefined;

/** RFC 8785 canonical JSON text of a value. */
export function canonicalJson(value: unknown): string {
  const text = canonicalizeFn(value);
  if (text === undefined) throw new TypeError('value has no JSON representation');
  return text;
}

/** One-shot hashing (Node ≥ 20.12) skips a Hash object per call: most of the cost of hashing a short string. */
const oneShot = (
  crypto as { hash?: (algorithm: string, data: string | Uint8Array, encoding: 'hex') => string }
).hash;

export function sha256Hex(data: string | Uint8Array): string {
  return oneShot ? oneShot('sha256', data, 'hex') : crypto.createHash('sha256').update(data).digest('hex');
}

/**
 * Digest of a fixed-shape record given as a tuple of strings, integers and
 * nulls. For such an array `JSON.stringify` already produces the RFC 8785
 * form (no keys to sort, ECMAScript number and string serialisation), so the
 * hot path skips the general canonicaliser.
 */
export function tupleDigest(values: ReadonlyArray<string | number | null>): string {
  return sha256Hex(JSON.stringify(values));
}
