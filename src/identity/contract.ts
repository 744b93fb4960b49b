/**
 * Identity's operations (contract/spec.ts): who the caller is, and its
 * tokens. Who may mint a person's token is decided in the handler, from the
 * caller's principal (handlers.ts).
 */
import { spec } from '../contract/spec.js';
import * as schema from '../schema.js';
import * as shared from '../shapes.js';
import * as shape from './shapes.js';

export const IDENTITY_CONTRACT = {
  whoami: spec({
    name: 'whoami',
    mcp: {
      name: 'whoami',
      description:
        'Who you are acting as: your tenant, principal, kind (agent or user) and role, all from your token. Call it when unsure which identity your calls carry. Read-only.',
    },
    summary: 'The identity the caller acts as',
    effect: 'read',
    callers: 'any',
    access: 'identity.read',
    runs: 'anywhere',
    input: schema.NoInput,
    output: shared.Identity,
    cli: {
      command: ['whoami'],
      summary: 'show the tenant and principal the command acts as',
      example: 'cairn whoami --url http://127.0.0.1:7411 --token-file ~/.cairn-token',
    },
    http: { method: 'GET', path: '/v1/whoami' },
  }),
  createToken: spec({
    name: 'createToken',
    summary: 'Create an API token (shown once), for a new principal or an existing one',
    effect: 'write',
    callers: 'any',
    access: 'token.create.self',
    runs: 'anywhere',
    input: schema.CreateTokenInput,
    output: shape.CreatedToken,
    cli: {
      command: ['token', 'create'],
      summary: 'mint a bearer token (printed once: Cairn keeps only its hash)',
      example: 'cairn token create --kind agent --name worker --label ci',
    },
    http: { method: 'POST', path: '/v1/tokens', status: 201 },
  }),
  revokeToken: spec({
    name: 'revokeToken',
    summary: 'Revoke an API token at once (members their own, admins any in the tenant)',
    effect: 'write',
    callers: 'any',
    access: 'token.revoke.self',
    runs: 'anywhere',
    input: schema.RevokeTokenInput,
    output: shape.RevokedToken,
    invalidatesAuth: true,
    cli: {
      command: ['token', 'revoke'],
      args: ['token'],
      summary: 'revoke a token at once (members: their own; admins: any in the tenant)',
      example: 'cairn token revoke tk_…',
    },
    http: { method: 'POST', path: '/v1/tokens/{token}/revoke' },
  }),
};
