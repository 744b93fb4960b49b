/**
 * Finds an injected secret in what an upstream sends back, in the forms an
 * echo commonly takes: as is and in any letter case, hex (either case),
 * base64 and base64url at each of the three alignments the secret can have
 * inside a longer base64 stream, and any of these percent-encoded (once or
 * twice, wholly or in part).
 *
 * The text is canonicalised before it is searched: percent-escapes decoded
 * (twice), then, for the case-blind forms, lower-cased. A base64 stream that
 * holds the secret at byte offset k (mod 3) holds, from its character
 * ⌈8k/6⌉ on, the characters that depend only on the secret's bytes; those
 * cores are the base64 patterns (the method of "searching for a string in
 * base64 at any offset": encode the secret behind 0, 1 and 2 filler bytes
 * and keep the characters no filler bit reaches).
 */
export type EchoForm = 'plain' | 'hex' | 'base64';
export interface EchoHit {
  form: EchoForm;
}

/** Shortest base64 core worth searching for: shorter ones would match innocent text. */
const MIN_CORE = 6;

/** The base64 characters that depend only on `secret`'s bytes, at alignment `offset` (0, 1, 2). */
export function base64Core(secret: Buffer, offset: number): string {
  const padded = Buffer.concat([Buffer.alloc(offset), secret, Buffer.alloc(2)]);
  const text = padded.toString('base64');
  const first = Math.ceil((8 * offset) / 6);
  const end = Math.floor((8 * (offset + secret.length)) / 6);
  return text.slice(first, end);
}

function decodePercent(text: string): string {
  return text.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) =>
    String.fromCharCode(Number.parseInt(hex, 16)),
  );
}

export class SecretForms {
  /** Case-blind patterns (lower case): the secret itself and its hex. */
  private readonly folded: string[] = [];
  /** Case-sensitive patterns: base64 and base64url cores. */
  private readonly exact: string[] = [];
  /**
   * How many bytes of a stream a match may span, encoded at its widest (hex,
   * each byte of it percent-encoded twice): a scanner keeps this many bytes
   * back across chunk edges.
   */
  readonly window: number;

  constructor(secrets: readonly string[]) {
    let longest = 0;
    for (const secret of new Set(secrets)) {
      if (secret.length < 4) continue;
      const bytes = Buffer.from(secret, 'latin1');
      longest = Math.max(longest, bytes.length);
      this.folded.push(secret.toLowerCase(), bytes.toString('hex'));
      for (let offset = 0; offset < 3; offset++) {
        const core = base64Core(bytes, offset);
        if (core.length < MIN_CORE) continue;
        this.exact.push(core);
        const url = core.replace(/\+/g, '-').replace(/\//g, '_');
        if (url !== core) this.exact.push(url);
      }
    }
    this.window = longest === 0 ? 0 : 10 * longest + 16;
  }

  get empty(): boolean {
    return this.folded.length === 0;
  }

  /** The first form of a secret found in `data`, or undefined. */
  find(data: Buffer | string): EchoHit | undefined {
    if (this.folded.length === 0) return undefined;
    let text = typeof data === 'string' ? data : data.toString('latin1');
    if (text.includes('%')) text = decodePercent(decodePercent(text));
    for (const p of this.exact) if (text.includes(p)) return { form: 'base64' };
    const lower = text.toLowerCase();
    for (let i = 0; i < this.folded.length; i++)
      if (lower.includes(this.folded[i] as string)) return { form: i % 2 === 0 ? 'plain' : 'hex' };
    return undefined;
  }
}

/**
 * A streaming scan with bounded memory: each chunk is searched together
 * with the last `window` bytes before it, and those bytes are held back
 * until the next chunk (or the end) shows they start no match. So no part of
 * a secret split across chunks is ever passed on.
 */
export class EchoGuard {
  private carry: Buffer = Buffer.alloc(0);
  constructor(private readonly forms: SecretForms) {}

  /** The bytes now safe to pass on, or the hit that ends the stream. */
  write(chunk: Buffer): Buffer | EchoHit {
    const data = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk;
    const hit = this.forms.find(data);
    if (hit) return hit;
    const keep = this.forms.window;
    if (data.length <= keep) {
      this.carry = data;
      return Buffer.alloc(0);
    }
    // A copy, so the held tail does not pin the whole chunk in memory.
    this.carry = Buffer.from(data.subarray(data.length - keep));
    return data.subarray(0, data.length - keep);
  }

  /** The bytes still held back, at the end of the stream (they were scanned with the last chunk). */
  end(): Buffer {
    const rest = this.carry;
    this.carry = Buffer.alloc(0);
    return rest;
  }
}
