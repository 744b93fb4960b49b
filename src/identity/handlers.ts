/** The handlers of identity's operations (the contract: ./contract.ts). */
import { actorChain } from '../audit/audit-chain.js';
import { forbidden } from '../errors.js';
import type { Handlers } from '../ops/op.js';
import { refuseAudited } from '../ops/op.js';
import { authorize } from './access-gate.js';
import type { IDENTITY_CONTRACT } from './contract.js';
import { insertPrincipal, insertToken, loadIdentity, revokeToken } from './identity-store.js';

export const IDENTITY_HANDLERS: Handlers<typeof IDENTITY_CONTRACT> = {
  whoami: async (ctx) => ({ ...ctx.who }),
  createToken: async (ctx, input) => {
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
    // The operation's access is a token for oneself; one for another principal is an admin's.
    if (!forSelf) authorize(ctx.who, 'token.create.other');
    return ctx.write(async (tx, now) => {
      const principal =
        input.principal ??
        (await insertPrincipal(
          tx,
          ctx.who.tenant,
          { kind: input.kind ?? 'agent', name: input.name ?? 'agent', role: input.role ?? 'member' },
          ctx.who.principal,
          now,
          actorChain(ctx.who),
        ));
      // A token made by one who acts for a person acts for that person too: an agent cannot shed them by
      // minting itself (or a helper) a token.
      return insertToken(tx, ctx.who.tenant, principal, input.label, ctx.who.principal, now, {
        chain: actorChain(ctx.who),
        issuedBy: ctx.who.onBehalfOf ?? ctx.who.principal,
      });
    });
  },
  revokeToken: (ctx, input) =>
    ctx.write((tx, now) =>
      revokeToken(
        tx,
        ctx.who.tenant,
        input.token,
        ctx.who.principal,
        (owner) => {
          if (owner !== ctx.who.principal) authorize(ctx.who, 'token.revoke.other');
        },
        now,
        actorChain(ctx.who),
      ),
    ),
};
