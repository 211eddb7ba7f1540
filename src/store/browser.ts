// The store parts that run anywhere (no PostgreSQL client, no files): re-exported by the main entry.
export { openClusterState, StoredClusterState, DEFAULT_ATTEMPTS } from './stored-state.js';
export { MemoryStore } from './memory.js';

export type { OpenOptions, RetryOptions, RetryResult } from './stored-state.js';
export type { ClusterStore, StoredNode, StoreOutcome, StoreSnapshot, StoreListener } from './types.js';
