import type { AuditReport, Branch, CairnEvent, Session } from '../types.js';
import { defined, jsonFlag, readPayload, stringFlag, wholeNumberFlag } from './args.js';
import type { FabricCommand, FlagSpec } from './command.js';
import { compactJson, EXIT, isoTime, type Output, table } from './output.js';
import { withStore } from './store-commands.js';

/** Commands that act through a fabric, the same whether embedded or remote. */

function branchRows(branches: Branch[]): string[][] {
  return branches.map((b) => [
    b.name,
    `seq ${b.headSeq}`,
    b.head || '(empty)',
    b.forkedFrom ? `forked at ${b.forkedFrom}` : '',
  ]);
}

function eventRows(events: CairnEvent[]): string[][] {
  return events.map((e) => [String(e.seq), e.id, e.kind, e.actor, compactJson(e.payload)]);
}

function sessionLines(session: Session): string[] {
  return [
    `session ${session.id}`,
    `title: ${session.title}`,
    `owner: ${session.owner}`,
    `created: ${isoTime(session.createdAt)}`,
    `meta: ${compactJson(session.meta)}`,
  ];
}

const whoami: FabricCommand = {
  target: 'fabric',
  names: ['whoami'],
  args: [],
  flags: [],
  summary: 'show the tenant and principal the command acts as',
  async run(fabric, { out }) {
    const who = await fabric.whoami();
    out.result(who, `tenant ${who.tenant}, principal ${who.principal} (${who.kind}, ${who.role})`);
    return EXIT.ok;
  },
};

const tokenCreate: FabricCommand = {
  target: 'fabric',
  names: ['token', 'create'],
  args: [],
  flags: [
    {
      name: 'principal',
      type: 'string',
      value: 'ID',
      help: 'mint for this existing principal (default: a new one)',
    },
    {
      name: 'kind',
      type: 'string',
      value: 'agent|user|service',
      help: 'kind of the new principal (default agent)',
    },
    { name: 'name', type: 'string', value: 'N', help: 'name of the new principal (default agent)' },
    {
      name: 'role',
      type: 'string',
      value: 'member|admin',
      help: 'role of the new principal (default member)',
    },
    { name: 'label', type: 'string', value: 'L', help: 'a note to tell tokens apart' },
  ],
  summary: 'mint a bearer token (printed once: Cairn keeps only its hash)',
  async run(fabric, { values, out }) {
    const created = await fabric.createToken(
      defined({
        principal: stringFlag(values, 'principal'),
        kind: stringFlag(values, 'kind') as 'agent' | 'user' | 'service' | undefined,
        name: stringFlag(values, 'name'),
        role: stringFlag(values, 'role') as 'member' | 'admin' | undefined,
        label: stringFlag(values, 'label'),
      }),
    );
    out.result(created, [
      `token: ${created.token}`,
      `token ${created.id} for principal ${created.principal} in tenant ${created.tenant} (shown once: store it now)`,
    ]);
    return EXIT.ok;
  },
};

const tokenRevoke: FabricCommand = {
  target: 'fabric',
  names: ['token', 'revoke'],
  args: ['TOKEN_ID'],
  flags: [],
  summary: 'revoke a token at once (members: their own; admins: any in the tenant)',
  async run(fabric, { positionals, out }) {
    const revoked = await fabric.revokeToken({ token: positionals[0]! });
    out.result(
      revoked,
      `token ${revoked.id} of principal ${revoked.principal} revoked at ${isoTime(revoked.revokedAt)}`,
    );
    return EXIT.ok;
  },
};

const sessionNew: FabricCommand = {
  target: 'fabric',
  names: ['session', 'new'],
  args: [],
  flags: [
    { name: 'title', type: 'string', value: 'T', help: 'a title for people' },
    { name: 'meta', type: 'string', value: 'JSON', help: 'a JSON object of metadata' },
  ],
  summary: 'create a session (with an empty main branch)',
  async run(fabric, { values, out }) {
    const session = await fabric.createSession(
      defined({
        title: stringFlag(values, 'title'),
        meta: jsonFlag(values, 'meta') as Record<string, unknown> | undefined,
      }),
    );
    out.result(session, `created session ${session.id}`);
    return EXIT.ok;
  },
};

const sessionList: FabricCommand = {
  target: 'fabric',
  names: ['session', 'ls'],
  args: [],
  flags: [
    { name: 'limit', type: 'string', value: 'N', help: 'at most N sessions (default 100)' },
    {
      name: 'after',
      type: 'string',
      value: 'ID',
      help: 'start after this session id (the previous page’s next)',
    },
  ],
  summary: 'list sessions, oldest first',
  async run(fabric, { values, out }) {
    const page = await fabric.listSessions(
      defined({ limit: wholeNumberFlag(values, 'limit'), after: stringFlag(values, 'after') }),
    );
    const lines = table(page.sessions.map((s) => [s.id, isoTime(s.createdAt), s.title]));
    if (page.sessions.length === 0) lines.push('no sessions');
    if (page.next) lines.push(`(more: --after ${page.next})`);
    out.result(page, lines);
    return EXIT.ok;
  },
};

const sessionShow: FabricCommand = {
  target: 'fabric',
  names: ['session', 'show'],
  args: ['SESSION'],
  flags: [],
  summary: 'show a session and its branches',
  async run(fabric, { positionals, out }) {
    const id = positionals[0]!;
    const session = await fabric.getSession({ session: id });
    const branches = await fabric.listBranches({ session: id });
    const lines = [
      ...sessionLines(session),
      'branches:',
      ...table(branchRows(branches)).map((l) => `  ${l}`),
    ];
    out.result({ session, branches }, lines);
    return EXIT.ok;
  },
};

const logAppend: FabricCommand = {
  target: 'fabric',
  names: ['log', 'append'],
  args: ['SESSION'],
  flags: [
    {
      name: 'kind',
      type: 'string',
      value: 'K',
      help: 'event kind, e.g. message or tool.call',
      required: true,
    },
    { name: 'payload', type: 'string', value: 'JSON', help: 'the payload as JSON; "-" reads it from stdin' },
    { name: 'payload-file', type: 'string', value: 'F', help: 'read the JSON payload from file F' },
    { name: 'branch', type: 'string', value: 'B', help: 'branch to append to (default main)' },
    { name: 'actor', type: 'string', value: 'A', help: 'who or what produced the event' },
    {
      name: 'key',
      type: 'string',
      value: 'KEY',
      help: 'idempotency key: a retry with the same key appends once',
    },
  ],
  summary: 'append one event to a branch head (durable when the command returns)',
  async run(fabric, call) {
    const { values, positionals, out } = call;
    const event = await fabric.append(
      defined({
        session: positionals[0]!,
        kind: stringFlag(values, 'kind')!,
        payload: await readPayload(call),
        branch: stringFlag(values, 'branch'),
        actor: stringFlag(values, 'actor'),
        idempotencyKey: stringFlag(values, 'key'),
      }) as { session: string; kind: string },
    );
    const what = `${event.id} at seq ${event.seq} on ${event.branch}`;
    out.result(
      event,
      event.deduplicated ? `already appended ${what} (same idempotency key)` : `appended ${what}`,
    );
    return EXIT.ok;
  },
};

const logShow: FabricCommand = {
  target: 'fabric',
  names: ['log', 'show'],
  args: ['SESSION'],
  flags: [
    { name: 'branch', type: 'string', value: 'B', help: 'branch to read (default main)' },
    { name: 'from', type: 'string', value: 'N', help: 'first sequence number to show (default 1)' },
    { name: 'limit', type: 'string', value: 'N', help: 'at most N events (default 1000)' },
  ],
  summary: 'show the events of a branch, root to head: seq, id, kind, actor, payload',
  async run(fabric, { values, positionals, out }) {
    const page = await fabric.readBranch(
      defined({
        session: positionals[0]!,
        branch: stringFlag(values, 'branch'),
        from: wholeNumberFlag(values, 'from'),
        limit: wholeNumberFlag(values, 'limit'),
      }) as { session: string },
    );
    const lines = table(eventRows(page.events));
    if (page.events.length === 0)
      lines.push(page.headSeq === 0 ? 'no events yet' : 'no events in this range');
    if (page.next !== null) lines.push(`(more: --from ${page.next})`);
    out.result(page, lines);
    return EXIT.ok;
  },
};

const branchFork: FabricCommand = {
  target: 'fabric',
  names: ['branch', 'fork'],
  args: ['SESSION'],
  flags: [
    { name: 'at', type: 'string', value: 'EVENT', help: 'event to fork at (default: the head of --from)' },
    { name: 'from', type: 'string', value: 'BRANCH', help: 'branch to fork from (default main)' },
    { name: 'name', type: 'string', value: 'NAME', help: 'name of the new branch (default: generated)' },
  ],
  summary: 'start a new branch at an event; nothing is copied',
  async run(fabric, { values, positionals, out }) {
    const branch = await fabric.fork(
      defined({
        session: positionals[0]!,
        at: stringFlag(values, 'at'),
        from: stringFlag(values, 'from'),
        name: stringFlag(values, 'name'),
      }) as { session: string },
    );
    out.result(branch, `created branch ${branch.name} (${branch.id}) at seq ${branch.headSeq}`);
    return EXIT.ok;
  },
};

/** `--to EVENT`, where a head goes. */
function toEventFlag(help: string): FlagSpec {
  return { name: 'to', type: 'string', value: 'EVENT', help, required: true };
}

const branchRewind: FabricCommand = {
  target: 'fabric',
  names: ['branch', 'rewind'],
  args: ['SESSION', 'BRANCH'],
  flags: [toEventFlag('event on the branch’s path to move the head to')],
  summary: 'move a branch head back to an event on its path (the old head stays readable)',
  async run(fabric, { values, positionals, out }) {
    const branch = await fabric.rewind({
      session: positionals[0]!,
      branch: positionals[1]!,
      to: stringFlag(values, 'to')!,
    });
    out.result(branch, `rewound branch ${branch.name} to seq ${branch.headSeq} (${branch.head || 'empty'})`);
    return EXIT.ok;
  },
};

const branchMove: FabricCommand = {
  target: 'fabric',
  names: ['branch', 'move'],
  args: ['SESSION', 'BRANCH'],
  flags: [
    toEventFlag('any event of the session to move the head to'),
    {
      name: 'if-head',
      type: 'string',
      value: 'EVENT',
      help: 'move only while the head is still this event (else CONFLICT)',
    },
  ],
  summary: 'move a branch head to any event of its session: back, forward or onto another line (recorded)',
  async run(fabric, { values, positionals, out }) {
    const ifHead = stringFlag(values, 'if-head');
    const branch = await fabric.moveHead({
      session: positionals[0]!,
      branch: positionals[1]!,
      to: stringFlag(values, 'to')!,
      ...(ifHead === undefined ? {} : { ifHead }),
    });
    out.result(branch, `moved branch ${branch.name} to seq ${branch.headSeq} (${branch.head || 'empty'})`);
    return EXIT.ok;
  },
};

const branchList: FabricCommand = {
  target: 'fabric',
  names: ['branch', 'ls'],
  args: ['SESSION'],
  flags: [],
  summary: 'list the branches of a session: name, head seq, head event, fork point',
  async run(fabric, { positionals, out }) {
    const session = positionals[0]!;
    const branches = await fabric.listBranches({ session });
    out.result({ session, branches }, table(branchRows(branches)));
    return EXIT.ok;
  },
};

const branchHistory: FabricCommand = {
  target: 'fabric',
  names: ['branch', 'history'],
  args: ['SESSION', 'BRANCH'],
  flags: [],
  summary: 'show how a branch head moved (create, fork, rewind, move), oldest first',
  async run(fabric, { positionals, out }) {
    const [session, branch] = positionals as [string, string];
    const history = await fabric.branchHistory({ session, branch });
    const rows = history.map((h) => [
      isoTime(h.at),
      h.op,
      `${h.headBefore || '(empty)'} -> ${h.headAfter || '(empty)'}`,
      h.by,
    ]);
    out.result({ session, branch, history }, table(rows));
    return EXIT.ok;
  },
};

function describeReport(report: AuditReport): string {
  const counts = `${report.entries} entries, ${report.events} events`;
  if (report.ok) return `audit ok: tenant ${report.tenant}, ${counts}`;
  return `audit FAILED: tenant ${report.tenant}, ${counts}; ${describeBreak(report)}`;
}

function describeBreak(report: AuditReport): string {
  return report.firstBreak
    ? `first break at entry ${report.firstBreak.seq}: ${report.firstBreak.reason}`
    : 'no break point reported';
}

/** Exit code for a set of reports, after naming the first broken chain on stderr. */
function verdict(reports: AuditReport[], out: Output): number {
  const broken = reports.find((r) => !r.ok);
  if (!broken) return EXIT.ok;
  out.problem(
    `audit chain of tenant ${broken.tenant} is broken: ${describeBreak(broken)}: the store was changed outside Cairn; restore it from a backup`,
  );
  return EXIT.checkFailed;
}

const auditVerify: FabricCommand = {
  target: 'fabric',
  names: ['audit', 'verify'],
  args: [],
  flags: [],
  summary:
    'verify audit chains (every tenant of a local store; your tenant over --url); exit code 1 when one is broken',
  async run(fabric, { out }) {
    const report = await fabric.verifyAudit();
    out.result(report, describeReport(report));
    return verdict([report], out);
  },
  async runLocal(dir, { out }) {
    const reports = await withStore(dir, async (store) => store.verifyTenants(await store.listTenants()));
    out.result({ ok: reports.every((r) => r.ok), tenants: reports }, reports.map(describeReport));
    return verdict(reports, out);
  },
};

export const FABRIC_COMMANDS: FabricCommand[] = [
  whoami,
  tokenCreate,
  tokenRevoke,
  sessionNew,
  sessionList,
  sessionShow,
  logAppend,
  logShow,
  branchFork,
  branchRewind,
  branchMove,
  branchList,
  branchHistory,
  auditVerify,
];
