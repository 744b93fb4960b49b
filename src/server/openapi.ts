import { z } from 'zod';
import { inputJsonSchema, pathFieldsOf } from '../contract/json-schema.js';
import { type HttpBinding, INPUT_HEADER } from '../contract/spec.js';
import type { Op } from '../ops/op.js';
import { servedOps } from '../ops/table.js';
import { ErrorBody } from '../shapes.js';

/**
 * The OpenAPI 3.1 description of the HTTP API, made from the table of
 * operations: parameters and request bodies from each input schema,
 * responses from each output schema, errors from the one error body. It
 * cannot drift from what the server accepts and answers.
 */
type JsonSchema = { properties?: Record<string, unknown>; required?: string[]; [k: string]: unknown };

function outputSchema(operation: Op): unknown {
  const json = z.toJSONSchema(operation.output, { io: 'output', unrepresentable: 'any' }) as JsonSchema;
  delete json.$schema;
  return json;
}

/** What a `content` answer says beside its bytes (contract/spec.ts `ContentAnswer`). */
const CONTENT_HEADERS = {
  ETag: { description: 'the sha256 of the whole object, hex, quoted', schema: { type: 'string' } },
  'Content-Range': { description: 'on a 206: bytes FIRST-LAST/SIZE', schema: { type: 'string' } },
  'cairn-offset': { description: 'where the bytes start in the object', schema: { type: 'integer' } },
  'cairn-size': { description: "the whole object's length", schema: { type: 'integer' } },
};

/** The input schema without the named fields (they travel in the path). */
function without(json: JsonSchema, fields: string[]): JsonSchema {
  const { $schema: _, required: all = [], properties: every = {}, ...rest } = json;
  const properties = Object.fromEntries(Object.entries(every).filter(([name]) => !fields.includes(name)));
  const required = all.filter((r) => !fields.includes(r));
  return { ...rest, properties, ...(required.length > 0 ? { required } : {}) };
}

function operationObject(operation: Op & { http: HttpBinding }): Record<string, unknown> {
  const json = inputJsonSchema(operation) as JsonSchema;
  const inPath = pathFieldsOf(operation);
  const properties = json.properties ?? {};
  const required = new Set(json.required ?? []);
  const parameters: unknown[] = inPath.map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: properties[name] ?? { type: 'string' },
  }));
  let requestBody: unknown;
  if (operation.http.method === 'GET') {
    for (const name of Object.keys(properties).filter((n) => !inPath.includes(n))) {
      parameters.push({ name, in: 'query', required: required.has(name), schema: properties[name] });
    }
  } else if (operation.http.body !== undefined) {
    // The field `bytes` is the body itself, raw (a desk pack, an artifact: streamed); the rest travel in the path,
    // and any other field as JSON in the `cairn-input` header.
    const others = without(without(json, inPath), ['bytes']);
    if (Object.keys(others.properties ?? {}).length > 0)
      parameters.push({
        name: INPUT_HEADER,
        in: 'header',
        required: (others.required?.length ?? 0) > 0,
        description: 'the input fields other than the bytes, as one JSON object (non-ASCII as \\uXXXX)',
        content: { 'application/json': { schema: others } },
      });
    requestBody = {
      required: true,
      content: {
        'application/octet-stream': {
          schema: { type: 'string', contentMediaType: 'application/octet-stream' },
        },
      },
    };
  } else {
    const body = without(json, inPath);
    requestBody = {
      required: (body.required?.length ?? 0) > 0,
      content: { 'application/json': { schema: body } },
    };
  }
  if (operation.http.answer === 'content')
    parameters.push({
      name: 'range',
      in: 'header',
      required: false,
      description:
        'one range, bytes=FIRST-LAST or bytes=FIRST- (else the offset and length query parameters)',
      schema: { type: 'string' },
    });
  const success = {
    description: 'Success',
    ...(operation.http.answer === 'content' ? { headers: CONTENT_HEADERS } : {}),
    content:
      operation.http.answer === 'content'
        ? { '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } }
        : operation.http.answer === 'bytes'
          ? {
              'application/octet-stream': {
                schema: {
                  type: 'string',
                  contentMediaType: 'application/octet-stream',
                  description: 'byte strings, each a u32 BE length and its bytes',
                },
              },
            }
          : { 'application/json': { schema: outputSchema(operation) } },
  };
  // A `content` answer is 200 for the whole object and 206 for a part of it.
  const statuses =
    operation.http.answer === 'content'
      ? [200, 206]
      : operation.statusOf
        ? [200, operation.http.status ?? 200]
        : [operation.http.status ?? 200];
  return {
    operationId: operation.name,
    summary: operation.summary,
    parameters,
    ...(requestBody ? { requestBody } : {}),
    responses: {
      ...Object.fromEntries([...new Set(statuses)].map((s) => [String(s), success])),
      // A body past the server's budget of bytes in flight (all tenants, or the caller's share).
      ...(operation.http.method === 'GET'
        ? {}
        : {
            '503': {
              description:
                'UNAVAILABLE: the server holds as many request bodies as it takes; retry after Retry-After seconds',
              headers: { 'Retry-After': { schema: { type: 'integer' } } },
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
            },
          }),
      default: {
        description: 'Typed error',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
    },
  };
}

let cached: unknown;

export function openApiDocument(): unknown {
  if (cached) return cached;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of servedOps()) {
    paths[operation.http.path] ??= {};
    (paths[operation.http.path] as Record<string, unknown>)[operation.http.method.toLowerCase()] =
      operationObject(operation);
  }
  cached = {
    openapi: '3.1.0',
    info: {
      title: 'Cairn',
      version: '0.1.0',
      description: 'Persistence fabric for AI agents: every operation of the table that runs on a server.',
    },
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        Error: without(z.toJSONSchema(ErrorBody) as JsonSchema, []),
      },
    },
  };
  return cached;
}
