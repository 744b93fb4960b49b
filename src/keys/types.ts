import type { z } from 'zod';
import type { RefusalRule } from './grants.js';
import type { BodyRef } from './proxy/spool.js';
import type * as shape from './shapes.js';

/** The keys layer's public nouns, shared by its modules and re-exported by `keys.ts`. */
export type CredentialKind = 'bearer' | 'basic' | 'header' | 'env';

/** A credential as listed (never its values; its one declaration: ./shapes.ts). */
export type Credential = z.output<typeof shape.Credential>;

/** What the proxy needs to know of a credential before it reads a body. */
export interface ProxyOptionsOfCredential {
  allowHeaders: string[];
  maxBodyBytes: number | null;
}

/** A grant as listed, with its state (its one declaration: ./shapes.ts). */
export type GrantWithState = z.output<typeof shape.GrantWithState>;

/** What deleting a credential did: the grants it revoked. */
export type DeletedCredential = z.output<typeof shape.DeletedCredential>;

/** The grants a revocation ended (the grant and every grant narrowed from it). */
export type RevokedGrants = z.output<typeof shape.RevokedGrants>;

/** A request held for a person's decision (its one declaration: ./shapes.ts). */
export type Approval = z.output<typeof shape.Approval>;

export interface Handle {
  id: string;
  session: string;
  branch: string;
  principal: string;
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
}

/** A request as the proxy sees it, before any grant is applied. */
export interface ProxyRequest {
  handle: string;
  credential: string;
  method: string;
  /** Path under the credential's upstream, starting with `/`, plus any query. */
  pathAndQuery: string;
  /** The body, whole or spooled (its digest and size taken as it was read). */
  body: Buffer | BodyRef;
  /**
   * The request carries a body (Content-Length > 0 or chunked): a write
   * whatever its method. Defaults to a non-empty `body`.
   */
  hasBody?: boolean;
  /**
   * The approval this very request was held for, once a person approved it.
   * Set only by the proxy connection that holds the request; never taken
   * from the agent.
   */
  approval?: string;
  /** Names of request headers the proxy did not pass on (recorded in the audit entry). */
  droppedHeaders?: string[];
}

export type ProxyDecision =
  | {
      outcome: 'forward';
      /** Full upstream URL. */
      url: string;
      /** Headers to set on the outgoing request (the secret lives only here). */
      inject: Record<string, string>;
      grant: string;
      approval?: string;
      /** The credential's proxy options (extra headers, body limit). */
      options: ProxyOptionsOfCredential;
      /** For a later `keys.leak` entry: who made the request. */
      attribution: Record<string, string>;
    }
  | { outcome: 'hold'; approval: Approval; grant: string }
  /** Only with `bodyUnread`: the decision depends on the body, which the caller must read first. */
  | { outcome: 'read_body' }
  | {
      outcome: 'deny';
      status: 403 | 404;
      code: 'FORBIDDEN' | 'NOT_FOUND';
      message: string;
      /** A stable code for the reason, e.g. `body_is_write`, `path_not_plain`, `handle`. */
      rule: ProxyRefusalRule;
    };

export type ProxyRefusalRule =
  | RefusalRule
  | 'handle'
  | 'credential_unknown'
  | 'credential_env'
  | 'no_grant'
  | 'path_not_plain'
  | 'path_leaves_upstream'
  | 'approval';
