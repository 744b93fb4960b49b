/**
 * MCP over streamable HTTP (`/mcp` on `cairn serve`, or `cairn mcp --port`):
 * one MCP session per `initialize`, bound to the caller that opened it — a
 * session id presented by anyone else is unknown (404). Host and Origin are
 * checked first, against DNS rebinding: a page on another site that resolves
 * its name to this loopback address sends its own Host and Origin, and is
 * refused (403) before anything is parsed.
 *
 * Sessions are shared fairly: each token and each tenant holds at most a few
 * (a new one past the cap closes that same owner's least recently used
 * session, never another's), all of them expire when idle, and past the
 * global cap a new session is refused (UNAVAILABLE, 503) rather than taken
 * from someone else.
 */
import { randomUUID } from 'node:crypto';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { type CairnError, forbidden, notFound, unavailable } from '../errors.js';
import type { Fabric } from '../fabric.js';

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
  /** Sessions open at once, all owners together; past it, a new one is refused (503). Default 1,000. */
  maxSessions?: number;
  /** Sessions one token holds; past it, its least recently used one is closed. Default 16. */
  maxSessionsPerToken?: number;
  /** Sessions one tenant holds (all its tokens); past it, the tenant's least recently used one is closed. Default 100. */
  maxSessionsPerTenant?: number;
  /** A session unused this long (ms) is closed. Default 30 minutes. */
  idleMs?: number;
  /** The clock idleness is measured by (ms); default Date.now. */
  now?: () => number;
}

/** Seconds a client refused for want of room is told to wait (Retry-After). */
const RETRY_AFTER_SECONDS = 30;

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
  tenant: string;
  lastUsed: number;
}

export class McpHttp {
  /** In order of last use: the first is the least recently used (a Map keeps insertion order). */
  private readonly sessions = new Map<string, Session>();
  /** Initializations under way, counted against the global cap before their session exists. */
  private opening = 0;
  private readonly now: () => number;
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly options: McpHttpOptions) {
    this.now = options.now ?? Date.now;
    // Idle sessions are closed without waiting for traffic, so their memory goes too.
    this.sweeper = setInterval(() => this.expire(), Math.min(60_000, this.idleMs())).unref();
  }

  /** Sessions open now: all, or one tenant's. */
  openSessions(tenant?: string): number {
    if (tenant === undefined) return this.sessions.size;
    return [...this.sessions.values()].filter((s) => s.tenant === tenant).length;
  }

  private idleMs(): number {
    return this.options.idleMs ?? 30 * 60_000;
  }

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
   * names the caller (its token) and `tenant` its tenant — both derived from
   * the token, never from the request — and `fabric` makes the fabric a new
   * session's tools act through.
   */
  async handle(request: Request, owner: string, fabric: () => Fabric, tenant = owner): Promise<Response> {
    this.expire();
    const id = request.headers.get('mcp-session-id');
    if (id !== null) {
      const session = this.sessions.get(id);
      if (!session || session.owner !== owner) {
        return refusal(404, notFound('no such MCP session: initialize a new one'));
      }
      this.touch(id, session);
      return session.transport.handleRequest(request);
    }
    if (this.sessions.size + this.opening >= (this.options.maxSessions ?? 1000)) {
      const response = refusal(
        503,
        unavailable(
          `the server holds as many MCP sessions as it takes: close sessions you no longer use, or retry in ${RETRY_AFTER_SECONDS} s`,
          { retryAfterSeconds: RETRY_AFTER_SECONDS },
        ),
      );
      response.headers.set('retry-after', String(RETRY_AFTER_SECONDS));
      return response;
    }
    this.opening++;
    try {
      // The MCP SDK and the tools load with the first session: a server no MCP client calls never loads them.
      const [{ WebStandardStreamableHTTPServerTransport: Transport }, { createMcpServer }] =
        await Promise.all([
          import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
          import('./server.js'),
        ]);
      const transport: WebStandardStreamableHTTPServerTransport = new Transport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => {
          this.sessions.set(sessionId, { transport, owner, tenant, lastUsed: this.now() });
          this.makeRoom(owner, tenant);
        },
        onsessionclosed: (sessionId) => {
          this.sessions.delete(sessionId);
        },
      });
      const server = createMcpServer(fabric(), { version: this.options.version, local: this.options.local });
      await server.connect(transport);
      return await transport.handleRequest(request);
    } finally {
      this.opening--;
    }
  }

  /** Marks a session used now: it moves to the end of the order. */
  private touch(id: string, session: Session): void {
    session.lastUsed = this.now();
    this.sessions.delete(id);
    this.sessions.set(id, session);
  }

  /** Past a cap of this token or this tenant, closes that same owner's least recently used sessions. */
  private makeRoom(owner: string, tenant: string): void {
    const caps: Array<[(s: Session) => boolean, number]> = [
      [(s) => s.owner === owner, this.options.maxSessionsPerToken ?? 16],
      [(s) => s.tenant === tenant, this.options.maxSessionsPerTenant ?? 100],
    ];
    for (const [mine, cap] of caps) {
      const held = [...this.sessions].filter(([, s]) => mine(s));
      for (const [id] of held.slice(0, Math.max(0, held.length - cap))) this.closeSession(id);
    }
  }

  /** Closes every session unused for longer than the idle time. */
  expire(): void {
    const before = this.now() - this.idleMs();
    for (const [id, session] of this.sessions) {
      // In order of last use: the first one recent enough ends the sweep.
      if (session.lastUsed > before) break;
      this.closeSession(id);
    }
  }

  private closeSession(id: string): void {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    void session.transport.close();
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const open = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(open.map((s) => s.transport.close()));
  }
}
