// The store seam: where a cluster state is kept, and who arbitrates commits from many writers.
// A store persists and arbitrates (re-validates each commit against what it holds); it never plans.
import type { AllocationError } from '../shared/errors.js';
import type { PlacementOption, Slot } from '../placement/index.js';
import type { ClusterStateJSON, CommitOptions } from '../cluster/state.js';

/** One node's slots as the store holds them after an operation, with the node's version (bumped by every change). */
export type StoredNode = { id: string; version: number; slots: Slot[] };

/** Everything a store holds: the state (as ClusterState.toJSON writes it) and each node's version. */
export type StoreSnapshot = { state: ClusterStateJSON; versions: Record<string, number> };

/**
 * What a store answers to a change: the new slot's ID (commits), the fresh slots of the nodes it
 * touched, and `error` when it refused (CONFLICT: the option no longer fits what the store holds;
 * `nodes` then carries the fresh state the caller should load before re-planning).
 */
export type StoreOutcome = { id?: string; nodes: StoredNode[]; error?: AllocationError };

/** Called with a node and its new version when another writer changed it. */
export type StoreListener = (node: string, version: number) => void;

/**
 * Where a ClusterState lives. Implementations: MemoryStore (one process), JsonFileStore (a file
 * behind a lock), PostgresStore (many processes, one database). Malformed input throws
 * AllocationError; a refused commit is an outcome with `error`, never a half-applied change.
 */
export interface ClusterStore {
  /** 'memory', 'file' or 'postgres'. */
  readonly kind: string;
  /** Reads the whole state. */
  load(): Promise<StoreSnapshot>;
  /** Reads the slots and versions of some nodes (UNKNOWN_NODE for an ID the store lacks). */
  loadNodes(ids: readonly string[]): Promise<StoredNode[]>;
  /** Re-validates the option against the stored state and applies it (evictions + the new slot) atomically. */
  commit(option: PlacementOption, options?: CommitOptions): Promise<StoreOutcome>;
  /** Removes a slot (UNKNOWN_SLOT when it is not stored). */
  release(slotId: string): Promise<StoreOutcome>;
  /** Marks a slot stale (evictable by other models) or not. */
  markStale(slotId: string, stale: boolean): Promise<StoreOutcome>;
  /** Calls `listener` when any writer changes a node; resolves to a function that stops it. Optional. */
  watch?(listener: StoreListener): Promise<() => Promise<void>>;
  /** Frees connections and handles. */
  close(): Promise<void>;
}
