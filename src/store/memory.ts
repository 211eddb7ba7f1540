// MemoryStore: the state held in this process. Several StoredClusterStates opened on one MemoryStore
// behave like replicas on one database (each plans on its own copy; the store's commit decides).

import { activityTime, type ClusterInit, type ClusterState } from '../cluster/state.js';
import type { PlacementEngine } from '../engine.js';
import type { PlacementOption } from '../placement/index.js';
import { ASYNC_DISPOSE } from '../shared/dispose.js';
import { AllocationError } from '../shared/errors.js';
import { optionNodes } from './apply.js';
import { storeCommitOptions, storeReleaseOptions } from './options.js';
import type { ClusterStore, StoreCommitOptions, StoredNode, StoreListener, StoreOutcome, StoreReleaseOptions, StoreSnapshot } from './types.js';

/** A store in this process's memory: the truth is one ClusterState, whose commit arbitrates. */
export class MemoryStore implements ClusterStore {
  readonly kind = 'memory';
  private readonly truth: ClusterState;
  private readonly versions = new Map<string, number>();
  private readonly listeners = new Set<StoreListener>();
  /** The nodes of every slot (release and markStale name only the slot): one, or each part's of a slot across nodes. */
  private readonly slotNodes = new Map<string, string[]>();

  private constructor(truth: ClusterState) {
    this.truth = truth;
    for (const id of truth.nodes()) {
      this.versions.set(id, 1);
      for (const s of truth.listSlots(id)) this.slotNodes.set(s.id, s.parts === undefined ? [id] : s.parts.map((p) => p.node));
    }
  }

  /** A store holding a new state made from `init` (nodes or one inventory). */
  static create(engine: PlacementEngine, init: ClusterInit): MemoryStore {
    return new MemoryStore(engine.createClusterState(init));
  }

  /** A store holding a state restored from toJSON's output. */
  static restore(engine: PlacementEngine, json: unknown): MemoryStore {
    return new MemoryStore(engine.restoreClusterState(json));
  }

  async load(): Promise<StoreSnapshot> {
    return { state: this.truth.toJSON(), versions: Object.fromEntries(this.versions) };
  }

  async loadNodes(ids: readonly string[]): Promise<StoredNode[]> {
    return ids.map((id) => this.node(id));
  }

  /** Commits through the held state; `requestId` is checked only (a call in this process never ends ambiguously). */
  async commit(option: PlacementOption, options: StoreCommitOptions = {}): Promise<StoreOutcome> {
    const commitOptions = storeCommitOptions(options);
    const own = optionNodes(option);
    try {
      const evicted = Array.isArray(option.evict) ? option.evict.flatMap((e) => this.slotNodes.get(e) ?? []) : [];
      const id = this.truth.commit(option, commitOptions);
      for (const e of option.evict) this.slotNodes.delete(e);
      this.slotNodes.set(id, own);
      return { id, nodes: [...new Set([...own, ...evicted])].map((n) => this.changed(n)) };
    } catch (error) {
      if (error instanceof AllocationError && error.code === 'CONFLICT') return { nodes: own.map((n) => this.node(n)), error };
      throw error;
    }
  }

  async release(slotId: string, options: StoreReleaseOptions = {}): Promise<StoreOutcome> {
    const opts = storeReleaseOptions(options);
    const nodes = this.nodesOfSlot(slotId);
    try {
      this.truth.release(slotId, opts);
    } catch (error) {
      // Active since idleBefore: kept, and the caller gets the nodes as they are.
      if (error instanceof AllocationError && error.code === 'CONFLICT') return { nodes: nodes.map((n) => this.node(n)), error };
      throw error;
    }
    this.slotNodes.delete(slotId);
    return { nodes: nodes.map((n) => this.changed(n)) };
  }

  async markStale(slotId: string, stale: boolean): Promise<StoreOutcome> {
    const nodes = this.nodesOfSlot(slotId);
    this.truth.markStale(slotId, stale);
    return { nodes: nodes.map((n) => this.changed(n)) };
  }

  async touch(slotId: string, at: number): Promise<StoreOutcome> {
    const time = activityTime('at', at);
    const nodes = this.nodesOfSlot(slotId);
    this.truth.touch(slotId, time);
    return { nodes: nodes.map((n) => this.changed(n)) };
  }

  async watch(listener: StoreListener): Promise<() => Promise<void>> {
    this.listeners.add(listener);
    return async () => void this.listeners.delete(listener);
  }

  /** close(), for `await using store = …`. */
  async [ASYNC_DISPOSE](): Promise<void> {
    await this.close();
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }

  private nodesOfSlot(slotId: string): string[] {
    const nodes = typeof slotId === 'string' ? this.slotNodes.get(slotId) : undefined;
    if (nodes !== undefined) return nodes;
    this.truth.release(slotId); // throws UNKNOWN_SLOT, or INVALID_ARGUMENT for a non-string, naming the field
    throw AllocationError.at('UNKNOWN_SLOT', 'slotId', `slot ${JSON.stringify(slotId)} is not in the store`);
  }

  private changed(id: string): StoredNode {
    const version = this.versions.get(id)! + 1;
    this.versions.set(id, version);
    for (const listener of this.listeners) queueMicrotask(() => listener(id, version));
    return this.node(id);
  }

  private node(id: string): StoredNode {
    const version = this.versions.get(id);
    if (version === undefined) throw AllocationError.at('UNKNOWN_NODE', 'node', `node ${JSON.stringify(id)} is not in the store`);
    return { id, version, slots: this.truth.listSlots(id) };
  }
}
