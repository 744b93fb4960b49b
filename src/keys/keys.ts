import { timingSafeEqual } from 'node:crypto';
import type { z } from 'zod';
import { appendAudit } from '../audit/audit-chain.js';
import { sha256Hex } from '../digest.js';
import { CairnError, invalidArgument as invalid, notFound } from '../errors.js';
import { authorize } from '../identity/access-gate.js';
import { newId, newSecret } from '../ids.js';
import type * as shape from '../ops/shapes.js';
import { BranchName, CredentialName } from '../schema.js';
import { type Engine, placeholders, RetryTransaction, type SqlExecutor } from '../storage/engine.js';
import type { Identity } from '../types.js';
import { parseInput } from '../validate.js';
import { type MasterKey, newDataKey, open, seal } from './crypto.js';
import {
  type Allow,
  type ApprovalPolicy,
  decide,
  type Grant,
  type GrantMode,
  type GrantRequest,
  type GrantState,
  grantState,
  narrowedGrant,
  type RefusalRule,
  type RequestShape,
} from './grants.js';
import type { RefusalRecord } from './proxy/flood.js';
import { credentialHeaders } from './proxy/headers.js';
import { judgePath, truncatePath } from './proxy/paths.js';
import type { BodyRef } from './proxy/spool.js';

/**
 * The keys layer (DESIGN §6): a vault of credentials sealed under the
 * operator's master key, grants bound to one branch each, branch handles,
 * and approvals of single requests. Every change and every use is an audit
 * entry in the same transaction, attributed user → agent → branch.
 *
 * A credential's values are opened only to inject them into one outgoing
 * request (`authorizeRequest`) or one child process (`envForChild`); they
 * never enter an event, an audit payload, an error or a return value meant
 * for display.
 */
export type CredentialKind = 'bearer' | 'basic' | 'header' | 'env';

/** A credential as listed (never its values; its one declaration: ops/shapes.ts). */
export type Credential = z.output<typeof shape.Credential>;

/** What the proxy needs to know of a credential before it reads a body. */
export interface ProxyOptionsOfCredential {
  allowHeaders: string[];
  maxBodyBytes: number | null;
}

/** A request held for a person's decision (its one declaration: ops/shapes.ts). */
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

const PREVIEW_HEAD_BYTES = 8 * 1024;

function bodyRefOf(body: Buffer | BodyRef): BodyRef {
  return Buffer.isBuffer(body)
    ? { bytes: body.length, digest: sha256Hex(body), head: body.subarray(0, PREVIEW_HEAD_BYTES) }
    : body;
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

export interface KeysOptions {
  engine: Engine;
  who: Identity;
  /** Needed to add, rotate and use credentials; listing, granting and approving work without it. */
  masterKey?: MasterKey;
  now?: () => number;
}

export const DEFAULT_APPROVAL_TIMEOUT_MS = 5 * 60 * 1000;
const HANDLE_PATTERN = /^cbh\.(tn_[0-9a-z]{26})\.(hd_[0-9a-z]{26})\.([0-9a-z]{52})$/;
const PREVIEW_BYTES = 2048;

interface CredentialRow {
  id: string;
  name: string;
  kind: CredentialKind;
  header: string;
  upstream: string;
  sandbox_upstream: string;
  master_key_id: string;
  wrapped_key: Buffer | null;
  live_sealed: Buffer | null;
  sandbox_sealed: Buffer | null;
  version: number;
  created_by: string;
  created_at: number;
  rotated_at: number;
  proxy_options: string;
}

interface GrantRow {
  id: string;
  parent: string;
  session: string;
  branch: string;
  credential: string;
  mode: GrantMode;
  approval: ApprovalPolicy;
  allow: string;
  expires_at: number | null;
  max_uses: number | null;
  uses: number;
  on_behalf_of: string;
  created_by: string;
  created_at: number;
  revoked_at: number | null;
  revoked_by: string;
  revoke_reason: string;
}

interface ApprovalRow {
  id: string;
  grant_id: string;
  session: string;
  branch: string;
  credential: string;
  method: string;
  url: string;
  body_digest: string;
  body_bytes: number;
  preview: string;
  state: Approval['state'];
  requested_by: string;
  requested_at: number;
  expires_at: number;
  decided_by: string;
  decided_at: number | null;
  used_at: number | null;
}

const GRANT_COLUMNS =
  'id, parent, session, branch, credential, mode, approval, allow, expires_at, max_uses, uses, on_behalf_of, created_by, created_at, revoked_at, revoked_by, revoke_reason';
const CREDENTIAL_COLUMNS =
  'id, name, kind, header, upstream, sandbox_upstream, master_key_id, wrapped_key, live_sealed, sandbox_sealed, version, created_by, created_at, rotated_at, proxy_options';
/** The largest body limit a credential may set. */
const MAX_BODY_LIMIT = 1024 * 1024 * 1024;
const APPROVAL_COLUMNS =
  'id, grant_id, session, branch, credential, method, url, body_digest, body_bytes, preview, state, requested_by, requested_at, expires_at, decided_by, decided_at, used_at';

const num = (v: unknown): number => Number(v);
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function toGrant(r: GrantRow): Grant {
  return {
    id: r.id,
    parent: r.parent,
    session: r.session,
    branch: r.branch,
    credential: r.credential,
    mode: r.mode,
    approval: r.approval,
    allow: JSON.parse(r.allow) as Allow,
    expiresAt: numOrNull(r.expires_at),
    maxUses: numOrNull(r.max_uses),
    uses: num(r.uses),
    onBehalfOf: r.on_behalf_of,
    createdBy: r.created_by,
    createdAt: num(r.created_at),
    revokedAt: numOrNull(r.revoked_at),
    revokedBy: r.revoked_by,
    revokeReason: r.revoke_reason,
  };
}

function proxyOptionsOf(r: CredentialRow): ProxyOptionsOfCredential {
  const parsed = JSON.parse(r.proxy_options || '{}') as Partial<ProxyOptionsOfCredential>;
  return { allowHeaders: parsed.allowHeaders ?? [], maxBodyBytes: parsed.maxBodyBytes ?? null };
}

function toCredential(r: CredentialRow): Credential {
  return {
    ...proxyOptionsOf(r),
    id: r.id,
    name: r.name,
    kind: r.kind,
    header: r.header,
    upstream: r.upstream,
    sandboxUpstream: r.sandbox_upstream,
    version: num(r.version),
    masterKeyId: r.master_key_id,
    createdBy: r.created_by,
    createdAt: num(r.created_at),
    rotatedAt: num(r.rotated_at),
  };
}

function toApproval(r: ApprovalRow): Approval {
  return {
    id: r.id,
    grant: r.grant_id,
    session: r.session,
    branch: r.branch,
    credential: r.credential,
    method: r.method,
    url: r.url,
    bodyDigest: r.body_digest,
    bodyBytes: num(r.body_bytes),
    preview: r.preview,
    state: r.state,
    requestedBy: r.requested_by,
    requestedAt: num(r.requested_at),
    expiresAt: num(r.expires_at),
    decidedBy: r.decided_by,
    decidedAt: numOrNull(r.decided_at),
    usedAt: numOrNull(r.used_at),
  };
}

/** An upstream base URL: http(s), no credentials, no query or fragment. */
function parseUpstream(text: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid(`${what} "${text}" is not a URL: give e.g. https://api.example.com/v1`, { [what]: text });
  }
  if (
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.username ||
    url.password ||
    url.search ||
    url.hash
  )
    throw invalid(`${what} must be an http(s) base URL without credentials, query or fragment`, {
      [what]: url.origin,
    });
  return url;
}

/** Associated data binding a sealed value to its tenant, credential, version and field. */
function aad(tenant: string, credential: string, version: number, field: 'key' | 'live' | 'sandbox'): string {
  return `cairn.vault.v1|${tenant}|${credential}|${version}|${field}`;
}

const SECRET_FIELD = /pass|secret|token|key|auth|card|cvv|iban|ssn|cookie|session/i;

/**
 * A body preview a person can read without seeing secrets: JSON values under
 * secret-looking keys are replaced, and so is every vault value the caller
 * names; the text is cut at PREVIEW_BYTES.
 */
export function redactPreview(body: Buffer, secrets: readonly string[]): string {
  let text = body.subarray(0, PREVIEW_BYTES * 4).toString('utf8');
  try {
    const redact = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.map(redact);
      if (v && typeof v === 'object')
        return Object.fromEntries(
          Object.entries(v).map(([k, x]) => [k, SECRET_FIELD.test(k) ? '[redacted]' : redact(x)]),
        );
      return v;
    };
    text = JSON.stringify(redact(JSON.parse(text)));
  } catch {
    // Not JSON: only the vault values are replaced.
  }
  for (const s of secrets) if (s.length >= 4) text = text.split(s).join('[redacted]');
  return text.length > PREVIEW_BYTES ? `${text.slice(0, PREVIEW_BYTES)}…` : text;
}

export class Keys {
  private readonly engine: Engine;
  readonly who: Identity;
  private readonly masterKey?: MasterKey;
  private readonly now: () => number;
  /** Opened values by credential id and version: opening is per rotation, not per request. */
  private readonly opened = new Map<string, { version: number; live: string; sandbox: string }>();

  constructor(options: KeysOptions) {
    this.engine = options.engine;
    this.who = options.who;
    this.masterKey = options.masterKey;
    this.now = options.now ?? Date.now;
  }

  private get tenant(): string {
    return this.who.tenant;
  }

  private requireMasterKey(): MasterKey {
    if (!this.masterKey) {
      throw new CairnError(
        'UNAVAILABLE',
        'the vault is locked: no master key was given. Pass --master-key-file FILE or set CAIRN_MASTER_KEY (64 hex digits; `cairn cred keygen` makes one)',
        {},
      );
    }
    return this.masterKey;
  }

  private audit(
    tx: SqlExecutor,
    action: string,
    resourceType: string,
    resourceId: string,
    payload: Record<string, unknown>,
    actor = this.who.principal,
  ): Promise<number> {
    return appendAudit(tx, {
      tenant: this.tenant,
      actor,
      action,
      resourceType,
      resourceId,
      payload,
      at: this.now(),
    });
  }

  // ---- credentials ----------------------------------------------------------------------------

  private async credentialRow(tx: SqlExecutor, name: string): Promise<CredentialRow | undefined> {
    return tx.get<CredentialRow>(
      `SELECT ${CREDENTIAL_COLUMNS} FROM key_credentials WHERE tenant = ? AND name = ? AND deleted_at IS NULL`,
      [this.tenant, name],
    );
  }

  private sealValues(id: string, version: number, live: Buffer, sandbox: Buffer | null) {
    const master = this.requireMasterKey();
    const dataKey = newDataKey();
    try {
      return {
        masterKeyId: master.id,
        wrapped: master.wrap(dataKey, aad(this.tenant, id, version, 'key')),
        live: seal(dataKey, live, aad(this.tenant, id, version, 'live')),
        sandbox: sandbox ? seal(dataKey, sandbox, aad(this.tenant, id, version, 'sandbox')) : null,
      };
    } finally {
      dataKey.fill(0);
    }
  }

  /**
   * Adds a credential. The values come as bytes the caller read from stdin
   * or a file, never from a command line; they are sealed before the
   * transaction and only the sealed forms are stored.
   */
  async addCredential(input: {
    name: string;
    kind: CredentialKind;
    upstream: string;
    header?: string;
    value: Buffer;
    sandbox?: { upstream: string; value: Buffer };
    /** Extra headers the proxy lets through both ways (never routing overrides or credentials). */
    allowHeaders?: string[];
    /** The largest request body the proxy takes for this credential (default: the proxy's). */
    maxBodyBytes?: number;
  }): Promise<Credential> {
    authorize(this.who, 'keys.credential');
    const name = parseInput(CredentialName, input.name, 'credential add');
    if (!['bearer', 'basic', 'header', 'env'].includes(input.kind))
      throw invalid(`kind must be bearer, basic, header or env, not ${String(input.kind)}`);
    const header = this.headerFor(input.kind, name, input.header);
    const upstream = input.kind === 'env' ? '' : parseUpstream(input.upstream, 'upstream').href;
    const sandboxUpstream = input.sandbox
      ? input.kind === 'env'
        ? ''
        : parseUpstream(input.sandbox.upstream, 'sandbox upstream').href
      : '';
    this.checkValue(input.kind, input.value);
    if (input.sandbox) this.checkValue(input.kind, input.sandbox.value);
    const allowHeaders = credentialHeaders(input.allowHeaders ?? [], header);
    if (
      input.maxBodyBytes !== undefined &&
      (!Number.isSafeInteger(input.maxBodyBytes) ||
        input.maxBodyBytes < 0 ||
        input.maxBodyBytes > MAX_BODY_LIMIT)
    )
      throw invalid(`a body limit is a whole number of bytes from 0 to ${MAX_BODY_LIMIT}`, {
        maxBodyBytes: input.maxBodyBytes,
      });
    const options: ProxyOptionsOfCredential = { allowHeaders, maxBodyBytes: input.maxBodyBytes ?? null };
    const id = newId('credential', this.now());
    const sealed = this.sealValues(id, 1, input.value, input.sandbox?.value ?? null);
    const at = this.now();
    return this.engine.write(this.tenant, async (tx) => {
      if (await this.credentialRow(tx, name))
        throw new CairnError(
          'CONFLICT',
          `credential ${name} exists: rotate it with \`cairn cred rotate ${name}\``,
          {
            credential: name,
          },
        );
      await tx.run(
        `INSERT INTO key_credentials (tenant, ${CREDENTIAL_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?)`,
        [
          this.tenant,
          id,
          name,
          input.kind,
          header,
          upstream,
          sandboxUpstream,
          sealed.masterKeyId,
          sealed.wrapped,
          sealed.live,
          sealed.sandbox,
          this.who.principal,
          at,
          at,
          JSON.stringify(options),
        ],
      );
      await this.audit(tx, 'keys.credential.add', 'credential', id, {
        name,
        kind: input.kind,
        upstream,
        sandboxUpstream,
        masterKeyId: sealed.masterKeyId,
        ...options,
      });
      return {
        id,
        name,
        kind: input.kind,
        header,
        upstream,
        sandboxUpstream,
        version: 1,
        masterKeyId: sealed.masterKeyId,
        createdBy: this.who.principal,
        createdAt: at,
        rotatedAt: at,
        ...options,
      };
    });
  }

  private headerFor(kind: CredentialKind, name: string, header?: string): string {
    if (kind === 'header') {
      if (!header || !/^[A-Za-z0-9-]+$/.test(header))
        throw invalid('a header credential needs --header NAME (letters, digits, -)', { header });
      return header.toLowerCase();
    }
    if (kind === 'env') {
      const variable = header ?? name.toUpperCase().replace(/[^A-Z0-9_]/g, '_');
      if (!/^[A-Z_][A-Z0-9_]*$/.test(variable) || variable.startsWith('CAIRN_'))
        throw invalid(
          `environment variable name ${variable} must be [A-Z_][A-Z0-9_]* and not start with CAIRN_`,
          {
            variable,
          },
        );
      return variable;
    }
    return 'authorization';
  }

  private checkValue(kind: CredentialKind, value: Buffer): void {
    const text = value.toString('utf8');
    if (value.length === 0 || text.trim() === '')
      throw invalid(
        'the credential value is empty: pipe it on stdin, e.g. `cairn cred add NAME … < secret.txt`',
      );
    if (/[\r\n\0]/.test(text)) throw invalid('the credential value holds a line break or NUL: give one line');
    // It goes into an HTTP header: printable ASCII only (an env value may hold any other text).
    if (kind !== 'env' && !/^[\x20-\x7e]+$/.test(text))
      throw invalid(
        'the credential value holds a character an HTTP header cannot carry: give printable ASCII',
      );
    if (kind === 'basic' && !text.includes(':')) throw invalid('a basic credential is user:password');
  }

  /** Replaces a credential's values (live, sandbox or both) under a fresh data key. Grants stay. */
  async rotateCredential(name: string, input: { value?: Buffer; sandbox?: Buffer }): Promise<Credential> {
    authorize(this.who, 'keys.credential');
    if (!input.value && !input.sandbox)
      throw invalid('rotate needs a new live value, a new sandbox value, or both');
    return this.engine.write(this.tenant, async (tx) => {
      const row = await this.credentialRow(tx, name);
      if (!row) throw notFound('credential', name);
      if (input.value) this.checkValue(row.kind, input.value);
      if (input.sandbox) {
        this.checkValue(row.kind, input.sandbox);
        if (row.sandbox_upstream === '' && row.kind !== 'env')
          throw invalid(`credential ${name} has no sandbox variant to rotate`);
      }
      const current = this.openRow(row);
      const version = num(row.version) + 1;
      const sealed = this.sealValues(
        row.id,
        version,
        input.value ?? Buffer.from(current.live),
        input.sandbox ?? (current.sandbox === '' ? null : Buffer.from(current.sandbox)),
      );
      const at = this.now();
      await tx.run(
        'UPDATE key_credentials SET master_key_id = ?, wrapped_key = ?, live_sealed = ?, sandbox_sealed = ?, version = ?, rotated_at = ? WHERE tenant = ? AND id = ?',
        [sealed.masterKeyId, sealed.wrapped, sealed.live, sealed.sandbox, version, at, this.tenant, row.id],
      );
      await this.audit(tx, 'keys.credential.rotate', 'credential', row.id, {
        name,
        version,
        rotated: [...(input.value ? ['live'] : []), ...(input.sandbox ? ['sandbox'] : [])],
      });
      this.opened.delete(row.id);
      return toCredential({ ...row, version, rotated_at: at, master_key_id: sealed.masterKeyId });
    });
  }

  /** Deletes a credential: its sealed values are erased and every grant on it is revoked. */
  async deleteCredential(name: string): Promise<{ credential: string; revokedGrants: string[] }> {
    authorize(this.who, 'keys.credential');
    return this.engine.write(this.tenant, async (tx) => {
      const row = await this.credentialRow(tx, name);
      if (!row) throw notFound('credential', name);
      const at = this.now();
      await tx.run(
        'UPDATE key_credentials SET wrapped_key = NULL, live_sealed = NULL, sandbox_sealed = NULL, deleted_at = ? WHERE tenant = ? AND id = ?',
        [at, this.tenant, row.id],
      );
      const grants = await tx.all<{ id: string }>(
        'SELECT id FROM key_grants WHERE tenant = ? AND credential = ? AND revoked_at IS NULL',
        [this.tenant, name],
      );
      const revoked = grants.map((g) => g.id);
      await tx.run(
        'UPDATE key_grants SET revoked_at = ?, revoked_by = ?, revoke_reason = ? WHERE tenant = ? AND credential = ? AND revoked_at IS NULL',
        [at, this.who.principal, 'credential deleted', this.tenant, name],
      );
      await this.audit(tx, 'keys.credential.delete', 'credential', row.id, { name, revokedGrants: revoked });
      this.opened.delete(row.id);
      return { credential: name, revokedGrants: revoked };
    });
  }

  async listCredentials(): Promise<Credential[]> {
    authorize(this.who, 'keys.read');
    const rows = await this.engine.read(this.tenant, (tx) =>
      tx.all<CredentialRow>(
        `SELECT ${CREDENTIAL_COLUMNS} FROM key_credentials WHERE tenant = ? AND deleted_at IS NULL ORDER BY name`,
        [this.tenant],
      ),
    );
    return rows.map(toCredential);
  }

  /** Opens a credential's values with the master key (cached per version). */
  private openRow(row: CredentialRow): { live: string; sandbox: string } {
    const cached = this.opened.get(row.id);
    const version = num(row.version);
    if (cached && cached.version === version) return cached;
    const master = this.requireMasterKey();
    if (row.master_key_id !== master.id) {
      throw new CairnError(
        'UNAVAILABLE',
        `credential ${row.name} is sealed under master key ${row.master_key_id}, but the key given is ${master.id}: give the key the vault was made with`,
        { credential: row.name, sealedUnder: row.master_key_id, given: master.id },
      );
    }
    if (!row.wrapped_key || !row.live_sealed)
      throw new CairnError(
        'CORRUPT',
        `credential ${row.name} has no sealed value: the vault row is damaged`,
        {},
      );
    const dataKey = master.unwrap(row.wrapped_key, aad(this.tenant, row.id, version, 'key'));
    try {
      const live = open(dataKey, row.live_sealed, aad(this.tenant, row.id, version, 'live')).toString('utf8');
      const sandbox = row.sandbox_sealed
        ? open(dataKey, row.sandbox_sealed, aad(this.tenant, row.id, version, 'sandbox')).toString('utf8')
        : '';
      const values = { version, live, sandbox };
      this.opened.set(row.id, values);
      return values;
    } finally {
      dataKey.fill(0);
    }
  }

  // ---- grants ---------------------------------------------------------------------------------

  /**
   * The branch must exist; and a member acts on the keys of branches it
   * owns only: it may narrow a grant of its branch into another of its
   * branches, take a handle for, or revoke a grant of, a branch it owns. An
   * admin (the person) acts on any.
   */
  private async requireBranch(tx: SqlExecutor, session: string, branch: string, what: string): Promise<void> {
    const row = await tx.get<{ owner: string }>(
      'SELECT owner FROM branches WHERE tenant = ? AND session = ? AND name = ?',
      [this.tenant, session, branch],
    );
    if (!row) throw notFound('branch', `${session}/${branch}`);
    if (this.who.role !== 'admin' && row.owner !== this.who.principal)
      throw new CairnError(
        'FORBIDDEN',
        `principal ${this.who.principal} does not own branch ${branch}: only its owner or an admin may ${what}`,
        { branch, principal: this.who.principal },
      );
  }

  /** A branch's grants on one credential, oldest first. */
  private async branchGrants(
    tx: SqlExecutor,
    session: string,
    branch: string,
    credential: string,
  ): Promise<Grant[]> {
    const rows = await tx.all<GrantRow>(
      `SELECT ${GRANT_COLUMNS} FROM key_grants WHERE tenant = ? AND session = ? AND branch = ? AND credential = ? ORDER BY id`,
      [this.tenant, session, branch, credential],
    );
    return rows.map(toGrant);
  }

  private async grantRow(tx: SqlExecutor, id: string): Promise<Grant | undefined> {
    const row = await tx.get<GrantRow>(
      `SELECT ${GRANT_COLUMNS} FROM key_grants WHERE tenant = ? AND id = ?`,
      [this.tenant, id],
    );
    return row ? toGrant(row) : undefined;
  }

  /** The grant and its ancestors, leaf first. */
  private async chain(tx: SqlExecutor, grant: Grant): Promise<Grant[]> {
    const chain = [grant];
    let at = grant;
    while (at.parent !== '') {
      const parent = await this.grantRow(tx, at.parent);
      if (!parent) throw new CairnError('CORRUPT', `grant ${at.id} names a missing parent ${at.parent}`, {});
      chain.push(parent);
      at = parent;
    }
    return chain;
  }

  /**
   * Everything a grant must satisfy besides its target branch existing: the
   * credential exists and can serve the mode; the parent (if any) is on the
   * same credential and session, is active with all its ancestors, belongs
   * to a branch the caller may narrow from, and the grant only narrows it.
   * Returns the grant's shape; writes nothing.
   */
  private async planGrant(
    tx: SqlExecutor,
    input: { session: string; credential: string; parent?: string } & GrantRequest,
    at: number,
  ): Promise<{ cred: CredentialRow; parent: Grant | null; shape: ReturnType<typeof narrowedGrant> }> {
    const cred = await this.credentialRow(tx, input.credential);
    if (!cred) throw notFound('credential', input.credential);
    let parent: Grant | null = null;
    if (input.parent) {
      parent = (await this.grantRow(tx, input.parent)) ?? null;
      if (!parent) throw notFound('grant', input.parent);
      await this.requireBranch(tx, parent.session, parent.branch, 'narrow its grants');
      if (parent.credential !== input.credential)
        throw invalid(`grant ${parent.id} is for credential ${parent.credential}, not ${input.credential}`);
      if (parent.session !== input.session)
        throw invalid(`grant ${parent.id} belongs to another session`, { parent: parent.id });
      const ended = (await this.chain(tx, parent)).find((g) => grantState(g, at) !== 'active');
      if (ended)
        throw new CairnError(
          'FORBIDDEN',
          `grant ${ended.id} is ${grantState(ended, at)}: it cannot be narrowed`,
          {
            grant: ended.id,
          },
        );
    }
    if (input.mode === 'sandbox' && cred.sandbox_sealed === null)
      throw invalid(`credential ${cred.name} has no sandbox variant: add one before a sandbox grant`);
    if (cred.kind === 'env' && input.approval === 'each-write')
      throw invalid(
        `credential ${cred.name} goes into a process's environment, where no single write can be held for approval: grant it without each-write, or use an HTTP credential through the proxy`,
      );
    const hosts = [cred.upstream, cred.sandbox_upstream].filter((u) => u !== '').map((u) => new URL(u).host);
    return {
      cred,
      parent,
      shape: narrowedGrant(parent, input, hosts.length > 0 ? hosts : ['localhost'], at),
    };
  }

  /**
   * Checks a grant that a branch still to be made would get (a fork checks
   * every grant before it makes anything): throws as `grant` would; writes nothing.
   */
  async checkGrant(
    input: { session: string; credential: string; parent?: string } & GrantRequest,
  ): Promise<void> {
    authorize(this.who, input.parent ? 'keys.grant.narrow' : 'keys.grant.root');
    await this.engine.read(this.tenant, (tx) => this.planGrant(tx, input, this.now()));
  }

  /**
   * Issues a grant to a branch. With `parent`, it narrows that grant (which
   * must be active, on the same credential, and belong to the same session);
   * without, it is a root grant, for an admin: the person the branch acts for.
   */
  async grant(
    input: {
      session: string;
      branch: string;
      credential: string;
      parent?: string;
    } & GrantRequest,
  ): Promise<Grant> {
    authorize(this.who, input.parent ? 'keys.grant.narrow' : 'keys.grant.root');
    parseInput(BranchName, input.branch, 'grant');
    return this.engine.write(this.tenant, async (tx) => {
      const at = this.now();
      await this.requireBranch(tx, input.session, input.branch, 'be given a grant by a member');
      const { cred, parent, shape } = await this.planGrant(tx, input, at);
      const grant: Grant = {
        id: newId('grant', at),
        parent: parent?.id ?? '',
        session: input.session,
        branch: input.branch,
        credential: cred.name,
        ...shape,
        uses: 0,
        onBehalfOf: parent?.onBehalfOf ?? this.who.principal,
        createdBy: this.who.principal,
        createdAt: at,
        revokedAt: null,
        revokedBy: '',
        revokeReason: '',
      };
      await tx.run(`INSERT INTO key_grants (tenant, ${GRANT_COLUMNS}) VALUES (${placeholders(18)})`, [
        this.tenant,
        grant.id,
        grant.parent,
        grant.session,
        grant.branch,
        grant.credential,
        grant.mode,
        grant.approval,
        JSON.stringify(grant.allow),
        grant.expiresAt,
        grant.maxUses,
        0,
        grant.onBehalfOf,
        grant.createdBy,
        grant.createdAt,
        null,
        '',
        '',
      ]);
      await this.audit(tx, 'keys.grant.create', 'grant', grant.id, {
        ...this.attribution(grant),
        parent: grant.parent,
        mode: grant.mode,
        approval: grant.approval,
        allow: grant.allow,
        expiresAt: grant.expiresAt,
        maxUses: grant.maxUses,
      });
      return grant;
    });
  }

  private attribution(grant: Grant, agent = this.who.principal) {
    return {
      user: grant.onBehalfOf,
      agent,
      session: grant.session,
      branch: grant.branch,
      credential: grant.credential,
    };
  }

  /** Revokes a grant and every grant narrowed from it, at any depth, in one transaction. */
  async revoke(id: string, reason = ''): Promise<{ revoked: string[] }> {
    authorize(this.who, 'keys.grant.narrow');
    return this.engine.write(this.tenant, async (tx) => {
      const grant = await this.grantRow(tx, id);
      if (!grant) throw notFound('grant', id);
      await this.requireBranch(tx, grant.session, grant.branch, 'revoke its grants');
      const at = this.now();
      const revoked: string[] = [];
      const queue = [grant.id];
      while (queue.length > 0) {
        const next = queue.shift() as string;
        const changed = await tx.run(
          'UPDATE key_grants SET revoked_at = ?, revoked_by = ?, revoke_reason = ? WHERE tenant = ? AND id = ? AND revoked_at IS NULL',
          [at, this.who.principal, next === id ? reason : `parent ${id} revoked`, this.tenant, next],
        );
        if (changed > 0) revoked.push(next);
        const children = await tx.all<{ id: string }>(
          'SELECT id FROM key_grants WHERE tenant = ? AND parent = ?',
          [this.tenant, next],
        );
        queue.push(...children.map((c) => c.id));
      }
      await this.audit(tx, 'keys.grant.revoke', 'grant', id, { ...this.attribution(grant), reason, revoked });
      return { revoked };
    });
  }

  async getGrant(id: string): Promise<Grant> {
    authorize(this.who, 'keys.read');
    const grant = await this.engine.read(this.tenant, (tx) => this.grantRow(tx, id));
    if (!grant) throw notFound('grant', id);
    return grant;
  }

  async listGrants(
    filter: { session?: string; branch?: string } = {},
  ): Promise<(Grant & { state: GrantState })[]> {
    authorize(this.who, 'keys.read');
    const where = [
      'tenant = ?',
      ...(filter.session === undefined ? [] : ['session = ?']),
      ...(filter.branch === undefined ? [] : ['branch = ?']),
    ];
    const params = [this.tenant, ...[filter.session, filter.branch].filter((v) => v !== undefined)];
    const rows = await this.engine.read(this.tenant, (tx) =>
      tx.all<GrantRow>(
        `SELECT ${GRANT_COLUMNS} FROM key_grants WHERE ${where.join(' AND ')} ORDER BY id`,
        params,
      ),
    );
    const now = this.now();
    return rows.map(toGrant).map((g) => ({ ...g, state: grantState(g, now) }));
  }

  // ---- handles --------------------------------------------------------------------------------

  /**
   * A branch handle: what a branch's process presents to the proxy. It is
   * returned once; only its hash is stored. It gives exactly what the
   * branch's grants give, and nothing after they end or it is revoked.
   */
  async issueHandle(input: {
    session: string;
    branch: string;
    ttlMs?: number;
  }): Promise<{ handle: string } & Handle> {
    authorize(this.who, 'keys.handle');
    if (input.ttlMs !== undefined && (!Number.isSafeInteger(input.ttlMs) || input.ttlMs < 1))
      throw invalid('a handle ttl is a whole number of milliseconds ≥ 1');
    const at = this.now();
    const id = newId('handle', at);
    const secret = newSecret();
    const expiresAt = input.ttlMs === undefined ? null : at + input.ttlMs;
    await this.engine.write(this.tenant, async (tx) => {
      await this.requireBranch(tx, input.session, input.branch, 'take a handle for it');
      await tx.run(
        'INSERT INTO key_handles (tenant, id, session, branch, principal, secret_hash, created_at, expires_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL)',
        [this.tenant, id, input.session, input.branch, this.who.principal, sha256Hex(secret), at, expiresAt],
      );
      await this.audit(tx, 'keys.handle.issue', 'handle', id, {
        agent: this.who.principal,
        session: input.session,
        branch: input.branch,
        expiresAt,
      });
    });
    return {
      handle: `cbh.${this.tenant}.${id}.${secret}`,
      id,
      session: input.session,
      branch: input.branch,
      principal: this.who.principal,
      createdAt: at,
      expiresAt,
      revokedAt: null,
    };
  }

  async revokeHandle(id: string): Promise<void> {
    authorize(this.who, 'keys.handle');
    await this.engine.write(this.tenant, async (tx) => {
      const changed = await tx.run(
        `UPDATE key_handles SET revoked_at = ? WHERE tenant = ? AND id = ? AND revoked_at IS NULL${this.who.role === 'admin' ? '' : ' AND principal = ?'}`,
        [this.now(), this.tenant, id, ...(this.who.role === 'admin' ? [] : [this.who.principal])],
      );
      if (changed === 0) throw notFound('handle', id);
      await this.audit(tx, 'keys.handle.revoke', 'handle', id, {});
    });
  }

  /** The tenant a handle names (the proxy serves every tenant of its store). */
  static handleTenant(handle: string): string | undefined {
    return HANDLE_PATTERN.exec(handle)?.[1];
  }

  private async resolveHandle(tx: SqlExecutor, handle: string, at: number): Promise<Handle | string> {
    const match = HANDLE_PATTERN.exec(handle);
    if (!match || match[1] !== this.tenant) return 'the branch handle is missing or malformed';
    const row = await tx.get<{
      id: string;
      session: string;
      branch: string;
      principal: string;
      secret_hash: string;
      created_at: number;
      expires_at: number | null;
      revoked_at: number | null;
    }>(
      'SELECT id, session, branch, principal, secret_hash, created_at, expires_at, revoked_at FROM key_handles WHERE tenant = ? AND id = ?',
      [this.tenant, match[2] as string],
    );
    if (!row) return 'the branch handle is unknown';
    const expected = Buffer.from(row.secret_hash, 'hex');
    if (!timingSafeEqual(expected, Buffer.from(sha256Hex(match[3] as string), 'hex')))
      return 'the branch handle is unknown';
    if (row.revoked_at !== null) return `branch handle ${row.id} was revoked`;
    if (row.expires_at !== null && num(row.expires_at) <= at) return `branch handle ${row.id} expired`;
    return {
      id: row.id,
      session: row.session,
      branch: row.branch,
      principal: row.principal,
      createdAt: num(row.created_at),
      expiresAt: numOrNull(row.expires_at),
      revokedAt: null,
    };
  }

  // ---- the proxy's decision -------------------------------------------------------------------

  /**
   * Decides one proxied request, in one transaction: resolves the handle,
   * the credential and the branch's grants on it, applies the mode and
   * allow-list, counts the use and audits it — or audits the denial. A
   * write that needs approval is recorded as a pending approval and held;
   * with `approval` set, that approval is consumed if it matches exactly.
   */
  async authorizeRequest(
    request: ProxyRequest,
    options: {
      approvalTimeoutMs?: number;
      /**
       * false: a refusal for a missing, unknown, revoked or expired handle is
       * returned (rule `handle`) but not audited — the caller audits such
       * refusals in bounded form (the proxy's RefusalLimiter). Default true.
       */
      auditHandleRefusals?: boolean;
      /**
       * The request carries a body not read yet: a refusal is decided and
       * audited as usual, but where a grant would forward or hold it the
       * answer is `read_body` and nothing is written.
       */
      bodyUnread?: boolean;
      /**
       * Asked before a refusal of a valid handle is audited: false means the
       * caller counted it into a bounded summary instead (the proxy's
       * per-handle RefusalLimiter). Default: every refusal is audited.
       */
      auditDenial?: (rule: ProxyRefusalRule, message: string) => boolean;
    } = {},
  ): Promise<ProxyDecision> {
    const method = request.method.toUpperCase();
    const body = bodyRefOf(request.body);
    const bodyDigest = body.digest;
    const hasBody = request.hasBody ?? body.bytes > 0;
    const dropped = request.droppedHeaders?.length ? { droppedHeaders: request.droppedHeaders } : {};
    return this.engine.write(this.tenant, async (tx) => {
      const at = this.now();
      const handle = await this.resolveHandle(tx, request.handle, at);
      const deny = async (
        message: string,
        rule: ProxyRefusalRule,
        extra: Record<string, unknown>,
        status: 403 | 404 = 403,
      ): Promise<ProxyDecision> => {
        const refusal = {
          outcome: 'deny',
          status,
          code: status === 404 ? 'NOT_FOUND' : 'FORBIDDEN',
          message,
          rule,
        } as const;
        if (rule === 'handle' && options.auditHandleRefusals === false) return refusal;
        if (rule !== 'handle' && options.auditDenial && !options.auditDenial(rule, message)) return refusal;
        await this.audit(
          tx,
          'keys.deny',
          'credential',
          request.credential,
          {
            ...(typeof handle === 'string'
              ? { agent: '' }
              : { agent: handle.principal, session: handle.session, branch: handle.branch }),
            credential: request.credential,
            method,
            path: truncatePath(request.pathAndQuery.split('?')[0] ?? ''),
            ...(options.bodyUnread ? { bodyUnread: true } : { bodyDigest }),
            bodyBytes: body.bytes,
            reason: message,
            rule,
            ...dropped,
            ...extra,
          },
          typeof handle === 'string' ? this.who.principal : handle.principal,
        );
        return refusal;
      };
      if (typeof handle === 'string')
        return deny(
          `${handle}: pass the handle from \`cairn exec --branch\` as x-cairn-handle`,
          'handle',
          {},
        );
      const cred = await this.credentialRow(tx, request.credential);
      if (!cred)
        return deny(
          `credential ${request.credential} is unknown: see \`cairn cred ls\``,
          'credential_unknown',
          {},
          404,
        );
      if (cred.kind === 'env')
        return deny(
          `credential ${cred.name} is an environment credential: it is injected by \`cairn exec --env-cred\`, not proxied`,
          'credential_env',
          {},
        );
      const grants = await this.branchGrants(tx, handle.session, handle.branch, cred.name);
      if (grants.length === 0)
        return deny(
          `branch ${handle.branch} holds no grant on credential ${cred.name}: a fork never copies a grant`,
          'no_grant',
          {},
        );
      // Try each grant of the branch on this credential; the first that allows the request is used.
      let reason = '';
      let reasonRule: ProxyRefusalRule = 'no_grant';
      for (const grant of grants) {
        const upstream = new URL(grant.mode === 'sandbox' ? cred.sandbox_upstream : cred.upstream);
        const routed = this.targetUrl(upstream, request.pathAndQuery);
        if ('reason' in routed) return deny(routed.reason, routed.rule, { grant: grant.id });
        const { url: target, path, decodedPath } = routed;
        const chain = await this.chain(tx, grant);
        const shape: RequestShape = { method, host: target.host, path, decodedPath, hasBody };
        const decision = decide(chain, shape, at);
        if (!decision.allowed) {
          if (!reason) {
            reason = decision.reason;
            reasonRule = decision.rule;
          }
          continue;
        }
        if (options.bodyUnread) return { outcome: 'read_body' };
        const who = this.attribution(grant, handle.principal);
        const described = {
          ...who,
          grant: grant.id,
          mode: grant.mode,
          method,
          url: target.href,
          bodyDigest,
          ...(hasBody ? { bodyBytes: body.bytes } : {}),
          ...dropped,
        };
        let approvalId: string | undefined;
        if (decision.needsApproval) {
          if (request.approval === undefined) {
            const values = this.openRow(cred);
            const approval = await this.requestApproval(tx, grant, handle.principal, {
              method,
              url: target.href,
              body,
              secrets: [values.live, values.sandbox],
              timeoutMs: options.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS,
            });
            return { outcome: 'hold', approval, grant: grant.id };
          }
          const problem = await this.consumeApproval(
            tx,
            request.approval,
            grant.id,
            method,
            target.href,
            bodyDigest,
            at,
          );
          if (problem) return deny(problem, 'approval', { grant: grant.id, approval: request.approval });
          approvalId = request.approval;
        }
        await this.countUse(tx, chain);
        await this.audit(
          tx,
          'keys.use',
          'grant',
          grant.id,
          { ...described, ...(approvalId ? { approval: approvalId } : {}) },
          handle.principal,
        );
        return {
          outcome: 'forward',
          url: target.href,
          inject: this.inject(cred, grant.mode),
          grant: grant.id,
          ...(approvalId ? { approval: approvalId } : {}),
          options: proxyOptionsOf(cred),
          attribution: { ...who, grant: grant.id, mode: grant.mode },
        };
      }
      return deny(reason, reasonRule, { grants: grants.map((g) => g.id) });
    });
  }

  /**
   * What the proxy checks before it reads a body, in one read: the handle is
   * valid (else the reason, for a bounded audit by the caller), the
   * credential's proxy options (its body limit), and whether the body can
   * change the answer at all — false when the request is refused whatever
   * it carries (unknown credential, a path no grant allows, a grant that can
   * never write: `read`). Writes nothing; the refusal itself is decided and
   * audited by `authorizeRequest` with `bodyUnread`.
   */
  async proxyPreflight(
    handle: string,
    credential: string,
    request?: { method: string; pathAndQuery: string },
  ): Promise<
    { handle: 'ok'; options: ProxyOptionsOfCredential | null; bodyMatters: boolean } | { handle: string }
  > {
    return this.engine.read(this.tenant, async (tx) => {
      const at = this.now();
      const resolved = await this.resolveHandle(tx, handle, at);
      if (typeof resolved === 'string') return { handle: resolved };
      const cred = await this.credentialRow(tx, credential);
      if (!cred) return { handle: 'ok' as const, options: null, bodyMatters: false };
      const options = proxyOptionsOf(cred);
      if (!request) return { handle: 'ok' as const, options, bodyMatters: true };
      let bodyMatters = false;
      if (cred.kind !== 'env')
        for (const grant of await this.branchGrants(tx, resolved.session, resolved.branch, cred.name)) {
          const upstream = new URL(grant.mode === 'sandbox' ? cred.sandbox_upstream : cred.upstream);
          const routed = this.targetUrl(upstream, request.pathAndQuery);
          if ('reason' in routed) break;
          const shape: RequestShape = {
            method: request.method.toUpperCase(),
            host: routed.url.host,
            path: routed.path,
            decodedPath: routed.decodedPath,
            hasBody: true,
          };
          if (decide(await this.chain(tx, grant), shape, at).allowed) {
            bodyMatters = true;
            break;
          }
        }
      return { handle: 'ok' as const, options, bodyMatters };
    });
  }

  /** Audits refusals of requests without a valid handle, one or a window's count (the proxy's RefusalLimiter). */
  async recordHandleRefusal(record: RefusalRecord): Promise<void> {
    await this.engine.write(this.tenant, async (tx) => {
      await this.audit(tx, 'keys.deny', 'credential', record.credential.slice(0, 64), {
        agent: '',
        rule: 'handle',
        ...record,
        credential: record.credential.slice(0, 64),
      });
    });
  }

  /**
   * Audits what the proxy refused or cut after (or without) a decision: a
   * body over the limit (`keys.deny`), an upstream answer that echoed the
   * secret (`keys.leak`). Attributed to the handle's branch when it is valid.
   */
  async recordProxyEvent(
    action: 'keys.deny' | 'keys.leak',
    request: Pick<ProxyRequest, 'handle' | 'credential' | 'method' | 'pathAndQuery'>,
    details: Record<string, unknown>,
  ): Promise<void> {
    await this.engine.write(this.tenant, async (tx) => {
      const handle = await this.resolveHandle(tx, request.handle, this.now());
      const who =
        typeof handle === 'string'
          ? { agent: '' }
          : { agent: handle.principal, session: handle.session, branch: handle.branch };
      await this.audit(
        tx,
        action,
        'credential',
        request.credential,
        {
          ...who,
          credential: request.credential,
          method: request.method.toUpperCase(),
          path: truncatePath(request.pathAndQuery.split('?')[0] ?? ''),
          ...details,
        },
        typeof handle === 'string' ? this.who.principal : handle.principal,
      );
    });
  }

  /**
   * Counts one use on every grant of the chain, each only while it is still
   * active. Another transaction may have used up or revoked one since it was
   * read (PostgreSQL runs writers concurrently): then the whole decision is
   * taken again, and this time refused.
   */
  private async countUse(tx: SqlExecutor, chain: readonly Grant[]): Promise<void> {
    for (const g of chain) {
      const changed = await tx.run(
        'UPDATE key_grants SET uses = uses + 1 WHERE tenant = ? AND id = ? AND revoked_at IS NULL AND (max_uses IS NULL OR uses < max_uses)',
        [this.tenant, g.id],
      );
      if (changed !== 1) throw new RetryTransaction(`grant ${g.id} changed while a use was counted`);
    }
  }

  /**
   * The upstream URL for a path, refused when the path is ambiguous to an
   * upstream (`judgePath`) or would leave the upstream's base path.
   */
  private targetUrl(
    upstream: URL,
    pathAndQuery: string,
  ): { url: URL; path: string; decodedPath: string } | { reason: string; rule: ProxyRefusalRule } {
    const [rawPath = '/', query] = pathAndQuery.split(/\?(.*)/s, 2);
    const verdict = judgePath(rawPath);
    if (!verdict.ok) return { reason: verdict.reason, rule: 'path_not_plain' };
    const base = upstream.pathname.endsWith('/') ? upstream.pathname : `${upstream.pathname}/`;
    const url = new URL(upstream.href);
    url.pathname = base + rawPath.slice(1);
    url.search = query ? `?${query}` : '';
    if (url.origin !== upstream.origin || !url.pathname.startsWith(base))
      return {
        reason: `path ${truncatePath(rawPath)} leaves the credential's upstream`,
        rule: 'path_leaves_upstream',
      };
    return { url, path: `/${url.pathname.slice(base.length)}`, decodedPath: verdict.decoded };
  }

  private inject(cred: CredentialRow, mode: GrantMode): Record<string, string> {
    const values = this.openRow(cred);
    const secret = mode === 'sandbox' ? values.sandbox : values.live;
    switch (cred.kind) {
      case 'bearer':
        return { authorization: `Bearer ${secret}` };
      case 'basic':
        return { authorization: `Basic ${Buffer.from(secret).toString('base64')}` };
      default:
        return { [cred.header]: secret };
    }
  }

  // ---- approvals ------------------------------------------------------------------------------

  private async requestApproval(
    tx: SqlExecutor,
    grant: Grant,
    agent: string,
    input: {
      method: string;
      url: string;
      body: BodyRef;
      secrets: string[];
      timeoutMs: number;
    },
  ): Promise<Approval> {
    const at = this.now();
    const row: ApprovalRow = {
      id: newId('approval', at),
      grant_id: grant.id,
      session: grant.session,
      branch: grant.branch,
      credential: grant.credential,
      method: input.method,
      url: input.url,
      body_digest: input.body.digest,
      body_bytes: input.body.bytes,
      preview: redactPreview(input.body.head, input.secrets),
      state: 'pending',
      requested_by: agent,
      requested_at: at,
      expires_at: at + input.timeoutMs,
      decided_by: '',
      decided_at: null,
      used_at: null,
    };
    await tx.run(`INSERT INTO key_approvals (tenant, ${APPROVAL_COLUMNS}) VALUES (${placeholders(18)})`, [
      this.tenant,
      row.id,
      row.grant_id,
      row.session,
      row.branch,
      row.credential,
      row.method,
      row.url,
      row.body_digest,
      row.body_bytes,
      row.preview,
      row.state,
      row.requested_by,
      row.requested_at,
      row.expires_at,
      '',
      null,
      null,
    ]);
    await this.audit(
      tx,
      'keys.approval.request',
      'approval',
      row.id,
      {
        ...this.attribution(grant, agent),
        grant: grant.id,
        method: row.method,
        url: row.url,
        bodyDigest: row.body_digest,
      },
      agent,
    );
    return toApproval(row);
  }

  /** Marks an approved approval used for exactly this request; a reason string when it cannot be. */
  private async consumeApproval(
    tx: SqlExecutor,
    id: string,
    grant: string,
    method: string,
    url: string,
    bodyDigest: string,
    at: number,
  ): Promise<string | undefined> {
    const row = await tx.get<ApprovalRow>(
      `SELECT ${APPROVAL_COLUMNS} FROM key_approvals WHERE tenant = ? AND id = ?`,
      [this.tenant, id],
    );
    if (!row) return `approval ${id} is unknown`;
    if (row.state === 'used') return `approval ${id} was already used: an approval is good for one request`;
    if (row.state !== 'approved') return `approval ${id} is ${row.state}, not approved`;
    if (num(row.expires_at) <= at) return `approval ${id} expired`;
    if (row.grant_id !== grant || row.method !== method || row.url !== url || row.body_digest !== bodyDigest)
      return `approval ${id} was given for another request (method, URL and body must match exactly)`;
    const changed = await tx.run(
      "UPDATE key_approvals SET state = 'used', used_at = ? WHERE tenant = ? AND id = ? AND state = 'approved'",
      [at, this.tenant, id],
    );
    // Another request took it first: decide again, and this time see it used.
    if (changed !== 1) throw new RetryTransaction(`approval ${id} was used meanwhile`);
    return undefined;
  }

  async getApproval(id: string): Promise<Approval> {
    authorize(this.who, 'keys.read');
    const row = await this.engine.read(this.tenant, (tx) =>
      tx.get<ApprovalRow>(`SELECT ${APPROVAL_COLUMNS} FROM key_approvals WHERE tenant = ? AND id = ?`, [
        this.tenant,
        id,
      ]),
    );
    if (!row) throw notFound('approval', id);
    return toApproval(row);
  }

  /** Approvals, pending ones by default; a pending approval past its time is shown as expired. */
  async listApprovals(filter: { state?: Approval['state'] | 'all' } = {}): Promise<Approval[]> {
    authorize(this.who, 'keys.read');
    const state = filter.state ?? 'pending';
    const now = this.now();
    // A pending approval past its time counts as expired.
    const [where, params]: [string, (string | number)[]] =
      state === 'all'
        ? ['', []]
        : state === 'pending'
          ? [" AND state = 'pending' AND expires_at > ?", [now]]
          : state === 'expired'
            ? [" AND (state = 'expired' OR (state = 'pending' AND expires_at <= ?))", [now]]
            : [' AND state = ?', [state]];
    const rows = await this.engine.read(this.tenant, (tx) =>
      tx.all<ApprovalRow>(
        `SELECT ${APPROVAL_COLUMNS} FROM key_approvals WHERE tenant = ?${where} ORDER BY id`,
        [this.tenant, ...params],
      ),
    );
    return rows
      .map(toApproval)
      .map((a) => (a.state === 'pending' && a.expiresAt <= now ? { ...a, state: 'expired' as const } : a));
  }

  /**
   * A person's decision on a pending approval. Deciding twice, or after the
   * approval expired, is CONFLICT: an approval is single-use and never replayed.
   */
  async decide(id: string, verdict: 'approve' | 'deny', note = ''): Promise<Approval> {
    authorize(this.who, 'keys.approve');
    return this.engine.write(this.tenant, async (tx) => {
      const row = await tx.get<ApprovalRow>(
        `SELECT ${APPROVAL_COLUMNS} FROM key_approvals WHERE tenant = ? AND id = ? ${tx.lockRows}`,
        [this.tenant, id],
      );
      if (!row) throw notFound('approval', id);
      const at = this.now();
      const state = row.state === 'pending' && num(row.expires_at) <= at ? 'expired' : row.state;
      if (state !== 'pending')
        throw new CairnError(
          'CONFLICT',
          `approval ${id} is ${state}: only a pending approval can be decided, once`,
          {
            approval: id,
            state,
          },
        );
      const next = verdict === 'approve' ? 'approved' : 'denied';
      const changed = await tx.run(
        "UPDATE key_approvals SET state = ?, decided_by = ?, decided_at = ? WHERE tenant = ? AND id = ? AND state = 'pending'",
        [next, this.who.principal, at, this.tenant, id],
      );
      if (changed !== 1) throw new RetryTransaction(`approval ${id} was decided meanwhile`);
      const grant = await this.grantRow(tx, row.grant_id);
      await this.audit(tx, `keys.approval.${verdict}`, 'approval', id, {
        ...(grant ? this.attribution(grant, row.requested_by) : {}),
        approver: this.who.principal,
        method: row.method,
        url: row.url,
        bodyDigest: row.body_digest,
        note,
      });
      return toApproval({ ...row, state: next, decided_by: this.who.principal, decided_at: at });
    });
  }

  /** Marks a pending approval expired (the proxy stopped holding its request); a no-op once decided. */
  async expireApproval(id: string): Promise<void> {
    await this.engine.write(this.tenant, async (tx) => {
      const changed = await tx.run(
        "UPDATE key_approvals SET state = 'expired', decided_at = ? WHERE tenant = ? AND id = ? AND state = 'pending'",
        [this.now(), this.tenant, id],
      );
      if (changed > 0) await this.audit(tx, 'keys.approval.expire', 'approval', id, {});
    });
  }

  // ---- environment injection --------------------------------------------------------------------

  /**
   * The value of an `env` credential for one child process of a branch,
   * allowed only by an active grant of that branch on it; the use is audited.
   */
  async envForChild(input: {
    session: string;
    branch: string;
    credential: string;
  }): Promise<{ variable: string; value: string; grant: string }> {
    authorize(this.who, 'keys.handle');
    return this.engine.write(this.tenant, async (tx) => {
      const at = this.now();
      await this.requireBranch(tx, input.session, input.branch, 'inject its credentials');
      const cred = await this.credentialRow(tx, input.credential);
      if (!cred) throw notFound('credential', input.credential);
      if (cred.kind !== 'env')
        throw invalid(
          `credential ${cred.name} is a ${cred.kind} credential: it is used through the proxy, never put in an environment`,
        );
      const grants = await this.branchGrants(tx, input.session, input.branch, cred.name);
      for (const grant of grants) {
        const chain = await this.chain(tx, grant);
        // Read-only or approve-each-write cannot be enforced on a value handed to a process.
        if (grant.mode === 'read' || grant.approval === 'each-write') continue;
        if (chain.some((g) => grantState(g, at) !== 'active')) continue;
        await this.countUse(tx, chain);
        await this.audit(tx, 'keys.use', 'grant', grant.id, {
          ...this.attribution(grant),
          grant: grant.id,
          mode: grant.mode,
          injected: cred.header,
        });
        const values = this.openRow(cred);
        // Never the live value in place of a missing sandbox one (a sandbox grant needs one to exist).
        const value = grant.mode === 'sandbox' ? values.sandbox : values.live;
        if (value === '')
          throw new CairnError('CORRUPT', `credential ${cred.name} has no sandbox value to inject`, {});
        return { variable: cred.header, value, grant: grant.id };
      }
      throw new CairnError(
        'FORBIDDEN',
        `branch ${input.branch} holds no active sandbox or live grant without each-write on ${cred.name}: grant one before injecting it`,
        { credential: cred.name, branch: input.branch },
      );
    });
  }
}

export type { GrantState } from './grants.js';
