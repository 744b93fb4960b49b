/**
 * The `cairn` command line. Loaded by every call, so it loads little itself:
 * `--version` needs nothing more, and the commands (with the library behind
 * them) are loaded once a command line asks for one.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { invalidArgument } from '../errors.js';
import type { Fabric } from '../fabric.js';
import { checkArity, findCommand, parseCommandLine, stringFlag, wantsJson } from './args.js';
import {
  type Command,
  type CommandInfo,
  commandName,
  type DeskCommand,
  type FabricCommand,
  type Invocation,
  type SharedDesk,
  type StoreCommand,
} from './command.js';
import { ignoreClosedPipe } from './front.js';
import { commandHelp, groupHelp, mainHelp } from './help.js';
import { MANIFEST } from './manifest.js';
import { EXIT, Output, UsageError } from './output.js';
import { fromEnv, storeDir } from './store-dir.js';
import { cliVersion } from './version.js';

/** What the CLI reads from its process, passed in so commands need no globals (only `serve` listens for signals). */
export interface CliWorld {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
  env: Record<string, string | undefined>;
  cwd: string;
  /** Set inside `cairn watch`, which runs command lines for other processes over its own desk. */
  shared?: SharedDesk;
}

function processWorld(): CliWorld {
  ignoreClosedPipe(process.stdout);
  ignoreClosedPipe(process.stderr);
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
  };
}

/** Runs one `cairn …` command line and returns its exit code; it never throws. */
export async function main(argv: string[], world: CliWorld = processWorld()): Promise<number> {
  const out = new Output(wantsJson(argv), world, world.env.CAIRN_DEBUG === '1');
  try {
    return await dispatch(argv, world, out);
  } catch (error) {
    return out.fail(error);
  }
}

function hasHelpFlag(args: string[]): boolean {
  return args.includes('--help') || args.includes('-h');
}

async function dispatch(argv: string[], world: CliWorld, out: Output): Promise<number> {
  if (argv[0] === '--version' || argv[0] === '-V' || argv[0] === 'version') {
    const version = cliVersion();
    out.result({ version, node: process.versions.node }, `cairn ${version}`);
    return EXIT.ok;
  }
  // Help, a mistyped command and a usage error need only the commands' data (the manifest):
  // the commands themselves, their schemas and the library load once one is to run.
  if (argv[0] === 'help') return showHelp(argv.slice(1), out, MANIFEST);
  const lookup = findCommand(argv, MANIFEST);
  if (lookup.kind === 'none') {
    if (hasHelpFlag(lookup.rest)) return showHelp([], out, MANIFEST);
    throw new UsageError('missing command: run `cairn help` to list the commands');
  }
  if (lookup.kind === 'group') {
    if (hasHelpFlag(lookup.rest)) return showHelp([lookup.group], out, MANIFEST);
    throw new UsageError(
      `"cairn ${lookup.group}" needs a subcommand: run \`cairn help ${lookup.group}\` to list them`,
    );
  }
  const { values, positionals } = parseCommandLine(lookup.command, lookup.rest);
  if (values.help) {
    out.text(commandHelp(lookup.command), 'help');
    return EXIT.ok;
  }
  checkArity(lookup.command, values, positionals);
  const { COMMAND_FILES } = await import('./commands.js');
  const wanted = lookup.command.names.join(' ');
  const file = COMMAND_FILES[lookup.command.file as keyof typeof COMMAND_FILES];
  const command = (await file()).find((c) => c.names.join(' ') === wanted) as Command;
  const call: Invocation = {
    values,
    positionals,
    out,
    env: world.env,
    stdin: world.stdin,
    cwd: world.cwd,
    ...(world.shared ? { shared: world.shared } : {}),
  };
  command.check?.(call);
  const code =
    command.target === 'store'
      ? await runOnStore(command, call, world.cwd)
      : command.target === 'desk'
        ? await runOnDesk(command, call, world.cwd)
        : await runOnFabric(command, call, world.cwd);
  return code ?? EXIT.ok;
}

function showHelp(words: string[], out: Output, COMMANDS: readonly CommandInfo[]): number {
  const names = words.filter((w) => !w.startsWith('-'));
  if (names.length === 0) {
    out.text(mainHelp(COMMANDS), 'help');
    return EXIT.ok;
  }
  const command = COMMANDS.find((c) => c.names.join(' ') === names.join(' '));
  if (command) {
    out.text(commandHelp(command), 'help');
    return EXIT.ok;
  }
  if (names.length === 1 && COMMANDS.some((c) => c.names[0] === names[0])) {
    out.text(groupHelp(names[0]!, COMMANDS), 'help');
    return EXIT.ok;
  }
  throw new UsageError(`no command "cairn ${names.join(' ')}": run \`cairn help\` to list the commands`);
}

/**
 * A store named by --store or $CAIRN_STORE must exist (a typo is not a new
 * store); the default one is made on first use, so the first command works.
 * A store folder other users may enter is warned of (`cairn doctor` reports it itself).
 */
async function checkStore(
  store: { dir: string; chosen: boolean },
  command: Command,
  out: Output,
): Promise<string> {
  const creates = command.target !== 'fabric' && command.createsStore;
  if (store.chosen && !creates) (await import('./store-commands.js')).requireStore(store.dir);
  if (!(command.target === 'store' && command.reportsPermissions)) {
    const warning = (await import('../store-folder.js')).storeExposure(store.dir);
    if (warning !== undefined) out.problem(warning);
  }
  return store.dir;
}

async function runOnStore(command: StoreCommand, call: Invocation, cwd: string): Promise<number | undefined> {
  if (['url', 'token', 'token-file'].some((flag) => stringFlag(call.values, flag) !== undefined)) {
    throw new UsageError(
      `${commandName(command)} works on a local store only: drop --url/--token and pass --store DIR`,
    );
  }
  const dir = await checkStore(storeDir(call.values, call.env, cwd), command, call.out);
  return command.run(dir, call);
}

type Target =
  | { kind: 'remote'; url: string; token: string }
  | { kind: 'local'; store: { dir: string; chosen: boolean } };

/** Flags beat environment variables; a --store flag beats $CAIRN_URL, a --url flag beats $CAIRN_STORE. */
function resolveTarget(call: Invocation, cwd: string): Target {
  const urlFlag = stringFlag(call.values, 'url');
  const storeFlag = stringFlag(call.values, 'store');
  const tokenFlag = stringFlag(call.values, 'token');
  const tokenFile = stringFlag(call.values, 'token-file');
  if (urlFlag !== undefined && storeFlag !== undefined)
    throw new UsageError('pass either --url or --store, not both');
  if (tokenFlag !== undefined && tokenFile !== undefined)
    throw new UsageError('pass either --token or --token-file, not both');
  const url = urlFlag ?? (storeFlag === undefined ? fromEnv(call.env, 'CAIRN_URL') : undefined);
  if (url === undefined) {
    if (tokenFlag !== undefined || tokenFile !== undefined) {
      throw new UsageError('--token goes with --url (or $CAIRN_URL): a local store needs no token');
    }
    return { kind: 'local', store: storeDir(call.values, call.env, cwd) };
  }
  // Flag beats variable; a file (--token-file, $CAIRN_TOKEN_FILE) keeps the token out of `ps`.
  const envFile = fromEnv(call.env, 'CAIRN_TOKEN_FILE');
  const token =
    tokenFlag ??
    (tokenFile !== undefined ? readTokenFile(cwd, tokenFile, '--token-file') : undefined) ??
    fromEnv(call.env, 'CAIRN_TOKEN') ??
    (envFile !== undefined ? readTokenFile(cwd, envFile, '$CAIRN_TOKEN_FILE') : undefined);
  if (token === undefined) {
    throw new UsageError(
      `${url} needs a token: pass --token-file FILE (or --token), or set $CAIRN_TOKEN_FILE or $CAIRN_TOKEN (\`cairn serve\` prints one; \`cairn token create\` mints more)`,
    );
  }
  return { kind: 'remote', url, token };
}

/** A bearer token kept in a file: its text without surrounding whitespace (a trailing newline). */
function readTokenFile(cwd: string, file: string, source: string): string {
  const path = resolve(cwd, file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (error) {
    throw invalidArgument(
      `could not read the token file ${path} given by ${source} (${(error as NodeJS.ErrnoException).code ?? String(error)}): check the path`,
      { field: 'token-file' },
    );
  }
  if (text === '')
    throw invalidArgument(`the token file ${path} given by ${source} is empty: write the token into it`, {
      field: 'token-file',
    });
  return text;
}

/** A server's own master key seals values: a local one given with --url is a mistake, refused. */
function refuseLocalMasterKey(call: Invocation): void {
  if (stringFlag(call.values, 'master-key-file') !== undefined)
    throw new UsageError(
      'through a server its own master key seals values (`cairn serve --master-key-file`): drop --master-key-file',
    );
}

/** A workspace command: the directory is here; the store is local or, with --url (or $CAIRN_URL), a server's. */
async function runOnDesk(command: DeskCommand, call: Invocation, cwd: string): Promise<number | undefined> {
  const target = resolveTarget(call, cwd);
  if (target.kind === 'remote') {
    refuseLocalMasterKey(call);
    return command.run(target, call);
  }
  return command.run({ kind: 'local', dir: await checkStore(target.store, command, call.out) }, call);
}

async function runOnFabric(
  command: FabricCommand,
  call: Invocation,
  cwd: string,
): Promise<number | undefined> {
  const target = resolveTarget(call, cwd);
  let fabric: Fabric;
  if (target.kind === 'remote') {
    refuseLocalMasterKey(call);
    const { connect } = await import('../client/connect.js');
    fabric = connect({ url: target.url, token: target.token });
  } else {
    const dir = await checkStore(target.store, command, call.out);
    if (command.runLocal) return command.runLocal(dir, call);
    // Everyday commands skip the whole-store quick_check (it grows with the store); `serve`,
    // `init` and `audit verify` run it. Corruption met while reading is still reported.
    const [{ openConfiguredFabric }, { masterKeyOf, auditKeyOf }] = await Promise.all([
      import('./store-commands.js'),
      import('./operator-keys.js'),
    ]);
    fabric = await openConfiguredFabric(dir, masterKeyOf(call), auditKeyOf(call));
  }
  try {
    return await command.run(fabric, call);
  } finally {
    await fabric.close();
  }
}
