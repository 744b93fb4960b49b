import { randomFillSync } from 'node:crypto';

/**
 * Identifiers are `<prefix>_<time><random>` in Crockford base32: sortable by
 * creation time, 80 random bits, safe in URLs and file names.
 */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let poolOffset = POOL_SIZE;

/** Random bytes from a pooled buffer: one getrandom call per 4 KiB, not per id. */
function pooledRandom(size: number): Buffer {
  if (poolOffset + size > POOL_SIZE) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const out = pool.subarray(poolOffset, poolOffset + size);
  poolOffset += size;
  return out;
}

/** `bytes` random bytes as lowercase hex (salts). */
export function randomHex(bytes: number): string {
  return pooledRandom(bytes).toString('hex');
}

function encodeTime(ms: number): string {
  let out = '';
  let t = ms;
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[t % 32] + out;
    t = Math.floor(t / 32);
  }
  return out;
}

function encodeRandom(bytes: Buffer): string {
  let out = '';
  let acc = 0;
  let bits = 0;
  for (const byte of bytes) {
    acc = (acc << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(acc >> bits) & 31];
    }
  }
  if (bits > 0) out += ALPHABET[(acc << (5 - bits)) & 31];
  return out;
}

export const ID_PREFIXES = {
  tenant: 'tn',
  principal: 'pr',
  token: 'tk',
  session: 'ss',
  branch: 'br',
  event: 'ev',
  line: 'ln',
  workspace: 'ws',
  snapshot: 'sn',
  credential: 'cr',
  grant: 'gr',
  handle: 'hd',
  approval: 'ap',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

export function newId(kind: IdKind, now: number = Date.now()): string {
  return `${ID_PREFIXES[kind]}_${encodeTime(now)}${encodeRandom(pooledRandom(10))}`;
}

/** A secret of 32 random bytes, base32 (52 characters). */
export function newSecret(): string {
  const bytes = Buffer.alloc(32);
  randomFillSync(bytes);
  return encodeRandom(bytes);
}
