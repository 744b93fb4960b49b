import { MasterKey } from '../src/entry/keys.js';
import type { Store } from '../src/store.js';
import { describeKeysConformance, type KeysConformanceTarget } from '../src/testing/keys-conformance.js';
import { holdWrite } from './support/held-writes.js';
import { postgresSkip } from './support/postgres.js';
import { embeddedTarget, postgresStore, remoteTarget, sqliteStore } from './support/stores.js';

/**
 * Tenants A and B of a store, through the library or over HTTP, with one
 * master key for the vault; held writes are recorded on tenant A's keys as
 * the proxy would (with the same key, which opens the values to redact them).
 */
async function keysTarget(
  store: Store,
  cleanup: () => Promise<void>,
  over: 'library' | 'http',
): Promise<KeysConformanceTarget> {
  const masterKey = MasterKey.generate();
  const surface = over === 'library' ? embeddedTarget : remoteTarget;
  const tenants = await surface(store, cleanup, { masterKey });
  const keysA = store.keys(await store.authenticate(tenants.tokens.a), { masterKey });
  return { ...tenants, holdWrite: (request) => holdWrite(keysA, request) };
}

describeKeysConformance('embedded SQLite', async () => {
  const { store, cleanup } = await sqliteStore();
  return keysTarget(store, cleanup, 'library');
});

describeKeysConformance('remote client → server on loopback → SQLite', async () => {
  const { store, cleanup } = await sqliteStore();
  return keysTarget(store, cleanup, 'http');
});

describeKeysConformance(
  'embedded PostgreSQL',
  async () => {
    const { store, cleanup } = await postgresStore();
    return keysTarget(store, cleanup, 'library');
  },
  { skip: postgresSkip },
);

describeKeysConformance(
  'remote client → server on loopback → PostgreSQL',
  async () => {
    const { store, cleanup } = await postgresStore();
    return keysTarget(store, cleanup, 'http');
  },
  { skip: postgresSkip },
);
