/**
 * Signed checkpoints as C2SP writes them, so tools that read transparency
 * logs read ours: a `tlog-checkpoint` body (origin line, decimal tree size,
 * base64 root hash, then Cairn's one extension line: the time it was
 * signed) wrapped in a `signed-note`, an Ed25519 signature line
 * `— <name> <base64(key id ‖ signature)>` where the key id is the first four
 * bytes of SHA-256(name ‖ 0x0A ‖ 0x01 ‖ public key). docs/design/audit.md
 * shows one, byte for byte.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  type KeyObject,
  randomBytes,
  sign,
  verify,
} from 'node:crypto';
import { invalidArgument } from '../errors.js';

const ED25519 = 0x01;
/** PKCS #8 of an Ed25519 private key, before its 32-byte seed (RFC 8410). */
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
/** SubjectPublicKeyInfo of an Ed25519 public key, before its 32 bytes (RFC 8410). */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
export const SEED_BYTES = 32;

/** A key name as signed-note allows one: no whitespace, no `+`. */
const KEY_NAME = /^[\x21-\x2a\x2c-\x7e]{1,100}$/;

export class AuditKey {
  readonly publicKey: Buffer;
  /** The first four bytes of SHA-256(name ‖ 0x0A ‖ 0x01 ‖ public key). */
  readonly keyId: Buffer;
  private readonly privateKey: KeyObject;

  constructor(
    readonly name: string,
    seed: Buffer,
  ) {
    if (!KEY_NAME.test(name))
      throw invalidArgument(`an audit key name has no spaces or +: ${JSON.stringify(name)}`);
    if (seed.length !== SEED_BYTES) throw invalidArgument(`an audit key's seed is ${SEED_BYTES} bytes`);
    this.privateKey = createPrivateKey({
      key: Buffer.concat([PKCS8_PREFIX, seed]),
      format: 'der',
      type: 'pkcs8',
    });
    this.publicKey = createPublicKey(this.privateKey).export({ format: 'der', type: 'spki' }).subarray(-32);
    this.keyId = keyIdOf(name, this.publicKey);
  }

  /** A new key, named for its public key ({@link AuditKey.of}). */
  static generate(): { key: AuditKey; seed: Buffer } {
    const seed = randomBytes(SEED_BYTES);
    return { key: AuditKey.of(seed), seed };
  }

  /** The key of a seed, named `cairn-audit-` and the first 8 hex digits of SHA-256(public key). */
  static of(seed: Buffer): AuditKey {
    const publicKey = new AuditKey('unnamed', seed).publicKey;
    return new AuditKey(
      `cairn-audit-${createHash('sha256').update(publicKey).digest('hex').slice(0, 8)}`,
      seed,
    );
  }

  /** The operator's key from the text of a key file or variable: its Ed25519 seed, 64 hex digits. */
  static parse(text: string, where: string): AuditKey {
    const trimmed = text.trim();
    if (!/^[0-9a-fA-F]{64}$/.test(trimmed))
      throw invalidArgument(
        `the audit key in ${where} is not an Ed25519 seed of 32 bytes as 64 hex digits: make one with \`openssl rand -hex 32\``,
        { where },
      );
    return AuditKey.of(Buffer.from(trimmed, 'hex'));
  }

  /** The note verifier key: `<name>+<key id, hex>+<base64(0x01 ‖ public key)>`. */
  get verifierKey(): string {
    return verifierKeyOf(this.name, this.publicKey);
  }

  /** `text` (a note body ending in a newline) with this key's signature line. */
  signNote(text: string): string {
    const signature = sign(null, Buffer.from(text, 'utf8'), this.privateKey);
    return `${text}\n— ${this.name} ${Buffer.concat([this.keyId, signature]).toString('base64')}\n`;
  }
}

export function keyIdOf(name: string, publicKey: Uint8Array): Buffer {
  return createHash('sha256')
    .update(`${name}\n`)
    .update(Uint8Array.of(ED25519))
    .update(publicKey)
    .digest()
    .subarray(0, 4);
}

export function verifierKeyOf(name: string, publicKey: Uint8Array): string {
  const encoded = Buffer.concat([Uint8Array.of(ED25519), publicKey]).toString('base64');
  return `${name}+${keyIdOf(name, publicKey).toString('hex')}+${encoded}`;
}

/** A checkpoint's body: origin, size, root (base64), and the time it was signed (ms since the epoch). */
export function checkpointBody(origin: string, size: number, root: Uint8Array, at: number): string {
  return `${origin}\n${size}\n${Buffer.from(root).toString('base64')}\ntime ${at}\n`;
}

/** Whether `note` is `body` signed by the Ed25519 key `publicKey` named `name` (one signature line). */
export function noteSignedBy(note: string, body: string, name: string, publicKey: Uint8Array): boolean {
  if (!note.startsWith(`${body}\n— ${name} `) || !note.endsWith('\n')) return false;
  const text = note.slice(body.length + name.length + 4, -1);
  const signed = Buffer.from(text, 'base64');
  if (signed.length !== 4 + 64 || signed.toString('base64') !== text) return false;
  if (!signed.subarray(0, 4).equals(keyIdOf(name, publicKey))) return false;
  const key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' });
  return verify(null, Buffer.from(body, 'utf8'), key, signed.subarray(4));
}
