import { IDENTITY_CONTRACT } from '../identity/contract.js';
import { LOG_CONTRACT } from '../log/contract.js';
import type {
  AuditReport,
  Branch,
  CairnEvent,
  CreatedToken,
  EventPage,
  Identity,
  RefLogEntry,
  RevokedToken,
  Session,
  SessionPage,
} from '../types.js';
import { defined, readPayload, stringFlag } from './args.js';
import type { FabricCommand } from './command.js';
import { operationCommand } from './derived.js';
import { compactJson, EXIT, isoTime, type Output, table } from './output.js';
import { withStore } from './store-commands.js';

/**
 * Commands that act through a fabric, the same whether embedded or remote.
 * Most are made from their operations' CLI bindings (derived.ts); `session
 * show` (two operations), `log append` (a payload from a file or stdin) and
 * `audit verify` (every tenant of a local store) are written here.
 */

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

const sessionShow: FabricCommand = {
  target: 'fabric',
  names: ['session', 'show'],
  example: 'cairn session show ss_…',
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
  example: 'cairn log append ss_… --kind tool.call --payload \'{"tool":"grep"}\' --key call-7',
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
  example: 'cairn audit verify',
  args: [],
  flags: [],
  summary:
    'verify audit chains (every tenant of a local store; your tenant over --url); exit code 1 when one is broken',
  async run(fabric, { out }) {
    const report = await fabric.verifyAudit();
    out.result(report, describeReport(report));
    return verdict([report], out);
  },
  async runLocal(dir, call) {
    const { out } = call;
    const { auditKeyOf } = await import('./operator-keys.js');
    const reports = await withStore(
      dir,
      async (store) => store.verifyTenants(await store.listTenants()),
      auditKeyOf(call),
    );
    out.result({ ok: reports.every((r) => r.ok), tenants: reports }, reports.map(describeReport));
    return verdict(reports, out);
  },
};

const headMoved = (verb: string) => (branch: Branch) =>
  `${verb} branch ${branch.name} to seq ${branch.headSeq} (${branch.head || 'empty'})`;

export const FABRIC_COMMANDS: FabricCommand[] = [
  operationCommand(
    IDENTITY_CONTRACT.whoami,
    (who: Identity) => `tenant ${who.tenant}, principal ${who.principal} (${who.kind}, ${who.role})`,
  ),
  operationCommand(IDENTITY_CONTRACT.createToken, (created: CreatedToken) => [
    `token: ${created.token}`,
    `token ${created.id} for principal ${created.principal} in tenant ${created.tenant} (shown once: store it now)`,
  ]),
  operationCommand(
    IDENTITY_CONTRACT.revokeToken,
    (revoked: RevokedToken) =>
      `token ${revoked.id} of principal ${revoked.principal} revoked at ${isoTime(revoked.revokedAt)}`,
  ),
  operationCommand(LOG_CONTRACT.createSession, (session: Session) => `created session ${session.id}`),
  operationCommand(LOG_CONTRACT.listSessions, (page: SessionPage) => {
    const lines = table(page.sessions.map((s) => [s.id, isoTime(s.createdAt), s.title]));
    if (page.sessions.length === 0) lines.push('no sessions');
    if (page.next) lines.push(`(more: --after ${page.next})`);
    return lines;
  }),
  sessionShow,
  logAppend,
  operationCommand(LOG_CONTRACT.readBranch, (page: EventPage) => {
    const lines = table(eventRows(page.events));
    if (page.events.length === 0)
      lines.push(page.headSeq === 0 ? 'no events yet' : 'no events in this range');
    if (page.next !== null) lines.push(`(more: --from ${page.next})`);
    return lines;
  }),
  operationCommand(LOG_CONTRACT.getEvent, (e: CairnEvent) => [
    `event ${e.id}: ${e.kind} at seq ${e.seq} on ${e.branch} of ${e.session}, by ${e.actor} at ${isoTime(e.at)}`,
    compactJson(e.payload),
  ]),
  operationCommand(LOG_CONTRACT.readPath, (page: EventPage) => {
    const lines = table(eventRows(page.events));
    if (page.next !== null) lines.push(`(more: --from ${page.next})`);
    return lines;
  }),
  operationCommand(
    LOG_CONTRACT.fork,
    (branch: Branch) => `created branch ${branch.name} (${branch.id}) at seq ${branch.headSeq}`,
  ),
  operationCommand(LOG_CONTRACT.rewind, headMoved('rewound')),
  operationCommand(LOG_CONTRACT.moveHead, headMoved('moved')),
  operationCommand(
    LOG_CONTRACT.listBranches,
    (branches: Branch[]) => table(branchRows(branches)),
    (branches, input) => ({ session: input.session, branches }),
  ),
  operationCommand(
    LOG_CONTRACT.branchHistory,
    (history: RefLogEntry[]) =>
      table(
        history.map((h) => [
          isoTime(h.at),
          h.op,
          `${h.headBefore || '(empty)'} -> ${h.headAfter || '(empty)'}`,
          h.by,
        ]),
      ),
    (history, input) => ({ session: input.session, branch: input.branch, history }),
  ),
  auditVerify,
];
