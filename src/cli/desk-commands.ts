import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { CheckpointResult, Desk } from '../desk/desk.js';
import type { SecretPolicy } from '../desk/guard.js';
import type { Snapshot, Workspace } from '../desk/rows.js';
import { invalidArgument, unavailable } from '../errors.js';
import type { Fabric } from '../fabric.js';
import { optionalId, parseId } from '../ids.js';
import type { Store } from '../store.js';
import type { Identity } from '../types.js';
import { Units } from '../unit/unit.js';
import { stringFlag, wholeNumberFlag } from './args.js';
import type { DeskCommand, DeskPlace, FlagSpec, Invocation } from './command.js';
import { EXIT, isoTime, table, UsageError } from './output.js';
import { withStore } from './store-commands.js';
import { deskSettings, readStoreConfig } from './store-config.js';

/**
 * `cairn ws …` and `cairn gc`: the desk, on a local store. A workspace is
 * named by `--ws` (an id, or a directory attached on this host); without it,
 * the directory the command runs in.
 */
const WS_FLAG: FlagSpec = {
  name: 'ws',
  type: 'string',
  value: 'WS',
  help: 'workspace id or attached directory (default: the current directory)',
};
const SECRETS_FLAG: FlagSpec = {
  name: 'secrets',
  type: 'string',
  value: 'POLICY',
  help: 'exclude (default) leaves credential files out; fail refuses the checkpoint (the store config may make fail the rule)',
};

/** The flag can make the store config's policy stricter for one call, never looser. */
function secretPolicy(call: Invocation, configured: SecretPolicy): SecretPolicy {
  const value = stringFlag(call.values, 'secrets');
  if (value === undefined) return configured;
  if (value === 'exclude' || value === 'fail') return configured === 'fail' ? 'fail' : value;
  throw invalidArgument(`--secrets must be exclude or fail, not "${value}"`, {
    flag: 'secrets',
  });
}

/** What a workspace command acts through: the desk on this host, the fabric, and — on a local store — the store. */
export interface DeskContext {
  desk: Desk;
  fabric: Fabric;
  /** Present on a local store only: the store and its local principal (the keys, verify, GC live there). */
  local?: { store: Store; who: Identity };
}

/**
 * This host's desk state for a server's workspaces (stat caches, overlay
 * layers): in the user's state folder, one per server, never in the
 * workspace. `$XDG_STATE_HOME/cairn/desks/…`, else `~/.local/state/cairn/desks/…`.
 */
export function remoteStateDir(env: Record<string, string | undefined>, url: string): string {
  const state = env.XDG_STATE_HOME;
  const base =
    state !== undefined && isAbsolute(state)
      ? join(state, 'cairn')
      : env.HOME !== undefined && isAbsolute(env.HOME)
        ? join(env.HOME, '.local', 'state', 'cairn')
        : undefined;
  if (base === undefined)
    throw new UsageError('no home folder for the desk state ($HOME is not set): set $XDG_STATE_HOME');
  return join(base, 'desks', createHash('sha256').update(url).digest('hex').slice(0, 16));
}

/**
 * Opens the desk of a workspace command with progress on a terminal: over a
 * local store as its local principal, or over a server as the token's
 * principal (the directory stays here; only objects the server lacks are sent).
 */
export async function withDesk<T>(
  place: DeskPlace,
  call: Invocation,
  fn: (ctx: DeskContext) => Promise<T>,
): Promise<T> {
  const onProgress = (phase: string, done: number) => call.out.progress(`${phase}: ${done}`);
  const run = async (ctx: DeskContext) => {
    try {
      return await fn(ctx);
    } finally {
      call.out.progress(null);
      await ctx.desk.close();
    }
  };
  const shared = call.shared;
  if (
    shared &&
    place.kind === 'local' &&
    shared.dir === place.dir &&
    !stringFlag(call.values, 'secrets') &&
    JSON.stringify(readStoreConfig(place.dir)) === shared.config
  ) {
    // `cairn watch`'s own desk: kept open (and watching) for the next command.
    return fn(shared.ctx);
  }
  if (place.kind === 'remote') {
    const [{ connect }, { remoteDesk }] = await Promise.all([
      import('../client/connect.js'),
      import('../client/remote-desk-store.js'),
    ]);
    const fabric = connect({ url: place.url, token: place.token, timeoutMs: 120_000 });
    try {
      const desk = await remoteDesk(fabric, {
        host: hostname(),
        stateDir: remoteStateDir(call.env, place.url),
        secretPolicy: secretPolicy(call, 'exclude'),
        onProgress,
      });
      return await run({ desk, fabric });
    } finally {
      await fabric.close();
    }
  }
  return withStore(place.dir, async (store) => {
    const config = readStoreConfig(place.dir);
    const who = await store.localIdentity();
    const desk = store.desk(who, {
      host: hostname(),
      ...deskSettings(config),
      secretPolicy: secretPolicy(call, config.secrets),
      onProgress,
    });
    return run({ desk, fabric: store.fabric(who), local: { store, who } });
  });
}

/** The store itself, for what runs only where it is (verify, GC, the keys' proxy). */
export function localOnly(ctx: DeskContext, what: string): { store: Store; who: Identity } {
  if (ctx.local) return ctx.local;
  throw unavailable(
    `${what} runs where the store is: run it on the server's host with --store (or there, \`cairn serve\` holds the store)`,
  );
}

/** A workspace by id (`ws_…`) or by a directory it holds (relative to `cwd`; default `cwd` itself). */
export function workspaceAt(desk: Desk, cwd: string, ref?: string): Promise<Workspace> {
  if (ref?.startsWith('ws_')) return desk.getWorkspace(parseId('workspace', ref, '--ws'));
  return desk.findWorkspace(resolve(cwd, ref ?? '.'));
}

/** The workspace of `--ws`, else the one attached at the current directory. */
export function workspaceOf(desk: Desk, call: Invocation): Promise<Workspace> {
  return workspaceAt(desk, call.cwd, stringFlag(call.values, 'ws'));
}

function checkpointLines(r: CheckpointResult): string[] {
  const s = r.snapshot;
  const lines = [
    r.created
      ? `snapshot ${s.id}: ${s.files} files, ${s.bytes} bytes (${s.addedBytes} bytes new)`
      : `unchanged since snapshot ${s.id}`,
  ];
  for (const f of r.findings) {
    const where = `${f.path}${f.line > 0 ? `:${f.line}` : ''} (${f.rule}, ${f.confidence} confidence)`;
    if (f.action === 'withheld') lines.push(`left out ${where}`);
    else if (f.action === 'redacted')
      lines.push(`stored redacted ${where}: the secret span is x'd out in the stored copy`);
    else lines.push(`kept ${where}: low confidence, stored as is`);
  }
  for (const p of r.unsupported) lines.push(`not captured ${p} (socket, FIFO or device)`);
  return lines;
}

function snapshotRow(s: Snapshot): string[] {
  return [s.id, isoTime(s.createdAt), s.kind, `${s.files} files`, `${s.bytes} B`];
}

const attach: DeskCommand = {
  target: 'desk',
  createsStore: true,
  names: ['ws', 'attach'],
  example: 'cairn ws attach . --session ss_…',
  args: ['DIR'],
  flags: [
    { name: 'session', type: 'string', value: 'S', help: 'bind to this session (default: a new one)' },
    { name: 'branch', type: 'string', value: 'B', help: 'bind to this branch (default main)' },
    SECRETS_FLAG,
  ],
  summary: 'bind a directory to a session branch and take its first snapshot',
  async run(place, call) {
    return withDesk(place, call, async ({ desk }) => {
      const { workspace, checkpoint } = await desk.attach({
        dir: resolve(call.cwd, call.positionals[0]!),
        session: optionalId('session', stringFlag(call.values, 'session'), '--session'),
        branch: stringFlag(call.values, 'branch'),
      });
      call.out.result({ workspace, checkpoint }, [
        `attached ${workspace.dir} as ${workspace.id} (session ${workspace.session}, branch ${workspace.branch})`,
        ...checkpointLines(checkpoint),
      ]);
      return EXIT.ok;
    });
  },
};

const checkpoint: DeskCommand = {
  target: 'desk',
  createsStore: false,
  names: ['ws', 'checkpoint'],
  example: 'cairn ws checkpoint',
  args: [],
  flags: [
    WS_FLAG,
    { name: 'force', type: 'boolean', help: 'record a snapshot even if nothing changed' },
    SECRETS_FLAG,
  ],
  summary: 'snapshot the workspace directory (only what changed is read and stored)',
  async run(place, call) {
    return withDesk(place, call, async ({ desk }) => {
      const ws = await workspaceOf(desk, call);
      const result = await desk.checkpoint(ws.id, { force: call.values.force === true });
      call.out.result(result, checkpointLines(result));
      return EXIT.ok;
    });
  },
};

const list: DeskCommand = {
  target: 'desk',
  createsStore: false,
  names: ['ws', 'ls'],
  example: 'cairn ws ls',
  args: [],
  flags: [{ ...WS_FLAG, help: 'list the snapshots of this workspace (id or directory)' }],
  summary: 'list workspaces, or with --ws the snapshots of one',
  async run(place, call) {
    return withDesk(place, call, async ({ desk }) => {
      if (stringFlag(call.values, 'ws') === undefined) {
        const workspaces = await desk.listWorkspaces();
        const lines = table(
          workspaces.map((w) => [w.id, w.state, w.driver, `${w.session}/${w.branch}`, w.dir]),
        );
        if (workspaces.length === 0) lines.push('no workspaces: attach one with `cairn ws attach DIR`');
        call.out.result({ workspaces }, lines);
        return EXIT.ok;
      }
      const ws = await workspaceOf(desk, call);
      const snapshots = await desk.listSnapshots(ws.id);
      call.out.result({ workspace: ws, snapshots }, table(snapshots.map(snapshotRow)));
      return EXIT.ok;
    });
  },
};

const restore: DeskCommand = {
  target: 'desk',
  createsStore: false,
  names: ['ws', 'restore'],
  example: 'cairn ws restore sn_… --preview',
  args: ['SNAPSHOT'],
  flags: [
    WS_FLAG,
    {
      name: 'preview',
      type: 'boolean',
      help: 'list what would change and the events after the snapshot; change nothing',
    },
    { name: 'path', type: 'string', value: 'P', help: 'restore only this path (and what is below it)' },
  ],
  summary: 'restore a snapshot (checkpoints the current state first, so it can be undone)',
  async run(place, call) {
    return withDesk(place, call, async ({ desk }) => {
      const ws = await workspaceOf(desk, call);
      const path = stringFlag(call.values, 'path');
      const options = path === undefined ? {} : { paths: [path] };
      const snapshot = parseId('snapshot', call.positionals[0]!, 'SNAPSHOT');
      const changeLines = (changes: { change: string; path: string }[]) =>
        changes.map((c) => `${c.change === 'added' ? '+' : c.change === 'removed' ? '-' : '~'} ${c.path}`);
      if (call.values.preview === true) {
        const preview = await desk.previewRestore(ws.id, snapshot, options);
        call.out.result(preview, [
          `restoring ${snapshot} in ${ws.dir} (${ws.id}) would change ${preview.changes.length} paths:`,
          ...changeLines(preview.changes),
          `${preview.eventsAfter.length} log events after it stay in the log (a restore does not undo what they did):`,
          ...preview.eventsAfter.map((e) => `  ${e.seq} ${e.kind} ${e.id}`),
          ...preview.withheld.map((p) => `credential ${p} is never restored`),
          ...preview.redacted.map((p) => `${p} is restored with its secret spans redacted`),
        ]);
        return EXIT.ok;
      }
      const result = await desk.restore(ws.id, snapshot, options);
      call.out.result(result, [
        `restored ${snapshot} in ${ws.dir} (${ws.id}): ${result.changes.length} paths changed (undo with \`cairn ws restore ${result.before.id}\`)`,
        ...changeLines(result.changes),
        ...result.blocked.map((p) => `left alone ${p}: untracked files are in the way`),
        ...result.redacted.map((p) => `${p} was restored with its secret spans redacted`),
      ]);
      return EXIT.ok;
    });
  },
};

const diff: DeskCommand = {
  target: 'desk',
  createsStore: false,
  names: ['ws', 'diff'],
  example: 'cairn ws diff sn_… --stat',
  args: ['SNAPSHOT'],
  flags: [
    {
      name: 'to',
      type: 'string',
      value: 'SNAPSHOT',
      help: 'compare with this snapshot (default: the live directory)',
    },
    WS_FLAG,
    { name: 'path', type: 'string', value: 'P', help: 'only this path and what is below it' },
    { name: 'stat', type: 'boolean', help: 'paths only, no patches' },
  ],
  summary: 'differences between two snapshots, or a snapshot and the live directory',
  async run(place, call) {
    return withDesk(place, call, async ({ desk }) => {
      const to = stringFlag(call.values, 'to');
      const path = stringFlag(call.values, 'path');
      const items = await desk.diff({
        from: parseId('snapshot', call.positionals[0]!, 'SNAPSHOT'),
        ...(to === undefined
          ? { workspace: (await workspaceOf(desk, call)).id }
          : { to: parseId('snapshot', to, '--to') }),
        patches: call.values.stat !== true,
        ...(path === undefined ? {} : { paths: [path] }),
      });
      const lines: string[] = [];
      for (const item of items) {
        lines.push(`${item.change} ${item.path}`);
        if (item.patch) lines.push(...item.patch.replace(/\n$/, '').split('\n'));
        if (item.binary) lines.push(`  binary: ${item.binary.before} -> ${item.binary.after} bytes`);
      }
      if (items.length === 0) lines.push('no differences');
      call.out.result({ items }, lines);
      return EXIT.ok;
    });
  },
};

const fork: DeskCommand = {
  target: 'desk',
  createsStore: false,
  names: ['ws', 'fork'],
  example: 'cairn ws fork ../try-b --branch try-b',
  args: ['DIR'],
  flags: [
    WS_FLAG,
    { name: 'branch', type: 'string', value: 'B', help: 'name of the new branch (default: generated)' },
    {
      name: 'driver',
      type: 'string',
      value: 'D',
      help: 'copy or overlay (default: overlay where this process may mount)',
    },
  ],
  summary: 'checkpoint a workspace and fork it into DIR on a new branch',
  async run(place, call) {
    const driver = stringFlag(call.values, 'driver');
    if (driver !== undefined && driver !== 'copy' && driver !== 'overlay') {
      throw invalidArgument(`--driver must be copy or overlay, not "${driver}"`, {
        flag: 'driver',
      });
    }
    return withDesk(place, call, async ({ desk }) => {
      const ws = await workspaceOf(desk, call);
      const result = await desk.fork(ws.id, {
        dir: resolve(call.cwd, call.positionals[0]!),
        branch: stringFlag(call.values, 'branch'),
        driver,
      });
      const w = result.workspace;
      call.out.result(result, [
        `forked ${ws.id} into ${w.dir} as ${w.id} (branch ${w.branch}, ${w.driver} driver)`,
        ...result.redacted.map(
          (p) => `${p} holds its secret spans redacted (the original stays in ${ws.dir})`,
        ),
      ]);
      return EXIT.ok;
    });
  },
};

const merge: DeskCommand = {
  target: 'desk',
  createsStore: false,
  names: ['ws', 'merge'],
  example: 'cairn ws merge ../try-b',
  args: ['FROM'],
  flags: [{ ...WS_FLAG, name: 'into', help: 'workspace to merge into (default: the current directory)' }],
  summary: 'three-way merge of workspace FROM into another; conflicts are written with markers',
  async run(place, call) {
    return withDesk(place, call, async ({ desk }) => {
      const from = call.positionals[0]!;
      const fromWs = from.startsWith('ws_')
        ? await desk.getWorkspace(parseId('workspace', from, 'FROM'))
        : await desk.findWorkspace(resolve(call.cwd, from));
      const into = stringFlag(call.values, 'into');
      const intoWs = into?.startsWith('ws_')
        ? await desk.getWorkspace(parseId('workspace', into, '--into'))
        : await desk.findWorkspace(resolve(call.cwd, into ?? '.'));
      const result = await desk.merge({ from: fromWs.id, into: intoWs.id });
      call.out.result(result, [
        `merged ${fromWs.id} into ${intoWs.id}: ${result.changed.length} paths changed, snapshot ${result.snapshot.id}`,
        ...result.conflicts.map((c) => `conflict (${c.reason}) ${c.path}`),
      ]);
      return result.conflicts.length > 0 ? EXIT.checkFailed : EXIT.ok;
    });
  },
};

const detach: DeskCommand = {
  target: 'desk',
  createsStore: false,
  names: ['ws', 'detach'],
  example: 'cairn ws detach',
  args: [],
  flags: [
    WS_FLAG,
    { name: 'discard', type: 'boolean', help: 'also delete a fork’s directory (never an attached one)' },
  ],
  summary: 'stop tracking a workspace',
  async run(place, call) {
    return withDesk(place, call, async ({ desk }) => {
      const ws = await workspaceOf(desk, call);
      const done = await desk.detach(ws.id, { discard: call.values.discard === true });
      call.out.result(done, `detached ${done.id} (${done.dir})`);
      return EXIT.ok;
    });
  },
};

const verify: DeskCommand = {
  target: 'desk',
  createsStore: false,
  names: ['ws', 'verify'],
  example: 'cairn ws verify',
  args: [],
  flags: [],
  summary: 're-hash every object reachable from every snapshot; report the first corrupt or missing one',
  async run(place, call) {
    return withDesk(place, call, async ({ desk }) => {
      const report = await desk.verify();
      call.out.result(
        report,
        report.ok
          ? `ok: ${report.snapshots} snapshots, ${report.objects} objects, ${report.bytes} bytes re-hashed`
          : `FAILED at snapshot ${report.problem?.snapshot}: ${report.problem?.message}`,
      );
      return report.ok ? EXIT.ok : EXIT.checkFailed;
    });
  },
};

export const DESK_COMMANDS: DeskCommand[] = [
  attach,
  checkpoint,
  list,
  restore,
  diff,
  fork,
  merge,
  detach,
  verify,
];
