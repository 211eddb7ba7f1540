// The read port of the pod scheduler: what it may see of a cluster state's nodes, and how it hears
// of changes. The scheduler owns the port; the cluster state implements it (src/cluster/node-view.ts
// LedgerView), so fleet/ imports nothing from cluster/.
import type { Topology } from '../hardware/topology.js';
import type { Slot } from '../placement/index.js';

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
