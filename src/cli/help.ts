import { type Command, commandName, type FlagSpec, GLOBAL_FLAGS, usageLine } from './command.js';

const COLUMN = 24;

function flagLines(flags: FlagSpec[]): string[] {
  const shown = flags.map((f) => `  --${f.name}${f.type === 'string' ? ` ${f.value ?? 'VALUE'}` : ''}`);
  // The help column starts two spaces past the longest flag (at least at COLUMN).
  const width = Math.max(COLUMN, ...shown.map((s) => s.length + 2));
  return flags.map(
    (f, i) => `${(shown[i] as string).padEnd(width)}${f.required ? '(required) ' : ''}${f.help}`,
  );
}

function synopsis(command: Command): string {
  return [...command.names, ...command.args].join(' ');
}

/** Width of the first column of a command list: the longest synopsis plus two spaces. */
function commandWidth(commands: Command[]): number {
  return Math.max(COLUMN - 2, ...commands.map((c) => synopsis(c).length + 2));
}

function commandList(commands: Command[]): string[] {
  const width = commandWidth(commands);
  return commands.map((c) => `  ${synopsis(c).padEnd(width)}${c.summary}`);
}

export function mainHelp(commands: Command[]): string {
  return [
    'cairn: a persistence fabric for AI agents',
    '',
    'usage: cairn COMMAND [ARGS] [FLAGS]',
    '',
    'commands:',
    ...commandList(commands),
    `  ${'help [COMMAND]'.padEnd(commandWidth(commands))}show this help, or a command’s flags`,
    '',
    'flags every command takes:',
    ...flagLines(GLOBAL_FLAGS),
    '',
    'The store is --store, else $CAIRN_STORE, else $XDG_DATA_HOME/cairn, else',
    '~/.local/share/cairn; --url/--token (or $CAIRN_URL/$CAIRN_TOKEN) talk to a',
    '`cairn serve` instead (--token-file or $CAIRN_TOKEN_FILE keep the token out',
    'of `ps`). CAIRN_DEBUG=1 prints stack traces. `cairn --version` prints the',
    'version.',
    '',
    'exit codes: 0 ok, 1 check failed, 2 usage error, 3 not found, 4 conflict,',
    '5 bad input, 6 not authenticated or forbidden, 7 unavailable, 8 corrupt store,',
    '70 internal error. See docs/cli.md.',
    '',
  ].join('\n');
}

export function commandHelp(command: Command): string {
  const lines = [`usage: ${usageLine(command)}`, '', `${command.summary}.`, ''];
  if (command.example) lines.push('example:', `  ${command.example}`, '');
  if (command.flags.length > 0) lines.push('flags:', ...flagLines(command.flags), '');
  lines.push('flags every command takes:', ...flagLines(GLOBAL_FLAGS), '');
  if (command.target === 'store')
    lines.push(`${commandName(command)} works on a local store only (--store).`, '');
  return lines.join('\n');
}

export function groupHelp(group: string, commands: Command[]): string {
  const members = commands.filter((c) => c.names[0] === group);
  return [`usage: cairn ${group} SUBCOMMAND ...`, '', 'subcommands:', ...commandList(members), ''].join('\n');
}
