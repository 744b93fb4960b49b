import { describeLogConformance } from '../src/testing/log-conformance.js';
import { postgresSkip } from './support/postgres.js';
import { embeddedTarget, postgresStore, remoteTarget, sqliteStore } from './support/stores.js';

describeLogConformance('embedded SQLite', async () => {
  const { store, cleanup } = await sqliteStore();
  return embeddedTarget(store, cleanup);
});

describeLogConformance('remote client → server on loopback → SQLite', async () => {
  const { store, cleanup } = await sqliteStore();
  return remoteTarget(store, cleanup);
});

describeLogConformance(
  'embedded PostgreSQL',
  async () => {
    const { store, cleanup } = await postgresStore();
    return embeddedTarget(store, cleanup);
  },
  { skip: postgresSkip },
);

describeLogConformance(
  'remote client → server on loopback → PostgreSQL',
  async () => {
    const { store, cleanup } = await postgresStore();
    return remoteTarget(store, cleanup);
  },
  { skip: postgresSkip },
);
