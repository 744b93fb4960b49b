import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** An MCP SDK client on a server's `/mcp` with a bearer token; `opened` collects it for the suite's afterAll. */
export async function connectMcpHttp(serverUrl: string, token: string, opened: Client[]): Promise<Client> {
  const client = new Client({ name: 'cairn-test', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${serverUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  opened.push(client);
  return client;
}
