/** Each tenant's audit signing key, as the store keeps it (`audit_keys`; docs/design/audit.md). */
import { conflict, corrupt, notFound, unavailable } from '../errors.js';
import type { SqlExecutor } from '../storage/engine.js';
import { AuditKey, verifierKeyOf } from './note.js';

/**
 * The key that signs the tenant's checkpoints. The first checkpoint settles
 * it: the operator's key when one is given (only its public half is stored),
 * else a key the store makes and keeps. From then on a checkpoint is signed
 * by that key only: another operator key is refused (CONFLICT), and a tenant
 * whose key the operator holds cannot be signed for without it (UNAVAILABLE).
 */
export async function tenantKey(
  tx: SqlExecutor,
  tenant: string,
  now: number,
  operator?: AuditKey,
): Promise<AuditKey> {
  const load = () =>
    tx.get<{ name: string; public_key: string; seed: Uint8Array | null }>(
      'SELECT name, public_key, seed FROM audit_keys WHERE tenant = ?',
      [tenant],
    );
  let row = await load();
  if (!row) {
    const made = operator ? { key: operator, seed: null } : AuditKey.generate();
    await tx.run(
      'INSERT INTO audit_keys (tenant, name, public_key, seed, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (tenant) DO NOTHING',
      [tenant, made.key.name, made.key.publicKey.toString('hex'), made.seed, now],
    );
    row = await load();
    if (!row) throw corrupt('the audit key was written and is not there');
  }
  if (operator) {
    if (operator.publicKey.toString('hex') !== row.public_key)
      throw conflict(
        `the audit key given (${operator.name}) is not the key this tenant's checkpoints are signed with (${row.name}): give that key${row.seed === null ? '' : ', or none (the store keeps this one)'}`,
        { resource: 'audit key' },
      );
    return operator;
  }
  if (row.seed === null)
    throw unavailable(
      `this tenant's checkpoints are signed with the operator's key ${row.name}, which this process was not given: give it that key (cairn serve --audit-key-file FILE; CAIRN_AUDIT_KEY_FILE for other commands)`,
      { resource: 'audit key' },
    );
  const kept = new AuditKey(row.name, Buffer.from(row.seed));
  if (kept.publicKey.toString('hex') !== row.public_key)
    throw corrupt(
      `the audit key ${row.name} kept for tenant ${tenant} does not match its public key: the store was changed outside Cairn`,
    );
  return kept;
}

/**
 * Whether a background round may sign for the tenant with `operatorKey`
 * (or none): only with the key its checkpoints are already signed with, and
 * it settles a tenant's key only on the operator's — a tenant no checkpoint
 * was asked for yet keeps its choice until someone asks (tenantKey: the
 * first checkpoint settles the key for good). Else why not.
 */
export async function roundMaySign(
  tx: SqlExecutor,
  tenant: string,
  operatorKey?: AuditKey,
): Promise<true | string> {
  const key = await tx.get<{ public_key: string; seed: Uint8Array | null }>(
    'SELECT public_key, seed FROM audit_keys WHERE tenant = ?',
    [tenant],
  );
  if (operatorKey) {
    if (!key || key.public_key === operatorKey.publicKey.toString('hex')) return true;
    return 'its checkpoints are signed with another key than the one this server was given';
  }
  if (!key)
    return 'its signing key is not settled yet (no checkpoint was asked for, and no operator key given)';
  if (key.seed === null)
    return "its checkpoints are signed with the operator's key, which this server was not given";
  return true;
}

/** The origin line of a tenant's checkpoints: the key's name and the tenant. */
export const originOf = (key: AuditKey, tenant: string) => `${key.name}/${tenant}`;

/** The tenant's signing key as the store records it (its public half), if a checkpoint was ever signed. */
export async function storedKey(
  tx: SqlExecutor,
  tenant: string,
): Promise<{ name: string; publicKey: Buffer } | undefined> {
  const row = await tx.get<{ name: string; public_key: string }>(
    'SELECT name, public_key FROM audit_keys WHERE tenant = ?',
    [tenant],
  );
  return row && { name: row.name, publicKey: Buffer.from(row.public_key, 'hex') };
}

/** The tenant's audit signing key, public parts only. */
export async function publicKey(tx: SqlExecutor, tenant: string) {
  const key = await storedKey(tx, tenant);
  if (!key)
    throw notFound('no audit checkpoint has been signed yet: ask for a checkpoint first', {
      resource: 'audit key',
    });
  return {
    name: key.name,
    publicKey: key.publicKey.toString('hex'),
    verifierKey: verifierKeyOf(key.name, key.publicKey),
    algorithm: 'Ed25519' as const,
  };
}
