// The store seam: where a cluster state is kept, and who arbitrates commits from many writers.
// A store persists and arbitrates (re-validates each commit against what it holds); it never plans.

import type { ClusterStateJSON, CommitOptions, ReleaseOptions } from '../cluster/state.js';
import type { PlacementOption, Slot } from '../placement/index.js';
import type { AllocationError } from '../shared/errors.js';

/** One node's slots as the store holds them after an operation, with the node's version (bumped by every change). */
export type StoredNode = { id: string; version: number; slots: Slot[] };

/** Everything a store holds: the state (as ClusterState.toJSON writes it) and each node's version. */
export type StoreSnapshot = { state: ClusterStateJSON; versions: Record<string, number> };

/**
 * What a store answers to a change: the new slot's ID (commits), the fresh slots of the nodes it
 * touched, and `error` when it refused (CONFLICT: the option no longer fits what the store holds;
 * `nodes` then carries the fresh state the caller should load before re-planning).
 */
export type StoreOutcome = { id?: string; nodes: StoredNode[]; error?: AllocationError; replayed?: boolean };

/**
 * Options of ClusterStore.commit: the new slot's ID and lastActivity (as ClusterState.commit), and
 * `requestId`, the identity of this change. A store that can fail ambiguously (PostgreSQL: the
 * connection drops while COMMIT is in flight) records it with the slot, so a repeat of the same
 * request, by its own retry or by the caller, returns that slot (`replayed: true`) rather than a
 * second one. Made by the store when not given; give one (a UUID, a job ID) to repeat a request
 * across processes. At most 200 characters.
 */
export type StoreCommitOptions = CommitOptions & {
  requestId?: string;
  /**
   * Stops the store's waits: the pauses between tries after a lost connection (PostgreSQL), the wait
   * for a lock another process holds (a state file). Aborted, the call rejects at once with the
   * signal's reason (an AbortError) and nothing was changed; a statement already sent finishes or
   * fails within its own bound, and an abort after a try whose COMMIT was in flight is
   * STORE_UNAVAILABLE with the outcome unknown, as without a signal.
   */
  signal?: AbortSignal;
};

/**
 * Options of ClusterStore.release: `requestId`, as for commit (a repeat of an applied release
 * succeeds, `replayed: true`), and `idleBefore` (ms since the epoch): release only a slot whose
 * last activity, as stored at that moment, is before that time; else the outcome is CONFLICT and
 * nothing changes (see ClusterState.release).
 */
export type StoreReleaseOptions = ReleaseOptions & { requestId?: string /** As StoreCommitOptions.signal. */; signal?: AbortSignal };

/**
 * Called with a node and its new version when another writer changed it; with node '' (version 0)
 * when anything may have changed (a listener that reconnected, a node ID too long to notify): reload everything.
 */
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
  commit(option: PlacementOption, options?: StoreCommitOptions): Promise<StoreOutcome>;
  /** Removes a slot (UNKNOWN_SLOT when it is not stored, unless this very request removed it). */
  release(slotId: string, options?: StoreReleaseOptions): Promise<StoreOutcome>;
  /** Marks a slot stale (evictable by other models) or not. */
  markStale(slotId: string, stale: boolean): Promise<StoreOutcome>;
  /** Records activity of a slot at `at` (ms since the epoch): lastActivity = max(lastActivity, at). */
  touch(slotId: string, at: number): Promise<StoreOutcome>;
  /** Calls `listener` when any writer changes a node; resolves to a function that stops it. Optional. */
  watch?(listener: StoreListener): Promise<() => Promise<void>>;
  /** Frees connections and handles. */
  close(): Promise<void>;
}
