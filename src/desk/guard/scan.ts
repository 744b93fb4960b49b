/**
 * The content scanner: every byte of every file, in windows.
 *
 * A window is a piece of a file plus a look-ahead into the next piece (the
 * chunker hands both over without copying); a secret shorter than the
 * look-ahead is always wholly inside one window. Each window is decoded when
 * it is UTF-16/UTF-32 text (a byte-order mark at the start of the file, or a
 * regular NUL pattern), run through the keyword prefilter, and the rules the
 * prefilter selected run over the window — over all of it for text, over the
 * neighbourhood of each keyword for binary windows (a NUL in the first
 * 8 KiB), where one keyword per few megabytes turns up by chance.
 *
 * Findings name rule, path, line and confidence, never the value.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import type { Automaton } from './automaton.js';
import { bomEncoding, decodeUnits, nulPatternEncoding, type TextEncoding, unitSize } from './decode.js';
import { type Confidence, confidenceOf, OWN_RULES, type Span } from './rules.js';
import { MAX_VIEW_DEPTH, mapSpan, viewsOf } from './views.js';

/** What became of the entry a finding is about. */
export type FindingAction = 'withheld' | 'redacted' | 'kept';

/** One secret found: which rule, where, how sure, what was done. `line` is 1-based, 0 for a finding on the path alone. */
export interface SecretFinding {
  rule: string;
  path: string;
  line: number;
  confidence: Confidence;
  action: FindingAction;
  /** Git history findings: the object holding the secret, a commit and path it appears under (where git could tell). */
  object?: string;
  commit?: string;
  inPath?: string;
}

/** Bytes of the next window each window also scans; secrets longer than this may straddle two windows. */
export { LOOKAHEAD } from '../chunker.js';

const BINARY_SNIFF_BYTES = 8192;
const REGION_BEFORE = 4096;
const REGION_AFTER = 16 * 1024;
/** Binary windows up to this size are scanned whole when keywords hit. */
const WHOLE_BINARY = 64 * 1024;
/** Bytes a credential is made of, in a binary window: printable ASCII, tab and line breaks. */
const TEXT_BYTE = new Uint8Array(256).map((_, b) =>
  (b >= 0x20 && b <= 0x7e) || b === 9 || b === 10 || b === 13 ? 1 : 0,
);
/** Runs of text bytes shorter than this hold no credential a rule reports (the shortest are about 10 bytes). */
const MIN_TEXT_RUN = 8;

/** The keyword prefilter over secretlint's rules and ours, and secretlint itself. */
interface Scanner {
  automaton: Automaton;
  /** How many of the automaton's rules are secretlint's (ours follow). */
  secretlintCount: number;
  secretlintSpans: typeof import('./secretlint.js').secretlintSpans;
}
let scanner: Scanner | null = null;

/** Made at the first scan: a process that never scans (a `cairn session ls`) never loads secretlint. */
async function loadScanner(): Promise<Scanner> {
  const [{ buildAutomaton }, { SECRETLINT_KEYWORDS, SECRETLINT_RULES, secretlintSpans }] = await Promise.all([
    import('./automaton.js'),
    import('./secretlint.js'),
  ]);
  scanner ??= {
    automaton: buildAutomaton([...SECRETLINT_KEYWORDS, ...OWN_RULES.map((r) => r.keywords)]),
    secretlintCount: SECRETLINT_RULES.length,
    secretlintSpans,
  };
  return scanner;
}

/** Spans of secrets in one view (one byte per character), offsets into the view, confidence set. */
export async function scanView(view: Buffer, path: string, binary: boolean): Promise<Span[]> {
  const { automaton, secretlintCount, secretlintSpans } = scanner ?? (await loadScanner());
  const hits = automaton.scan(view);
  if (hits.rules.length === 0) return [];
  const regions: [number, number][] = [];
  if (!binary || hits.overflow || view.length <= WHOLE_BINARY) regions.push([0, view.length]);
  else {
    for (const p of hits.positions) {
      // A credential is text: the rules run over the run of text bytes the keyword lies in, when
      // it is long enough to hold one. Keywords that turn up by chance in binary bytes sit in runs
      // of a few bytes, so they cost nothing more.
      let start = p - 1;
      const floor = Math.max(0, p - REGION_BEFORE);
      while (start > floor && TEXT_BYTE[view[start - 1] as number] === 1) start--;
      let end = p;
      const ceiling = Math.min(view.length, p + REGION_AFTER);
      while (end < ceiling && TEXT_BYTE[view[end] as number] === 1) end++;
      if (end - start < MIN_TEXT_RUN) continue;
      const last = regions[regions.length - 1];
      if (last && start <= last[1]) last[1] = Math.max(last[1], end);
      else regions.push([start, end]);
    }
  }
  if (regions.length === 0) return [];
  const lint = hits.rules.filter((r) => r < secretlintCount);
  const own = hits.rules.filter((r) => r >= secretlintCount).map((r) => OWN_RULES[r - secretlintCount]!);
  const spans: Span[] = [];
  for (const [start, end] of regions) {
    // In a binary window a byte of 0x80 and up is not a letter: read as latin1 it would be (é, ß, …),
    // and a rule's "no letter before the token" would miss a token that such a byte precedes.
    const latin1 = view.toString('latin1', start, end);
    const text = binary ? latin1.replace(/[\x80-\xff]/g, '\x00') : latin1;
    const found = [...(lint.length > 0 ? await secretlintSpans(path, text, lint) : [])];
    for (const rule of own) found.push(...rule.find(text));
    for (const span of found) {
      const value = text.slice(span.start, span.end);
      spans.push({
        rule: span.rule,
        start: span.start + start,
        end: span.end + start,
        confidence: confidenceOf(span, value, path),
      });
    }
  }
  return spans;
}

/**
 * {@link scanView}, and for text the same over its derived views (lines
 * joined, base64/hex decoded, hidden characters normalised; views.ts), their
 * spans mapped back onto the view's bytes.
 */
export async function scanText(view: Buffer, path: string, binary: boolean, depth = 0): Promise<Span[]> {
  const spans = await scanView(view, path, binary);
  if (binary || depth >= MAX_VIEW_DEPTH) return spans;
  for (const derived of viewsOf(view.toString('latin1'))) {
    for (const span of await scanText(Buffer.from(derived.text, 'latin1'), path, false, depth + 1)) {
      const mapped = mapSpan(derived, span);
      if (mapped) spans.push(mapped);
    }
  }
  return spans;
}

export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_SNIFF_BYTES).indexOf(0) !== -1;
}

// ---- binary key formats ---------------------------------------------------------

const OID_PKCS7_DATA = Buffer.from('06092a864886f70d010701', 'hex');
const OID_PBES2 = Buffer.from('06092a864886f70d01050d', 'hex');
const OID_PBE_SHA1 = Buffer.from('060a2a864886f70d010c01', 'hex');

/** The length of a DER SEQUENCE header at the start, or 0. */
function sequenceHeader(bytes: Uint8Array): number {
  if (bytes[0] !== 0x30) return 0;
  const b = bytes[1] ?? 0;
  return b < 0x80 ? 2 : b === 0x81 ? 3 : b === 0x82 ? 4 : b === 0x83 ? 5 : 0;
}

/**
 * DER-encoded private keys recognised by content: PKCS#12 (version 3 and
 * PKCS#7 data), encrypted PKCS#8, and PKCS#1 / PKCS#8 / SEC1 keys that parse.
 */
export async function binaryKeyRule(bytes: Uint8Array): Promise<string | null> {
  const header = sequenceHeader(bytes);
  if (header === 0 || bytes.length < 64) return null;
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 64));
  if (
    head[header] === 0x02 &&
    head[header + 1] === 0x01 &&
    head[header + 2] === 0x03 &&
    head.includes(OID_PKCS7_DATA)
  )
    return 'cairn:pkcs12';
  if (head.includes(OID_PBES2) || head.includes(OID_PBE_SHA1)) return 'cairn:pkcs8-encrypted';
  if (bytes.length > 16384) return null;
  const { createPrivateKey } = await import('node:crypto');
  const der = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (const type of ['pkcs8', 'pkcs1', 'sec1'] as const) {
    try {
      createPrivateKey({ key: der, format: 'der', type });
      return `cairn:der-private-key`;
    } catch {
      // not this type
    }
  }
  return null;
}

// ---- streaming ------------------------------------------------------------------

export interface StreamScanOptions {
  /** Line number of a byte offset (1-based), for findings; 0 when unknown. */
  lineAt?: (offset: number) => number;
}

/**
 * Scans one file window by window, in order. `feed` returns false as soon as
 * anything is found: the caller stops storing the file.
 */
export class StreamScan {
  readonly findings: SecretFinding[] = [];
  /** Spans found, in file offsets (redaction needs them). */
  readonly spans: Span[] = [];
  private encoding: TextEncoding | null = null;
  private bom = 0;
  private readonly seen = new Set<string>();
  /** True when the content is decoded text: spans then do not map to stored bytes one to one. */
  decoded = false;

  constructor(
    private readonly path: string,
    private readonly options: StreamScanOptions = {},
  ) {}

  /** Scans `window` (this piece of the file, then look-ahead) found at `offset` of the file. */
  async feed(window: Buffer, offset: number): Promise<boolean> {
    if (offset === 0) {
      const rule = await binaryKeyRule(window);
      if (rule) {
        this.add({ rule, start: 0, end: window.length, confidence: 'high' }, 0);
        return false;
      }
      const bom = bomEncoding(window);
      // Text without a NUL in its first bytes cannot be UTF-16/32 ASCII: skip the pattern count.
      this.encoding = bom?.encoding ?? (looksBinary(window) ? nulPatternEncoding(window) : null);
      this.bom = bom?.bom ?? 0;
      this.decoded = this.encoding !== null;
    }
    if (this.encoding !== null) {
      const unit = unitSize(this.encoding);
      const skip = offset === 0 ? this.bom : (unit - ((offset - this.bom) % unit)) % unit;
      const text = decodeUnits(window.subarray(skip), this.encoding);
      for (const span of await scanText(text, this.path, false)) {
        this.add(span, offset + skip + span.start * unit, offset + skip + span.end * unit);
      }
    } else {
      for (const span of await scanText(window, this.path, looksBinary(window))) {
        this.add(span, offset + span.start);
      }
    }
    return this.findings.length === 0;
  }

  private add(span: Span, start: number, end = start + (span.end - span.start)): void {
    const key = `${span.rule}@${start}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.spans.push({ rule: span.rule, start, end, confidence: span.confidence });
    this.findings.push({
      rule: span.rule,
      path: this.path,
      line: this.options.lineAt?.(start) ?? 0,
      confidence: span.confidence ?? 'high',
      action: 'withheld',
    });
  }
}

/** What a scan of one whole file (a file that fits one chunk) found: the findings, their spans, and whether the text was decoded. */
export interface WholeScan {
  findings: SecretFinding[];
  spans: Span[];
  decoded: boolean;
}

/** Scans one whole file's bytes (line numbers counted in them): the same scan on either thread. */
export async function scanWhole(path: string, bytes: Buffer): Promise<WholeScan> {
  const scan = new StreamScan(path, { lineAt: (o) => lineIn(bytes, o) });
  await scan.feed(bytes, 0);
  return { findings: scan.findings, spans: scan.spans, decoded: scan.decoded };
}

/** Line (1-based) of `offset` in `bytes`. */
export function lineIn(bytes: Uint8Array, offset: number): number {
  let line = 1;
  for (let i = bytes.indexOf(10); i !== -1 && i < offset; i = bytes.indexOf(10, i + 1)) line++;
  return line;
}

const FILL = 0x78; // 'x': valid inside any string literal, YAML scalar or comment; line breaks are kept.

/** A copy of `bytes` with every span overwritten (line breaks kept), the same length. */
export function redact(bytes: Uint8Array, spans: readonly Span[]): Buffer {
  const out = Buffer.from(bytes);
  for (const { start, end } of spans) {
    for (let i = start; i < end && i < out.length; i++) if (out[i] !== 10 && out[i] !== 13) out[i] = FILL;
  }
  return out;
}

/**
 * Line numbers (1-based) of byte offsets in a file on disk, for findings in
 * large files: read only when there is a finding, and forward from the last
 * offset asked (findings come in order), so many findings cost one pass.
 */
export function lineCounter(abs: string): (offset: number) => number {
  let position = 0;
  let line = 1;
  return (offset) => {
    if (offset < position) {
      position = 0;
      line = 1;
    }
    const buffer = Buffer.allocUnsafe(Math.min(1024 * 1024, Math.max(1, offset - position)));
    const fd = openSync(abs, 'r');
    try {
      while (position < offset) {
        const n = readSync(fd, buffer, 0, Math.min(buffer.length, offset - position), position);
        if (n === 0) break;
        for (let i = buffer.indexOf(10); i !== -1 && i < n; i = buffer.indexOf(10, i + 1)) line++;
        position += n;
      }
    } finally {
      closeSync(fd);
    }
    return line;
  };
}
