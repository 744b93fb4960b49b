/**
 * Commands made from the operation table: an operation's CLI binding (its
 * `cli` in the contract) names the command's words, which input fields are
 * positional arguments and any flag whose name is not the field's in kebab
 * case; everything else — flags, their types, defaults, choices and help —
 * comes from the operation's input schema. The input a command line makes
 * is checked against that schema before a store is opened (the table's one
 * validation: the same message as HTTP and MCP give, exit 2), then the
 * operation runs through the fabric, embedded or remote. Only how an answer
 * is printed is written here by hand, per command.
 */
import type { z } from 'zod';
import { inputJsonSchema, wholeNumberText } from '../contract/json-schema.js';
import { type OpSpec, opTitle } from '../contract/spec.js';
import { isCairnError } from '../errors.js';
import type { Fabric } from '../fabric.js';
import { ID_PREFIXES } from '../ids.js';
import { parseInput } from '../validate.js';
import { listFlag, parseJsonText, stringFlag } from './args.js';
import type { FabricCommand, FlagSpec, FlagValues } from './command.js';
import { EXIT, InputRefused } from './output.js';

/** The part of a JSON Schema a flag is derived from. */
interface Property {
  type?: string | string[];
  enum?: unknown[];
  items?: Property;
  properties?: Record<string, Property>;
  additionalProperties?: unknown;
  description?: string;
  default?: unknown;
  pattern?: string;
}

/**
 * How a field is written on the command line: text, a whole number, a
 * switch, a repeatable flag (a list), repeatable `KIND:VALUE` pairs (an
 * object of named strings, like a memory scope), or JSON text.
 */
export type FieldKind = 'string' | 'number' | 'boolean' | 'list' | 'pairs' | 'json';

/** A flag and the input field it fills. */
export interface FieldFlag {
  field: string;
  kind: FieldKind;
  flag: FlagSpec;
  /** For `pairs`: the kinds a pair may name. */
  keys?: string[];
}

/** How a command line maps onto an operation's input: positional arguments, then flags. */
export interface CliFields {
  /** `shown`: the argument's name in usage (the field's, or its binding's name for it, upper-case). */
  args: { field: string; kind: FieldKind; shown: string }[];
  flags: FieldFlag[];
}

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

function kindOf(p: Property): FieldKind {
  const type = Array.isArray(p.type) ? p.type.find((t) => t !== 'null') : p.type;
  if (type === 'boolean') return 'boolean';
  if (type === 'integer' || type === 'number') return 'number';
  if (type === 'string') return 'string';
  if (type === 'array' && p.items?.type === 'string') return 'list';
  if (
    type === 'object' &&
    p.properties !== undefined &&
    p.additionalProperties === false &&
    Object.values(p.properties).every((inner) => inner.type === 'string')
  )
    return 'pairs';
  return 'json';
}

/** A default worth printing in help (not an empty list, object or string). */
function shownDefault(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (Array.isArray(value) && value.length === 0) return undefined;
  if (typeof value === 'object' && Object.keys(value as object).length === 0) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function helpOf(p: Property, kind: FieldKind, keys: string[] | undefined): string {
  const parts = [p.description ?? ''];
  const choices = p.enum ?? p.items?.enum;
  if (choices) parts.push(`one of ${choices.join(', ')}`);
  if (kind === 'pairs' && keys) parts.push(`KIND one of ${keys.join(', ')}`);
  if (kind === 'list' || kind === 'pairs') parts.push('repeatable');
  const fallback = shownDefault(p.default);
  if (fallback !== undefined) parts.push(`default ${fallback}`);
  return parts.filter((part) => part !== '').join('; ');
}

/** The kind of id a pattern takes (`^ev_…` → EVENT), by the prefixes of ids.ts. */
const ID_NOUNS = new Map<string, string>(
  Object.entries(ID_PREFIXES).map(([kind, prefix]) => [prefix, kind.toUpperCase()]),
);

function placeholder(kind: FieldKind, flag: string, p: Property): string {
  if (kind === 'number') return 'N';
  if (kind === 'json') return 'JSON';
  if (kind === 'pairs') return 'KIND:VALUE';
  const pattern = p.pattern ?? p.items?.pattern;
  const noun = pattern === undefined ? undefined : ID_NOUNS.get(/^\^([a-z]{2})_/.exec(pattern)?.[1] ?? '');
  return noun ?? flag.toUpperCase().replace(/-/g, '_');
}

const derived = new WeakMap<OpSpec, CliFields>();

/** The positional arguments and flags of an operation's command, from its binding and input schema. */
export function cliFieldsOf(operation: OpSpec): CliFields {
  const known = derived.get(operation);
  if (known) return known;
  const binding = operation.cli;
  if (!binding) throw new Error(`${operation.name} has no CLI binding`);
  const schema = inputJsonSchema(operation) as { properties?: Record<string, Property>; required?: string[] };
  const properties = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const positional = binding.args ?? [];
  for (const field of positional)
    if (!(field in properties)) throw new Error(`${operation.name}: argument ${field} is not an input field`);
  const fields: CliFields = {
    args: positional.map((field) => ({
      field,
      kind: kindOf(properties[field] as Property),
      shown: (binding.flags?.[field] ?? field).toUpperCase(),
    })),
    flags: [],
  };
  for (const [field, p] of Object.entries(properties)) {
    if (positional.includes(field)) continue;
    const kind = kindOf(p);
    const name = binding.flags?.[field] ?? kebab(field);
    const keys = kind === 'pairs' ? Object.keys(p.properties ?? {}) : undefined;
    const flag: FlagSpec = {
      name,
      type: kind === 'boolean' ? 'boolean' : 'string',
      help: helpOf(p, kind, keys),
      ...(kind !== 'boolean' ? { value: placeholder(kind, name, p) } : {}),
      ...(required.has(field) ? { required: true } : {}),
      ...(kind === 'list' || kind === 'pairs' ? { multiple: true } : {}),
    };
    fields.flags.push({ field, kind, flag, ...(keys ? { keys } : {}) });
  }
  derived.set(operation, fields);
  return fields;
}

/** `--scope user:alice --scope session:ss_…` as `{ user: 'alice', session: 'ss_…' }`. */
function pairsOf(values: FlagValues, f: FieldFlag): Record<string, string> | undefined {
  const given = listFlag(values, f.flag.name);
  if (given.length === 0) return undefined;
  const out: Record<string, string> = {};
  for (const text of given) {
    const colon = text.indexOf(':');
    const key = colon < 0 ? '' : text.slice(0, colon);
    if (colon < 0 || !f.keys?.includes(key))
      throw new InputRefused(
        `--${f.flag.name} ${text}: write KIND:VALUE with KIND one of ${f.keys?.join(', ')}, e.g. ${f.keys?.[0]}:…`,
        f.field,
      );
    if (key in out) throw new InputRefused(`--${f.flag.name} names ${key} twice: give one of each`, f.field);
    out[key] = text.slice(colon + 1);
  }
  return out;
}

function fieldValue(kind: FieldKind, text: string, source: string, field: string): unknown {
  if (kind === 'number') return wholeNumberText(text, source, field);
  if (kind === 'json') return parseJsonText(text, source);
  return text;
}

/** The operation's input as the command line gives it: fields left out stay out (the schema's defaults apply). */
export function inputOf(
  operation: OpSpec,
  values: FlagValues,
  positionals: string[],
): Record<string, unknown> {
  const { args, flags } = cliFieldsOf(operation);
  const input: Record<string, unknown> = {};
  args.forEach(({ field, kind }, i) => {
    const text = positionals[i];
    if (text !== undefined) input[field] = fieldValue(kind, text, field.toUpperCase(), field);
  });
  for (const f of flags) {
    const source = `--${f.flag.name}`;
    if (f.kind === 'boolean') {
      if (values[f.flag.name] === true) input[f.field] = true;
    } else if (f.kind === 'list') {
      const given = listFlag(values, f.flag.name);
      if (given.length > 0) input[f.field] = given;
    } else if (f.kind === 'pairs') {
      const pairs = pairsOf(values, f);
      if (pairs) input[f.field] = pairs;
    } else {
      const text = stringFlag(values, f.flag.name);
      if (text !== undefined) input[f.field] = fieldValue(f.kind, text, source, f.field);
    }
  }
  return input;
}

/** How a command prints an operation's answer: the lines a person reads (`--json` prints the answer itself). */
export type Format<T = never> = (answer: T, input: Record<string, unknown>) => string | string[];

/**
 * The command of an operation with a CLI binding: arguments and flags from
 * its schema, the input checked before anything is opened, the operation
 * run through the fabric, the answer printed by `format` (and with `--json`
 * as it came, or as `document` puts it: a list answer named with its input).
 */
export function operationCommand<T>(
  operation: OpSpec,
  format: Format<T>,
  document?: (answer: T, input: Record<string, unknown>) => unknown,
): FabricCommand {
  const binding = operation.cli;
  if (!binding) throw new Error(`${operation.name} has no CLI binding`);
  return {
    target: 'fabric',
    names: [...binding.command],
    // Read from the schema only when asked (help and parsing read the manifest): a command line that
    // runs one command builds no other's.
    get args() {
      return cliFieldsOf(operation).args.map((a) => a.shown);
    },
    get flags() {
      return cliFieldsOf(operation).flags.map((f) => f.flag);
    },
    summary: binding.summary ?? operation.summary.charAt(0).toLowerCase() + operation.summary.slice(1),
    ...(binding.example ? { example: binding.example } : {}),
    operation: operation.name,
    check({ values, positionals }) {
      checkedInput(operation, values, positionals);
    },
    async run(fabric: Fabric, { values, positionals, out }) {
      const input = inputOf(operation, values, positionals);
      const call = (fabric as unknown as Record<string, (input: unknown) => Promise<T>>)[operation.name];
      const answer = await (call as (input: unknown) => Promise<T>).call(fabric, input);
      out.result(document ? document(answer, input) : answer, format(answer, input));
      return EXIT.ok;
    },
  };
}

/** The command line's input, validated by the operation's own schema; a refusal is a usage error (exit 2). */
export function checkedInput(operation: OpSpec, values: FlagValues, positionals: string[]): unknown {
  return tableInput(operation, () => inputOf(operation, values, positionals));
}

/**
 * The input `make` gives, as the operation's schema takes it; a refusal —
 * a malformed number or JSON text, or the schema's (the table's message) —
 * is a usage error: exit 2, with the operation's code.
 */
export function tableInput<O extends OpSpec>(operation: O, make: () => unknown): z.output<O['input']> {
  try {
    return parseInput(operation.input, make(), opTitle(operation.name)) as z.output<O['input']>;
  } catch (error) {
    if (isCairnError(error) && error.code === 'INVALID_ARGUMENT') throw InputRefused.from(error);
    throw error;
  }
}
