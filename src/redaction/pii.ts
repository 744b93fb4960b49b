/**
 * Finding personal data in text and replacing it with typed placeholders
 * (docs/design/redaction.md): e-mail addresses, phone numbers
 * (libphonenumber-js), card numbers that pass the Luhn check, IBANs that
 * pass their mod-97 check (ibantools), and the national ids an operator
 * names. What was replaced is counted per kind; the values are never kept.
 */
import { electronicFormatIBAN, isValidIBAN } from 'ibantools';
import { type CountryCode, findPhoneNumbersInText } from 'libphonenumber-js';

import type { NationalId, PiiKind } from './kinds.js';

export type { NationalId, PiiKind };

/** Whether `digits` (only digits) passes the Luhn check. */
function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

const DNI_LETTERS = 'TRWAGMYFPDXBNJZSQVHLCKE';

/** The national ids an operator may list: a pattern, and a check where the id has one. */
export const NATIONAL_IDS: Record<NationalId, { pattern: RegExp; check: (id: string) => boolean }> = {
  /** United States Social Security number, written AAA-GG-SSSS (the ranges never issued left out). */
  'us-ssn': { pattern: /\b(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}\b/g, check: () => true },
  /** United Kingdom National Insurance number: two letters, six digits, a letter A–D. */
  'uk-nino': {
    pattern: /\b(?!BG|GB|NK|KN|TN|NT|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b/g,
    check: () => true,
  },
  /** Spain's DNI: eight digits and the letter their remainder by 23 names. */
  'es-dni': {
    pattern: /\b\d{8}-?[A-Z]\b/g,
    check: (m: string) => DNI_LETTERS[Number(m.slice(0, 8)) % 23] === m.at(-1),
  },
};

/** What a tenant's policy redacts (the stored policy when it is on). */
export interface PiiRules {
  kinds: readonly PiiKind[];
  nationalIds: readonly NationalId[];
  /** The region numbers without a `+` country code are read in (ISO 3166 alpha-2); without one, only `+` numbers are found. */
  phoneRegion?: string;
}

/** Counts per kind of what was replaced. */
export type PiiCounts = Record<string, number>;

/** The audit payload's field for what was redacted: none when nothing was. */
export function piiField(counts: PiiCounts): { pii?: PiiCounts } {
  return Object.keys(counts).length > 0 ? { pii: counts } : {};
}

/** Counts added kind by kind. */
export function addPii(into: PiiCounts, more: PiiCounts): PiiCounts {
  for (const [kind, n] of Object.entries(more)) into[kind] = (into[kind] ?? 0) + n;
  return into;
}

export const placeholderOf = (kind: string) => `[pii:${kind}]`;

const EMAIL = /[\p{L}\p{N}._%+-]{1,64}@[\p{L}\p{N}-]{1,63}(?:\.[\p{L}\p{N}-]{1,63}){0,8}\.\p{L}{2,24}/gu;
/** A run of 12–19 digits, single spaces or dashes between, not inside a longer run of digits. */
const CARD = /(?<!\d)\d(?:[ -]?\d){11,18}(?!\d)/g;
/** An IBAN as people write it: country, check digits, then groups; trimmed to the longest valid prefix. */
const IBAN = /\b[A-Za-z]{2}\d{2}(?: ?[A-Za-z0-9]){11,30}/g;
/** How many candidates that are not phone numbers libphonenumber-js tries in one string before it gives up. */
const PHONE_TRIES = 64;

/**
 * Card numbers by issuer: the first digits and the lengths each issues
 * (Visa, Mastercard, American Express, Discover, JCB, Diners Club,
 * UnionPay, Maestro's 50 and 56–58). A digit run with no issuer's prefix
 * and length — a timestamp, a 19-digit id — is not a card, whatever Luhn
 * says.
 */
const ISSUERS: readonly [RegExp, readonly number[]][] = [
  [/^4/, [13, 16, 19]],
  [/^(5[1-5]|2[2-7])/, [16]],
  [/^3[47]/, [15]],
  [/^(6011|65|64[4-9])/, [16, 17, 18, 19]],
  [/^35(2[89]|[3-8])/, [16, 17, 18, 19]],
  [/^3(0[0-5]|[689])/, [14, 15, 16, 17, 18, 19]],
  [/^62/, [16, 17, 18, 19]],
  [/^5[06-8]/, [12, 13, 14, 15, 16, 17, 18, 19]],
];

const isCard = (digits: string) =>
  luhn(digits) && ISSUERS.some(([prefix, lengths]) => prefix.test(digits) && lengths.includes(digits.length));

/**
 * The longest start of `match` (digits with separators) whose digits are a
 * card number: a card followed by its expiry or code (`4111 1111 1111 1111
 * 123`) is found without them.
 */
function cardPrefix(match: string): string | null {
  const ends: number[] = [];
  for (let i = 0; i < match.length; i++) if (match[i] !== ' ' && match[i] !== '-') ends.push(i + 1);
  const digits = match.replace(/[ -]/g, '');
  for (let n = digits.length; n >= 12; n--)
    if (isCard(digits.slice(0, n))) return match.slice(0, ends[n - 1]);
  return null;
}

function replaceAll(
  text: string,
  pattern: RegExp,
  kind: string,
  counts: PiiCounts,
  accept: (match: string) => string | null,
): string {
  return text.replace(pattern, (match) => {
    const found = accept(match);
    if (found === null) return match;
    counts[kind] = (counts[kind] ?? 0) + 1;
    return placeholderOf(kind) + match.slice(found.length);
  });
}

/** The longest start of `match` that is a valid IBAN, or null. */
function ibanPrefix(match: string): string | null {
  for (let end = match.length; end >= 15; end--) {
    const candidate = match.slice(0, end);
    if (candidate.endsWith(' ')) continue;
    const compact = electronicFormatIBAN(candidate.toUpperCase());
    if (compact && isValidIBAN(compact)) return candidate;
  }
  return null;
}

/** `text` with what `rules` name replaced by placeholders; adds to `counts`. */
export function redactText(text: string, rules: PiiRules, counts: PiiCounts): string {
  let out = text;
  const on = new Set(rules.kinds);
  // Numbers with checks first, so a card is not taken for a phone number.
  if (on.has('iban')) out = replaceAll(out, IBAN, 'iban', counts, ibanPrefix);
  if (on.has('card')) out = replaceAll(out, CARD, 'card', counts, cardPrefix);
  for (const id of rules.nationalIds) {
    const { pattern, check } = NATIONAL_IDS[id];
    out = replaceAll(out, pattern, id, counts, (m) => (check(m.replace(/[ -]/g, '')) ? m : null));
  }
  if (on.has('email')) out = replaceAll(out, EMAIL, 'email', counts, (m) => m);
  if (on.has('phone')) {
    const found = findPhoneNumbersInText(out, {
      ...(rules.phoneRegion ? { defaultCountry: rules.phoneRegion as CountryCode } : {}),
      maxTries: PHONE_TRIES,
    } as Parameters<typeof findPhoneNumbersInText>[1]);
    for (const f of [...found].reverse()) {
      // A decimal number (`115165.794479`) is not a phone number, whatever its digits.
      if (/^\d+\.\d+$/.test(out.slice(f.startsAt, f.endsAt))) continue;
      out = `${out.slice(0, f.startsAt)}${placeholderOf('phone')}${out.slice(f.endsAt)}`;
      counts.phone = (counts.phone ?? 0) + 1;
    }
  }
  return out;
}

/**
 * A copy of a JSON value with what `rules` name replaced in every string,
 * keys included (a key made equal to another by its placeholders gets `~`
 * added), and the counts per kind.
 */
export function redactValue(value: unknown, rules: PiiRules): { value: unknown; counts: PiiCounts } {
  const counts: PiiCounts = {};
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return redactText(v, rules, counts);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, inner] of Object.entries(v)) {
        let name = redactText(key, rules, counts);
        while (name !== key && Object.hasOwn(out, name)) name = `${name}~`;
        // Defined, not assigned: a key `__proto__` stays a key.
        Object.defineProperty(out, name, {
          value: walk(inner),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    }
    return v;
  };
  return { value: walk(value), counts };
}
