/**
 * The OpenAPI document made from the table, judged by others' tools: a
 * third-party validator (@apidevtools/swagger-parser) accepts it; types that
 * openapi-typescript generates from it describe each answer (not
 * `Record<string, never>`), checked by compiling a client typed from them;
 * and every live answer of the server validates against the document's own
 * response schema (ajv, JSON Schema 2020-12).
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import Ajv2020 from 'ajv/dist/2020.js';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Op } from '../src/ops/op.js';
import { OPERATIONS } from '../src/ops/table.js';
import { type RunningServer, startServer } from '../src/server/index.js';
import { openApiDocument } from '../src/server/openapi.js';
import type { Store } from '../src/store.js';
import { sqliteStore, tempDir } from './support/stores.js';

type Document = {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>
  >;
};
const served = (Object.values(OPERATIONS) as Op[]).filter((o) => o.runs === 'anywhere');
const statusOf = (o: Op) => String(o.http.status ?? 200);
const copy = () => structuredClone(openApiDocument()) as Document;

let store: Store;
let cleanup: () => Promise<void>;
let server: RunningServer;
let token: string;

beforeAll(async () => {
  ({ store, cleanup } = await sqliteStore());
  token = (await store.createTenant('openapi')).token.token;
  server = await startServer(store, { host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await server?.close();
  await cleanup?.();
});

describe('the OpenAPI document', () => {
  it('passes a third-party OpenAPI 3.1 validator', async () => {
    await expect(SwaggerParser.validate(copy() as never)).resolves.toBeTruthy();
  });

  it('gives openapi-typescript types that describe every success answer', async () => {
    const types = astToString(await openapiTS(copy() as never));
    const temp = tempDir('cairn-openapi-types-');
    try {
      writeFileSync(join(temp.dir, 'api.d.ts'), types);
      // For each operation: its success body as the generated types see it must not be an empty record.
      const lines = [
        "import type { paths } from './api.js';",
        'type Empty<T> = T extends readonly unknown[] ? false : [keyof T] extends [never] ? true : false;',
        'type Body<P extends keyof paths, M extends keyof paths[P], S extends PropertyKey> =',
        "  paths[P][M] extends { responses: Record<S, { content: { 'application/json': infer B } }> } ? B : never;",
        'type Bytes<P extends keyof paths, M extends keyof paths[P], S extends PropertyKey> =',
        "  paths[P][M] extends { responses: Record<S, { content: { 'application/octet-stream': infer B } }> } ? B : never;",
        'type Raw<P extends keyof paths, M extends keyof paths[P], S extends PropertyKey> =',
        "  paths[P][M] extends { responses: Record<S, { content: { '*/*': infer B } }> } ? B : never;",
      ];
      for (const o of served) {
        const method = o.http.method.toLowerCase();
        if (o.http.answer === 'content') {
          // One object's bytes, of whatever type it is: the document says */*.
          lines.push(
            `export const ${o.name}: [Raw<'${o.http.path}', '${method}', 206>] extends [never] ? 'missing' : true = true;`,
          );
          continue;
        }
        if (o.http.answer === 'bytes') {
          // Raw bytes: the document says application/octet-stream, and the types read it as such.
          lines.push(
            `export const ${o.name}: [Bytes<'${o.http.path}', '${method}', ${statusOf(o)}>] extends [never] ? 'missing' : true = true;`,
          );
          continue;
        }
        lines.push(`type B_${o.name} = Body<'${o.http.path}', '${method}', ${statusOf(o)}>;`);
        lines.push(
          `export const ${o.name}: [B_${o.name}] extends [never] ? 'missing' : Empty<B_${o.name}> = false;`,
        );
      }
      // And a client typed from them reads the fields of a real answer.
      lines.push("export const title: B_getSession['title'] = 'a string';");
      lines.push("export const seq: B_append['seq'] = 1;");
      lines.push("export const approvalState: B_listApprovals['approvals'][number]['state'] = 'pending';");
      writeFileSync(join(temp.dir, 'check.ts'), `${lines.join('\n')}\n`);
      const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
      const run = spawnSync(
        process.execPath,
        [
          tsc,
          '--noEmit',
          '--strict',
          '--module',
          'nodenext',
          '--moduleResolution',
          'nodenext',
          '--target',
          'es2022',
          join(temp.dir, 'check.ts'),
        ],
        { encoding: 'utf8' },
      );
      expect(run.stdout + run.stderr).toBe('');
      expect(run.status).toBe(0);
    } finally {
      temp.remove();
    }
  }, 60_000);

  it("answers, live, what the document's response schema says", async () => {
    const document = copy();
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, json: await response.json() };
    };
    const check = (operation: Op, status: number, json: unknown) => {
      const entry = document.paths[operation.http.path]?.[operation.http.method.toLowerCase()];
      const schema = entry?.responses[String(status)]?.content?.['application/json']?.schema;
      expect(schema, `${operation.name} ${status}`).toBeDefined();
      const validate = ajv.compile(schema as object);
      expect(validate(json), `${operation.name}: ${JSON.stringify(validate.errors)}`).toBe(true);
    };
    const session = await call('POST', '/v1/sessions', { title: 'typed' });
    check(OPERATIONS.createSession, session.status, session.json);
    const appended = await call('POST', `/v1/sessions/${session.json.id}/events`, {
      kind: 'message',
      payload: { a: 1 },
    });
    check(OPERATIONS.append, appended.status, appended.json);
    const reads: [Op, string][] = [
      [OPERATIONS.whoami, '/v1/whoami'],
      [OPERATIONS.listSessions, '/v1/sessions?limit=5'],
      [OPERATIONS.getSession, `/v1/sessions/${session.json.id}`],
      [OPERATIONS.readBranch, `/v1/sessions/${session.json.id}/branches/main/events`],
      [OPERATIONS.getEvent, `/v1/events/${appended.json.id}`],
      [OPERATIONS.readPath, `/v1/events/${appended.json.id}/path`],
      [OPERATIONS.listBranches, `/v1/sessions/${session.json.id}/branches`],
      [OPERATIONS.branchHistory, `/v1/sessions/${session.json.id}/branches/main/history`],
      [OPERATIONS.verifyAudit, '/v1/audit/verify'],
      [OPERATIONS.listApprovals, '/v1/approvals?state=all'],
      [OPERATIONS.listGrants, '/v1/grants'],
    ];
    for (const [operation, path] of reads) {
      const answer = await call('GET', path);
      check(operation, answer.status, answer.json);
    }
    const forked = await call('POST', `/v1/sessions/${session.json.id}/branches`, {
      at: appended.json.id,
      name: 'side',
    });
    check(OPERATIONS.fork, forked.status, forked.json);
    const moved = await call('POST', `/v1/sessions/${session.json.id}/branches/side/move`, {
      to: appended.json.id,
    });
    check(OPERATIONS.moveHead, moved.status, moved.json);
    const minted = await call('POST', '/v1/tokens', { kind: 'agent', name: 'typed', label: 'x' });
    check(OPERATIONS.createToken, minted.status, minted.json);
    const revoked = await call('POST', `/v1/tokens/${minted.json.id}/revoke`);
    check(OPERATIONS.revokeToken, revoked.status, revoked.json);
    // An error answer validates against the document's error body.
    const missing = await call('GET', '/v1/sessions/ss_00000000000000000000000000');
    expect(missing.status).toBe(404);
    const error = (openApiDocument() as { components: { schemas: { Error: object } } }).components.schemas
      .Error;
    expect(ajv.validate(error, missing.json)).toBe(true);
  });
});
