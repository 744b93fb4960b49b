/**
 * The guard for text that is not a file: memory records and event payloads.
 * The same rules, decoders (UTF-16/32) and views (lines joined, base64/hex
 * decoded, zero-width and full-width characters normalised) as a workspace
 * file's content, through the same StreamScan. Memory refuses what
 * {@link scanText} finds; the log stores a payload with each credential
 * replaced by a typed placeholder ({@link redactJson}) and counts them.
 *
 * Large texts are scanned in slices with a turn of the event loop between
 * them, so one caller's big batch does not stall everybody else's requests.
 */
import type { Span } from './rules.js';
import { lineIn, type SecretFinding, StreamScan } from './scan.js';

/** Bytes scanned before the event loop gets a turn. */
const SLICE_BYTES = 256 * 1024;
/** Bytes each slice also scans of the next, so a credential across a cut is whole in one slice. */
const SLICE_OVERLAP = 4096;

const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Bytes scanned since the event loop last had a turn, across calls: many small texts (a batch) yield too. */
let sinceTurn = 0;

/** Scans `bytes` as one file named `label`, slice by slice; the scan's findings and spans. */
async function scanBytes(label: string, bytes: Buffer): Promise<StreamScan> {
  const scan = new StreamScan(label, { lineAt: (o) => lineIn(bytes, o) });
  if (bytes.length <= SLICE_BYTES) {
    sinceTurn += bytes.length;
    if (sinceTurn >= SLICE_BYTES) {
      sinceTurn = 0;
      await yieldTurn();
    }
    await scan.feed(bytes, 0);
    return scan;
  }
  for (let offset = 0; offset < bytes.length; offset += SLICE_BYTES) {
    // Copies: a slice of the caller's buffer may be handed on (a scan never keeps a view into it).
    await scan.feed(Buffer.from(bytes.subarray(offset, offset + SLICE_BYTES + SLICE_OVERLAP)), offset);
    await yieldTurn();
  }
  return scan;
}

/**
 * Findings in a text (memory's text or data): rule, line and confidence,
 * never the value. `label` names it in findings (no path rule applies).
 */
export async function scanText(text: string, label = 'text'): Promise<SecretFinding[]> {
  return (await scanBytes(label, Buffer.from(text, 'utf8'))).findings;
}

/** One credential replaced in a JSON value: the rule, and where (a JSON Pointer to the string). */
export interface Redaction {
  rule: string;
  pointer: string;
}

/** What a credential is replaced by: `[redacted:github]`, `[redacted:jwt]`. */
export function placeholder(rule: string): string {
  return `[redacted:${rule.replace(/^(?:secretlint|cairn):/, '').replace(/[^A-Za-z0-9._-]+/g, '-')}]`;
}

/** Strings shorter than this hold no credential a rule reports. */
const MIN_SECRET = 8;

/** `text` with every span (UTF-8 byte offsets) replaced by its placeholder; spans merged where they overlap. */
function replaceSpans(bytes: Buffer, spans: readonly Span[]): string {
  const sorted = [...spans].sort((a, b) => a.start - b.start || b.end - a.end);
  const parts: string[] = [];
  let at = 0;
  for (const span of sorted) {
    if (span.end <= at) continue;
    const start = Math.max(span.start, at);
    parts.push(bytes.toString('utf8', at, start), placeholder(span.rule));
    at = span.end;
  }
  parts.push(bytes.toString('utf8', at));
  return parts.join('');
}

const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * A copy of a JSON value with each credential in its strings (keys
 * included) replaced by a typed placeholder, and the list of what was
 * replaced (rule and JSON Pointer, never the value). Values without a
 * finding are returned as they are.
 */
export async function redactJson(value: unknown): Promise<{ value: unknown; redactions: Redaction[] }> {
  const redactions: Redaction[] = [];
  const redactString = async (text: string, pointer: string): Promise<string> => {
    if (text.length < MIN_SECRET) return text;
    const bytes = Buffer.from(text, 'utf8');
    const scan = await scanBytes('payload', bytes);
    if (scan.findings.length === 0) return text;
    for (const span of scan.spans) redactions.push({ rule: span.rule, pointer });
    // A finding whose span the scan could not place (a DER key at the start) replaces the whole string.
    const spans =
      scan.spans.length > 0 ? scan.spans : [{ rule: scan.findings[0]!.rule, start: 0, end: bytes.length }];
    return replaceSpans(bytes, spans);
  };
  const walk = async (v: unknown, pointer: string): Promise<unknown> => {
    if (typeof v === 'string') return redactString(v, pointer);
    if (Array.isArray(v)) {
      const out: unknown[] = [];
      for (let i = 0; i < v.length; i++) out.push(await walk(v[i], `${pointer}/${i}`));
      return out;
    }
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, inner] of Object.entries(v)) {
        const before = redactions.length;
        let name = await redactString(key, '');
        while (name !== key && Object.hasOwn(out, name)) name = `${name}~`;
        // Pointers name the redacted key: a pointer never repeats a credential.
        const at = `${pointer}/${escapePointer(name)}`;
        for (let i = before; i < redactions.length; i++) (redactions[i] as Redaction).pointer = at;
        // Defined, not assigned: a key `__proto__` stays a key.
        Object.defineProperty(out, name, {
          value: await walk(inner, at),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    }
    return v;
  };
  const out = await walk(value, '');
  return { value: redactions.length > 0 ? out : value, redactions };
}

/**
 * An event payload as the log stores it: `encode` (which validates: size,
 * depth) runs first, then credentials are replaced by placeholders and the
 * value encoded again when any was; `redacted` is how many, for the audit entry.
 */
export async function redactEncoded(
  value: unknown,
  encode: (value: unknown) => string,
): Promise<{ payload: string; redacted: number }> {
  const payload = encode(value);
  const { value: clean, redactions } = await redactJson(value);
  return { payload: redactions.length > 0 ? encode(clean) : payload, redacted: redactions.length };
}
