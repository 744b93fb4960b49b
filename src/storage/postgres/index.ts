export { PostgresBlobStore } from '../../blob/postgres/postgres-blob-store.js';
export { PostgresEngine, type PostgresEngineOptions } from './postgres-engine.js';
