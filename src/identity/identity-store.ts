import { timingSafeEqual } from 'node:crypto';
import { appendAudit, startChain } from '../audit/audit-chain.js';
import { sha256Hex } from '../digest.js';
import { type CairnError, corrupt, notFound, unauthenticated } from '../errors.js';
import { newId, newSecret } from '../ids.js';
import { type Engine, NO_TENANT, type SqlExecutor } from '../storage/engine.js';
import type { CreatedToken, Identity, PrincipalKind, RevokedToken, Role } from '../types.js';

/**
 * Tenants, principals and tokens. A token reads `cairn.<tenant>.<token id>.<secret>`:
 * the tenant travels in the token so it can be looked up under that tenant's
 * row-level security; only the secret's sha256 is stored.
 */
const TOKEN_PATTERN = /^cairn\.(tn_[0-9a-z]{26})\.(tk_[0-9a-z]{26})\.([0-9a-z]{52})$/;

interface NewPrincipal {
  kind: PrincipalKind;
  name: string;
  role: Role;
}

export async function insertPrincipal(
  tx: SqlExecutor,
  tenant: string,
  p: NewPrincipal,
  actor: string,
  now: number,
  chain?: readonly string[],
) {
  const id = newId('principal', now);
  await tx.run(
    'INSERT INTO principals (tenant, id, kind, name, role, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    [tenant, id, p.kind, p.name, p.role, now],
  );
  await appendAudit(tx, {
    tenant,
    actor: actor || id,
    chain,
    action: 'principal.create',
    resourceType: 'principal',
    resourceId: id,
    payload: { kind: p.kind, name: p.name, role: p.role },
    at: now,
  });
  return id;
}

export async function insertToken(
  tx: SqlExecutor,
  tenant: string,
  principal: string,
  label: string,
  actor: string,
  now: number,
  /** The actor's chain, and the principal the token acts for through it (default the actor). */
  by: { chain?: readonly string[]; issuedBy?: string } = {},
): Promise<CreatedToken> {
  const exists = await tx.get('SELECT id FROM principals WHERE tenant = ? AND id = ?', [tenant, principal]);
  if (!exists) {
    throw notFound(`principal ${principal} not found in this tenant: check the id`, {
      id: principal,
    });
  }
  const id = newId('token', now);
  const secret = newSecret();
  await tx.run(
    'INSERT INTO tokens (tenant, id, principal, secret_hash, label, created_at, issued_by) VALUES (?, ?, ?, ?, ?, ?, ?)',
    [tenant, id, principal, sha256Hex(secret), label, now, by.issuedBy ?? actor],
  );
  await appendAudit(tx, {
    tenant,
    actor,
    chain: by.chain,
    action: 'token.create',
    resourceType: 'token',
    resourceId: id,
    payload: { principal, label },
    at: now,
  });
  return { id, token: `cairn.${tenant}.${id}.${secret}`, tenant, principal, label };
}

/** Revokes a token for good; revoking it again changes nothing. */
export async function revokeToken(
  tx: SqlExecutor,
  tenant: string,
  id: string,
  actor: string,
  mayRevoke: (principal: string) => void,
  now: number,
  chain?: readonly string[],
): Promise<RevokedToken> {
  const row = await tx.get<{ principal: string; revoked_at: number | null }>(
    `SELECT principal, revoked_at FROM tokens WHERE tenant = ? AND id = ? ${tx.lockRows}`,
    [tenant, id],
  );
  if (!row) throw notFound(`token ${id} not found in this tenant: check the id`, { id });
  mayRevoke(row.principal);
  if (row.revoked_at !== null) return { id, principal: row.principal, revokedAt: row.revoked_at };
  await tx.run('UPDATE tokens SET revoked_at = ? WHERE tenant = ? AND id = ?', [now, tenant, id]);
  await appendAudit(tx, {
    tenant,
    actor,
    chain,
    action: 'token.revoke',
    resourceType: 'token',
    resourceId: id,
    payload: { principal: row.principal },
    at: now,
  });
  return { id, principal: row.principal, revokedAt: now };
}

export interface CreatedTenant {
  tenant: string;
  principal: string;
  token: CreatedToken;
}

/**
 * Takes the tenant's row lock for the rest of the transaction (PostgreSQL
 * `FOR UPDATE`; SQLite's writers are serial already): the one way another
 * feature serialises its work per tenant.
 */
export async function lockTenant(tx: SqlExecutor, tenant: string): Promise<void> {
  await tx.get(`SELECT id FROM tenants WHERE id = ? ${tx.lockRows}`, [tenant]);
}

/** Every tenant's id, for the store's operator (only where no row-level security confines the query). */
export async function tenantIds(tx: SqlExecutor): Promise<string[]> {
  return (await tx.all<{ id: string }>('SELECT id FROM tenants ORDER BY id')).map((r) => r.id);
}

/** Creates a tenant with its audit chain and a first admin principal and token, in one transaction. */
export async function createTenant(
  engine: Engine,
  input: { name: string; admin?: NewPrincipal },
  extra?: (tx: SqlExecutor, created: CreatedTenant) => Promise<void>,
): Promise<CreatedTenant> {
  const now = Date.now();
  const tenant = newId('tenant', now);
  return engine.write(tenant, async (tx) => {
    await tx.run('INSERT INTO tenants (id, name, created_at) VALUES (?, ?, ?)', [tenant, input.name, now]);
    await startChain(tx, tenant);
    const admin = input.admin ?? { kind: 'user', name: 'admin', role: 'admin' };
    const principal = await insertPrincipal(tx, tenant, admin, '', now);
    const token = await insertToken(tx, tenant, principal, 'first admin token', principal, now);
    const created = { tenant, principal, token };
    if (extra) await extra(tx, created);
    return created;
  });
}

export async function loadIdentity(
  tx: SqlExecutor,
  tenant: string,
  principal: string,
  /** Who made the token it acts by ('' when unknown: tokens made before format 12). */
  issuedBy = '',
): Promise<Identity | undefined> {
  const row = await tx.get<{ kind: PrincipalKind; role: Role }>(
    'SELECT kind, role FROM principals WHERE tenant = ? AND id = ?',
    [tenant, principal],
  );
  if (!row) return undefined;
  const identity: Identity = { tenant, principal, kind: row.kind, role: row.role };
  // An agent (or service) acts for the person whose call made its token: from the store, never the request.
  if (row.kind !== 'user' && issuedBy !== '' && issuedBy !== principal) {
    const issuer = await tx.get<{ kind: PrincipalKind }>(
      'SELECT kind FROM principals WHERE tenant = ? AND id = ?',
      [tenant, issuedBy],
    );
    if (issuer?.kind === 'user') identity.onBehalfOf = issuedBy;
  }
  return identity;
}

function badToken(): CairnError {
  return unauthenticated(
    'the bearer token is missing, malformed, revoked or unknown: pass a token from `cairn token create` as "Authorization: Bearer <token>"',
  );
}

/** Resolves a bearer token to the identity it acts as. */
export async function authenticate(engine: Engine, token: string): Promise<Identity> {
  const match = TOKEN_PATTERN.exec(token);
  if (!match) throw badToken();
  const [, tenant, id, secret] = match as unknown as [string, string, string, string];
  const identity = await engine.read(tenant, async (tx) => {
    const row = await tx.get<{
      principal: string;
      secret_hash: string;
      revoked_at: number | null;
      issued_by: string;
    }>('SELECT principal, secret_hash, revoked_at, issued_by FROM tokens WHERE tenant = ? AND id = ?', [
      tenant,
      id,
    ]);
    if (!row || row.revoked_at !== null) return undefined;
    const expected = Buffer.from(row.secret_hash, 'hex');
    const actual = Buffer.from(sha256Hex(secret), 'hex');
    if (!timingSafeEqual(expected, actual)) return undefined;
    return loadIdentity(tx, tenant, row.principal, row.issued_by);
  });
  if (!identity) throw badToken();
  return identity;
}

const LOCAL_IDENTITY_KEY = 'local_identity';

/**
 * The embedded default: one local tenant and principal per store, created on
 * first use and remembered in the store's metadata (same transaction).
 */
export async function localIdentity(engine: Engine): Promise<Identity> {
  const recorded = () =>
    engine
      .read(NO_TENANT, (tx) =>
        tx.get<{ value: string }>('SELECT value FROM cairn_meta WHERE key = ?', [LOCAL_IDENTITY_KEY]),
      )
      .then((row) => (row ? (JSON.parse(row.value) as { tenant: string; principal: string }) : undefined));
  let ids = await recorded();
  if (!ids) {
    try {
      const created = await createTenant(
        engine,
        { name: 'local', admin: { kind: 'user', name: 'local', role: 'admin' } },
        (tx, c) =>
          tx
            .run('INSERT INTO cairn_meta (key, value) VALUES (?, ?)', [
              LOCAL_IDENTITY_KEY,
              JSON.stringify({ tenant: c.tenant, principal: c.principal }),
            ])
            .then(() => undefined),
      );
      ids = { tenant: created.tenant, principal: created.principal };
    } catch (error) {
      // Another process created the local identity first; its transaction won, ours left nothing.
      ids = await recorded();
      if (!ids) throw error;
    }
  }
  const identity = await engine.read(ids.tenant, (tx) => loadIdentity(tx, ids.tenant, ids.principal));
  if (!identity) throw corrupt('the store names a local principal that does not exist: the store is damaged');
  return identity;
}
