/**
 * MCP over streamable HTTP (`/mcp` on `cairn serve`, or `cairn mcp --port`):
 * one MCP session per `initialize`, bound to the caller that opened it — a
 * session id presented by anyone else is unknown (404). Host and Origin are
 * checked first, against DNS rebinding: a page on another site that resolves
 * its name to this loopback address sends its own Host and Origin, and is
 * refused (403) before anything is parsed.
 */
import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { type CairnError, forbidden, notFound } from '../errors.js';
import type { Fabric } from '../fabric.js';
import { createMcpServer } from './server.js';

export interface McpHttpOptions {
  version: string;
  /** The fabric runs where the workspaces are (see McpServerOptions.local). */
  local?: boolean;
  /**
   * The Host header values (`host:port`, lower case) and Origin values
   * accepted; asked per request, since a server learns its port on listening.
   * A request without an Origin (not from a browser page) passes that check.
   */
  names: () => { hosts: readonly string[]; origins: readonly string[] };
  /** Sessions open at once; past it, the oldest is closed. Default 1,000. */
  maxSessions?: number;
}

/** The Host and Origin values a server bound to `host:port` answers to: its address and localhost. */
export function loopbackNames(host: string, port: number): { hosts: string[]; origins: string[] } {
  const names = new Set(
    [host, 'localhost', '127.0.0.1', '[::1]'].map((h) =>
      h.includes(':') && !h.startsWith('[') ? `[${h}]` : h,
    ),
  );
  const hosts = [...names].map((h) => `${h.toLowerCase()}:${port}`);
  return { hosts, origins: hosts.flatMap((h) => [`http://${h}`, `https://${h}`]) };
}

function refusal(status: number, error: CairnError): Response {
  return new Response(JSON.stringify(error.toJSON()), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  owner: string;
}

export class McpHttp {
  private readonly sessions = new Map<string, Session>();

  constructor(private readonly options: McpHttpOptions) {}

  /** Refused for DNS rebinding, or null when Host and Origin are this server's own. */
  guard(request: Request): Response | null {
    const names = this.options.names();
    const host = (request.headers.get('host') ?? '').toLowerCase();
    if (!names.hosts.includes(host)) {
      return refusal(
        403,
        forbidden(`MCP requests must name this server in Host, not "${host.slice(0, 80)}"`, {
          host: host.slice(0, 80),
        }),
      );
    }
    const origin = request.headers.get('origin');
    if (origin !== null && !names.origins.includes(origin.toLowerCase())) {
      return refusal(
        403,
        forbidden(`MCP requests from pages of ${origin.slice(0, 80)} are refused`, {
          origin: origin.slice(0, 80),
        }),
      );
    }
    return null;
  }

  /**
   * One HTTP request of an MCP client that passed {@link guard} (the caller
   * checks Host and Origin first, before its own authentication); `owner`
   * names the caller (its token), `fabric` makes the fabric a new session's
   * tools act through.
   */
  async handle(request: Request, owner: string, fabric: () => Fabric): Promise<Response> {
    const id = request.headers.get('mcp-session-id');
    if (id !== null) {
      const session = this.sessions.get(id);
      if (!session || session.owner !== owner) {
        return refusal(404, notFound('no such MCP session: initialize a new one'));
      }
      return session.transport.handleRequest(request);
    }
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => {
        this.sessions.set(sessionId, { transport, owner });
        this.trim();
      },
      onsessionclosed: (sessionId) => {
        this.sessions.delete(sessionId);
      },
    });
    const server = createMcpServer(fabric(), { version: this.options.version, local: this.options.local });
    await server.connect(transport);
    return transport.handleRequest(request);
  }

  private trim(): void {
    const max = this.options.maxSessions ?? 1000;
    for (const [id, session] of this.sessions) {
      if (this.sessions.size <= max) break;
      this.sessions.delete(id);
      void session.transport.close();
    }
  }

  async close(): Promise<void> {
    const open = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(open.map((s) => s.transport.close()));
  }
}
