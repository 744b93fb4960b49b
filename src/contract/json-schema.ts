/**
 * What the JSON Schema of an operation's input says, as the surfaces need it:
 * defaults (a path field left out), numeric fields (a query string's text),
 * path fields. Made from the contract alone.
 */
import { z } from 'zod';
import { invalidArgument } from '../errors.js';
import type { OpSpec } from './spec.js';

export interface JsonObjectSchema {
  properties?: Record<string, { type?: string; default?: unknown }>;
  required?: string[];
}

const inputSchemas = new WeakMap<OpSpec, JsonObjectSchema>();

/** The JSON schema of an operation's input (as a caller writes it: defaults optional), cached. */
export function inputJsonSchema(operation: OpSpec): JsonObjectSchema {
  let json = inputSchemas.get(operation);
  if (!json) {
    json = z.toJSONSchema(operation.input, { io: 'input', unrepresentable: 'any' }) as JsonObjectSchema;
    inputSchemas.set(operation, json);
  }
  return json;
}

/** Names of the input fields an operation takes from its path, in order. */
export function pathFieldsOf(operation: OpSpec): string[] {
  return [...(operation.http?.path ?? '').matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
}

/** Input fields that are numbers (query strings carry them as text). */
export function numericFields(operation: OpSpec): string[] {
  const properties = inputJsonSchema(operation).properties ?? {};
  return Object.keys(properties).filter((k) => ['integer', 'number'].includes(properties[k]?.type ?? ''));
}

/**
 * A whole number written as text (a query string's value, a command line's
 * flag): plain decimal digits only — "0x10", "1e2", "-5" or "" are refused
 * — with the same words on every surface; `source` names where it was given.
 */
export function wholeNumberText(text: string, source: string, field: string): number {
  if (!/^\d{1,15}$/.test(text))
    throw invalidArgument(
      `${source} must be a whole number written in digits (at most 15), not "${text.slice(0, 40)}"`,
      {
        field,
      },
    );
  return Number(text);
}
