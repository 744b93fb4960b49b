/**
 * The session log, identity and audit operations (see op.ts): each is its
 * route, its OpenAPI entry, its remote and embedded method.
 */
import { verifyAuditChain } from '../audit/audit-verify.js';
import { redactEncoded } from '../desk/guard.js';
import { forbidden } from '../errors.js';
import { authorize } from '../identity/access-gate.js';
import { insertPrincipal, insertToken, loadIdentity, revokeToken } from '../identity/identity-store.js';
import * as log from '../log/session-log.js';
import * as schema from '../schema.js';
import { op, refuseAudited } from './op.js';
import * as shape from './shapes.js';

export const LOG_OPS = {
  whoami: op({
    name: 'whoami',
    mcp: 'whoami',
    summary: 'The identity the caller acts as',
    effect: 'read',
    callers: 'any',
    runs: 'anywhere',
    input: schema.NoInput,
    output: shape.Identity,
    http: { method: 'GET', path: '/v1/whoami' },
    run: async (ctx) => ({ ...ctx.who }),
  }),
  createSession: op({
    name: 'createSession',
    mcp: 'session_create',
    summary: 'Create a session',
    effect: 'write',
    callers: 'any',
    runs: 'anywhere',
    input: schema.CreateSessionInput,
    output: shape.Session,
    http: { method: 'POST', path: '/v1/sessions', status: 201 },
    run: (ctx, input) => ctx.write('session.create', (tx, now) => log.createSession(tx, ctx.who, input, now)),
  }),
  listSessions: op({
    name: 'listSessions',
    mcp: 'session_list',
    summary: 'List sessions, paged',
    effect: 'read',
    callers: 'any',
    runs: 'anywhere',
    input: schema.ListSessionsInput,
    output: shape.SessionPage,
    http: { method: 'GET', path: '/v1/sessions' },
    run: (ctx, input) => ctx.read('session.read', (tx) => log.listSessions(tx, ctx.who, input)),
  }),
  getSession: op({
    name: 'getSession',
    summary: 'Get a session',
    effect: 'read',
    callers: 'any',
    runs: 'anywhere',
    input: schema.GetSessionInput,
    output: shape.Session,
    http: { method: 'GET', path: '/v1/sessions/{session}' },
    run: (ctx, input) => ctx.read('session.read', (tx) => log.getSession(tx, ctx.who, input.session)),
  }),
  append: op({
    name: 'append',
    mcp: 'log_append',
    summary:
      'Append an event to a branch head; durable when answered (200 when deduplicated by idempotency key)',
    effect: 'write',
    callers: 'any',
    runs: 'anywhere',
    input: schema.AppendInput,
    output: shape.AppendResult,
    http: { method: 'POST', path: '/v1/sessions/{session}/events', status: 201 },
    statusOf: (event) => (event.deduplicated ? 200 : 201),
    run: async (ctx, input) => {
      // Cairn's own kinds (steps, units, memory, the desk) are written only by the operations that own them.
      if (log.isReservedKind(input.kind))
        await refuseAudited(
          ctx,
          {
            action: 'log.append.reserved',
            resourceType: 'session',
            resourceId: input.session,
            payload: { kind: input.kind },
          },
          forbidden(
            `event kind "${input.kind}" is Cairn's own (kinds under "${log.RESERVED_KIND_PREFIX}" are written only by Cairn's operations): append under a kind of your own, e.g. "app.${input.kind.slice(log.RESERVED_KIND_PREFIX.length)}"; a person settles a step in doubt with resolveStep (cairn step resolve)`,
            { kind: input.kind },
          ),
        );
      // A credential in the payload is stored as a typed placeholder, and counted in the audit entry.
      return redactEncoded(input.payload, log.encodePayload).then(({ payload, redacted }) =>
        ctx.write('log.append', (tx, now) => log.appendEvent(tx, ctx.who, input, payload, now, redacted)),
      );
    },
  }),
  readBranch: op({
    name: 'readBranch',
    mcp: 'log_read',
    summary: 'Read a branch root to head, paged by sequence number',
    effect: 'read',
    callers: 'any',
    runs: 'anywhere',
    input: schema.ReadBranchInput,
    output: shape.EventPage,
    http: { method: 'GET', path: '/v1/sessions/{session}/branches/{branch}/events' },
    run: (ctx, input) => ctx.read('log.read', (tx) => log.readBranch(tx, ctx.who, input)),
  }),
  getEvent: op({
    name: 'getEvent',
    mcp: 'log_event',
    summary: 'Get one event',
    effect: 'read',
    callers: 'any',
    runs: 'anywhere',
    input: schema.GetEventInput,
    output: shape.CairnEvent,
    http: { method: 'GET', path: '/v1/events/{event}' },
    run: (ctx, input) => ctx.read('log.read', (tx) => log.getEvent(tx, ctx.who, input.event)),
  }),
  fork: op({
    name: 'fork',
    mcp: 'log_fork',
    summary: "Start a branch at an event (or another branch's head); nothing is copied",
    effect: 'write',
    callers: 'any',
    runs: 'anywhere',
    input: schema.ForkInput,
    output: shape.Branch,
    http: { method: 'POST', path: '/v1/sessions/{session}/branches', status: 201 },
    run: (ctx, input) => ctx.write('branch.fork', (tx, now) => log.forkBranch(tx, ctx.who, input, now)),
  }),
  rewind: op({
    name: 'rewind',
    summary: 'Move a branch head back to an event on its path; the old head stays readable',
    effect: 'write',
    callers: 'any',
    runs: 'anywhere',
    input: schema.RewindInput,
    output: shape.Branch,
    http: { method: 'POST', path: '/v1/sessions/{session}/branches/{branch}/rewind' },
    run: (ctx, input) => ctx.write('branch.rewind', (tx, now) => log.rewindBranch(tx, ctx.who, input, now)),
  }),
  moveHead: op({
    name: 'moveHead',
    summary:
      'Move a branch head to any event of its session, recorded in its history (ifHead: compare-and-swap)',
    effect: 'write',
    callers: 'any',
    runs: 'anywhere',
    input: schema.MoveHeadInput,
    output: shape.Branch,
    http: { method: 'POST', path: '/v1/sessions/{session}/branches/{branch}/move' },
    run: (ctx, input) => ctx.write('branch.move', (tx, now) => log.moveHead(tx, ctx.who, input, now)),
  }),
  readPath: op({
    name: 'readPath',
    mcp: 'log_path',
    summary: 'Read the path root to an event, paged by sequence number, whatever branch heads point at',
    effect: 'read',
    callers: 'any',
    runs: 'anywhere',
    input: schema.ReadPathInput,
    output: shape.EventPage,
    http: { method: 'GET', path: '/v1/events/{to}/path' },
    run: (ctx, input) => ctx.read('log.read', (tx) => log.readPath(tx, ctx.who, input)),
  }),
  listBranches: op({
    name: 'listBranches',
    mcp: 'log_branches',
    summary: 'List the branches of a session with their heads',
    effect: 'read',
    callers: 'any',
    runs: 'anywhere',
    input: schema.ListBranchesInput,
    output: shape.BranchList,
    http: { method: 'GET', path: '/v1/sessions/{session}/branches' },
    run: (ctx, input) => ctx.read('branch.read', (tx) => log.listBranches(tx, ctx.who, input.session)),
  }),
  branchHistory: op({
    name: 'branchHistory',
    mcp: 'log_history',
    summary: 'Head moves of a branch (create, fork, rewind, move)',
    effect: 'read',
    callers: 'any',
    runs: 'anywhere',
    input: schema.BranchHistoryInput,
    output: shape.RefLog,
    http: { method: 'GET', path: '/v1/sessions/{session}/branches/{branch}/history' },
    run: (ctx, input) =>
      ctx.read('branch.read', (tx) => log.branchHistory(tx, ctx.who, input.session, input.branch)),
  }),
  createToken: op({
    name: 'createToken',
    summary: 'Create an API token (shown once), for a new principal or an existing one',
    effect: 'write',
    callers: 'any',
    runs: 'anywhere',
    input: schema.CreateTokenInput,
    output: shape.CreatedToken,
    http: { method: 'POST', path: '/v1/tokens', status: 201 },
    run: async (ctx, input) => {
      const forSelf = input.principal === ctx.who.principal;
      // Only a person mints a person's token (a new user principal, or one for an existing user): never an agent.
      if (ctx.who.kind !== 'user' && !forSelf) {
        const { tenant } = ctx.who;
        const target =
          input.principal === undefined
            ? (input.kind ?? 'agent')
            : (await ctx.engine.read(tenant, (tx) => loadIdentity(tx, tenant, input.principal as string)))
                ?.kind;
        if (target === 'user')
          await refuseAudited(
            ctx,
            {
              action: 'authority.refused',
              resourceType: 'principal',
              resourceId: input.principal ?? '',
              payload: { operation: 'createToken', kind: 'user' },
            },
            forbidden(
              `principal ${ctx.who.principal} is ${ctx.who.kind === 'agent' ? 'an' : 'a'} ${ctx.who.kind}: only a person creates a person's token (a user principal); ask a person of the tenant`,
              { principal: ctx.who.principal },
            ),
          );
      }
      return ctx.write(forSelf ? 'token.create.self' : 'token.create.other', async (tx, now) => {
        const principal =
          input.principal ??
          (await insertPrincipal(
            tx,
            ctx.who.tenant,
            { kind: input.kind ?? 'agent', name: input.name ?? 'agent', role: input.role ?? 'member' },
            ctx.who.principal,
            now,
          ));
        return insertToken(tx, ctx.who.tenant, principal, input.label, ctx.who.principal, now);
      });
    },
  }),
  revokeToken: op({
    name: 'revokeToken',
    summary: 'Revoke an API token at once (members their own, admins any in the tenant)',
    effect: 'write',
    callers: 'any',
    runs: 'anywhere',
    input: schema.RevokeTokenInput,
    output: shape.RevokedToken,
    invalidatesAuth: true,
    http: { method: 'POST', path: '/v1/tokens/{token}/revoke' },
    run: (ctx, input) =>
      ctx.write('token.revoke.self', (tx, now) =>
        revokeToken(
          tx,
          ctx.who.tenant,
          input.token,
          ctx.who.principal,
          (owner) => {
            if (owner !== ctx.who.principal) authorize(ctx.who, 'token.revoke.other');
          },
          now,
        ),
      ),
  }),
  verifyAudit: op({
    name: 'verifyAudit',
    summary: "Verify the tenant's audit chain",
    effect: 'read',
    callers: 'any',
    runs: 'anywhere',
    input: schema.NoInput,
    output: shape.AuditReport,
    http: { method: 'GET', path: '/v1/audit/verify' },
    run: async (ctx) => {
      authorize(ctx.who, 'audit.verify');
      return verifyAuditChain(ctx.engine, ctx.who.tenant);
    },
  }),
};
