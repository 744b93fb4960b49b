import { join } from 'node:path';
import { connect } from '../src/client/connect.js';
import { remoteDesk } from '../src/client/remote-desk-store.js';
import { startServer } from '../src/server/index.js';
import type { Store } from '../src/store.js';
import { type DeskConformanceTarget, describeDeskConformance } from '../src/testing/desk-conformance.js';
import { postgresSkip } from './support/postgres.js';
import { s3Skip } from './support/s3.js';
import { postgresS3Store, postgresStore, sqliteStore, tempDir, twoTenants } from './support/stores.js';

/** Desks of tenants A and B on a store, used directly through the library. */
async function embedded(store: Store, cleanup: () => Promise<void>): Promise<DeskConformanceTarget> {
  const { a, b } = await twoTenants(store);
  const scratch = tempDir('cairn-desk-conf-');
  const deskOf = async (token: string, label: string) =>
    store.desk(await store.authenticate(token), {
      host: 'conformance',
      stateDir: join(scratch.dir, `state-${label}`),
    });
  const deskA = await deskOf(a.token.token, 'a');
  const deskB = await deskOf(b.token.token, 'b');
  return {
    deskA,
    deskB,
    dir: join(scratch.dir, 'work'),
    close: async () => {
      await deskA.close();
      await deskB.close();
      await cleanup();
      scratch.remove();
    },
  };
}

/** The same, the desks on this host and the store behind a server on loopback (RemoteDeskStore). */
async function remote(store: Store, cleanup: () => Promise<void>): Promise<DeskConformanceTarget> {
  const { a, b } = await twoTenants(store);
  const server = await startServer(store, { host: '127.0.0.1', port: 0 });
  const scratch = tempDir('cairn-desk-conf-remote-');
  const fabrics = [a, b].map((t) => connect({ url: server.url, token: t.token.token }));
  const [deskA, deskB] = await Promise.all(
    fabrics.map((f, i) =>
      remoteDesk(f, { host: 'conformance-remote', stateDir: join(scratch.dir, `state-${i}`) }),
    ),
  );
  return {
    deskA: deskA!,
    deskB: deskB!,
    dir: join(scratch.dir, 'work'),
    close: async () => {
      await deskA?.close();
      await deskB?.close();
      for (const f of fabrics) await f.close();
      await server.close();
      await cleanup();
      scratch.remove();
    },
  };
}

describeDeskConformance('embedded SQLite', async () => {
  const { store, cleanup } = await sqliteStore();
  return embedded(store, cleanup);
});

describeDeskConformance('remote desk store → server on loopback → SQLite', async () => {
  const { store, cleanup } = await sqliteStore();
  return remote(store, cleanup);
});

describeDeskConformance(
  'embedded PostgreSQL',
  async () => {
    const { store, cleanup } = await postgresStore();
    return embedded(store, cleanup);
  },
  { skip: postgresSkip },
);

describeDeskConformance(
  'remote desk store → server on loopback → PostgreSQL',
  async () => {
    const { store, cleanup } = await postgresStore();
    return remote(store, cleanup);
  },
  { skip: postgresSkip },
);

describeDeskConformance(
  'embedded PostgreSQL, blobs on S3 (Ceph RGW)',
  async () => {
    const { store, cleanup } = await postgresS3Store();
    return embedded(store, cleanup);
  },
  { skip: postgresSkip ?? s3Skip },
);

describeDeskConformance(
  'remote desk store → server on loopback → PostgreSQL, blobs on S3 (Ceph RGW)',
  async () => {
    const { store, cleanup } = await postgresS3Store();
    return remote(store, cleanup);
  },
  { skip: postgresSkip ?? s3Skip },
);
