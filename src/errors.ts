/**
 * The closed set of error codes Cairn reports. Codes are stable strings: they
 * cross HTTP, MCP and the CLI unchanged, so callers may switch on them.
 */
export const ERROR_CODES = [
  'INVALID_ARGUMENT',
  'NOT_FOUND',
  'CONFLICT',
  'FORBIDDEN',
  'UNAUTHENTICATED',
  'PAYLOAD_TOO_LARGE',
  'QUOTA_EXCEEDED',
  'UNSUPPORTED_FORMAT',
  'CORRUPT',
  'UNAVAILABLE',
  'IN_DOUBT',
  'DIVERGED',
  'INTERNAL',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** HTTP status for each code; the server and the remote client share this table. */
export const HTTP_STATUS: Record<ErrorCode, number> = {
  INVALID_ARGUMENT: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  IN_DOUBT: 409,
  DIVERGED: 409,
  PAYLOAD_TOO_LARGE: 413,
  QUOTA_EXCEEDED: 507,
  UNSUPPORTED_FORMAT: 500,
  CORRUPT: 500,
  INTERNAL: 500,
  UNAVAILABLE: 503,
};

export type ErrorData = Record<string, unknown>;

export interface CairnErrorJSON {
  code: ErrorCode;
  message: string;
  data: ErrorData;
}

/** Every error Cairn raises on purpose. The message says what was wrong and what to do. */
export class CairnError extends Error {
  readonly code: ErrorCode;
  readonly data: ErrorData;

  constructor(code: ErrorCode, message: string, data: ErrorData = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CairnError';
    this.code = code;
    this.data = data;
  }

  toJSON(): CairnErrorJSON {
    return { code: this.code, message: this.message, data: this.data };
  }

  static fromJSON(json: CairnErrorJSON): CairnError {
    const code = (ERROR_CODES as readonly string[]).includes(json.code) ? json.code : 'INTERNAL';
    return new CairnError(code, json.message, json.data ?? {});
  }
}

export function isCairnError(value: unknown, code?: ErrorCode): value is CairnError {
  return value instanceof CairnError && (code === undefined || value.code === code);
}

/*
 * One constructor per code, below, is the only way src/ builds a CairnError
 * (besides CairnError.fromJSON, which rebuilds one from a wire body);
 * test/errors.test.ts keeps it so. Codes whose call sites agree on a shape of
 * data get that shape as a type; the rest take free data (ErrorData). Each
 * takes Error's options, for the failure underneath ({ cause }).
 */

/** What a NOT_FOUND made by notFound(resource, id) carries. */
export type NotFoundData = { resource: string; id: string };

/** A payload over a limit: the limit, in bytes. */
export type PayloadTooLargeData = { limit: number };

/** A tenant's quota: its limit and what it holds now, in bytes. */
export type QuotaExceededData = { limit: number; used: number };

/** A store written by a newer Cairn: its format version, and the newest this one reads. */
export type UnsupportedFormatData = { storeVersion: number; supportedVersion: number };

/** A replay that met other code: the step's position, its name in the journal and in the code. */
export type DivergedData = { position: number; journal: string; code: string; argsMatch: boolean };

/** The data each code carries. */
export interface ErrorDataMap {
  /** Often the input at fault: `field` (a schema field or query parameter) or `flag` (a CLI flag). */
  INVALID_ARGUMENT: ErrorData & { field?: string; flag?: string };
  NOT_FOUND: ErrorData;
  CONFLICT: ErrorData;
  /** Often who was refused what: `action` and `principal`. */
  FORBIDDEN: ErrorData & { action?: string; principal?: string };
  UNAUTHENTICATED: ErrorData;
  PAYLOAD_TOO_LARGE: PayloadTooLargeData;
  QUOTA_EXCEEDED: QuotaExceededData;
  UNSUPPORTED_FORMAT: UnsupportedFormatData;
  CORRUPT: ErrorData;
  UNAVAILABLE: ErrorData;
  IN_DOUBT: ErrorData;
  DIVERGED: DivergedData;
  INTERNAL: ErrorData;
}

export type ErrorDataOf<C extends ErrorCode> = ErrorDataMap[C];

/** Bad input: the message says what was wrong and what to give instead. */
export function invalidArgument(
  message: string,
  data: ErrorDataOf<'INVALID_ARGUMENT'> = {},
  options?: ErrorOptions,
): CairnError {
  return new CairnError('INVALID_ARGUMENT', message, data, options);
}

/**
 * Nothing by that name: notFound(resource, id) says so in the usual words, with
 * data {resource, id}; notFound(message, data) when those words do not fit.
 */
export function notFound(resource: string, id: string): CairnError;
export function notFound(
  message: string,
  data?: ErrorDataOf<'NOT_FOUND'>,
  options?: ErrorOptions,
): CairnError;
export function notFound(
  what: string,
  idOrData: string | ErrorDataOf<'NOT_FOUND'> = {},
  options?: ErrorOptions,
): CairnError {
  if (typeof idOrData === 'string') {
    const data: NotFoundData = { resource: what, id: idOrData };
    return new CairnError(
      'NOT_FOUND',
      `${what} ${idOrData} not found: check the id, and that it belongs to your tenant`,
      data,
    );
  }
  return new CairnError('NOT_FOUND', what, idOrData, options);
}

/** The state is not what the request assumed (taken name, moved head, decided approval). */
export function conflict(
  message: string,
  data: ErrorDataOf<'CONFLICT'> = {},
  options?: ErrorOptions,
): CairnError {
  return new CairnError('CONFLICT', message, data, options);
}

/** The caller is known but may not do this. */
export function forbidden(
  message: string,
  data: ErrorDataOf<'FORBIDDEN'> = {},
  options?: ErrorOptions,
): CairnError {
  return new CairnError('FORBIDDEN', message, data, options);
}

/** No caller could be established (no token, a bad one). */
export function unauthenticated(
  message: string,
  data: ErrorDataOf<'UNAUTHENTICATED'> = {},
  options?: ErrorOptions,
): CairnError {
  return new CairnError('UNAUTHENTICATED', message, data, options);
}

/** A body or payload over its limit. */
export function payloadTooLarge(
  message: string,
  data: ErrorDataOf<'PAYLOAD_TOO_LARGE'>,
  options?: ErrorOptions,
): CairnError {
  return new CairnError('PAYLOAD_TOO_LARGE', message, data, options);
}

/** A write that would take a tenant past its quota: nothing was stored. */
export function quotaExceeded(
  message: string,
  data: ErrorDataOf<'QUOTA_EXCEEDED'>,
  options?: ErrorOptions,
): CairnError {
  return new CairnError('QUOTA_EXCEEDED', message, data, options);
}

/** A store in a format this Cairn does not read. */
export function unsupportedFormat(
  message: string,
  data: ErrorDataOf<'UNSUPPORTED_FORMAT'>,
  options?: ErrorOptions,
): CairnError {
  return new CairnError('UNSUPPORTED_FORMAT', message, data, options);
}

/** Stored bytes that fail their own checks: the store is damaged. */
export function corrupt(
  message: string,
  data: ErrorDataOf<'CORRUPT'> = {},
  options?: ErrorOptions,
): CairnError {
  return new CairnError('CORRUPT', message, data, options);
}

/** Something needed is not there now (a closed store, a full disk, an unreachable server); retrying may help. */
export function unavailable(
  message: string,
  data: ErrorDataOf<'UNAVAILABLE'> = {},
  options?: ErrorOptions,
): CairnError {
  return new CairnError('UNAVAILABLE', message, data, options);
}

/** A write that may or may not have happened: read back before retrying. */
export function inDoubt(
  message: string,
  data: ErrorDataOf<'IN_DOUBT'> = {},
  options?: ErrorOptions,
): CairnError {
  return new CairnError('IN_DOUBT', message, data, options);
}

/** A replay that no longer matches what was recorded. */
export function diverged(message: string, data: ErrorDataOf<'DIVERGED'>, options?: ErrorOptions): CairnError {
  return new CairnError('DIVERGED', message, data, options);
}

/** A bug in Cairn, or a failure it cannot name better. */
export function internal(
  message: string,
  data: ErrorDataOf<'INTERNAL'> = {},
  options?: ErrorOptions,
): CairnError {
  return new CairnError('INTERNAL', message, data, options);
}
