/**
 * Finds an injected secret in what an upstream sends back, in the forms an
 * echo commonly takes: as is and in any letter case, hex (either case),
 * base64 and base64url at each of the three alignments the secret can have
 * inside a longer base64 stream (also MIME-style, broken into lines), a long
 * run of the secret (a masked message that cut off its end), and any of these
 * percent-encoded (once or twice, wholly or in part) or JSON-escaped
 * (`\uXXXX` for some or all characters, `\/`, `\r\n`).
 *
 * The text is canonicalised before it is searched: percent-escapes decoded
 * (twice), JSON string escapes decoded, line breaks between two characters
 * of a run cut out (so base64 broken into lines of any length, CRLF or LF,
 * is one run again), then, for the case-blind forms, lower-cased. A base64 stream that
 * holds the secret at byte offset k (mod 3) holds, from its character
 * ⌈8k/6⌉ on, the characters that depend only on the secret's bytes; those
 * cores are the base64 patterns (the method of "searching for a string in
 * base64 at any offset": encode the secret behind 0, 1 and 2 filler bytes
 * and keep the characters no filler bit reaches).
 *
 * A run is any stretch of the plain secret of at least
 * max(16, ⌈¾ × its length⌉) characters, in any case: a secret shorter than
 * 16 is found whole only, and a common prefix (`sk_live_`) never alone.
 * Every run of that length holds the secret's middle (the characters from
 * n − L to L), so one search for the middle and an extension around each
 * place it occurs finds every run.
 */
export type EchoForm = 'plain' | 'partial' | 'hex' | 'base64';
export interface EchoHit {
  form: EchoForm;
}

/** Shortest base64 core worth searching for: shorter ones would match innocent text. */
const MIN_CORE = 6;
/** Shortest run of a secret that counts as an echo of it. */
export const MIN_RUN = 16;

/** The base64 characters that depend only on `secret`'s bytes, at alignment `offset` (0, 1, 2). */
export function base64Core(secret: Buffer, offset: number): string {
  const padded = Buffer.concat([Buffer.alloc(offset), secret, Buffer.alloc(2)]);
  const text = padded.toString('base64');
  const first = Math.ceil((8 * offset) / 6);
  const end = Math.floor((8 * (offset + secret.length)) / 6);
  return text.slice(first, end);
}

/** How long a run of a secret of `length` characters must be to count: max(16, ⌈¾ length⌉). */
export function minRun(length: number): number {
  return Math.max(MIN_RUN, Math.ceil((3 * length) / 4));
}

const PERCENT = /%([0-9a-fA-F]{2})/g;
/** The JSON escapes that change what a secret looks like: `\uXXXX` (any case), `\/`, and line breaks. */
const JSON_ESCAPE = /\\(?:u([0-9a-fA-F]{4})|([/rnt]))/g;
const SIMPLE: Record<string, string> = { '/': '/', r: '\r', n: '\n', t: '\t' };
/** Characters of base64, base64url and hex runs (and of most secrets): a line break between two is cut. */
const RUN = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-')
  RUN[c.charCodeAt(0)] = 1;

function decodePercent(text: string): string {
  return text.replace(PERCENT, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

function decodeJson(text: string): string {
  return text.replace(JSON_ESCAPE, (_, hex: string | undefined, c: string | undefined) =>
    hex !== undefined ? String.fromCharCode(Number.parseInt(hex, 16)) : (SIMPLE[c as string] as string),
  );
}

/**
 * Joins runs broken into lines: a line break (LF or CRLF, then any spaces or
 * tabs, as MIME and folded text have them) between two run characters is
 * cut out. Other whitespace stays: text is not run together.
 */
function joinLines(text: string): string {
  let at = text.indexOf('\n');
  let out = '';
  let from = 0;
  while (at !== -1) {
    const start = at > 0 && text.charCodeAt(at - 1) === 13 ? at - 1 : at;
    if (start > 0 && RUN[text.charCodeAt(start - 1)] === 1) {
      let end = at + 1;
      while (end < text.length && (text.charCodeAt(end) === 32 || text.charCodeAt(end) === 9)) end++;
      if (RUN[text.charCodeAt(end)] === 1) {
        out += text.slice(from, start);
        from = end;
      }
    }
    at = text.indexOf('\n', at + 1);
  }
  return from === 0 ? text : out + text.slice(from);
}

/** The text as searched: percent-decoded twice, JSON-unescaped, runs broken into lines joined. */
export function canonical(text: string): string {
  let out = text;
  if (out.includes('%')) out = decodePercent(decodePercent(out));
  if (out.includes('\\')) out = decodeJson(out);
  return joinLines(out);
}

interface Run {
  /** The secret, lower-cased. */
  secret: string;
  /** Its middle, which every long enough run holds, and where that starts in it. */
  middle: string;
  middleAt: number;
  min: number;
}

export class SecretForms {
  /** Secrets shorter than MIN_RUN, lower-cased: found whole only. */
  private readonly whole: string[] = [];
  /** Secrets of MIN_RUN characters or more: found whole or as a long run. */
  private readonly runs: Run[] = [];
  /** Hex of each secret (lower case). */
  private readonly hex: string[] = [];
  /** Case-sensitive patterns: base64 and base64url cores. */
  private readonly exact: string[] = [];
  /**
   * How many bytes of a stream a match may span, encoded at its widest (hex
   * with each character a `\uXXXX` escape, or each byte percent-encoded
   * twice, plus line breaks): a scanner keeps this many bytes back across
   * chunk edges.
   */
  readonly window: number;

  constructor(secrets: readonly string[]) {
    let longest = 0;
    for (const secret of new Set(secrets)) {
      if (secret.length < 4) continue;
      const bytes = Buffer.from(secret, 'latin1');
      longest = Math.max(longest, bytes.length);
      const lower = secret.toLowerCase();
      if (lower.length < MIN_RUN) this.whole.push(lower);
      else {
        const min = minRun(lower.length);
        const middleAt = lower.length - min;
        this.runs.push({ secret: lower, middle: lower.slice(middleAt, min), middleAt, min });
      }
      this.hex.push(bytes.toString('hex'));
      for (let offset = 0; offset < 3; offset++) {
        const core = base64Core(bytes, offset);
        if (core.length < MIN_CORE) continue;
        this.exact.push(core);
        const url = core.replace(/\+/g, '-').replace(/\//g, '_');
        if (url !== core) this.exact.push(url);
      }
    }
    this.window = longest === 0 ? 0 : 12 * longest + 64;
  }

  get empty(): boolean {
    return this.hex.length === 0;
  }

  /** The first form of a secret found in `data`, or undefined. */
  find(data: Buffer | string): EchoHit | undefined {
    if (this.hex.length === 0) return undefined;
    const text = canonical(typeof data === 'string' ? data : data.toString('latin1'));
    for (const p of this.exact) if (text.includes(p)) return { form: 'base64' };
    const lower = text.toLowerCase();
    for (const run of this.runs) {
      const length = longestRun(lower, run);
      if (length >= run.min) return { form: length === run.secret.length ? 'plain' : 'partial' };
    }
    for (const p of this.whole) if (lower.includes(p)) return { form: 'plain' };
    for (const p of this.hex) if (lower.includes(p)) return { form: 'hex' };
    return undefined;
  }
}

/** The longest stretch of `run.secret` in `text` that holds its middle (0 when none does). */
function longestRun(text: string, run: Run): number {
  const { secret, middle, middleAt } = run;
  let best = 0;
  for (let at = text.indexOf(middle); at !== -1; at = text.indexOf(middle, at + 1)) {
    let left = 0;
    while (left < middleAt && at - left - 1 >= 0 && text[at - left - 1] === secret[middleAt - left - 1])
      left++;
    let right = middleAt + middle.length;
    let t = at + middle.length;
    while (right < secret.length && t < text.length && text[t] === secret[right]) {
      right++;
      t++;
    }
    best = Math.max(best, left + (right - middleAt));
  }
  return best;
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
