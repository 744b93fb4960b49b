import type { Fabric } from '../fabric.js';
import type { CommandFile } from './commands.js';
import type { DeskContext } from './desk-commands.js';
import type { Output } from './output.js';

export interface FlagSpec {
  name: string;
  type: 'string' | 'boolean';
  /** Placeholder shown in usage, e.g. `N` for `--limit N`. */
  value?: string;
  help: string;
  required?: boolean;
  /** May be given several times (a string flag's value is then a list). */
  multiple?: boolean;
}

export type FlagValues = Record<string, string | boolean | string[] | undefined>;

/** What a command gets besides its target: parsed flags, positionals and the world outside. */
export interface Invocation {
  values: FlagValues;
  positionals: string[];
  out: Output;
  env: Record<string, string | undefined>;
  stdin: NodeJS.ReadableStream;
  /** The directory relative paths on the command line are resolved against. */
  cwd: string;
  /** Inside `cairn watch`: its long-lived desk over its store, which workspace commands on that store use. */
  shared?: SharedDesk;
}

/** A desk kept open by a long-lived process (`cairn watch`) for the commands it runs. */
export interface SharedDesk {
  /** The store folder it holds open. */
  dir: string;
  /** The store config the desk was opened under, as JSON: a changed config is not served from it. */
  config: string;
  ctx: DeskContext;
}

/**
 * What parsing a command line and printing help need of a command: data
 * only. The CLI's manifest (manifest.ts, generated) holds it for every
 * command, so `cairn --help`, a mistyped command and a usage error load no
 * command, schema or library code.
 */
export interface CommandInfo {
  target: 'fabric' | 'store' | 'desk';
  /** Words that name the command, e.g. ['log', 'append']. */
  names: string[];
  /** Required positional arguments, in order, e.g. ['SESSION']. */
  args: string[];
  /** Takes any number of further arguments (after `--`), e.g. a command to run. */
  rest?: string;
  flags: FlagSpec[];
  summary: string;
  /** A command line that shows it in use (help prints it). */
  example?: string;
  /** The operation of the table it runs, for a command made from it (derived.ts). */
  operation?: string;
  /** The file of commands it is in (commands.ts), the one a command line loads to run it. */
  file?: CommandFile;
}

interface CommandBase extends Omit<CommandInfo, 'target'> {
  /** Checks the command line's input before anything is opened (a refusal: exit 2). */
  check?(call: Invocation): void;
}

/** Works through a fabric: embedded (`--store`) or remote (`--url`/`--token`). */
export interface FabricCommand extends CommandBase {
  target: 'fabric';
  run(fabric: Fabric, call: Invocation): Promise<number | undefined>;
  /** When set, used instead of `run` for a local store (work that spans the store's tenants). */
  runLocal?(dir: string, call: Invocation): Promise<number | undefined>;
}

/** Works on a local store directory only (init, serve, tenant create). */
export interface StoreCommand extends CommandBase {
  target: 'store';
  /** True when the command may create the store; else the store must exist. */
  createsStore: boolean;
  /** Reports the store folder's permissions itself (`cairn doctor`): no warning printed before it runs. */
  reportsPermissions?: boolean;
  run(dir: string, call: Invocation): Promise<number | undefined>;
}

/** Where a workspace command's store is: a local folder, or a server (`--url`/`--token`). */
export type DeskPlace = { kind: 'local'; dir: string } | { kind: 'remote'; url: string; token: string };

/**
 * Acts on a workspace directory on this host (the desk, the unit of work),
 * its store local or a server's: the directory is scanned and written here,
 * the snapshots go to the store.
 */
export interface DeskCommand extends CommandBase {
  target: 'desk';
  /** True when the command may create a local store; else the store must exist. */
  createsStore: boolean;
  run(place: DeskPlace, call: Invocation): Promise<number | undefined>;
}

export type Command = FabricCommand | StoreCommand | DeskCommand;

/** Flags every command takes. */
export const GLOBAL_FLAGS: FlagSpec[] = [
  { name: 'json', type: 'boolean', help: 'print exactly one JSON document on stdout' },
  {
    name: 'store',
    type: 'string',
    value: 'DIR',
    help: 'local store directory (env CAIRN_STORE; default $XDG_DATA_HOME/cairn or ~/.local/share/cairn)',
  },
  { name: 'url', type: 'string', value: 'URL', help: 'server URL of a `cairn serve` (env CAIRN_URL)' },
  { name: 'token', type: 'string', value: 'TOKEN', help: 'bearer token for --url (env CAIRN_TOKEN)' },
  {
    name: 'token-file',
    type: 'string',
    value: 'FILE',
    help: 'read the bearer token from FILE, out of `ps` (env CAIRN_TOKEN_FILE)',
  },
  { name: 'help', type: 'boolean', help: 'show help for the command' },
];

export function commandName(command: CommandInfo): string {
  return `cairn ${command.names.join(' ')}`;
}

export function usageLine(command: CommandInfo): string {
  const parts = [commandName(command), ...command.args];
  for (const flag of command.flags) {
    const shown = flag.type === 'boolean' ? `--${flag.name}` : `--${flag.name} ${flag.value ?? 'VALUE'}`;
    parts.push(flag.required ? shown : `[${shown}]`);
  }
  if (command.rest !== undefined) parts.push('--', command.rest);
  return parts.join(' ');
}

/** A command's data, as the manifest keeps it (undefined fields left out). */
export function commandInfo(command: CommandInfo): CommandInfo {
  const { target, names, args, rest, flags, summary, example, operation, file } = command;
  const info: CommandInfo = { target, names, args, flags: flags.map((f) => ({ ...f })), summary };
  if (rest !== undefined) info.rest = rest;
  if (example !== undefined) info.example = example;
  if (operation !== undefined) info.operation = operation;
  if (file !== undefined) info.file = file;
  return info;
}

/** The manifest's module text (manifest.ts), from the commands' data. */
export function manifestModule(commands: readonly CommandInfo[]): string {
  return `// Generated from the commands by \`npm run wire\` (scripts/wire.mjs); test/cli-parity.test.ts checks it. Do not edit.
import type { CommandInfo } from './command.js';

export const MANIFEST: readonly CommandInfo[] = ${JSON.stringify(commands.map(commandInfo), null, 2)};
`;
}
