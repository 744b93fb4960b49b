/** Each tenant's audit signing key, as the store keeps it (`audit_keys`; docs/design/audit.md). */
import { randomBytes } from 'node:crypto';
import { corrupt, notFound } from '../errors.js';
import type { SqlExecutor } from '../storage/engine.js';
import { AuditKey, verifierKeyOf } from './note.js';

/** The tenant's signing key, made on its first checkpoint; its seed stays in the store (docs/design/audit.md). */
export async function tenantKey(tx: SqlExecutor, tenant: string, now: number): Promise<AuditKey> {
  const load = () =>
    tx.get<{ name: string; seed: Uint8Array }>('SELECT name, seed FROM audit_keys WHERE tenant = ?', [
      tenant,
    ]);
  let row = await load();
  if (!row) {
    const seed = randomBytes(32);
    const key = new AuditKey(`cairn-audit-${randomBytes(4).toString('hex')}`, seed);
    await tx.run(
      'INSERT INTO audit_keys (tenant, name, public_key, seed, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (tenant) DO NOTHING',
      [tenant, key.name, key.publicKey.toString('hex'), seed, now],
    );
    row = await load();
    if (!row) throw corrupt('the audit key was written and is not there');
  }
  return new AuditKey(row.name, Buffer.from(row.seed));
}

/** The origin line of a tenant's checkpoints: the key's name and the tenant. */
export const originOf = (key: AuditKey, tenant: string) => `${key.name}/${tenant}`;

/** The tenant's audit signing key, public parts only. */
export async function publicKey(tx: SqlExecutor, tenant: string) {
  const row = await tx.get<{ name: string; public_key: string }>(
    'SELECT name, public_key FROM audit_keys WHERE tenant = ?',
    [tenant],
  );
  if (!row)
    throw notFound('no audit checkpoint has been signed yet: ask for a checkpoint first', {
      resource: 'audit key',
    });
  const raw = Buffer.from(row.public_key, 'hex');
  return {
    name: row.name,
    publicKey: row.public_key,
    verifierKey: verifierKeyOf(row.name, raw),
    algorithm: 'Ed25519' as const,
  };
}
