/**
 * The names of what the redaction policy can list (docs/design/redaction.md):
 * kept apart from the detectors (pii.ts) so the contract loads no library.
 */
export const PII_KINDS = ['email', 'phone', 'card', 'iban'] as const;
export type PiiKind = (typeof PII_KINDS)[number];

/** United States SSN, United Kingdom National Insurance number, Spain's DNI. */
export const NATIONAL_ID_NAMES = ['us-ssn', 'uk-nino', 'es-dni'] as const;
export type NationalId = (typeof NATIONAL_ID_NAMES)[number];
