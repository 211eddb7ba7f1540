// Index upkeep of a cluster state: each node's summary (free memory per GPU largest first, load,
// rank in natural order, topology class) and the two indexes plan searches through (free-memory
// trees, stale-slot trees), kept up to date node by node after every change to the ledger. Its
// arrays are per node or per GPU like the ledger's, read at the ledger's node numbers: `!`.

import { positionMatrix } from '../placement/index.js';
import { compareNatural } from '../shared/natural-order.js';
import { TopologyClasses } from './classes.js';
import { FreeIndex } from './free-index.js';
import type { Ledger } from './ledger.js';
import { sortLargestFirst } from './sort.js';
import { StaleIndex } from './stale-index.js';

/** What plan reads of each node besides the ledger, and the indexes over it. */
export class NodeIndexes {
  /** Each node's free memory per GPU as plans see it (the ledger's planFree), largest first (same offsets as the ledger's `free`): bounds a node's best option without a search. */
  readonly sortedFree: Float64Array;
  /** Memory held on each node: memoryTotal − free summed over its GPUs. */
  readonly nodeAllocated: Float64Array;
  /** (memoryTotal − free) / memoryTotal of each node, slots and used memory alike (the node tie-break). */
  readonly nodeLoad: Float64Array;
  /** Position of each node ID in natural order (the last tie-break across nodes). */
  readonly nodeRank: Int32Array;
  /** Topology class of each node (same GPU count and pair-score matrix; 0: no topology). */
  readonly classOf: Int32Array;
  readonly classes = new TopologyClasses();
  /** Free-memory trees per topology class and GPU position (see FreeIndex). */
  readonly freeIndex: FreeIndex;
  /** What each node's stale slots could free, per topology class and size (see StaleIndex). */
  readonly staleIndex: StaleIndex;
  private readonly ledger: Ledger;
  /** refresh's per-GPU scratch: memory held by the node's stale slots. */
  private readonly evictableScratch: Float64Array;

  /** The summaries and indexes of every node of `ledger`. */
  constructor(ledger: Ledger) {
    this.ledger = ledger;
    const count = ledger.nodeIds.length;
    // The indexes see planFree: GPUs in MIG mode never take a whole-GPU share (see Ledger.planFree).
    const { gpuStart, planFree: free } = ledger;
    this.nodeAllocated = new Float64Array(count);
    this.nodeLoad = new Float64Array(count);
    this.sortedFree = new Float64Array(free.length);
    this.nodeRank = new Int32Array(count);
    this.classOf = Int32Array.from(ledger.indices, (index, k) => this.classes.classOf(positionMatrix(ledger.topologies[k], index), index.length));
    const ids = ledger.nodeIds;
    ids
      .map((_, k) => k)
      .sort((a, b) => compareNatural(ids[a]!, ids[b]!))
      .forEach((k, r) => (this.nodeRank[k] = r));
    this.freeIndex = new FreeIndex({ gpuStart, free, sortedFree: this.sortedFree, nodeLoad: this.nodeLoad, nodeRank: this.nodeRank }, this.classOf, this.classes);
    this.staleIndex = new StaleIndex({ gpuStart, free }, this.classOf, this.classes.list.length);
    this.evictableScratch = new Float64Array(ledger.maxWidth);
    for (let k = 0; k < count; k++) this.refresh(k);
  }

  /** Pair-score matrix over node k's positions (null: no topology). */
  matrix(node: number): Int32Array | null {
    return this.classes.list[this.classOf[node]!]!.matrix;
  }

  /** Recomputes a node's summary: free memory per GPU largest first, allocated memory, what its stale slots hold. */
  refresh(node: number): void {
    const ledger = this.ledger;
    const start = ledger.gpuStart[node]!;
    const end = ledger.gpuStart[node + 1]!;
    const free = ledger.free;
    const planFree = ledger.planFree;
    const sorted = this.sortedFree;
    // The sum in position order (every GPU's memory, for the load); the sorted copy (what plans see) largest first.
    let freeSum = 0;
    for (let i = start; i < end; i++) {
      freeSum += free[i]!;
      sorted[i] = planFree[i]!;
    }
    sortLargestFirst(sorted, start, end);
    this.nodeAllocated[node] = ledger.nodeTotal[node]! - freeSum;
    this.nodeLoad[node] = ledger.nodeTotal[node]! > 0 ? this.nodeAllocated[node] / ledger.nodeTotal[node]! : 0;
    this.freeIndex.update(node);
    if (ledger.nodeStale[node] === 0) {
      this.staleIndex.update(node, null);
      return;
    }
    const evictable = this.evictableScratch;
    evictable.fill(0);
    for (const id of ledger.nodeSlots[node]!) {
      const r = ledger.record(node, id);
      if (r.slot.stale !== true) continue;
      for (const p of r.positions) evictable[p]! += r.slot.memoryPerGpu;
    }
    this.staleIndex.update(node, evictable);
  }
}
