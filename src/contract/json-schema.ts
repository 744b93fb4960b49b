/**
 * What the JSON Schema of an operation's input says, as the surfaces need it:
 * defaults (a path field left out), numeric fields (a query string's text),
 * path fields. Made from the contract alone.
 */
import { z } from 'zod';
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
