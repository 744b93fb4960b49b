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

/** Bad input: the message says what was wrong and what to give instead. */
export function invalidArgument(message: string, data: ErrorData = {}): CairnError {
  return new CairnError('INVALID_ARGUMENT', message, data);
}

export function notFound(what: string, id: string): CairnError {
  return new CairnError(
    'NOT_FOUND',
    `${what} ${id} not found: check the id, and that it belongs to your tenant`,
    {
      resource: what,
      id,
    },
  );
}
