/**
 * Derived views of a text window: the same rules run again over what the
 * text says once undone — credentials split across adjacent lines (joined),
 * base64 and hex values (decoded: Kubernetes `data:` fields,
 * `.dockerconfigjson`), and zero-width or full-width characters (normalised).
 * A span found in a view maps back to the whole stretch of the window it came
 * from, so redacting it covers every byte the credential was made of.
 *
 * Views stay small: only the stretches that can hold a credential are put in
 * one (a join needs token characters on both sides of the line break, a
 * decode needs a run long enough to hold one and must yield text).
 */
import type { Span } from './rules.js';

/** A derived text (one byte per character) and, per character, the stretch of the window it stands for. */
export interface View {
  text: string;
  at: Int32Array;
  to: Int32Array;
}

/** Characters a token, key or base64/hex value is made of. */
const RUN = new Uint8Array(256);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+/=.')
  RUN[c.charCodeAt(0)] = 1;
/** How far a join looks back or ahead for the piece of a credential on each line. */
const JOIN_REACH = 1024;
const JOIN_MIN_SIDE = 4;
const JOIN_MIN_TOTAL = 16;
/** Runs shorter than this decode to fewer than 15 bytes: no credential the rules report. */
const BASE64_MIN = 20;
const HEX_MIN = 32;
/** A decoded value is text when at least this share of its bytes are printable ASCII or line breaks. */
const PRINTABLE_SHARE = 0.9;
/** Views of views (a base64 value inside a decoded one: a `.dockerconfigjson`'s `auth`). */
export const MAX_VIEW_DEPTH = 2;

const EMPTY_CHARS = new Uint8Array(0);
const EMPTY_OFFSETS = new Int32Array(0);

/**
 * Builds a view in typed arrays (a view of a large window can be megabytes
 * long). They are made at the first character: most texts (an event's
 * payload strings) have no view at all, and allocating for each was most of
 * the cost of guarding a short string.
 */
class ViewBuilder {
  private chars = EMPTY_CHARS;
  private starts = EMPTY_OFFSETS;
  private ends = EMPTY_OFFSETS;
  private n = 0;
  /** Characters copied from the window at `offset`. */
  push(text: string, offset: number): void {
    for (let i = 0; i < text.length; i++) this.add(text.charCodeAt(i), offset + i, offset + i + 1);
  }
  /** Characters that all stand for the stretch [start, end) (a decoded value's run, a full-width character). */
  pushAt(text: string, start: number, end: number): void {
    for (let i = 0; i < text.length; i++) this.add(text.charCodeAt(i), start, end);
  }
  private add(char: number, start: number, end: number): void {
    if (this.n === this.chars.length) {
      const grow = <T extends Uint8Array | Int32Array>(a: T, make: (n: number) => T): T => {
        const b = make(Math.max(256, a.length * 2));
        b.set(a);
        return b;
      };
      this.chars = grow(this.chars, (n) => new Uint8Array(n));
      this.starts = grow(this.starts, (n) => new Int32Array(n));
      this.ends = grow(this.ends, (n) => new Int32Array(n));
    }
    this.chars[this.n] = char;
    this.starts[this.n] = start;
    this.ends[this.n] = end;
    this.n++;
  }
  separate(): void {
    if (this.n > 0) this.add(0x0a, -1, -1);
  }
  build(): View | null {
    if (this.n === 0) return null;
    return {
      text: Buffer.from(this.chars.buffer, 0, this.n).toString('latin1'),
      at: this.starts.subarray(0, this.n),
      to: this.ends.subarray(0, this.n),
    };
  }
}

/** Whitespace, quotes, concatenation operators and continuations that glue the pieces of a split value. */
const isBlank = (c: number) => c === 0x20 || c === 0x09;
const isQuote = (c: number) => c === 0x22 || c === 0x27 || c === 0x60;

function hasDigit(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) return true;
  }
  return false;
}

/**
 * The stretches where a line break (with the quotes, `+`/`.`, `\` and
 * indentation around it) cuts a run of token characters, joined: `'ghp_ab' +
 * \n 'cd…'`, a YAML folded value, base64 wrapped at 76 columns.
 */
export function joinedView(text: string): View | null {
  const out = new ViewBuilder();
  let chainEnd = -1; // end of the last right piece pushed, in window offsets
  for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', nl + 1)) {
    // Left piece: back over \r, blanks, a continuation or operator and a closing quote.
    let a = nl;
    if (a > 0 && text.charCodeAt(a - 1) === 0x0d) a--;
    while (a > 0 && isBlank(text.charCodeAt(a - 1))) a--;
    if (a > 0 && text.charCodeAt(a - 1) === 0x5c) a--; // backslash continuation
    while (a > 0 && isBlank(text.charCodeAt(a - 1))) a--;
    if (a > 0 && (text.charCodeAt(a - 1) === 0x2b || text.charCodeAt(a - 1) === 0x2e)) {
      a--;
      while (a > 0 && isBlank(text.charCodeAt(a - 1))) a--;
    }
    if (a > 0 && isQuote(text.charCodeAt(a - 1))) a--;
    let s = a;
    const floor = Math.max(0, a - JOIN_REACH);
    while (s > floor && RUN[text.charCodeAt(s - 1)] === 1) s--;
    if (a - s < JOIN_MIN_SIDE) continue;
    // Right piece: over indentation, an operator, an opening quote.
    let b = nl + 1;
    while (b < text.length && isBlank(text.charCodeAt(b))) b++;
    if (b < text.length && (text.charCodeAt(b) === 0x2b || text.charCodeAt(b) === 0x2e)) {
      b++;
      while (b < text.length && isBlank(text.charCodeAt(b))) b++;
    }
    if (b < text.length && isQuote(text.charCodeAt(b))) b++;
    let e = b;
    const ceiling = Math.min(text.length, b + JOIN_REACH);
    while (e < ceiling && RUN[text.charCodeAt(e)] === 1) e++;
    if (e - b < JOIN_MIN_SIDE || a - s + (e - b) < JOIN_MIN_TOTAL) continue;
    // Random values hold digits; identifiers and prose wrapped across lines mostly do not.
    if (!hasDigit(text, s, a) && !hasDigit(text, b, e)) continue;
    if (s < chainEnd) {
      // The left piece is the previous join's right piece (a line that is one run): the chain goes on.
      if (a > chainEnd) out.push(text.slice(chainEnd, a), chainEnd);
    } else {
      out.separate();
      out.push(text.slice(s, a), s);
    }
    out.push(text.slice(b, e), b);
    chainEnd = e;
  }
  return out.build();
}

function printable(bytes: Uint8Array): boolean {
  if (bytes.length === 0) return false;
  let ok = 0;
  for (const b of bytes) if ((b >= 0x20 && b <= 0x7e) || b === 9 || b === 10 || b === 13) ok++;
  return ok >= PRINTABLE_SHARE * bytes.length;
}

/** Base64 characters (standard and URL-safe); hex digits are a subset. */
const B64 = new Uint8Array(256);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-')
  B64[c.charCodeAt(0)] = 1;
const HEX = new Uint8Array(256);
for (const c of '0123456789abcdefABCDEF') HEX[c.charCodeAt(0)] = 1;

/** The decoded bytes of a base64 or hex run when they are text, else null. */
function decodeRun(run: string, hex: boolean): Buffer | null {
  if (hex && run.length >= HEX_MIN && run.length % 2 === 0) {
    if (printable(Buffer.from(run.slice(0, 64), 'hex'))) {
      const decoded = Buffer.from(run, 'hex');
      if (printable(decoded)) return decoded;
    }
  }
  // A look at the head first: most runs (paths, identifiers, binary data) are not base64 of text.
  const body = run.replace(/=+$/, '');
  if (!printable(Buffer.from(body.slice(0, 64 - (Math.min(64, body.length) % 4)), 'base64'))) return null;
  const decoded = Buffer.from(body, 'base64');
  return printable(decoded) ? decoded : null;
}

/**
 * Base64 (standard or URL-safe) and hex values that decode to text, each
 * decoded in place of its run; every decoded character stands for the whole run.
 */
export function decodedView(text: string): View | null {
  const out = new ViewBuilder();
  const n = text.length;
  for (let i = 0; i < n; ) {
    if (B64[text.charCodeAt(i)] !== 1) {
      i++;
      continue;
    }
    const start = i;
    let hex = true;
    while (i < n && B64[text.charCodeAt(i)] === 1) {
      if (HEX[text.charCodeAt(i)] !== 1) hex = false;
      i++;
    }
    let end = i;
    while (end < n && end - i < 2 && text.charCodeAt(end) === 0x3d) end++; // '=' padding
    if (end - start < BASE64_MIN) continue;
    const decoded = decodeRun(text.slice(start, end), hex);
    if (decoded === null) continue;
    out.separate();
    out.pushAt(decoded.toString('latin1'), start, end);
  }
  return out.build();
}

/** UTF-8 zero-width characters (U+200B–U+200D, U+2060, U+FEFF) and full-width forms (U+FF01–U+FF5E). */
const HIDDEN = /\xe2\x80[\x8b-\x8d]|\xe2\x81\xa0|\xef\xbb\xbf|\xef\xbc[\x81-\xbf]|\xef\xbd[\x80-\x9e]/;

/** Stretches of token characters and hidden ones (UTF-8 read as latin1). */
const HIDDEN_STRETCH =
  /(?:[A-Za-z0-9_+/=.-]|\xe2\x80[\x8b-\x8d]|\xe2\x81\xa0|\xef\xbb\xbf|\xef\xbc[\x81-\xbf]|\xef\xbd[\x80-\x9e])+/g;

/**
 * The stretches of the window (UTF-8 read as latin1) where zero-width
 * characters sit among token characters or full-width ones spell one: the
 * zero-width dropped, the full-width made ASCII. Text without any costs one
 * search.
 */
export function normalizedView(text: string): View | null {
  if (!HIDDEN.test(text)) return null;
  const out = new ViewBuilder();
  HIDDEN_STRETCH.lastIndex = 0;
  for (let m = HIDDEN_STRETCH.exec(text); m !== null; m = HIDDEN_STRETCH.exec(text)) {
    const stretch = m[0];
    if (stretch.length < JOIN_MIN_TOTAL || !HIDDEN.test(stretch)) continue;
    out.separate();
    for (let k = 0; k < stretch.length; ) {
      const i = m.index + k;
      const b0 = stretch.charCodeAt(k);
      if (b0 === 0xe2 || b0 === 0xef) {
        const cp =
          ((b0 & 0x0f) << 12) |
          ((stretch.charCodeAt(k + 1) & 0x3f) << 6) |
          (stretch.charCodeAt(k + 2) & 0x3f);
        if (cp >= 0xff01 && cp <= 0xff5e) out.pushAt(String.fromCharCode(cp - 0xfee0), i, i + 3);
        k += 3; // a zero-width character is dropped
        continue;
      }
      out.push(stretch[k] as string, i);
      k++;
    }
  }
  return out.build();
}

/** The views of one text window, at most one of each kind. */
export function viewsOf(text: string): View[] {
  const views: View[] = [];
  for (const make of [joinedView, decodedView, normalizedView]) {
    const view = make(text);
    if (view) views.push(view);
  }
  return views;
}

/** A span found in `view`, in window offsets: every stretch its characters stand for. */
export function mapSpan(view: View, span: Span): Span | null {
  let start = Number.MAX_SAFE_INTEGER;
  let end = -1;
  for (let i = span.start; i < span.end && i < view.text.length; i++) {
    const at = view.at[i] as number;
    if (at < 0) continue;
    start = Math.min(start, at);
    end = Math.max(end, view.to[i] as number);
  }
  return end < 0 ? null : { ...span, start, end };
}
