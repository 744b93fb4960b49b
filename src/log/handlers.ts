/** The handlers of the session log's operations (the contract: ./contract.ts). */
import { forbidden, invalidArgument } from '../errors.js';
import * as log from '../log/session-log.js';
import type { Handlers } from '../ops/op.js';
import { refuseAudited } from '../ops/op.js';
import { underPolicy } from '../redaction/apply.js';
import { redactValue } from '../redaction/pii.js';
import { MAX_TITLE_CHARS } from '../schema.js';
import type { LOG_CONTRACT } from './contract.js';

let guard: Promise<typeof import('../desk/guard/text.js')> | undefined;
/** The secret guard's text scanner, loaded once, when first needed. */
const guardText = () => {
  guard ??= import('../desk/guard/text.js');
  return guard;
};

export const LOG_HANDLERS: Handlers<typeof LOG_CONTRACT> = {
  // A title and meta are the agent's text too: under the tenant's redaction policy, as payloads are.
  createSession: (ctx, input) =>
    underPolicy(
      ctx.engine,
      ctx.who.tenant,
      ctx.write,
      async (rules) => {
        if (!rules) return { input, pii: {} };
        const done = redactValue({ title: input.title, meta: input.meta }, rules);
        const redacted = done.value as Pick<typeof input, 'title' | 'meta'>;
        // A placeholder can be longer than what it replaced: the stored title keeps the title's limit.
        if (redacted.title.length > MAX_TITLE_CHARS)
          throw invalidArgument(
            `the title is ${redacted.title.length} characters once personal data is replaced by placeholders, over the ${MAX_TITLE_CHARS}-character limit: shorten it`,
            { field: 'title' },
          );
        return { input: { ...input, ...redacted }, pii: done.counts };
      },
      (tx, now, prepared) => log.createSession(tx, ctx.who, prepared.input, now, prepared.pii),
    ),
  listSessions: (ctx, input) => ctx.read((tx) => log.listSessions(tx, ctx.who, input)),
  getSession: (ctx, input) => ctx.read((tx) => log.getSession(tx, ctx.who, input.session)),
  append: async (ctx, input) => {
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
    // A credential in the payload is stored as a typed placeholder, and counted in the audit entry. The
    // guard's rules load on the first append, not with every command that reads the log (`session ls`).
    return guardText()
      .then(({ redactEncoded }) => redactEncoded(input.payload, log.encodePayload))
      .then(({ payload, redacted }) =>
        // Then personal data, when the tenant's policy says so (redaction/apply.ts).
        underPolicy(
          ctx.engine,
          ctx.who.tenant,
          ctx.write,
          async (rules) => {
            if (!rules) return { text: payload, pii: {} };
            const done = redactValue(JSON.parse(payload), rules);
            return { text: log.encodePayload(done.value), pii: done.counts };
          },
          (tx, now, stored) =>
            log.appendEvent(tx, ctx.who, input, stored.text, now, {
              redacted,
              pii: stored.pii,
              asSent: payload,
            }),
        ),
      );
  },
  readBranch: (ctx, input) => ctx.read((tx) => log.readBranch(tx, ctx.who, input)),
  getEvent: (ctx, input) => ctx.read((tx) => log.getEvent(tx, ctx.who, input.event)),
  fork: (ctx, input) => ctx.write((tx, now) => log.forkBranch(tx, ctx.who, input, now)),
  rewind: (ctx, input) => ctx.write((tx, now) => log.rewindBranch(tx, ctx.who, input, now)),
  moveHead: (ctx, input) => ctx.write((tx, now) => log.moveHead(tx, ctx.who, input, now)),
  readPath: (ctx, input) => ctx.read((tx) => log.readPath(tx, ctx.who, input)),
  listBranches: (ctx, input) => ctx.read((tx) => log.listBranches(tx, ctx.who, input.session)),
  branchHistory: (ctx, input) =>
    ctx.read((tx) => log.branchHistory(tx, ctx.who, input.session, input.branch)),
};
