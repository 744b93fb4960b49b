/**
 * `cairn artifact …`: the artifacts' operations from the command line, on a
 * local store or a server (`--url`). `ls`, `show`, `lineage`, `rm`, `quota`
 * and `set-quota` are made from the operations' CLI bindings; `publish`
 * (its content a file) and `get` (bytes to a file or stdout) are written
 * here, their flags held to the operations' fields by test/cli-parity.test.ts.
 */
import { open, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { z } from 'zod';
import { defined, listFlag, stringFlag, wholeNumberFlag } from '../cli/args.js';
import type { DeskCommand, FabricCommand, Invocation } from '../cli/command.js';
import { operationCommand, tableInput } from '../cli/derived.js';
import { type DeskContext, withDesk, workspaceAt } from '../cli/desk-commands.js';
import { EXIT, InputRefused, isoTime, table } from '../cli/output.js';
import { unitsOf } from '../cli/unit-commands.js';
import type { Workspace } from '../desk/rows.js';
import { isCairnError, notFound } from '../errors.js';
import type { Fabric } from '../fabric.js';
import { newId } from '../ids.js';
import { ARTIFACT_CONTRACT } from './contract.js';
import type * as shape from './shapes.js';
import { publishFromWorkspace, type WorkspaceFilePublication } from './workspace-file.js';

type Artifact = z.output<typeof shape.Artifact>;

function artifactLines(a: Artifact): string[] {
  const l = a.lineage;
  return [
    `${a.id}  ${a.name}  ${a.mediaType}  ${a.size} bytes  sha256 ${a.digest}`,
    `  published ${isoTime(a.createdAt)} by ${a.owner} on ${l.session} ${l.branch} (${a.event})${a.expiresAt === null ? '' : `, expires ${isoTime(a.expiresAt)}`}`,
    ...(a.description ? [`  ${a.description}`] : []),
    ...(l.checkpoint ? [`  from checkpoint ${l.checkpoint}`] : []),
    ...(l.snapshot ? [`  from ${l.path} in snapshot ${l.snapshot}`] : []),
    ...(l.step !== null ? [`  made by step ${l.step} (${l.stepEvent})`] : []),
    ...(l.event ? [`  made by event ${l.event}`] : []),
    ...l.inputs.map((i) => `  input ${i}`),
    ...l.inputFiles.map((f) => `  input ${f.path} in ${f.snapshot}`),
  ];
}

const artifactRows = (items: Artifact[]) =>
  table(items.map((a) => [a.id, String(a.size), a.mediaType, a.name]));

/** `SN:PATH` → a snapshot file. */
function inputFile(text: string): { snapshot: string; path: string } {
  const colon = text.indexOf(':');
  if (colon < 0)
    throw new InputRefused(`--input-file ${text}: write SNAPSHOT:PATH, e.g. sn_…:out/data.csv`, 'inputFiles');
  return { snapshot: text.slice(0, colon), path: text.slice(colon + 1) };
}

/** `artifact publish`'s input: its flags, FILE's base name as the default name, and the file's bytes (a stream) and size. */
function publishInput(
  { values, positionals, cwd }: Invocation,
  bytes: Uint8Array | AsyncIterable<Uint8Array>,
  size?: number,
): Record<string, unknown> {
  return defined({
    session: stringFlag(values, 'session'),
    branch: stringFlag(values, 'branch'),
    name:
      stringFlag(values, 'name') ??
      resolve(cwd, positionals[0] as string)
        .split('/')
        .pop(),
    mediaType: stringFlag(values, 'type'),
    description: stringFlag(values, 'description'),
    bytes,
    size,
    checkpoint: stringFlag(values, 'checkpoint'),
    snapshot: stringFlag(values, 'snapshot'),
    path: stringFlag(values, 'path'),
    step: wholeNumberFlag(values, 'from-step'),
    event: stringFlag(values, 'event'),
    inputs: listFlag(values, 'input'),
    inputFiles: listFlag(values, 'input-file').map(inputFile),
    ttlMs: wholeNumberFlag(values, 'ttl-ms'),
  });
}

const publish: DeskCommand = {
  target: 'desk',
  createsStore: false,
  names: ['artifact', 'publish'],
  example: 'cairn artifact publish out/report.pdf --type application/pdf   (inside an attached workspace)',
  args: ['FILE'],
  flags: [
    {
      name: 'session',
      type: 'string',
      value: 'SS',
      help: "the session it belongs to (default: the workspace's, with a checkpoint of it as lineage)",
    },
    {
      name: 'ws',
      type: 'string',
      value: 'WS',
      help: 'the workspace FILE is in: its id or directory (default: the current directory)',
    },
    {
      name: 'branch',
      type: 'string',
      value: 'B',
      help: 'the branch its publication is recorded on (default main)',
    },
    {
      name: 'name',
      type: 'string',
      value: 'N',
      help: "its name as a person sees it (default: FILE's base name)",
    },
    { name: 'type', type: 'string', value: 'T', help: 'its media type (default application/octet-stream)' },
    { name: 'description', type: 'string', value: 'TEXT', help: 'what it is, in a sentence' },
    { name: 'checkpoint', type: 'string', value: 'EV', help: 'lineage: the unit checkpoint it came from' },
    {
      name: 'snapshot',
      type: 'string',
      value: 'SN',
      help: 'lineage: a snapshot holding these bytes at --path',
    },
    {
      name: 'path',
      type: 'string',
      value: 'P',
      help: "lineage: its path in the checkpoint's or --snapshot's files",
    },
    {
      name: 'from-step',
      type: 'string',
      value: 'POS',
      help: 'lineage: the durable step (position) that made it',
    },
    { name: 'event', type: 'string', value: 'EV', help: 'lineage: the event (a tool call) that made it' },
    {
      name: 'input',
      type: 'string',
      value: 'AF',
      help: 'lineage: an artifact it was made from (repeat)',
      multiple: true,
    },
    {
      name: 'input-file',
      type: 'string',
      value: 'SN:PATH',
      help: 'lineage: a snapshot file it was made from (repeat)',
      multiple: true,
    },
    {
      name: 'ttl-ms',
      type: 'string',
      value: 'MS',
      help: 'keep it this long, whatever happens to its workspace',
    },
  ],
  summary: 'publish a file as an artifact, with its lineage (checked) and its own retention',
  check(call) {
    // The flags as the table takes them, checked before the file is read or the store opened (exit 2);
    // a session the workspace will give is stood in for.
    tableInput(ARTIFACT_CONTRACT.publishArtifact, () => ({
      session: newId('session'),
      ...publishInput(call, new Uint8Array()),
    }));
  },
  async run(place, call) {
    return withDesk(place, call, async (ctx) => {
      const artifact =
        stringFlag(call.values, 'session') === undefined
          ? await fromWorkspace(ctx, call)
          : await fromFile(ctx.fabric, call);
      call.out.result(artifact, artifactLines(artifact));
      return EXIT.ok;
    });
  },
};

/** FILE with the lineage its flags give, streamed from the file (a publication of any size holds a few chunks at a time). */
async function fromFile(
  fabric: Fabric,
  call: Invocation,
  where: { session?: string; branch?: string } = {},
): Promise<Artifact> {
  const name = call.positionals[0] as string;
  const file = await open(resolve(call.cwd, name), 'r');
  try {
    const stat = await file.stat();
    if (!stat.isFile()) throw new InputRefused(`${name} is not a regular file: publish a file`, 'bytes');
    const bytes = file.createReadStream({ highWaterMark: 1024 * 1024 });
    return await fabric.publishArtifact({
      ...publishInput(call, bytes, stat.size),
      ...where,
    } as Parameters<Fabric['publishArtifact']>[0]);
  } finally {
    await file.close().catch(() => undefined);
  }
}

/**
 * No --session: the workspace FILE is in (or --ws) gives the session and
 * branch. A file inside it, with no lineage flags, is published as
 * `artifact_publish` publishes one: after a checkpoint of the workspace
 * that its lineage names.
 */
async function fromWorkspace(ctx: DeskContext, call: Invocation): Promise<Artifact> {
  const name = call.positionals[0] as string;
  const file = await realpath(resolve(call.cwd, name)).catch(() => {
    throw new InputRefused(`${name}: no such file`, 'bytes');
  });
  // The workspace of --ws, else the one FILE is in, else the current directory's (FILE then outside it).
  const ref = stringFlag(call.values, 'ws');
  const notAttached = (error: unknown) => isCairnError(error) && error.code === 'NOT_FOUND';
  const holding = async (): Promise<Workspace> => {
    for (let dir = dirname(file); ; dir = dirname(dir)) {
      const found = await workspaceAt(ctx.desk, dir).catch((error: unknown) => {
        if (!notAttached(error)) throw error;
        return undefined;
      });
      if (found) return found;
      if (dirname(dir) === dir) return workspaceAt(ctx.desk, call.cwd);
    }
  };
  const ws = await (ref === undefined ? holding() : workspaceAt(ctx.desk, call.cwd, ref)).catch(
    (error: unknown) => {
      if (!isCairnError(error) || error.code !== 'NOT_FOUND') throw error;
      throw notFound(
        `${error.message}; or pass --session SS to publish FILE outside a workspace`,
        error.data,
      );
    },
  );
  const branch = stringFlag(call.values, 'branch');
  if (branch !== undefined && branch !== ws.branch)
    throw new InputRefused(
      `workspace ${ws.id} is on branch ${ws.branch}, not ${branch}: leave --branch out, or pass --session with it`,
      'branch',
    );
  const path = relative(await realpath(ws.dir), file)
    .split(sep)
    .join('/');
  const inside = path !== '' && !path.startsWith('../') && !isAbsolute(path);
  const lineageGiven = ['checkpoint', 'snapshot', 'path'].some(
    (f) => stringFlag(call.values, f) !== undefined,
  );
  if (!inside || lineageGiven) return fromFile(ctx.fabric, call, { session: ws.session, branch: ws.branch });
  const {
    bytes: _bytes,
    session: _session,
    branch: _branch,
    ...fields
  } = publishInput(call, new Uint8Array());
  const side = { units: await unitsOf(ctx, call), fabric: ctx.fabric };
  return publishFromWorkspace(side, ws, path, fields as WorkspaceFilePublication);
}

/** Bytes read per call of `readArtifact` (its largest answer is 64 MiB). */
const READ_BYTES = 16 * 1024 * 1024;

const get: FabricCommand = {
  target: 'fabric',
  names: ['artifact', 'get'],
  example: 'cairn artifact get af_… --out report.pdf',
  args: ['ARTIFACT'],
  flags: [
    { name: 'out', type: 'string', value: 'FILE', help: 'write the bytes to FILE (default: stdout)' },
    { name: 'offset', type: 'string', value: 'N', help: 'from this byte (default 0)' },
    { name: 'length', type: 'string', value: 'N', help: 'this many bytes (default: to the end)' },
  ],
  summary: "write an artifact's bytes (or a range) to a file or stdout",
  check(call) {
    if (call.out.json && stringFlag(call.values, 'out') === undefined)
      throw new InputRefused('--json prints one JSON document: pass --out FILE for the bytes', 'out');
  },
  async run(fabric, call) {
    const { values, positionals, out } = call;
    const id = positionals[0] as string;
    const artifact = await fabric.getArtifact({ artifact: id } as { artifact: `af_${string}` });
    const offset = wholeNumberFlag(values, 'offset') ?? 0;
    const end = Math.min(artifact.size, offset + (wholeNumberFlag(values, 'length') ?? artifact.size));
    const target = stringFlag(values, 'out');
    const handle = target === undefined ? undefined : await open(resolve(call.cwd, target), 'w');
    try {
      let at = offset;
      do {
        const length = Math.max(0, Math.min(READ_BYTES, end - at));
        const { bytes } = await fabric.readArtifact({
          artifact: artifact.id,
          offset: at,
          length,
        });
        if (handle) await handle.write(bytes);
        else out.raw(Buffer.from(bytes), Buffer.alloc(0));
        at += bytes.length;
        if (bytes.length === 0) break;
      } while (at < end);
      if (handle) await handle.sync();
    } finally {
      await handle?.close();
    }
    if (target !== undefined)
      out.result(
        { ...artifact, out: target, bytes: end - offset },
        `wrote ${end - offset} bytes of ${artifact.id} to ${target}`,
      );
    return EXIT.ok;
  },
};

export const ARTIFACT_COMMANDS: (FabricCommand | DeskCommand)[] = [
  publish,
  get,
  operationCommand(ARTIFACT_CONTRACT.getArtifact, artifactLines),
  operationCommand(ARTIFACT_CONTRACT.listArtifacts, (answer: { artifacts: Artifact[] }) => {
    const lines = artifactRows(answer.artifacts);
    return lines.length > 0 ? lines : ['no artifacts'];
  }),
  operationCommand(
    ARTIFACT_CONTRACT.artifactLineage,
    (answer: { artifact: Artifact; ancestors: Artifact[]; descendants: Artifact[] }) => [
      ...artifactLines(answer.artifact),
      `made from (${answer.ancestors.length}):`,
      ...artifactRows(answer.ancestors).map((l) => `  ${l}`),
      `made into (${answer.descendants.length}):`,
      ...artifactRows(answer.descendants).map((l) => `  ${l}`),
    ],
  ),
  operationCommand(ARTIFACT_CONTRACT.removeArtifact, () => 'removed'),
  operationCommand(
    ARTIFACT_CONTRACT.artifactQuota,
    (q: { limit: number; used: number; artifacts: number }) =>
      `${q.used} of ${q.limit} bytes used by ${q.artifacts} artifact(s)`,
  ),
  operationCommand(
    ARTIFACT_CONTRACT.setArtifactQuota,
    (q: { limit: number; used: number; artifacts: number }) =>
      `quota ${q.limit} bytes; ${q.used} used by ${q.artifacts} artifact(s)`,
  ),
];
