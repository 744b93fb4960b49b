import { conflict, corrupt, invalidArgument as invalid, notFound, unavailable } from '../errors.js';
import { authorize } from '../identity/access-gate.js';
import { newId } from '../ids.js';
import { CredentialName } from '../schema.js';
import type { SqlExecutor } from '../storage/engine.js';
import { parseInput } from '../validate.js';
import type { KeysContext } from './context.js';
import { type MasterKey, newDataKey, open, seal } from './crypto.js';
import { credentialHeaders } from './proxy/headers.js';
import { CREDENTIAL_COLUMNS, type CredentialRow, num, toCredential } from './rows.js';
import type { Credential, CredentialKind, ProxyOptionsOfCredential } from './types.js';

/** A credential to add: its values come as bytes read from stdin or a file, never from a command line. */
export interface NewCredential {
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
}

/** A credential's values, opened. */
export interface OpenedValues {
  live: string;
  sandbox: string;
}

/** The largest body limit a credential may set. */
const MAX_BODY_LIMIT = 1024 * 1024 * 1024;

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

function headerFor(kind: CredentialKind, name: string, header?: string): string {
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

function checkValue(kind: CredentialKind, value: Buffer): void {
  const text = value.toString('utf8');
  if (value.length === 0 || text.trim() === '')
    throw invalid(
      'the credential value is empty: pipe it on stdin, e.g. `cairn cred add NAME … < secret.txt`',
    );
  if (/[\r\n\0]/.test(text)) throw invalid('the credential value holds a line break or NUL: give one line');
  // It goes into an HTTP header: printable ASCII only (an env value may hold any other text).
  if (kind !== 'env' && !/^[\x20-\x7e]+$/.test(text))
    throw invalid('the credential value holds a character an HTTP header cannot carry: give printable ASCII');
  if (kind === 'basic' && !text.includes(':')) throw invalid('a basic credential is user:password');
}

/**
 * The vault: credentials sealed under the operator's master key (AES-256-GCM
 * envelope: a fresh data key per version, wrapped by the master key). Values
 * are opened only for one outgoing request or one child process, and cached
 * per credential version so opening is per rotation, not per request.
 */
export class Vault {
  private readonly context: KeysContext;
  private readonly masterKey?: MasterKey;
  /** Opened values by credential id and version: opening is per rotation, not per request. */
  private readonly opened = new Map<string, { version: number; live: string; sandbox: string }>();

  constructor(context: KeysContext, masterKey?: MasterKey) {
    this.context = context;
    this.masterKey = masterKey;
  }

  private requireMasterKey(): MasterKey {
    if (!this.masterKey) {
      throw unavailable(
        'the vault is locked: no master key was given. Pass --master-key-file FILE or set CAIRN_MASTER_KEY (64 hex digits; `cairn cred keygen` makes one)',
      );
    }
    return this.masterKey;
  }

  /** A credential by name, unless deleted. */
  async credentialRow(tx: SqlExecutor, name: string): Promise<CredentialRow | undefined> {
    return tx.get<CredentialRow>(
      `SELECT ${CREDENTIAL_COLUMNS} FROM key_credentials WHERE tenant = ? AND name = ? AND deleted_at IS NULL`,
      [this.context.tenant, name],
    );
  }

  private sealValues(id: string, version: number, live: Buffer, sandbox: Buffer | null) {
    const master = this.requireMasterKey();
    const tenant = this.context.tenant;
    const dataKey = newDataKey();
    try {
      return {
        masterKeyId: master.id,
        wrapped: master.wrap(dataKey, aad(tenant, id, version, 'key')),
        live: seal(dataKey, live, aad(tenant, id, version, 'live')),
        sandbox: sandbox ? seal(dataKey, sandbox, aad(tenant, id, version, 'sandbox')) : null,
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
  async addCredential(input: NewCredential): Promise<Credential> {
    const who = this.context.who;
    authorize(who, 'keys.credential');
    const name = parseInput(CredentialName, input.name, 'credential add');
    if (!['bearer', 'basic', 'header', 'env'].includes(input.kind))
      throw invalid(`kind must be bearer, basic, header or env, not ${String(input.kind)}`);
    const header = headerFor(input.kind, name, input.header);
    const upstream = input.kind === 'env' ? '' : parseUpstream(input.upstream, 'upstream').href;
    const sandboxUpstream = input.sandbox
      ? input.kind === 'env'
        ? ''
        : parseUpstream(input.sandbox.upstream, 'sandbox upstream').href
      : '';
    checkValue(input.kind, input.value);
    if (input.sandbox) checkValue(input.kind, input.sandbox.value);
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
    const id = newId('credential', this.context.now());
    const sealed = this.sealValues(id, 1, input.value, input.sandbox?.value ?? null);
    const at = this.context.now();
    return this.context.engine.write(this.context.tenant, async (tx) => {
      if (await this.credentialRow(tx, name))
        throw conflict(`credential ${name} exists: rotate it with \`cairn cred rotate ${name}\``, {
          credential: name,
        });
      await tx.run(
        `INSERT INTO key_credentials (tenant, ${CREDENTIAL_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?)`,
        [
          this.context.tenant,
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
          who.principal,
          at,
          at,
          JSON.stringify(options),
        ],
      );
      await this.context.audit(tx, 'keys.credential.add', 'credential', id, {
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
        createdBy: who.principal,
        createdAt: at,
        rotatedAt: at,
        ...options,
      };
    });
  }

  /** Replaces a credential's values (live, sandbox or both) under a fresh data key. Grants stay. */
  async rotateCredential(name: string, input: { value?: Buffer; sandbox?: Buffer }): Promise<Credential> {
    authorize(this.context.who, 'keys.credential');
    if (!input.value && !input.sandbox)
      throw invalid('rotate needs a new live value, a new sandbox value, or both');
    return this.context.engine.write(this.context.tenant, async (tx) => {
      const row = await this.credentialRow(tx, name);
      if (!row) throw notFound('credential', name);
      if (input.value) checkValue(row.kind, input.value);
      if (input.sandbox) {
        checkValue(row.kind, input.sandbox);
        // An env credential has no upstream at all: what it holds is the sealed sandbox value.
        if (row.sandbox_sealed === null) throw invalid(`credential ${name} has no sandbox variant to rotate`);
      }
      const current = this.openRow(row);
      const version = num(row.version) + 1;
      const sealed = this.sealValues(
        row.id,
        version,
        input.value ?? Buffer.from(current.live),
        input.sandbox ?? (current.sandbox === '' ? null : Buffer.from(current.sandbox)),
      );
      const at = this.context.now();
      await tx.run(
        'UPDATE key_credentials SET master_key_id = ?, wrapped_key = ?, live_sealed = ?, sandbox_sealed = ?, version = ?, rotated_at = ? WHERE tenant = ? AND id = ?',
        [
          sealed.masterKeyId,
          sealed.wrapped,
          sealed.live,
          sealed.sandbox,
          version,
          at,
          this.context.tenant,
          row.id,
        ],
      );
      await this.context.audit(tx, 'keys.credential.rotate', 'credential', row.id, {
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
    const { who, tenant } = this.context;
    authorize(who, 'keys.credential');
    return this.context.engine.write(tenant, async (tx) => {
      const row = await this.credentialRow(tx, name);
      if (!row) throw notFound('credential', name);
      const at = this.context.now();
      await tx.run(
        'UPDATE key_credentials SET wrapped_key = NULL, live_sealed = NULL, sandbox_sealed = NULL, deleted_at = ? WHERE tenant = ? AND id = ?',
        [at, tenant, row.id],
      );
      const grants = await tx.all<{ id: string }>(
        'SELECT id FROM key_grants WHERE tenant = ? AND credential = ? AND revoked_at IS NULL',
        [tenant, name],
      );
      const revoked = grants.map((g) => g.id);
      await tx.run(
        'UPDATE key_grants SET revoked_at = ?, revoked_by = ?, revoke_reason = ? WHERE tenant = ? AND credential = ? AND revoked_at IS NULL',
        [at, who.principal, 'credential deleted', tenant, name],
      );
      await this.context.audit(tx, 'keys.credential.delete', 'credential', row.id, {
        name,
        revokedGrants: revoked,
      });
      this.opened.delete(row.id);
      return { credential: name, revokedGrants: revoked };
    });
  }

  async listCredentials(): Promise<Credential[]> {
    authorize(this.context.who, 'keys.read');
    const rows = await this.context.engine.read(this.context.tenant, (tx) =>
      tx.all<CredentialRow>(
        `SELECT ${CREDENTIAL_COLUMNS} FROM key_credentials WHERE tenant = ? AND deleted_at IS NULL ORDER BY name`,
        [this.context.tenant],
      ),
    );
    return rows.map(toCredential);
  }

  /** Opens a credential's values with the master key (cached per version). */
  openRow(row: CredentialRow): OpenedValues {
    const cached = this.opened.get(row.id);
    const version = num(row.version);
    if (cached && cached.version === version) return cached;
    const master = this.requireMasterKey();
    if (row.master_key_id !== master.id) {
      throw unavailable(
        `credential ${row.name} is sealed under master key ${row.master_key_id}, but the key given is ${master.id}: give the key the vault was made with`,
        { credential: row.name, sealedUnder: row.master_key_id, given: master.id },
      );
    }
    if (!row.wrapped_key || !row.live_sealed)
      throw corrupt(`credential ${row.name} has no sealed value: the vault row is damaged`);
    const tenant = this.context.tenant;
    const dataKey = master.unwrap(row.wrapped_key, aad(tenant, row.id, version, 'key'));
    try {
      const live = open(dataKey, row.live_sealed, aad(tenant, row.id, version, 'live')).toString('utf8');
      const sandbox = row.sandbox_sealed
        ? open(dataKey, row.sandbox_sealed, aad(tenant, row.id, version, 'sandbox')).toString('utf8')
        : '';
      const values = { version, live, sandbox };
      this.opened.set(row.id, values);
      return values;
    } finally {
      dataKey.fill(0);
    }
  }
}
