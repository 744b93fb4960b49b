import { readFile } from 'node:fs/promises';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { invalidArgument, isCairnError } from '../errors.js';
import { refuseUnsafeIntegers } from '../json.js';
import { type CommandInfo, type FlagValues, type Invocation, usageLine } from './command.js';
import { didYouMean } from './help.js';
import { UsageError } from './output.js';

type OptionsConfig = NonNullable<ParseArgsConfig['options']>;

const GLOBAL_OPTIONS: OptionsConfig = {
  json: { type: 'boolean' },
  store: { type: 'string' },
  url: { type: 'string' },
  token: { type: 'string' },
  'token-file': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

/** `--json` decides the error format too, so it is looked for before anything can fail. */
export function wantsJson(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

export type Lookup =
  | { kind: 'command'; command: CommandInfo; rest: string[] }
  | { kind: 'group'; group: string; rest: string[] }
  | { kind: 'none'; rest: string[] };

/**
 * Finds the command named by the leading words of argv. Global flags may come
 * before the words (`cairn --json session ls`); the words are removed from argv
 * and the rest is left for the command's own strict parse.
 */
export function findCommand(argv: string[], commands: readonly CommandInfo[]): Lookup {
  const { tokens } = parseArgs({
    args: argv,
    options: GLOBAL_OPTIONS,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const words: { word: string; index: number }[] = [];
  for (const token of tokens) {
    if (token.kind === 'option-terminator') break;
    if (token.kind === 'positional') words.push({ word: token.value, index: token.index });
  }
  const first = words[0];
  if (!first) return { kind: 'none', rest: argv };
  const matches = commands.filter((c) => c.names[0] === first.word);
  if (matches.length === 0) {
    const words = [...new Set(commands.map((c) => c.names[0] as string)), 'help'];
    throw new UsageError(
      `unknown command "${first.word}"${didYouMean(first.word, words)}: run \`cairn help\` to list the commands`,
    );
  }
  const second = words[1];
  const command = matches.find((c) => c.names.length === 1 || c.names[1] === second?.word);
  if (!command) {
    if (second && !second.word.startsWith('-')) {
      const subcommands = matches.map((c) => c.names[1] as string);
      throw new UsageError(
        `unknown command "cairn ${first.word} ${second.word}"${didYouMean(second.word, subcommands, (w) => `cairn ${first.word} ${w}`)}: run \`cairn help ${first.word}\` to list them`,
      );
    }
    return { kind: 'group', group: first.word, rest: without(argv, [first.index]) };
  }
  const used = command.names.length === 1 ? [first.index] : [first.index, second!.index];
  return { kind: 'command', command, rest: without(argv, used) };
}

function without(argv: string[], indexes: number[]): string[] {
  return argv.filter((_, i) => !indexes.includes(i));
}

/** The command's flags and positionals; any unknown flag or wrong argument count is a usage error. */
export function parseCommandLine(
  command: CommandInfo,
  rest: string[],
): { values: FlagValues; positionals: string[] } {
  const options: OptionsConfig = { ...GLOBAL_OPTIONS };
  for (const flag of command.flags)
    options[flag.name] = { type: flag.type, ...(flag.multiple ? { multiple: true } : {}) };
  let parsed: { values: FlagValues; positionals: string[] };
  try {
    parsed = parseArgs({ args: rest, options, strict: true, allowPositionals: true }) as typeof parsed;
  } catch (error) {
    throw new UsageError(`${describeParseError(error, Object.keys(options))}: usage: ${usageLine(command)}`);
  }
  return parsed;
}

/** Checks required arguments and flags; skipped when --help was asked for. */
export function checkArity(command: CommandInfo, values: FlagValues, positionals: string[]): void {
  const usage = `usage: ${usageLine(command)}`;
  if (positionals.length < command.args.length) {
    throw new UsageError(`${command.names.join(' ')}: missing ${command.args[positionals.length]}: ${usage}`);
  }
  if (positionals.length > command.args.length && command.rest === undefined) {
    throw new UsageError(
      `${command.names.join(' ')}: unexpected argument "${positionals[command.args.length]}": ${usage}`,
    );
  }
  for (const flag of command.flags) {
    if (flag.required && values[flag.name] === undefined) {
      throw new UsageError(`${command.names.join(' ')}: missing --${flag.name}: ${usage}`);
    }
  }
}

function describeParseError(error: unknown, flags: string[]): string {
  const message = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
  const code = (error as { code?: string }).code;
  const option = /'(-[^' ]+)/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option)
    return `unknown flag ${option}${didYouMean(option.replace(/^-+/, ''), flags, (f) => `--${f}`)}`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option) {
    if (message.includes('argument missing')) return `flag ${option} needs a value`;
    if (message.includes('does not take an argument')) return `flag ${option} takes no value`;
    if (message.includes('ambiguous'))
      return `flag ${option} needs a value (write ${option}=VALUE for one that starts with "-")`;
  }
  return message.replace(/\.$/, '');
}

/** Every value of a flag that may be repeated. */
export function listFlag(values: FlagValues, name: string): string[] {
  const value = values[name];
  if (Array.isArray(value)) return value;
  return typeof value === 'string' ? [value] : [];
}

export function stringFlag(values: FlagValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

/** A whole-number flag; a malformed value is bad input (exit 5), like any value the library rejects. */
export function wholeNumberFlag(values: FlagValues, name: string): number | undefined {
  const value = stringFlag(values, name);
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value.trim())) {
    throw invalidArgument(`--${name} expects a whole number, got "${value}"`, {
      field: name,
    });
  }
  return Number(value.trim());
}

/** A flag holding JSON text, e.g. `--meta '{"a":1}'`. */
export function jsonFlag(values: FlagValues, name: string): unknown {
  const value = stringFlag(values, name);
  return value === undefined ? undefined : parseJsonText(value, `--${name}`);
}

export function parseJsonText(text: string, source: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    refuseUnsafeIntegers(text, source);
    return value;
  } catch (error) {
    if (isCairnError(error)) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw invalidArgument(
      `${source} is not valid JSON (${reason}): pass a JSON value, e.g. '{"text":"hi"}'`,
      {
        field: source,
      },
    );
  }
}

/** The payload of `log append`: --payload JSON, --payload - (stdin) or --payload-file F. */
export async function readPayload(call: Invocation): Promise<unknown> {
  const inline = stringFlag(call.values, 'payload');
  const file = stringFlag(call.values, 'payload-file');
  if (inline !== undefined && file !== undefined) {
    throw new UsageError('pass either --payload or --payload-file, not both');
  }
  if (file !== undefined) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw invalidArgument(`could not read --payload-file ${file} (${reason}): check the path`, {
        field: 'payload-file',
      });
    }
    return parseJsonText(text, `--payload-file ${file}`);
  }
  if (inline === '-') return parseJsonText(await readAll(call.stdin), 'the payload on stdin');
  if (inline !== undefined) return parseJsonText(inline, '--payload');
  return undefined;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  return (await readAllBytes(stream)).toString('utf8');
}

/** Everything on a stream (stdin), as bytes. */
export async function readAllBytes(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

/** Drops undefined fields, so strict input schemas and JSON bodies see only what was given. */
export function defined<T extends Record<string, unknown>>(input: T): Partial<T> {
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as Partial<T>;
}
