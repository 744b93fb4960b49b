/**
 * The CLI and the operation table agree, both ways, for every operation:
 * a command made from an operation takes exactly its input fields (each as
 * an argument or a flag with help); a command written by hand for an
 * operation maps every input field to one of its arguments or flags and
 * takes no flag that is neither a field nor a stated extra; and every other
 * operation says why it has no command.
 */
import { describe, expect, it } from 'vitest';
import { type Command, commandInfo } from '../src/cli/command.js';
import { allCommands } from '../src/cli/commands.js';
import { cliFieldsOf } from '../src/cli/derived.js';
import { MANIFEST } from '../src/cli/manifest.js';
import { CONTRACT } from '../src/contract/index.js';
import { inputJsonSchema } from '../src/contract/json-schema.js';
import { importGraph } from './support/import-graph.js';

/**
 * Operations whose command is written by hand, because its input comes from
 * somewhere a schema cannot say (stdin, a file, the workspace of the current
 * directory) or its answer joins two operations. `fields`: each input field
 * → the command's `ARG` or `--flag`, or `(why)` when the command derives it.
 * `extra`: flags the command takes that are not fields, and why.
 */
const HANDWRITTEN: Record<
  string,
  { command: string; fields: Record<string, string>; extra?: Record<string, string> }
> = {
  getSession: { command: 'session show', fields: { session: 'SESSION' } },
  append: {
    command: 'log append',
    fields: {
      session: 'SESSION',
      kind: '--kind',
      payload: '--payload',
      branch: '--branch',
      actor: '--actor',
      idempotencyKey: '--key',
    },
    extra: { 'payload-file': 'the payload read from a file' },
  },
  verifyAudit: { command: 'audit verify', fields: {} },
  addCredential: {
    command: 'cred add',
    fields: {
      name: 'NAME',
      kind: '--kind',
      upstream: '--upstream',
      header: '--header',
      value: '(read from stdin, never a flag: it would show in ps)',
      sandbox: '(--sandbox-upstream, its value the second line of stdin)',
      allowHeaders: '--allow-header',
      maxBodyBytes: '--max-body-bytes',
    },
    extra: {
      'sandbox-upstream': 'the sandbox upstream',
      'master-key-file': 'the vault key of a local store',
    },
  },
  rotateCredential: {
    command: 'cred rotate',
    fields: { name: 'NAME', value: '(read from stdin)', sandbox: '(stdin, with --sandbox)' },
    extra: {
      sandbox: 'the value on stdin is the sandbox one',
      'master-key-file': 'the vault key of a local store',
    },
  },
  addGrant: {
    command: 'grant add',
    fields: {
      session: '--session',
      branch: '--branch',
      credential: '--cred',
      mode: '--mode',
      approval: '--approval',
      parent: '--parent',
      allow: '(--host, --method, --path)',
      expiresAt: '(now + --ttl-ms)',
      maxUses: '--max-uses',
    },
    extra: {
      ws: 'the session and branch of a workspace',
      host: 'allow: a host',
      method: 'allow: a method',
      path: 'allow: a path prefix',
      'ttl-ms': 'expiresAt, relative',
    },
  },
  listSteps: {
    command: 'step ls',
    fields: { session: '(the workspace’s)', branch: '(the workspace’s)' },
    extra: { ws: 'the workspace (default: the current directory’s)' },
  },
  resolveStep: {
    command: 'step resolve',
    fields: {
      session: '(the workspace’s)',
      branch: '(the workspace’s)',
      position: 'POSITION',
      result: '--result',
      error: '--error',
      rerun: '--rerun',
    },
    extra: { ws: 'the workspace (default: the current directory’s)' },
  },
  keepBranch: {
    command: 'keep',
    fields: { session: '(the workspace’s)', branch: 'BRANCH', workspace: '(the fork of BRANCH)' },
    extra: { ws: 'the workspace (default: the current directory’s)' },
  },
  abandonBranch: {
    command: 'abandon',
    fields: {
      session: '(the workspace’s)',
      branch: 'BRANCH',
      workspace: '(the fork of BRANCH)',
      expiresAt: '(now + --ttl-ms)',
    },
    extra: { ws: 'the workspace (default: the current directory’s)', 'ttl-ms': 'expiresAt, relative' },
  },
  attachWorkspace: {
    command: 'ws attach',
    fields: { dir: 'DIR', session: '--session', branch: '--branch' },
    extra: { secrets: 'what the desk does with a credential it finds' },
  },
  checkpoint: {
    command: 'checkpoint',
    fields: { workspace: '--ws', label: '--label', checks: '--check' },
  },
  restore: {
    command: 'restore',
    fields: {
      checkpoint: 'CHECKPOINT',
      preview: '--preview',
      workspace: '--ws',
      allowUnaccepted: '--allow-unaccepted',
    },
  },
  forkUnit: {
    command: 'fork',
    fields: {
      checkpoint: 'CHECKPOINT',
      branches: '--branches',
      names: '--name',
      driver: '--driver',
      allowUnaccepted: '--allow-unaccepted',
    },
    extra: {
      ws: 'the workspace forked from',
      dir: 'where the forks go',
      grant: 'a narrowed grant per fork',
    },
  },
  status: { command: 'status', fields: { workspace: '--ws' } },
  publishArtifact: {
    command: 'artifact publish',
    fields: {
      session: '--session',
      branch: '--branch',
      name: '--name',
      mediaType: '--type',
      description: '--description',
      bytes: 'FILE',
      size: "(FILE's size)",
      checkpoint: '--checkpoint',
      snapshot: '--snapshot',
      path: '--path',
      step: '--from-step',
      event: '--event',
      inputs: '--input',
      inputFiles: '--input-file',
      ttlMs: '--ttl-ms',
    },
    extra: {
      ws: 'the workspace that gives the session (and a checkpoint the lineage) when --session is left out',
    },
  },
  readArtifact: {
    command: 'artifact get',
    fields: { artifact: 'ARTIFACT', offset: '--offset', length: '--length' },
    extra: { out: 'the file the bytes go to' },
  },
};

/** Operations with no command of their own, and why. */
const NOT_ON_CLI: Record<string, string> = {
  deskMissing: 'the remote desk’s own step of a checkpoint (`ws checkpoint`)',
  deskReadObjects: 'the remote desk’s own step of a restore',
  deskPutPack: 'the remote desk’s own step of a checkpoint',
  deskDiscardPacks: 'the remote desk’s own step of a failed checkpoint',
  deskCommit: 'the remote desk’s own step of a checkpoint',
  getWorkspace: 'the remote desk’s own read (`ws ls` shows workspaces)',
  workspaceHead: 'the remote desk’s own read (`status`)',
  listWorkspaces: 'the remote desk’s own read (`ws ls`)',
  attachedAt: 'the remote desk’s own read (which directories are attached)',
  listSnapshots: 'the remote desk’s own read (`ws ls`)',
  getSnapshot: 'the remote desk’s own read',
  deskFork: 'the remote desk’s own step of `ws fork`',
  detachWorkspace: 'the remote desk’s own step of `ws detach`',
  deskRefused: 'the remote desk’s own audit of a refusal',
  checkGrant: 'the keys’ own check before `grant add` narrows a grant',
  recordStep: 'the step journal’s call (`exec` records its command as one)',
  rememberMany: 'a batch for programs: `memory add` is one record',
  carryMemory: 'part of `keep` (a kept branch’s records go to its parent)',
  dropBranchMemory: 'part of `abandon` and `gc`',
  recordCheckpoint: 'part of `checkpoint`',
  listCheckpoints: 'the workspace_checkpoints tool; the CLI shows checkpoints in `ws ls` and `status`',
  sweepArtifacts: 'part of `gc`',
  sweepBranches: 'part of `gc` (and `gc --dry-run`)',
  publishWorkspaceFile: 'the artifact_publish tool; `artifact publish FILE` names its lineage with flags',
};

const COMMANDS = await allCommands();
const byWords = new Map(COMMANDS.map((c) => [c.names.join(' '), c]));
const flagNames = (c: Command) => c.flags.map((f) => `--${f.name}`);

describe('the CLI and the operation table', () => {
  it('the manifest help and usage read is the commands’ own data (regenerate it with `npm run wire`)', () => {
    expect(MANIFEST).toEqual(COMMANDS.map(commandInfo));
  });

  it('accounts for every operation, once', () => {
    for (const [name, operation] of Object.entries(CONTRACT)) {
      const ways = [operation.cli !== undefined, name in HANDWRITTEN, name in NOT_ON_CLI].filter(Boolean);
      expect(
        ways,
        `${name}: a CLI binding, a hand-written command, or a reason for none — exactly one`,
      ).toHaveLength(1);
    }
    for (const name of [...Object.keys(HANDWRITTEN), ...Object.keys(NOT_ON_CLI)])
      expect(CONTRACT, `${name} is an operation`).toHaveProperty(name);
  });

  it('a command made from an operation takes exactly its input fields, each described', () => {
    for (const operation of Object.values(CONTRACT)) {
      if (!operation.cli) continue;
      const command = byWords.get(operation.cli.command.join(' '));
      expect(command, `${operation.name}: cairn ${operation.cli.command.join(' ')}`).toBeDefined();
      expect(command?.operation).toBe(operation.name);
      const { args, flags } = cliFieldsOf(operation);
      const fields = Object.keys(inputJsonSchema(operation).properties ?? {});
      // Both ways: every field is an argument or a flag, and every argument and flag is a field.
      expect([...args.map((a) => a.field), ...flags.map((f) => f.field)].sort()).toEqual([...fields].sort());
      expect(command?.args).toEqual(args.map((a) => a.shown));
      expect(flagNames(command as Command).sort()).toEqual(flags.map((f) => `--${f.flag.name}`).sort());
      for (const f of flags) expect(f.flag.help, `${operation.name} --${f.flag.name} has help`).not.toBe('');
      expect(operation.cli.example.startsWith(`cairn ${operation.cli.command.join(' ')}`)).toBe(true);
    }
  });

  it('a hand-written command maps every input field, and takes no flag that is not one or a stated extra', () => {
    for (const [name, { command: words, fields, extra = {} }] of Object.entries(HANDWRITTEN)) {
      const command = byWords.get(words) as Command;
      expect(command, `${name}: cairn ${words}`).toBeDefined();
      const operation = CONTRACT[name as keyof typeof CONTRACT];
      const schemaFields = Object.keys(inputJsonSchema(operation).properties ?? {});
      expect(Object.keys(fields).sort(), `${name}: the fields mapped`).toEqual([...schemaFields].sort());
      const flags = flagNames(command);
      for (const [field, to] of Object.entries(fields)) {
        if (to.startsWith('--')) expect(flags, `${name}.${field} → ${to}`).toContain(to);
        else if (!to.startsWith('(')) expect(command.args, `${name}.${field} → ${to}`).toContain(to);
      }
      const mapped = new Set(Object.values(fields).filter((to) => to.startsWith('--')));
      for (const flag of flags)
        expect(
          mapped.has(flag) || flag.slice(2) in extra,
          `${words} ${flag}: a field or a stated extra`,
        ).toBe(true);
    }
  });
});

describe('help and mistakes', () => {
  /** Runs `cairn …` in this process; what it printed and its exit code. */
  async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const { main } = await import('../src/cli/main.js');
    const { PassThrough } = await import('node:stream');
    const [stdout, stderr] = [new PassThrough(), new PassThrough()];
    const chunks = { stdout: '', stderr: '' };
    stdout.on('data', (c) => {
      chunks.stdout += c;
    });
    stderr.on('data', (c) => {
      chunks.stderr += c;
    });
    const code = await main(argv, { stdout, stderr, stdin: new PassThrough(), env: {}, cwd: '/' });
    return { code, ...chunks };
  }

  it('help and usage errors load no command, schema or library code: only the manifest', () => {
    // What the launcher loads before a command is chosen (static imports; the commands are a dynamic import).
    const graph = [...importGraph('src/cli/front.ts'), ...importGraph('src/cli/main.ts')];
    expect(graph.filter((m) => !m.startsWith('src/') && !m.startsWith('node:'))).toEqual([]);
    for (const heavy of ['src/cli/commands.ts', 'src/contract/index.ts', 'src/store.ts', 'src/schema.ts'])
      expect(graph).not.toContain(heavy);
  });

  it('every command has an example that runs it', () => {
    for (const command of COMMANDS)
      expect(command.example ?? '', command.names.join(' ')).toContain(`cairn ${command.names.join(' ')}`);
  });

  it('lists the commands by feature, and each command’s help shows its example', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    for (const title of ['the unit of work', 'the session log', 'memory:', 'the desk', 'the keys'])
      expect(help.stdout).toContain(title);
    expect(help.stdout).not.toContain('\nother:');
    const recall = await run(['help', 'memory', 'recall']);
    expect(recall.stdout).toContain('example:\n  cairn memory recall');
  });

  it('says what was meant: an unknown command, subcommand or flag', async () => {
    const command = await run(['sesion', 'ls']);
    expect(command).toMatchObject({ code: 2 });
    expect(command.stderr).toContain('did you mean session?');
    const sub = await run(['memory', 'recal', 'x']);
    expect(sub.stderr).toContain('did you mean cairn memory recall?');
    const flag = await run(['memory', 'recall', 'x', '--scope', 'user:a', '--min-trst', 'trusted']);
    expect(flag).toMatchObject({ code: 2 });
    expect(flag.stderr).toContain('did you mean --min-trust?');
    // Nothing near: no guess.
    expect((await run(['zzzzzz'])).stderr).not.toContain('did you mean');
  });

  it('refuses input the schema refuses before a store is opened: exit 2, the operation’s code and message', async () => {
    const store = '/nonexistent/cairn-store-never-made';
    const refused = await run([
      'memory',
      'recall',
      'x',
      '--scope',
      'user:a',
      '--k',
      '101',
      '--json',
      '--store',
      store,
    ]);
    expect(refused.code).toBe(2);
    const { error } = JSON.parse(refused.stdout);
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain('recall: k:');
    // The store was never looked for: a bad store would have been UNAVAILABLE (7).
    expect(refused.stderr).not.toContain(store);
  });
});
