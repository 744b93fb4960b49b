import type { ChildProcessWithoutNullStreams } from 'node:child_process';
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

/** SIGTERM, and wait until the process is gone (it may still be writing its state). */
export function stop(child: ChildProcessWithoutNullStreams): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** The URL `cairn mcp --port` prints on stderr once it listens. */
export function mcpUrl(child: ChildProcessWithoutNullStreams): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      err += d;
      const found = /http:\/\/\S+/.exec(err);
      if (found) resolve(found[0]);
    });
    child.on('exit', (code) => reject(new Error(`cairn mcp exited with ${code}: ${err}`)));
  });
}
