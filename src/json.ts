import { CairnError } from './errors.js';

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
    throw new CairnError(
      'INVALID_ARGUMENT',
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
  return new CairnError(
    'INVALID_ARGUMENT',
    `${where} is ${thing}, which JSON cannot hold: pass plain JSON data`,
    {
      field: what,
    },
  );
}
