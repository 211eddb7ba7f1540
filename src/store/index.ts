// gpualloc/store: where a cluster state lives. Node only (the PostgreSQL client, files); the parts
// that run anywhere (MemoryStore, openClusterState, StoredClusterState) are in the main entry too.
export { openClusterState, StoredClusterState, DEFAULT_ATTEMPTS, MemoryStore } from './browser.js';
export { PostgresStore, DEFAULT_SCHEMA } from './postgres.js';
export { MIGRATIONS, SCHEMA_VERSION } from './migrations/index.js';

export type { OpenOptions, RetryOptions, RetryResult, ClusterStore, StoredNode, StoreOutcome, StoreSnapshot, StoreListener } from './browser.js';
export type { PostgresStoreOptions } from './postgres.js';
export type { Migration } from './migrations/index.js';
