import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  CairnError,
  conflict,
  corrupt,
  diverged,
  ERROR_CODES,
  type ErrorCode,
  forbidden,
  inDoubt,
  internal,
  invalidArgument,
  notFound,
  payloadTooLarge,
  quotaExceeded,
  unauthenticated,
  unavailable,
  unsupportedFormat,
} from '../src/errors.js';

const root = fileURLToPath(new URL('..', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [relative(root, path)] : [];
  });
}

describe('errors', () => {
  it('src/ builds a CairnError only through the constructors in src/errors.ts', () => {
    const files = sourceFiles(join(root, 'src'));
    expect(files).toContain('src/errors.ts');
    const inline = files
      .filter((file) => file !== 'src/errors.ts')
      .flatMap((file) =>
        readFileSync(join(root, file), 'utf8')
          .split('\n')
          .flatMap((line, i) => (line.includes('new CairnError(') ? [`${file}:${i + 1}`] : [])),
      );
    expect(inline, 'use the constructor for the code from src/errors.ts instead').toEqual([]);
  });

  it('each constructor yields its code, message and data; one constructor per code', () => {
    const cause = new Error('underneath');
    const made: Record<ErrorCode, CairnError> = {
      INVALID_ARGUMENT: invalidArgument('bad', { field: 'f' }),
      NOT_FOUND: notFound('no route', { route: '/x' }),
      CONFLICT: conflict('taken', { id: 'x' }),
      FORBIDDEN: forbidden('may not', { action: 'a', principal: 'p' }, { cause }),
      UNAUTHENTICATED: unauthenticated('who'),
      PAYLOAD_TOO_LARGE: payloadTooLarge('too big', { limit: 10 }),
      QUOTA_EXCEEDED: quotaExceeded('full', { limit: 10, used: 8 }),
      UNSUPPORTED_FORMAT: unsupportedFormat('newer', { storeVersion: 9, supportedVersion: 8 }),
      CORRUPT: corrupt('damaged', { digest: 'd' }),
      UNAVAILABLE: unavailable('closed', {}, { cause }),
      IN_DOUBT: inDoubt('maybe', {}, { cause }),
      DIVERGED: diverged('other code', { position: 1, journal: 'a', code: 'b', argsMatch: false }),
      INTERNAL: internal('bug', {}, { cause }),
    };
    expect(Object.keys(made).sort()).toEqual([...ERROR_CODES].sort());
    for (const [code, error] of Object.entries(made)) {
      expect(error).toBeInstanceOf(CairnError);
      expect(error.code).toBe(code);
      expect(CairnError.fromJSON(error.toJSON())).toMatchObject({
        code,
        message: error.message,
        data: error.data,
      });
    }
    expect(made.INVALID_ARGUMENT.toJSON()).toEqual({
      code: 'INVALID_ARGUMENT',
      message: 'bad',
      data: { field: 'f' },
    });
    expect(made.PAYLOAD_TOO_LARGE.data).toEqual({ limit: 10 });
    expect(made.UNAUTHENTICATED.data).toEqual({});
    for (const code of ['FORBIDDEN', 'UNAVAILABLE', 'IN_DOUBT', 'INTERNAL'] as const)
      expect(made[code].cause).toBe(cause);
  });

  it('notFound(resource, id) says so in the usual words, with data {resource, id}', () => {
    expect(notFound('session', 'ss_1').toJSON()).toEqual({
      code: 'NOT_FOUND',
      message: 'session ss_1 not found: check the id, and that it belongs to your tenant',
      data: { resource: 'session', id: 'ss_1' },
    });
    expect(notFound('no tool x: list the tools').toJSON()).toEqual({
      code: 'NOT_FOUND',
      message: 'no tool x: list the tools',
      data: {},
    });
  });
});
