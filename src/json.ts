import { CairnError, invalidArgument } from './errors.js';

/**
 * JSON text of a value, refusing what JSON cannot hold instead of quietly
 * rewriting it (`JSON.stringify` turns NaN into null and drops functions).
 * Properties set to `undefined` are left out, as JSON.stringify does.
 */
export function toJsonText(value: unknown, what: string): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value, (key, v: unknown) => {
      switch (typeof v) {
        case 'number':
          if (!Number.isFinite(v)) throw notJson(what, key, `the number ${v}`);
          return v;
        case 'bigint':
          throw notJson(what, key, 'a bigint');
        case 'function':
        case 'symbol':
          throw notJson(what, key, `a ${typeof v}`);
        default:
          return v;
      }
    });
  } catch (error) {
    if (error instanceof CairnError) throw error;
    throw invalidArgument(
      `${what} cannot be written as JSON (${(error as Error).message}): pass plain data`,
      {
        field: what,
      },
    );
  }
  return text ?? 'null';
}

function notJson(what: string, key: string, thing: string): CairnError {
  const where = key === '' ? what : `${what}.${key}`;
  return invalidArgument(`${where} is ${thing}, which JSON cannot hold: pass plain JSON data`, {
    field: what,
  });
}

const isDigit = (code: number) => code >= 48 && code <= 57;

/**
 * Whether `text` holds `length` digits in a row. Any such run covers one index
 * of every `length`-th, so only those are probed, and the run around a digit
 * measured: a few percent of the characters read (a regex reads them all:
 * 0.5 s on a 16 MiB body of short numbers).
 */
function hasDigitRun(text: string, length: number): boolean {
  for (let i = length - 1; i < text.length; i += length) {
    if (!isDigit(text.charCodeAt(i))) continue;
    let start = i;
    while (start > 0 && isDigit(text.charCodeAt(start - 1))) start--;
    let end = i + 1;
    while (end < text.length && end - start < length && isDigit(text.charCodeAt(end))) end++;
    if (end - start >= length) return true;
  }
  return false;
}

/**
 * The first integer literal in JSON text that a JavaScript number cannot
 * hold exactly (beyond ±2^53 − 1), or undefined. JSON.parse would round it
 * silently (9007199254740993 becomes …992); callers refuse it instead.
 * Strings are skipped; literals with a fraction or exponent are not integers.
 */
export function unsafeIntegerIn(text: string): string | undefined {
  // Most texts hold no run of 16 digits at all: a sparse probe decides, no tokenising.
  if (!hasDigitRun(text, 16)) return undefined;
  const token = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;
  for (let m = token.exec(text); m !== null; m = token.exec(text)) {
    const literal = m[0];
    if (literal.startsWith('"') || !/^-?\d+$/.test(literal)) continue;
    const digits = literal.replace(/^-?0*/, '');
    if (digits.length < 16) continue;
    if (
      BigInt(literal) > BigInt(Number.MAX_SAFE_INTEGER) ||
      BigInt(literal) < -BigInt(Number.MAX_SAFE_INTEGER)
    )
      return literal;
  }
  return undefined;
}

/** Refuses JSON text holding an integer a number cannot carry exactly; `what` names the input. */
export function refuseUnsafeIntegers(text: string, what: string): void {
  const literal = unsafeIntegerIn(text);
  if (literal === undefined) return;
  throw invalidArgument(
    `${what} holds the integer ${literal.length > 40 ? `${literal.slice(0, 40)}…` : literal}, beyond what JSON numbers carry exactly (±${Number.MAX_SAFE_INTEGER}): send it as a string`,
    { field: what },
  );
}
