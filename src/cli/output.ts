import { CairnError, type ErrorCode } from '../errors.js';

/** A malformed command line: unknown command or flag, missing or extra argument. Exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * Input an operation's schema refuses, found on the command line before
 * anything was opened: the operation's own code and message (as HTTP and MCP
 * give them), and exit 2, a usage error.
 */
export class InputRefused extends Error {
  readonly code = 'INVALID_ARGUMENT';
  constructor(
    message: string,
    field: string,
    readonly data: Record<string, unknown> = { field },
  ) {
    super(message);
    this.name = 'InputRefused';
  }

  static from(error: CairnError): InputRefused {
    return new InputRefused(error.message, String(error.data.field ?? ''), error.data);
  }
}

export const EXIT = {
  ok: 0,
  checkFailed: 1,
  usage: 2,
  internal: 70,
} as const;

/** Exit code per error code; documented in docs/cli.md, so scripts may rely on it. */
const EXIT_CODES: Record<ErrorCode, number> = {
  NOT_FOUND: 3,
  CONFLICT: 4,
  IN_DOUBT: 4,
  DIVERGED: 4,
  INVALID_ARGUMENT: 5,
  PAYLOAD_TOO_LARGE: 5,
  QUOTA_EXCEEDED: 5,
  UNAUTHENTICATED: 6,
  FORBIDDEN: 6,
  UNAVAILABLE: 7,
  CORRUPT: 8,
  UNSUPPORTED_FORMAT: 8,
  INTERNAL: EXIT.internal,
};

export function exitCodeFor(code: ErrorCode): number {
  return EXIT_CODES[code] ?? EXIT.internal;
}

export interface OutputStreams {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/**
 * Everything the CLI prints goes through here: with `--json` exactly one JSON
 * document on stdout, else human lines; problems as one `cairn: …` line on stderr.
 */
export class Output {
  constructor(
    readonly json: boolean,
    private readonly streams: OutputStreams,
    private readonly debug: boolean,
  ) {}

  /**
   * The command's answer: its JSON document with --json, else the human
   * lines. Each line is one line: control characters in it (stored text a
   * line quotes: names, titles, memory) are shown escaped, never sent to the
   * terminal.
   */
  result(document: unknown, human: string | string[]): void {
    if (this.json) {
      this.streams.stdout.write(`${JSON.stringify(document)}\n`);
      return;
    }
    const lines = typeof human === 'string' ? [human] : human;
    if (lines.length > 0) this.streams.stdout.write(`${lines.map(escapeControl).join('\n')}\n`);
  }

  /** Human-only text (help): its own lines, wrapped in a document with --json. */
  text(text: string, key: string): void {
    this.result({ [key]: text }, text.replace(/\n$/, '').split('\n'));
  }

  /**
   * A progress line for long operations, redrawn in place; only on a
   * terminal and never with --json. `null` clears it.
   */
  progress(text: string | null): void {
    const stderr = this.streams.stderr as NodeJS.WritableStream & { isTTY?: boolean };
    if (this.json || !stderr.isTTY) return;
    stderr.write(text === null ? '\r\x1b[K' : `\r\x1b[K${text}`);
  }

  /** A child command's own output, passed through as it is (human mode only). */
  raw(stdout: Buffer, stderr: Buffer): void {
    if (this.json) return;
    if (stdout.length > 0) this.streams.stdout.write(stdout);
    if (stderr.length > 0) this.streams.stderr.write(stderr);
  }

  /** One line on stderr, whatever the mode. */
  problem(message: string): void {
    this.streams.stderr.write(`cairn: ${oneLine(message)}\n`);
  }

  /** Reports a failure as the contract says and returns the exit code. */
  fail(error: unknown): number {
    const { code, message, data, exitCode } = describeFailure(error);
    this.problem(message);
    if (this.debug && error instanceof Error && error.stack) this.streams.stderr.write(`${error.stack}\n`);
    if (this.json) this.streams.stdout.write(`${JSON.stringify({ error: { code, message, data } })}\n`);
    return exitCode;
  }

  /** Logs an error the server hit while serving a request (a bug, not the caller's fault). */
  serverError(error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    this.problem(`internal error while handling a request: ${message}`);
    if (this.debug && error instanceof Error && error.stack) this.streams.stderr.write(`${error.stack}\n`);
  }
}

interface Failure {
  code: string;
  message: string;
  data: Record<string, unknown>;
  exitCode: number;
}

function describeFailure(error: unknown): Failure {
  if (error instanceof UsageError)
    return { code: 'USAGE', message: error.message, data: {}, exitCode: EXIT.usage };
  if (error instanceof InputRefused)
    return { code: error.code, message: error.message, data: error.data, exitCode: EXIT.usage };
  if (error instanceof CairnError) {
    return { code: error.code, message: error.message, data: error.data, exitCode: exitCodeFor(error.code) };
  }
  const detail = error instanceof Error ? error.message : String(error);
  return {
    code: 'INTERNAL',
    message: `internal error: ${detail}: rerun with CAIRN_DEBUG=1 to see the stack trace, and report it`,
    data: {},
    exitCode: EXIT.internal,
  };
}

function oneLine(text: string): string {
  return escapeControl(text.replace(/\s*\n\s*/g, ' ').trim());
}

/**
 * C0 and C1 controls (but tab), DEL, line and paragraph separators and bidi
 * overrides: what could move the cursor, clear the screen, forge a line or
 * reorder a name on a terminal.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r' };

/** Text for a human line: every control character shown as an escape (`\x1b`, `\r`, `\u202e`). */
export function escapeControl(text: string): string {
  return text.replace(CONTROL, (c) => {
    const code = c.charCodeAt(0);
    return (
      NAMED[c] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`)
    );
  });
}

/** Rows as left-aligned columns separated by two spaces; the last column is not padded. */
export function table(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** A value as one line of JSON, for human listings. */
export function compactJson(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}
