import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../src/client/connect.js';
import type { RemoteFabric } from '../src/client/remote-fabric.js';
import { isCairnError } from '../src/errors.js';
import { type RunningServer, startServer } from '../src/server/index.js';
import type { Store } from '../src/store.js';
import { hashingEmbedding } from '../src/testing/embedding.js';
import { sqliteStore } from './support/stores.js';

// Tenant A naming tenant B's memory — its scope names, session, record ids — over HTTP and over MCP.
let store: Store;
let cleanup: () => Promise<void>;
let server: RunningServer;
let a: RemoteFabric;
let mcp: Client;
const ofB = { session: '', record: '', sessionRecord: '' };

beforeAll(async () => {
  ({ store, cleanup } = await sqliteStore());
  const tokenA = (await store.createTenant('cross-a')).token.token;
  const tokenB = (await store.createTenant('cross-b')).token.token;
  server = await startServer(store, {
    host: '127.0.0.1',
    port: 0,
    mcp: { version: '0.0.0-test' },
    memoryEmbedding: hashingEmbedding(64),
  });
  const b = connect({ url: server.url, token: tokenB });
  ofB.record = (
    await b.remember({ scope: { user: 'alice' }, text: 'bravo-secret alice pasta', source: 'person' })
  ).id;
  ofB.session = (await b.createSession({ title: 'b' })).id;
  ofB.sessionRecord = (
    await b.remember({
      scope: { session: ofB.session },
      text: 'bravo-secret session pasta',
      source: 'person',
    })
  ).id;
  await b.close();
  a = connect({ url: server.url, token: tokenA });
  // A has its own "alice": the same scope name, A's own namespace.
  await a.remember({ scope: { user: 'alice' }, text: 'alpha alice pasta', source: 'person' });
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${tokenA}` } },
  });
  mcp = new Client({ name: 'crossing', version: '1' });
  await mcp.connect(transport);
}, 60_000);

afterAll(async () => {
  await mcp?.close();
  await a?.close();
  await server?.close();
  await cleanup?.();
});

/** Counts B's records in an answer; an error must be NOT_FOUND (B's ids are unknown to A). */
function ofBIn(answer: unknown): number {
  const text = JSON.stringify(answer);
  return text.includes('bravo-secret') ? 1 : 0;
}

describe('memory across tenants, over the wire', () => {
  it('HTTP: 4,000 recalls and reads naming B’s scopes, session and ids return none of B’s records', async () => {
    let leaked = 0;
    let notFound = 0;
    for (let i = 0; i < 4_000; i++) {
      const which = i % 4;
      try {
        const answer =
          which === 0
            ? await a.recall({ query: 'pasta', scope: { user: 'alice' } })
            : which === 1
              ? await a.recall({ query: 'pasta', scope: { session: ofB.session } })
              : which === 2
                ? await a.getMemory({ record: ofB.record })
                : await a.memoryHistory({ record: ofB.sessionRecord });
        leaked += ofBIn(answer);
        if (which === 0) expect(answer).toMatchObject({ items: [{ text: 'alpha alice pasta' }] });
      } catch (error) {
        if (!isCairnError(error, 'NOT_FOUND')) throw error;
        notFound++;
        leaked += ofBIn(error);
      }
    }
    expect(leaked).toBe(0);
    expect(notFound).toBe(3_000);
  }, 240_000);

  it("a server given an embedding function answers vector recall with the tenant's own vectors only", async () => {
    const near = await a.recall({ query: 'pastas', scope: { user: 'alice' }, mode: 'vector', k: 3 });
    expect(near.items.map((i) => i.text)).toEqual(['alpha alice pasta']);
    expect((await a.reindexMemory({})).indexed).toBe(0);
  });

  it('MCP: 1,000 recall and forget calls naming B’s scopes and ids return none of B’s records', async () => {
    let leaked = 0;
    let refused = 0;
    for (let i = 0; i < 1_000; i++) {
      const which = i % 3;
      const result =
        which === 0
          ? await mcp.callTool({
              name: 'memory_recall',
              arguments: { query: 'pasta', scope: { user: 'alice' } },
            })
          : which === 1
            ? await mcp.callTool({
                name: 'memory_recall',
                arguments: { query: 'pasta', scope: { session: ofB.session } },
              })
            : await mcp.callTool({ name: 'memory_forget', arguments: { record: ofB.record, preview: true } });
      leaked += ofBIn(result);
      if (result.isError) {
        expect((result.structuredContent as { error: { code: string } }).error.code).toBe('NOT_FOUND');
        refused++;
      }
    }
    expect(leaked).toBe(0);
    expect(refused).toBe(666);
  }, 240_000);
});
