// gpualloc/store: where a cluster state lives. Node only (PostgreSQL client, files); the browser-safe
// parts (MemoryStore, openClusterState, StoredClusterState) are also exported by the main entry.
export { openClusterState, StoredClusterState, DEFAULT_ATTEMPTS } from './stored-state.js';
export { MemoryStore } from './memory.js';
export { PostgresStore, DEFAULT_SCHEMA } from './postgres.js';
export { MIGRATIONS, SCHEMA_VERSION } from './migrations/index.js';

export type { OpenOptions, RetryOptions, RetryResult } from './stored-state.js';
export type { ClusterStore, StoredNode, StoreOutcome, StoreSnapshot, StoreListener } from './types.js';
export type { PostgresStoreOptions } from './postgres.js';
export type { Migration } from './migrations/index.js';
