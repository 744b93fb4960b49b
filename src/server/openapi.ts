import { z } from 'zod';
import { ERROR_CODES } from '../errors.js';
import * as schema from '../schema.js';

/**
 * The OpenAPI 3.1 description of the HTTP API. Request bodies come from the
 * same zod schemas the library validates with, so the document cannot drift
 * from what the server accepts.
 */
interface Operation {
  method: 'get' | 'post';
  path: string;
  summary: string;
  body?: z.ZodType;
  /** Fields of `body` that travel in the path instead. */
  pathFields?: string[];
  query?: Record<string, 'integer' | 'string'>;
  status?: number;
}

const OPERATIONS: Operation[] = [
  { method: 'get', path: '/v1/whoami', summary: 'The identity the token acts as' },
  {
    method: 'post',
    path: '/v1/sessions',
    summary: 'Create a session',
    body: schema.CreateSessionInput,
    status: 201,
  },
  {
    method: 'get',
    path: '/v1/sessions',
    summary: 'List sessions',
    query: { limit: 'integer', after: 'string' },
  },
  { method: 'get', path: '/v1/sessions/{session}', summary: 'Get a session' },
  {
    method: 'post',
    path: '/v1/sessions/{session}/events',
    summary: 'Append an event to a branch (200 when deduplicated by idempotency key)',
    body: schema.AppendInput,
    pathFields: ['session'],
    status: 201,
  },
  {
    method: 'get',
    path: '/v1/sessions/{session}/branches/{branch}/events',
    summary: 'Read a branch root to head, paged by sequence number',
    query: { from: 'integer', limit: 'integer' },
  },
  { method: 'get', path: '/v1/events/{event}', summary: 'Get one event' },
  { method: 'get', path: '/v1/sessions/{session}/branches', summary: 'List branches with their heads' },
  {
    method: 'post',
    path: '/v1/sessions/{session}/branches',
    summary: 'Fork a branch at an event',
    body: schema.ForkInput,
    pathFields: ['session'],
    status: 201,
  },
  {
    method: 'post',
    path: '/v1/sessions/{session}/branches/{branch}/rewind',
    summary: 'Move a branch head back to an event on its path',
    body: schema.RewindInput,
    pathFields: ['session', 'branch'],
  },
  {
    method: 'post',
    path: '/v1/sessions/{session}/branches/{branch}/move',
    summary: 'Move a branch head to any event of its session (ifHead: compare-and-swap)',
    body: schema.MoveHeadInput,
    pathFields: ['session', 'branch'],
  },
  {
    method: 'get',
    path: '/v1/events/{event}/path',
    summary: 'Read the path root to an event, paged by sequence number',
    query: { from: 'integer', limit: 'integer' },
  },
  {
    method: 'get',
    path: '/v1/sessions/{session}/branches/{branch}/history',
    summary: 'Head moves of a branch (create, fork, rewind, move)',
  },
  {
    method: 'post',
    path: '/v1/tokens',
    summary: 'Create an API token (shown once)',
    body: schema.CreateTokenInput,
    status: 201,
  },
  { method: 'post', path: '/v1/tokens/{token}/revoke', summary: 'Revoke an API token at once' },
  { method: 'get', path: '/v1/audit/verify', summary: "Verify the tenant's audit chain" },
  {
    method: 'get',
    path: '/v1/approvals',
    summary: 'Requests waiting for a person (branch, credential, method, URL, redacted body preview)',
    query: { state: 'string' },
  },
  { method: 'get', path: '/v1/approvals/{approval}', summary: 'Get one approval' },
  {
    method: 'post',
    path: '/v1/approvals/{approval}/approve',
    summary: 'Approve exactly one held request (admin; once)',
    body: schema.DecisionInput,
  },
  {
    method: 'post',
    path: '/v1/approvals/{approval}/deny',
    summary: 'Deny one held request: the agent gets 403, nothing is sent (admin; once)',
    body: schema.DecisionInput,
  },
  {
    method: 'get',
    path: '/v1/grants',
    summary: 'Grants with their state, optionally of one session branch',
    query: { session: 'string', branch: 'string' },
  },
  {
    method: 'post',
    path: '/v1/grants/{grant}/revoke',
    summary: 'Revoke a grant and every grant narrowed from it',
    body: schema.RevokeGrantInput,
  },
];

function bodySchema(op: Operation): unknown {
  const json = z.toJSONSchema(op.body!, { io: 'input', unrepresentable: 'any' }) as {
    properties?: Record<string, unknown>;
    required?: string[];
  };
  for (const field of op.pathFields ?? []) {
    delete json.properties?.[field];
    json.required = json.required?.filter((r) => r !== field);
  }
  return json;
}

let cached: unknown;

export function openApiDocument(): unknown {
  if (cached) return cached;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    const parameters = [
      ...[...op.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
        name: m[1],
        in: 'path',
        required: true,
        schema: { type: 'string' },
      })),
      ...Object.entries(op.query ?? {}).map(([name, type]) => ({
        name,
        in: 'query',
        required: false,
        schema: { type },
      })),
    ];
    paths[op.path] ??= {};
    paths[op.path]![op.method] = {
      summary: op.summary,
      parameters,
      ...(op.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: bodySchema(op) } } } }
        : {}),
      responses: {
        [String(op.status ?? 200)]: {
          description: 'Success',
          content: { 'application/json': { schema: { type: 'object' } } },
        },
        default: {
          description: 'Typed error',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      },
    };
  }
  cached = {
    openapi: '3.1.0',
    info: {
      title: 'Cairn',
      version: '0.1.0',
      description: 'Persistence fabric for AI agents: session log API.',
    },
    security: [{ bearer: [] }],
    paths: { ...paths },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        Error: {
          type: 'object',
          required: ['code', 'message', 'data'],
          properties: {
            code: { type: 'string', enum: [...ERROR_CODES] },
            message: { type: 'string' },
            data: { type: 'object' },
          },
        },
      },
    },
  };
  return cached;
}
