// The read port of a cluster state: what a pod scheduler (src/fleet/scheduler.ts) may see of the
// nodes, and how it hears of changes (NodeView), and its implementation over the state's ledger.
// It imports nothing from fleet/, so the scheduler can depend on it while the state creates
// schedulers (state.podScheduler).
import type { Topology } from '../hardware/topology.js';
import type { Slot } from '../placement/index.js';
import type { Ledger } from './ledger.js';

/** A node's GPUs: indices (ascending), and memoryTotal and free bytes (memoryTotal − memoryUsed − slots) per position. */
export type NodeGpus = { readonly indices: readonly number[]; readonly total: Float64Array; readonly free: Float64Array };

/**
 * A read-only, live view of a cluster state's nodes, numbered 0..count−1 in the state's node order.
 * The typed arrays it hands out are the state's own (read them, never write them); every value
 * reflects the state as it is now. Only the state changes it (commit, release, markStale).
 */
export interface NodeView {
  /** Number of nodes. */
  readonly count: number;
  /** Node IDs in the state's order (a copy). */
  nodeIds(): string[];
  /** Index of node `id` in the state's order; UNKNOWN_NODE naming `field` (default 'node') when it is not there. */
  indexOf(id: string, field?: string): number;
  /** Node k's GPUs (live views). */
  gpus(k: number): NodeGpus;
  /** Node k's CPU left, in milli-CPU (-1: not tracked). */
  cpuLeft(k: number): number;
  /** Node k's host memory left, in bytes (-1: not tracked). */
  hostMemoryLeft(k: number): number;
  /** Node k's GPU model (undefined: not given). */
  gpuModel(k: number): string | undefined;
  /** Node k's validated topology (undefined: none). */
  topology(k: number): Topology | undefined;
  /** Calls `fn` with each slot of node k, in the order added, and the positions of its GPUs (the state's own objects: read only). */
  forEachSlot(k: number, fn: (slot: Readonly<Slot>, positions: readonly number[]) => void): void;
  /** How many changes node k has had (0 at first): it grows by one on every commit, release or markStale that touches the node. */
  version(k: number): number;
  /** Calls `listener(k)` after every change to node k (once its version has grown); returns the function that stops it. */
  onChange(listener: (node: number) => void): () => void;
}

/** The NodeView of a ledger, and the change notification behind it: the state calls changed(k) after every change to node k. */
export class LedgerView implements NodeView {
  private readonly ledger: Ledger;
  /** Changes per node (version). */
  private readonly versions: Float64Array;
  /** Subscribed listeners (pod schedulers), told in the order they subscribed. */
  private readonly listeners = new Set<(node: number) => void>();

  constructor(ledger: Ledger) {
    this.ledger = ledger;
    this.versions = new Float64Array(ledger.nodeIds.length);
  }

  get count(): number {
    return this.ledger.nodeIds.length;
  }

  nodeIds(): string[] {
    return [...this.ledger.nodeIds];
  }

  indexOf(id: string, field = 'node'): number {
    return this.ledger.nodeIndex(id, field);
  }

  gpus(k: number): NodeGpus {
    return { indices: this.ledger.indices[k], total: this.ledger.totalViews[k], free: this.ledger.freeViews[k] };
  }

  cpuLeft(k: number): number {
    return this.ledger.cpuLeft(k);
  }

  hostMemoryLeft(k: number): number {
    return this.ledger.hostMemoryLeft(k);
  }

  gpuModel(k: number): string | undefined {
    return this.ledger.gpuModels[k];
  }

  topology(k: number): Topology | undefined {
    return this.ledger.topologies[k];
  }

  forEachSlot(k: number, fn: (slot: Readonly<Slot>, positions: readonly number[]) => void): void {
    const { slots } = this.ledger;
    for (const id of this.ledger.nodeSlots[k]) {
      const r = slots.get(id)!;
      fn(r.slot, r.positions);
    }
  }

  version(k: number): number {
    return this.versions[k];
  }

  onChange(listener: (node: number) => void): () => void {
    // A listener of its own: a second subscription of one function is a second listener, stopped on its own.
    const l = (node: number): void => listener(node);
    this.listeners.add(l);
    return () => {
      this.listeners.delete(l);
    };
  }

  /** Node k changed: its version grows, then every listener is told. */
  changed(k: number): void {
    this.versions[k]++;
    for (const l of this.listeners) l(k);
  }
}
