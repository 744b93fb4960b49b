import { type CommandInfo, commandName, type FlagSpec, GLOBAL_FLAGS, usageLine } from './command.js';

const COLUMN = 24;

function flagLines(flags: FlagSpec[]): string[] {
  const shown = flags.map((f) => `  --${f.name}${f.type === 'string' ? ` ${f.value ?? 'VALUE'}` : ''}`);
  // The help column starts two spaces past the longest flag (at least at COLUMN).
  const width = Math.max(COLUMN, ...shown.map((s) => s.length + 2));
  return flags.map(
    (f, i) => `${(shown[i] as string).padEnd(width)}${f.required ? '(required) ' : ''}${f.help}`,
  );
}

function synopsis(command: CommandInfo): string {
  return [...command.names, ...command.args].join(' ');
}

/** Width of the first column of a command list: the longest synopsis plus two spaces. */
function commandWidth(commands: readonly CommandInfo[]): number {
  return Math.max(COLUMN - 2, ...commands.map((c) => synopsis(c).length + 2));
}

function commandList(commands: readonly CommandInfo[]): string[] {
  const width = commandWidth(commands);
  return commands.map((c) => `  ${synopsis(c).padEnd(width)}${c.summary}`);
}

/** The feature each command's first word belongs to, in the order the main help lists them. */
const FEATURES: Array<[string, string[]]> = [
  [
    'the unit of work (mind + desk + keys)',
    ['checkpoint', 'restore', 'fork', 'status', 'exec', 'step', 'keep', 'abandon'],
  ],
  ['the session log', ['session', 'log', 'event', 'branch']],
  ['memory', ['memory']],
  ['artifacts (deliverables with lineage)', ['artifact']],
  ['the desk (workspace files)', ['ws', 'gc', 'watch']],
  ['the keys (credentials, grants, approvals)', ['cred', 'grant', 'approvals', 'approve', 'deny', 'proxy']],
  ['identity and audit', ['whoami', 'token', 'tenant', 'audit', 'erase', 'redaction']],
  ['the store and its servers', ['init', 'doctor', 'serve', 'mcp', 'demo']],
];

/** Commands by feature; a command whose word no feature names is listed last, under "other". */
function grouped(commands: readonly CommandInfo[]): Array<[string, CommandInfo[]]> {
  const groups = FEATURES.map(([title, words]): [string, CommandInfo[]] => [
    title,
    commands.filter((c) => words.includes(c.names[0] as string)),
  ]);
  const known = new Set(FEATURES.flatMap(([, words]) => words));
  const other = commands.filter((c) => !known.has(c.names[0] as string));
  return [...groups, ...(other.length > 0 ? [['other', other] as [string, CommandInfo[]]] : [])].filter(
    ([, members]) => members.length > 0,
  );
}

export function mainHelp(commands: readonly CommandInfo[]): string {
  const width = commandWidth(commands);
  return [
    'cairn: a persistence fabric for AI agents',
    '',
    'usage: cairn COMMAND [ARGS] [FLAGS]   (cairn help COMMAND: its flags and an example)',
    '',
    ...grouped(commands).flatMap(([title, members]) => [
      `${title}:`,
      ...members.map((c) => `  ${synopsis(c).padEnd(width)}${c.summary}`),
      '',
    ]),
    `  ${'help [COMMAND]'.padEnd(width)}show this help, or a command’s flags`,
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

export function commandHelp(command: CommandInfo): string {
  const lines = [`usage: ${usageLine(command)}`, '', `${command.summary}.`, ''];
  if (command.example) lines.push('example:', `  ${command.example}`, '');
  if (command.flags.length > 0) lines.push('flags:', ...flagLines(command.flags), '');
  lines.push('flags every command takes:', ...flagLines(GLOBAL_FLAGS), '');
  if (command.target === 'store')
    lines.push(`${commandName(command)} works on a local store only (--store).`, '');
  return lines.join('\n');
}

export function groupHelp(group: string, commands: readonly CommandInfo[]): string {
  const members = commands.filter((c) => c.names[0] === group);
  return [`usage: cairn ${group} SUBCOMMAND ...`, '', 'subcommands:', ...commandList(members), ''].join('\n');
}

/** The candidates closest to `word` (at most two edits, or a prefix of it), nearest first: for "did you mean". */
export function closest(word: string, candidates: readonly string[]): string[] {
  const scored = candidates
    .map((c) => ({ c, d: c.startsWith(word) && word.length >= 2 ? 1 : editDistance(word, c) }))
    .filter(({ d }) => d <= Math.min(2, Math.max(1, Math.floor(word.length / 3))))
    .sort((a, b) => a.d - b.d || a.c.localeCompare(b.c));
  return [...new Set(scored.map(({ c }) => c))].slice(0, 3);
}

/** " (did you mean X or Y?)", or nothing when no candidate is near. */
export function didYouMean(word: string, candidates: readonly string[], show = (c: string) => c): string {
  const near = closest(word, candidates);
  return near.length === 0 ? '' : ` (did you mean ${near.map(show).join(' or ')}?)`;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    previous = current;
  }
  return previous[b.length] as number;
}
