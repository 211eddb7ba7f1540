// gpualloc/store: where a cluster state lives (Node only: the PostgreSQL client, files). Kept out of
// the main entry's import graph, which the browser page loads.
export { openClusterState, StoredClusterState, StoredPodScheduler, DEFAULT_ATTEMPTS } from './stored-state.js';
export { MemoryStore } from './memory.js';
export { PostgresStore, DEFAULT_SCHEMA, TIMEOUTS } from './postgres.js';
export { JsonFileStore } from './file.js';
export { MIGRATIONS, SCHEMA_VERSION } from './migrations/index.js';
export { redactUrl, urlHasPassword } from './pg-config.js';

export type { OpenOptions, RetryOptions, RetryResult, PodRetryOptions, PodRetryResult } from './stored-state.js';
export type { ClusterStore, StoredNode, StoreOutcome, StoreSnapshot, StoreListener, StoreCommitOptions, StoreReleaseOptions } from './types.js';
export type { PostgresStoreOptions, PostgresStoreStats } from './postgres.js';
export type { FileUpdate, JsonFileStoreOptions } from './file.js';
export type { Migration } from './migrations/index.js';
