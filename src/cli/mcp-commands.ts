/**
 * `cairn mcp`: the table's agent tools over MCP for a coding agent, on a
 * local store or through a server (`--url`). Over stdio by default: stdout
 * is the protocol's, so nothing else is printed there. With `--port`, over
 * streamable HTTP on loopback instead, at a path holding a random secret
 * (printed once on stderr), since a port is open to every user of the
 * machine; Host and Origin are checked against DNS rebinding.
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { EmbeddedFabric } from '../embedded-fabric.js';
import { invalidArgument } from '../errors.js';
import type { Fabric } from '../fabric.js';
import type { CallerSide } from '../ops/op.js';
import { withCallerOps } from '../ops/table.js';
import { stringFlag, wholeNumberFlag } from './args.js';
import type { DeskCommand, Invocation } from './command.js';
import { withDesk, workspaceAt } from './desk-commands.js';
import { EXIT } from './output.js';
import { listenError, untilStopSignal } from './store-commands.js';
import { unitsOf } from './unit-commands.js';
import { cliVersion } from './version.js';

const mcp: DeskCommand = {
  target: 'desk',
  createsStore: false,
  names: ['mcp'],
  example: 'cairn mcp',
  args: [],
  flags: [
    {
      name: 'port',
      type: 'string',
      value: 'P',
      help: 'serve streamable HTTP on 127.0.0.1:P (0 picks one) instead of stdio; prints the URL on stderr',
    },
  ],
  summary: 'serve the agent tools over MCP: stdio (default) or streamable HTTP on loopback',
  // The unit's tools run here, where the workspace is (its store local or a server's), on the workspace
  // attached where `cairn mcp` started (or the one a call names), and attach directories of this host;
  // every other tool is the fabric's.
  run: (place, call) =>
    withDesk(place, call, async (ctx) => {
      const { desk, fabric, local } = ctx;
      const units = await unitsOf(ctx, call);
      const caller: CallerSide = {
        units,
        fabric,
        workspace: (ref?: string) => workspaceAt(desk, call.cwd, ref),
        // A relative directory is taken from where `cairn mcp` started, as the default workspace is.
        attach: (input) => desk.attach({ ...input, dir: resolve(call.cwd, input.dir) }),
      };
      const served = local
        ? new EmbeddedFabric(local.store.engine, local.who, async () => {}, {
            caller,
            blobs: local.store.blobs,
          })
        : withCallerOps(fabric, caller);
      return serveMcp(served, call);
    }),
};

/** Serves the tools, the unit's included (they run here, where the workspace is). */
async function serveMcp(fabric: Fabric, call: Invocation): Promise<number> {
  const local = true;
  const version = cliVersion();
  const { createMcpServer } = await import('../mcp/server.js');
  const portFlag = stringFlag(call.values, 'port');
  if (portFlag === undefined) {
    const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
    const server = createMcpServer(fabric, { version, local });
    const transport = new StdioServerTransport(call.stdin as NodeJS.ReadStream, process.stdout);
    const closed = new Promise<void>((resolve) => {
      transport.onclose = () => resolve();
      call.stdin.once('end', () => resolve());
    });
    await server.connect(transport);
    await Promise.race([closed, untilStopSignal()]);
    await server.close();
    return EXIT.ok;
  }
  const port = wholeNumberFlag(call.values, 'port') ?? 0;
  if (port > 65535)
    throw invalidArgument(`--port must be at most 65535, got ${port}`, {
      field: 'port',
    });
  const host = '127.0.0.1';
  const secret = randomBytes(16).toString('hex');
  const { serve } = await import('@hono/node-server');
  const { loopbackNames, McpHttp } = await import('../mcp/http.js');
  let names = { hosts: [] as string[], origins: [] as string[] };
  const http = new McpHttp({ version, local, names: () => names });
  const path = `/mcp/${secret}`;
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const listening = serve(
      {
        hostname: host,
        port,
        fetch: (request) => {
          const refused = http.guard(request);
          if (refused) return refused;
          if (new URL(request.url).pathname !== path) {
            return new Response(JSON.stringify({ code: 'NOT_FOUND', message: 'no such path', data: {} }), {
              status: 404,
              headers: { 'content-type': 'application/json' },
            });
          }
          return http.handle(request, 'local', () => fabric);
        },
      },
      (info) => {
        names = loopbackNames(host, info.port);
        call.out.problem(`cairn mcp on http://${host}:${info.port}${path}`);
        resolve(listening);
      },
    );
    listening.once('error', (error) => reject(listenError(error, host, port)));
  });
  await untilStopSignal();
  await http.close();
  await new Promise<void>((done) => {
    server.close(() => done());
    (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
  });
  return EXIT.ok;
}

export const MCP_COMMANDS: DeskCommand[] = [mcp];
