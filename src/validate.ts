import type { z } from 'zod';
import { invalidArgument } from './errors.js';

/** Parses input at the public edge; a bad field becomes INVALID_ARGUMENT naming it. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.join('.');
  throw invalidArgument(`${what}: ${field ? `${field}: ` : ''}${issue.message}`, {
    field,
    issues: result.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })),
  });
}
