import { basename, resolve } from 'node:path';
import { openWorkspaceFile } from '../artifacts/workspace-file.js';
import type { Desk } from '../desk/desk.js';
import type { Workspace } from '../desk/rows.js';
import { invalidArgument, isCairnError, notFound } from '../errors.js';
import type { ApprovalPolicy, GrantMode } from '../keys/grants.js';
import type { Keys } from '../keys/keys.js';
import { type RunningProxy, startProxy } from '../keys/proxy.js';
import { UNIT_CONTRACT } from '../unit/contract.js';
import { execInWorkspace } from '../unit/exec.js';
import {
  defaultForkRoot,
  type ForkGrant,
  keysOverFabric,
  refuseOtherWorkspace,
  type UnitCheckpoint,
  Units,
} from '../unit/unit.js';
import { jsonFlag, listFlag, stringFlag, wholeNumberFlag } from './args.js';
import type { DeskCommand, DeskPlace, FlagSpec, Invocation } from './command.js';
import { tableInput } from './derived.js';
import { type DeskContext, localOnly, withDesk, workspaceOf } from './desk-commands.js';
import { MASTER_KEY_FLAG, masterKeyOf } from './operator-keys.js';
import { EXIT } from './output.js';

/**
 * The unit of work on a local store: `cairn checkpoint|restore|fork|exec|
 * status` and `cairn step ls|resolve`. The unit is the workspace named by
 * `--ws` (default: the current directory) with its session branch.
 */
const WS_FLAG: FlagSpec = {
  name: 'ws',
  type: 'string',
  value: 'WS',
  help: 'workspace id or attached directory (default: the current directory)',
};

type UnitContext = DeskContext & { units: Units; ws: Workspace };

async function withUnit<T>(
  place: DeskPlace,
  call: Invocation,
  fn: (ctx: UnitContext) => Promise<T>,
): Promise<T> {
  return withDesk(place, call, async (ctx) => {
    const ws = await workspaceOf(ctx.desk, call);
    return fn({ ...ctx, units: await unitsOf(ctx, call), ws });
  });
}

/**
 * The unit over the desk, the fabric and the keys (a checkpoint records the
 * branch's grants, a fork may hand grants on): the store's own keys on a
 * local store, the server's through the fabric otherwise.
 */
export async function unitsOf(ctx: DeskContext, call: Invocation): Promise<Units> {
  const keys = ctx.local
    ? ctx.local.store.keys(ctx.local.who, { masterKey: masterKeyOf(call) })
    : await keysOverFabric(ctx.fabric);
  return new Units(ctx.fabric, ctx.desk, keys);
}

/**
 * The unit of a command that names a checkpoint: the workspace of `--ws`,
 * else the one attached at the current directory — never the checkpoint's
 * own by default, so a command run in the wrong place changes nothing
 * there. It refuses when the checkpoint is of another workspace, naming both.
 */
async function withCheckpointUnit<T>(
  place: DeskPlace,
  call: Invocation,
  fn: (ctx: UnitContext & { checkpoint: UnitCheckpoint }) => Promise<T>,
): Promise<T> {
  return withDesk(place, call, async (ctx) => {
    const { desk } = ctx;
    const units = await unitsOf(ctx, call);
    const checkpoint = await units.get(call.positionals[0]!);
    const ws = await workspaceOf(desk, call).catch(async (error: unknown) => {
      if (stringFlag(call.values, 'ws') !== undefined || !isCairnError(error, 'NOT_FOUND')) throw error;
      const own = await desk.getWorkspace(checkpoint.workspace).catch(() => undefined);
      throw notFound(
        `no workspace is attached at ${call.cwd}, and a checkpoint acts on the workspace where you are: run it in ${own?.dir ?? 'its workspace directory'} or pass --ws ${checkpoint.workspace}`,
        { checkpoint: checkpoint.id, workspace: checkpoint.workspace },
      );
    });
    if (ws.id !== checkpoint.workspace)
      await refuseOtherWorkspace(desk, checkpoint, ws, (w) => `pass --ws ${w}`);
    return fn({ ...ctx, units, ws, checkpoint });
  });
}

/**
 * `--grant BRANCH:CREDENTIAL:MODE[:each-write]`: one grant for one named
 * branch of a fork, narrowing the forked branch's grant on the credential.
 */
function forkGrants(call: Invocation, names: string[]): ForkGrant[][] {
  const out = names.map((): ForkGrant[] => []);
  for (const text of listFlag(call.values, 'grant')) {
    const [branch, credential, mode, approval, ...extra] = text.split(':');
    const index = names.indexOf(branch ?? '');
    if (
      !credential ||
      !mode ||
      extra.length > 0 ||
      (approval !== undefined && approval !== 'each-write' && approval !== 'none')
    )
      throw invalidArgument(`--grant ${text}: write BRANCH:CREDENTIAL:MODE[:each-write]`, {
        grant: text,
      });
    if (index < 0)
      throw invalidArgument(`--grant ${text}: branch ${branch} is not one of the --name branches`, {
        grant: text,
      });
    out[index]?.push({
      credential,
      mode: mode as GrantMode,
      ...(approval ? { approval: approval as ApprovalPolicy } : {}),
    });
  }
  return out;
}

function checkpointLines(c: UnitCheckpoint): string[] {
  return [
    `checkpoint ${c.id}${c.label ? ` "${c.label}"` : ''}: ${c.accepted ? 'accepted' : 'NOT accepted'} — snapshot ${c.snapshot}, log head ${c.head || '(empty)'}`,
    ...(c.evidence.git
      ? [
          `git ${c.evidence.git.revision} on ${c.evidence.git.branch ?? '(detached HEAD)'}${c.evidence.git.dirty ? ' (dirty)' : ''}`,
        ]
      : []),
    ...c.evidence.checks.flatMap((k) => [
      `check ${k.passed ? 'passed' : 'FAILED'} (exit ${k.exit}, ${k.durationMs} ms): ${k.command}`,
      ...(k.outputTail ? k.outputTail.split('\n').map((line) => `  | ${line}`) : []),
    ]),
    ...c.inDoubt.map((s) => `step ${s.position} "${s.name}" is in doubt`),
  ];
}

/** The attached workspace of a branch on this host; with --ws, of that workspace's session. */
async function branchWorkspace(desk: Desk, call: Invocation, branch: string): Promise<Workspace> {
  const session =
    stringFlag(call.values, 'ws') === undefined ? undefined : (await workspaceOf(desk, call)).session;
  const found = (await desk.listWorkspaces()).filter(
    (w) => w.state === 'attached' && w.branch === branch && (session === undefined || w.session === session),
  );
  if (found.length === 1) return found[0] as Workspace;
  if (found.length === 0)
    throw notFound(
      `no workspace on this host is attached to a branch named ${branch}: fork one with \`cairn fork CP --name ${branch}\``,
      { branch },
    );
  throw invalidArgument(
    `${found.length} workspaces are attached to branches named ${branch}: pass --ws to pick the session`,
    { branch },
  );
}

const checkpoint: DeskCommand = {
  target: 'desk',
  createsStore: false,
  names: ['checkpoint'],
  example: 'cairn checkpoint --label "tests pass" --check "npm test"',
  args: [],
  flags: [
    WS_FLAG,
    { name: 'label', type: 'string', value: 'L', help: 'a label for people' },
    {
      name: 'check',
      type: 'string',
      value: 'CMD',
      multiple: true,
      help: 'a shell command whose success accepts the checkpoint (repeatable)',
    },
  ],
  summary:
    'checkpoint the unit: log head, workspace snapshot, steps in doubt, evidence (git revision, checks)',
  // The table's validation of `checkpoint`, before the store is opened (a label as long as the table takes).
  check: (call) => {
    checkpointInput(call);
  },
  async run(place, call) {
    const input = checkpointInput(call);
    return withUnit(place, call, async ({ units, ws }) => {
      const c = await units.checkpoint({ workspace: ws.id, label: input.label, checks: input.checks });
      call.out.result(c, checkpointLines(c));
      return c.accepted ? EXIT.ok : EXIT.checkFailed;
    });
  },
};

function checkpointInput(call: Invocation) {
  return tableInput(UNIT_CONTRACT.checkpoint, () => ({
    label: stringFlag(call.values, 'label'),
    checks: listFlag(call.values, 'check'),
  }));
}

const restore: DeskCommand = {
  target: 'desk',
  createsStore: false,
  names: ['restore'],
  example: 'cairn restore ev_… --preview',
  args: ['CHECKPOINT'],
  flags: [
    WS_FLAG,
    {
      name: 'preview',
      type: 'boolean',
      help: 'list events, files and steps after the checkpoint; change nothing',
    },
    { name: 'allow-unaccepted', type: 'boolean', help: 'restore a checkpoint whose checks failed' },
  ],
  summary:
    'restore the unit to any checkpoint of its session (checkpoints first; the log head moves there and the workspace follows, as a new operation that prints its undo)',
  async run(place, call) {
    return withCheckpointUnit(place, call, async ({ units, ws }) => {
      const id = call.positionals[0]!;
      const options = { workspace: ws.id, allowUnaccepted: call.values['allow-unaccepted'] === true };
      const previewOnly = call.values.preview === true;
      const done = previewOnly ? undefined : await units.restore(id, options);
      const preview = done?.preview ?? (await units.previewRestore(id, options));
      const s = preview.steps;
      const back = preview.eventsBack.length > 0 ? `, ${preview.eventsBack.length} events back on it` : '';
      call.out.result(done ? { ...preview, before: done.before, undo: done.undo } : preview, [
        `${previewOnly ? 'restoring' : 'restored'} ${id} in ${preview.dir} (${preview.workspace}): ${preview.files.length} paths, ${preview.eventsAfter.length} events off the branch's path${back}`,
        ...preview.files.map((f) => `  ${f.change} ${f.path}`),
        ...s.undone.map((e) => `  step ${e.position} ${e.name}: undone (local only)`),
        ...s.compensation.map(
          (e) => `  step ${e.position} ${e.name}: compensation available (${e.compensate?.name})`,
        ),
        ...s.cannotUndo.map((e) => `  step ${e.position} ${e.name}: cannot be undone (external effect)`),
        ...(done ? [`undo: cairn restore ${done.undo}`] : []),
      ]);
      return EXIT.ok;
    });
  },
};

const fork: DeskCommand = {
  target: 'desk',
  createsStore: false,
  names: ['fork'],
  example: 'cairn fork ev_… --branches 3',
  args: ['CHECKPOINT'],
  flags: [
    WS_FLAG,
    { name: 'branches', type: 'string', value: 'N', help: 'how many branches (default 1)' },
    {
      name: 'name',
      type: 'string',
      value: 'B',
      multiple: true,
      help: 'name a branch (repeatable; instead of --branches)',
    },
    {
      name: 'dir',
      type: 'string',
      value: 'DIR',
      help: 'where the branches’ workspaces go (default: beside the workspace)',
    },
    { name: 'driver', type: 'string', value: 'D', help: 'copy or overlay (default: by capability)' },
    { name: 'allow-unaccepted', type: 'boolean', help: 'fork a checkpoint whose checks failed' },
    {
      name: 'grant',
      type: 'string',
      value: 'B:CRED:MODE[:each-write]',
      multiple: true,
      help: 'give named branch B a grant narrowing this branch’s grant on CRED (repeatable); none by default',
    },
  ],
  summary:
    'fork the unit at a checkpoint into branches, each with its own log branch, workspace and stated grants (none unless --grant)',
  async run(place, call) {
    const driver = stringFlag(call.values, 'driver');
    if (driver !== undefined && driver !== 'copy' && driver !== 'overlay') {
      throw invalidArgument(`--driver must be copy or overlay, not "${driver}"`, {
        flag: 'driver',
      });
    }
    return withCheckpointUnit(place, call, async ({ units, ws }) => {
      const names = listFlag(call.values, 'name');
      const result = await units.fork(call.positionals[0]!, {
        branches: names.length > 0 ? names : (wholeNumberFlag(call.values, 'branches') ?? 1),
        dirRoot: resolve(call.cwd, stringFlag(call.values, 'dir') ?? defaultForkRoot(ws)),
        driver,
        allowUnaccepted: call.values['allow-unaccepted'] === true,
        grants: forkGrants(call, names),
      });
      call.out.result(
        result,
        result.branches.map(
          (b) =>
            `branch ${b.branch}: workspace ${b.workspace.id} at ${b.workspace.dir} (${b.workspace.driver}), grants: ${
              b.grants.length === 0
                ? 'none'
                : b.grants
                    .map(
                      (g) =>
                        `${g.credential} ${g.mode}${g.approval === 'each-write' ? '+each-write' : ''} (${g.id})`,
                    )
                    .join(', ')
            }`,
        ),
      );
      return EXIT.ok;
    });
  },
};

const exec: DeskCommand = {
  target: 'desk',
  createsStore: false,
  names: ['exec'],
  example: 'cairn exec -- npm test',
  args: [],
  rest: 'CMD…',
  flags: [
    WS_FLAG,
    {
      name: 'branch',
      type: 'string',
      value: 'B',
      help: 'run in branch B’s workspace with CAIRN_PROXY_URL and CAIRN_HANDLE set (a proxy runs for the command)',
    },
    {
      name: 'env-cred',
      type: 'string',
      value: 'NAME',
      multiple: true,
      help: 'inject env credential NAME into this one command (needs --branch and a grant on it)',
    },
    {
      name: 'proxy',
      type: 'string',
      value: 'URL',
      help: 'use a running `cairn proxy` instead of starting one',
    },
    {
      name: 'publish',
      type: 'string',
      value: 'PATH',
      multiple: true,
      help: 'after a successful run, publish this output file as an artifact, its lineage the step and the snapshot (repeat)',
    },
    MASTER_KEY_FLAG,
  ],
  summary: 'run a command in the workspace as a recorded step, then checkpoint if it changed anything',
  async run(place, call) {
    const branch = stringFlag(call.values, 'branch');
    const envCredentials = listFlag(call.values, 'env-cred');
    if (branch === undefined && (envCredentials.length > 0 || call.values.proxy !== undefined))
      throw invalidArgument('--env-cred and --proxy need --branch B');
    return withDesk(place, call, async (ctx) => {
      const { desk, fabric } = ctx;
      const ws =
        branch === undefined ? await workspaceOf(desk, call) : await branchWorkspace(desk, call, branch);
      // A branch's proxy and env credentials use the keys, which are where the store is.
      const local = branch === undefined ? undefined : localOnly(ctx, 'exec --branch');
      const keys = local?.store.keys(local.who, { masterKey: masterKeyOf(call) });
      const who = local?.who;
      let running: RunningProxy | undefined;
      const proxyUrl = stringFlag(call.values, 'proxy');
      if (branch !== undefined && proxyUrl === undefined) {
        running = await startProxy({
          keysFor: (tenant) => (tenant === who?.tenant ? keys : undefined),
          auditRefusalsIn: keys as Keys,
          log: (line) => call.out.problem(line),
        });
      }
      // Stopping `cairn exec` stops its child first, so the handle is revoked and the step recorded.
      const stopping = new AbortController();
      const stop = () => stopping.abort();
      const signals = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
      for (const s of signals) process.on(s, stop);
      const result = await execInWorkspace(fabric, desk, {
        workspace: ws.id,
        command: call.positionals,
        env: call.env,
        signal: stopping.signal,
        ...(branch === undefined
          ? {}
          : {
              keys: {
                keys: keys as Keys,
                proxyUrl: proxyUrl ?? (running as RunningProxy).url,
                envCredentials,
              },
            }),
      }).finally(() => {
        for (const s of signals) process.off(s, stop);
        return running?.close();
      });
      const { stdout, stderr, ...recorded } = result;
      if (!call.out.json) {
        call.out.raw(stdout, stderr);
      }
      // The command's outputs, each published with the step that made them and the snapshot that holds them.
      const outputs = result.exit === 0 ? listFlag(call.values, 'publish') : [];
      const artifacts = [];
      for (const path of outputs) {
        const file = await openWorkspaceFile(ws.dir, path, ws.id);
        try {
          artifacts.push(
            await fabric.publishArtifact({
              session: ws.session,
              branch: ws.branch,
              name: basename(path),
              bytes: file.bytes,
              size: file.size,
              snapshot: result.checkpoint.snapshot.id,
              path,
              step: result.position,
            }),
          );
        } finally {
          file.close();
        }
      }
      call.out.result(
        { ...recorded, stdout: stdout.toString('utf8'), stderr: stderr.toString('utf8'), artifacts },
        [
          `step ${result.position}: exit ${result.exit} in ${result.durationMs} ms${result.checkpoint.created ? `, snapshot ${result.checkpoint.snapshot.id}` : ', workspace unchanged'}`,
          ...artifacts.map((a) => `published ${a.lineage.path} as ${a.id} (${a.size} bytes)`),
          ...(result.exit !== 0 && listFlag(call.values, 'publish').length > 0
            ? ['nothing published: the command failed']
            : []),
        ],
      );
      return result.exit === 0 ? EXIT.ok : Math.min(result.exit, 125);
    });
  },
};

const stepList: DeskCommand = {
  target: 'desk',
  createsStore: false,
  names: ['step', 'ls'],
  example: 'cairn step ls',
  args: [],
  flags: [WS_FLAG],
  summary: 'list the recorded steps of the workspace’s branch',
  async run(place, call) {
    return withUnit(place, call, async ({ fabric, ws }) => {
      const { steps } = await fabric.listSteps({ session: ws.session, branch: ws.branch });
      call.out.result(
        { steps },
        steps.map(
          (s) => `${s.position}  ${s.state}${s.settledBy ? ` (by ${s.settledBy})` : ''}  ${s.name}  ${s.key}`,
        ),
      );
      return EXIT.ok;
    });
  },
};

const stepResolve: DeskCommand = {
  target: 'desk',
  createsStore: false,
  names: ['step', 'resolve'],
  example: 'cairn step resolve 4 --result \'{"sent":true}\'',
  args: ['POSITION'],
  flags: [
    WS_FLAG,
    { name: 'result', type: 'string', value: 'JSON', help: 'the step happened, with this result' },
    { name: 'error', type: 'string', value: 'MSG', help: 'the step failed' },
    { name: 'rerun', type: 'boolean', help: 'run it again with the same key' },
  ],
  summary: 'resolve a step in doubt (escalate policy): it happened, it failed, or run it again',
  async run(place, call) {
    // The flags map to the operation's fields; resolveStep checks them (exactly one decision, the position).
    const position = Number(call.positionals[0]);
    const decision = {
      ...(call.values.result !== undefined ? { result: jsonFlag(call.values, 'result') } : {}),
      ...(call.values.error !== undefined ? { error: String(call.values.error) } : {}),
      ...(call.values.rerun === true ? { rerun: true as const } : {}),
    };
    return withUnit(place, call, async ({ fabric, ws }) => {
      const record = await fabric.resolveStep({
        session: ws.session,
        branch: ws.branch,
        position,
        ...decision,
      });
      call.out.result(record, `step ${position} "${record.name}": ${record.state}`);
      return EXIT.ok;
    });
  },
};

const status: DeskCommand = {
  target: 'desk',
  createsStore: false,
  names: ['status'],
  example: 'cairn status',
  args: [],
  flags: [WS_FLAG],
  summary:
    'where the layers disagree: workspace changes outside any recorded step, steps in doubt, grants that ended',
  async run(place, call) {
    return withUnit(place, call, async ({ units, ws }) => {
      // Probes are code in the harness (SDK: units.status(ws, probes)); the CLI has none to run.
      const report = await units.status(ws.id);
      call.out.result(report, [
        `workspace ${ws.id} on ${ws.session}/${ws.branch}: ${report.clean ? 'the layers agree' : 'drift'}`,
        ...report.unrecordedChanges.map((d) => `  changed outside any step: ${d.change} ${d.path}`),
        ...report.inDoubt.map((s) => `  step ${s.position} "${s.name}" is in doubt`),
        ...report.endedGrants.map(
          (g) => `  grant ${g.id} (${g.credential}, ${g.mode}) is ${g.state}, but the branch relied on it`,
        ),
      ]);
      return report.clean ? EXIT.ok : EXIT.checkFailed;
    });
  },
};

const keep: DeskCommand = {
  target: 'desk',
  createsStore: false,
  names: ['keep'],
  example: 'cairn keep try-b',
  args: ['BRANCH'],
  flags: [WS_FLAG],
  summary: 'mark a fork’s winner (of the session of --ws)',
  async run(place, call) {
    return withUnit(place, call, async ({ units, ws }) => {
      const event = await units.keep(ws.session, call.positionals[0]!);
      call.out.result(event, `kept branch ${event.branch}`);
      return EXIT.ok;
    });
  },
};

const abandon: DeskCommand = {
  target: 'desk',
  createsStore: false,
  names: ['abandon'],
  example: 'cairn abandon try-c --ttl-ms 86400000',
  args: ['BRANCH'],
  flags: [
    WS_FLAG,
    {
      name: 'ttl-ms',
      type: 'string',
      value: 'MS',
      help: 'keep its workspace and branch this long before gc removes them (default 7 days)',
    },
  ],
  summary:
    'mark a fork abandoned: after the TTL gc removes its workspace, then its branch and what only it holds',
  async run(place, call) {
    return withUnit(place, call, async ({ units, ws }) => {
      const event = await units.abandon(
        ws.session,
        call.positionals[0]!,
        wholeNumberFlag(call.values, 'ttl-ms'),
      );
      call.out.result(event, `abandoned branch ${event.branch}`);
      return EXIT.ok;
    });
  },
};

export const UNIT_COMMANDS: DeskCommand[] = [
  checkpoint,
  restore,
  fork,
  exec,
  stepList,
  stepResolve,
  status,
  keep,
  abandon,
];
