import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '../../src/client/connect.js';
import type { MasterKey } from '../../src/entry/keys.js';
import { type RunningServer, startServer } from '../../src/server/index.js';
import { Store } from '../../src/store.js';
import type { LogConformanceTarget } from '../../src/testing/log-conformance.js';

/** A temporary folder removed by the returned cleanup. */
export function tempDir(prefix = 'cairn-test-'): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Removes a temporary folder after unmounting what is mounted under it (overlay forks outlive the process that made them). */
export function removeWithMounts(temp: { dir: string; remove(): void }): void {
  const mounts = readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .map((l) => l.split(' ')[1] ?? '')
    .filter((m) => m.startsWith(temp.dir));
  for (const m of mounts.reverse()) execFileSync('umount', ['-l', m]);
  temp.remove();
}

/** Runs fn with a fresh temporary folder, removed afterwards whatever happens. */
export async function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const temp = tempDir();
  try {
    return await fn(temp.dir);
  } finally {
    temp.remove();
  }
}

/** Two tenants of one store, each with its first admin token. */
export async function twoTenants(store: Store) {
  const a = await store.createTenant('tenant-a');
  const b = await store.createTenant('tenant-b');
  return { a, b };
}

/** What the two-tenant targets take: `masterKey` lets their credential operations seal values. */
export interface TargetOptions {
  masterKey?: MasterKey;
}

/** Tenants A and B of a store, used directly through the library. */
export async function embeddedTarget(
  store: Store,
  cleanup: () => Promise<void>,
  options: TargetOptions = {},
): Promise<LogConformanceTarget & { tokens: { a: string; b: string } }> {
  const { a, b } = await twoTenants(store);
  const { masterKey } = options;
  return {
    tokens: { a: a.token.token, b: b.token.token },
    tenantA: store.fabric(await store.authenticate(a.token.token), { masterKey }),
    tenantB: store.fabric(await store.authenticate(b.token.token), { masterKey }),
    close: cleanup,
  };
}

/** Tenants A and B of a store, reached over HTTP through a server on loopback. */
export async function remoteTarget(
  store: Store,
  cleanup: () => Promise<void>,
  options: TargetOptions = {},
): Promise<LogConformanceTarget & { server: RunningServer; tokens: { a: string; b: string } }> {
  const { a, b } = await twoTenants(store);
  const server = await startServer(store, { host: '127.0.0.1', port: 0, masterKey: options.masterKey });
  return {
    server,
    tokens: { a: a.token.token, b: b.token.token },
    tenantA: connect({ url: server.url, token: a.token.token }),
    tenantB: connect({ url: server.url, token: b.token.token }),
    close: async () => {
      await server.close();
      await cleanup();
    },
  };
}

export async function sqliteStore(): Promise<{ store: Store; cleanup: () => Promise<void> }> {
  const temp = tempDir();
  const store = await Store.openDir(temp.dir);
  return {
    store,
    cleanup: async () => {
      await store.close();
      temp.remove();
    },
  };
}

/** A store on a fresh PostgreSQL database (as the application role), dropped on cleanup. */
export async function postgresStore(): Promise<{ store: Store; cleanup: () => Promise<void> }> {
  const { freshPostgresDatabase } = await import('./postgres.js');
  const { PostgresEngine } = await import('../../src/storage/postgres/postgres-engine.js');
  const { PostgresBlobStore } = await import('../../src/blob/postgres/postgres-blob-store.js');
  const database = await freshPostgresDatabase();
  const engine = await PostgresEngine.open({ connectionString: database.url });
  const store = new Store(engine, new PostgresBlobStore(engine));
  return {
    store,
    cleanup: async () => {
      await store.close();
      await database.drop();
    },
  };
}

/** A store on a fresh PostgreSQL database with its blobs in a fresh bucket of the test S3 server (support/s3.ts). */
export async function postgresS3Store(): Promise<{ store: Store; cleanup: () => Promise<void> }> {
  const { freshPostgresDatabase } = await import('./postgres.js');
  const { freshBucket } = await import('./s3.js');
  const { PostgresEngine } = await import('../../src/storage/postgres/postgres-engine.js');
  const database = await freshPostgresDatabase();
  const engine = await PostgresEngine.open({ connectionString: database.url });
  const bucket = await freshBucket();
  const store = new Store(engine, bucket.blobs);
  return {
    store,
    cleanup: async () => {
      await store.close();
      await bucket.close();
      await database.drop();
    },
  };
}

/**
 * A store on one engine and an identity in it: the local principal on
 * SQLite, the admin of a fresh tenant on PostgreSQL (whose stores have no
 * local principal).
 */
export async function backendStore(backend: 'sqlite' | 'postgres' | 'postgres-s3', tenant: string) {
  const opened =
    backend === 'sqlite'
      ? await sqliteStore()
      : backend === 'postgres'
        ? await postgresStore()
        : await postgresS3Store();
  const who =
    backend === 'sqlite'
      ? await opened.store.localIdentity()
      : await opened.store.authenticate((await opened.store.createTenant(tenant)).token.token);
  return { ...opened, who };
}
