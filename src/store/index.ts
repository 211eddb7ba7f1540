// gpualloc/store: where a cluster state lives (Node only: the PostgreSQL client, files). Kept out of
// the main entry's import graph, which the browser page loads.

export type { FileUpdate, JsonFileStoreOptions } from './file.js';
export { JsonFileStore } from './file.js';
export { MemoryStore } from './memory.js';
export type { Migration } from './migrations/index.js';
export { MIGRATIONS, SCHEMA_VERSION } from './migrations/index.js';
export { redactUrl, urlHasPassword } from './pg-config.js';
export type { PostgresStoreOptions, PostgresStoreStats } from './postgres.js';
export { DEFAULT_SCHEMA, PostgresStore, TIMEOUTS } from './postgres.js';
export type { OpenOptions, PodRetryOptions, PodRetryResult, RetryOptions, RetryResult } from './stored-state.js';
export { DEFAULT_ATTEMPTS, openClusterState, StoredClusterState, StoredPodScheduler } from './stored-state.js';
export type { ClusterStore, StoreCommitOptions, StoredNode, StoreListener, StoreOutcome, StoreReleaseOptions, StoreSnapshot } from './types.js';
