import { describeLogConformance } from '../src/testing/log-conformance.js';
import { embeddedTarget, remoteTarget, sqliteStore } from './support/stores.js';

describeLogConformance('embedded SQLite', async () => {
  const { store, cleanup } = await sqliteStore();
  return embeddedTarget(store, cleanup);
});

describeLogConformance('remote client → server on loopback → SQLite', async () => {
  const { store, cleanup } = await sqliteStore();
  return remoteTarget(store, cleanup);
});
