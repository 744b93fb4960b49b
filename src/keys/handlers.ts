/** The handlers of the keys' operations (the contract: ./contract.ts). */
import * as log from '../log/session-log.js';
import type { Handlers } from '../ops/op.js';
import type { KEYS_CONTRACT } from './contract.js';

/** Values travel as text in the JSON body; the library seals bytes. */
const bytes = (text: string) => Buffer.from(text, 'utf8');

export const KEYS_HANDLERS: Handlers<typeof KEYS_CONTRACT> = {
  listCredentials: async (ctx) => ({ credentials: await ctx.keys().listCredentials() }),
  addCredential: (ctx, input) =>
    ctx.keys().addCredential({
      name: input.name,
      kind: input.kind,
      upstream: input.upstream ?? '',
      header: input.header,
      value: bytes(input.value),
      ...(input.sandbox
        ? { sandbox: { upstream: input.sandbox.upstream, value: bytes(input.sandbox.value) } }
        : {}),
      allowHeaders: input.allowHeaders,
      maxBodyBytes: input.maxBodyBytes,
    }),
  rotateCredential: (ctx, input) =>
    ctx.keys().rotateCredential(input.name, {
      ...(input.value !== undefined ? { value: bytes(input.value) } : {}),
      ...(input.sandbox !== undefined ? { sandbox: bytes(input.sandbox) } : {}),
    }),
  deleteCredential: (ctx, input) => ctx.keys().deleteCredential(input.name),
  addGrant: (ctx, input) => ctx.keys().grant(input),
  listApprovals: async (ctx, input) => ({
    approvals: await ctx.keys().listApprovals({ state: input.state }),
  }),
  getApproval: (ctx, input) => ctx.keys().getApproval(input.approval),
  approve: (ctx, input) => ctx.keys().decide(input.approval, 'approve', input.note),
  deny: (ctx, input) => ctx.keys().decide(input.approval, 'deny', input.note),
  getGrant: (ctx, input) => ctx.keys().getGrant(input.grant),
  checkGrant: async (ctx, input) => {
    await ctx.read((tx) => log.getSession(tx, ctx.who, input.session));
    await ctx.keys().checkGrant(input);
    return { ok: true as const };
  },
  listGrants: async (ctx, input) => ({ grants: await ctx.keys().listGrants(input) }),
  revokeGrant: (ctx, input) => ctx.keys().revoke(input.grant, input.reason),
};
