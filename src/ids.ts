import { invalidArgument } from './errors.js';

/**
 * Identifiers are `<prefix>_<time><random>` in Crockford base32: sortable by
 * creation time, 80 random bits, safe in URLs and file names.
 */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const POOL_SIZE = 4096;
// Web Crypto (global in Node 20 and in browsers): this module, the contract's, loads no `node:*`.
const pool = new Uint8Array(POOL_SIZE);
let poolOffset = POOL_SIZE;

/** Random bytes from a pooled buffer: one getrandom call per 4 KiB, not per id. */
function pooledRandom(size: number): Uint8Array {
  if (poolOffset + size > POOL_SIZE) {
    globalThis.crypto.getRandomValues(pool);
    poolOffset = 0;
  }
  const out = pool.subarray(poolOffset, poolOffset + size);
  poolOffset += size;
  return out;
}

const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

/** `bytes` random bytes as lowercase hex (salts). */
export function randomHex(bytes: number): string {
  let out = '';
  for (const b of pooledRandom(bytes)) out += HEX[b];
  return out;
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

function encodeRandom(bytes: Uint8Array): string {
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
  memory: 'mr',
  artifact: 'af',
  erasure: 'er',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

/**
 * An id of one kind, as a type: `ws_…` is a WorkspaceId and no SessionId, so
 * passing one where the other belongs does not compile. Ids Cairn returns
 * carry their kind; an id from elsewhere (a command line, a JSON document)
 * gets it from the schema that validates it at the edge.
 */
export type IdOf<K extends IdKind> = `${(typeof ID_PREFIXES)[K]}_${string}`;
export type SessionId = IdOf<'session'>;
export type EventId = IdOf<'event'>;
export type WorkspaceId = IdOf<'workspace'>;
export type SnapshotId = IdOf<'snapshot'>;
export type MemoryId = IdOf<'memory'>;
export type ArtifactId = IdOf<'artifact'>;

/** What an id with this prefix looks like: the prefix, `_`, 26 lowercase letters and digits. */
export function idPattern(prefix: string): RegExp {
  return new RegExp(`^${prefix}_[0-9a-z]{26}$`);
}

export function idMessage(prefix: string): string {
  return `expected an id like ${prefix}_ followed by 26 lowercase letters and digits, as Cairn returned it`;
}

/**
 * Text from outside (a command line) checked to be an id of one kind and
 * typed so; INVALID_ARGUMENT naming `what` otherwise.
 */
export function parseId<K extends IdKind>(kind: K, text: string, what: string = kind): IdOf<K> {
  const prefix = ID_PREFIXES[kind];
  if (!idPattern(prefix).test(text))
    throw invalidArgument(`${what} "${text}": ${idMessage(prefix)}`, { field: what });
  return text as IdOf<K>;
}

/** parseId for an optional value: undefined stays undefined. */
export function optionalId<K extends IdKind>(kind: K, text: string | undefined, what: string = kind) {
  return text === undefined ? undefined : parseId(kind, text, what);
}

export function newId<K extends IdKind>(kind: K, now: number = Date.now()): IdOf<K> {
  return `${ID_PREFIXES[kind]}_${encodeTime(now)}${encodeRandom(pooledRandom(10))}`;
}

/** A secret of 32 random bytes, base32 (52 characters). */
export function newSecret(): string {
  return encodeRandom(globalThis.crypto.getRandomValues(new Uint8Array(32)));
}
