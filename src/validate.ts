import type { z } from 'zod';
import { invalidArgument } from './errors.js';
import { unsafeIntegerIn } from './json.js';

/**
 * How deep input may nest (arrays and objects). Deeper values are refused at
 * the edge: the engines' JSON functions and recursive walks below would fail
 * on them (SQLite's json() stops at 1,000) with an error that is not the caller's.
 */
export const MAX_INPUT_DEPTH = 256;

/**
 * Refuses a value nested deeper than {@link MAX_INPUT_DEPTH}, or holding a
 * number whose JSON form is an integer beyond ±2^53 − 1 — the literal HTTP's
 * text check refuses, so a surface that hands over parsed values (MCP, the
 * library) refuses what HTTP refuses. Iterative: no depth overflows the stack.
 */
function refuseUnsafeShape(input: unknown, what: string): void {
  const stack: Array<[unknown, number, string]> = [[input, 0, '']];
  while (stack.length > 0) {
    const [value, depth, path] = stack.pop() as [unknown, number, string];
    if (typeof value === 'number') {
      if (Number.isInteger(value) && !Number.isSafeInteger(value) && unsafeIntegerIn(String(value)))
        throw invalidArgument(
          `${what}: ${path ? `${path}: ` : ''}the integer ${String(value).slice(0, 40)} is beyond what JSON numbers carry exactly (±${Number.MAX_SAFE_INTEGER}): send it as a string`,
          { field: path },
        );
      continue;
    }
    if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) continue;
    if (!Array.isArray(value) && Object.getPrototypeOf(value) !== Object.prototype) continue;
    if (depth >= MAX_INPUT_DEPTH)
      throw invalidArgument(
        `${what}: ${path.split('.')[0] || 'the input'} nests deeper than ${MAX_INPUT_DEPTH} levels: flatten it, or store it as text`,
        { field: path.split('.')[0] ?? '', maxDepth: MAX_INPUT_DEPTH },
      );
    // Paths are kept short: the top-level field and the first steps below it.
    for (const [key, child] of Object.entries(value))
      stack.push([child, depth + 1, depth < 4 ? (path ? `${path}.${key}` : key) : path]);
  }
}

/** Parses input at the public edge; a bad field becomes INVALID_ARGUMENT naming it. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  refuseUnsafeShape(input, what);
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.join('.');
  throw invalidArgument(`${what}: ${field ? `${field}: ` : ''}${issue.message}`, {
    field,
    issues: result.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })),
  });
}
