// The stale-slot index of a cluster state: what evicting a node's stale slots could free. Per
// topology class and size n, a max tree over the class's nodes keyed by the n-th largest memory per
// GPU the node would have free after evicting every stale slot it holds (−Infinity for a node
// without stale slots or with fewer than n GPUs). Which slots a request may evict depends on its
// model (a slot of the same model is not evictable), so the key is an upper bound: a node whose key
// is below the share has no eviction option of n GPUs for any model, and the nodes at or above it
// are then checked exactly. A plan that needs eviction reads the roots to prove that no node can
// take the request, and otherwise walks down to the nodes that can, instead of visiting every node
// with a stale slot. Trees are built on first use and kept up to date on every change. Index reads
// are in range by construction (node numbers, leaves and tree entries this index lays out): `!`.

import { buildTree, replayAbove } from '../shared/tournament.js';
import { sortLargestFirst } from './sort.js';
import { classLeaves } from './tournament.js';

/** What the index reads about nodes (arrays owned by the cluster state). */
export type StaleTable = {
  /** Where each node's GPUs start (node count + 1 entries). */
  gpuStart: Int32Array;
  /** Free memory per GPU at the node's GPU offsets, by position. */
  free: Float64Array;
};

/** Max trees per (class, size) over each class's nodes. */
export class StaleIndex {
  /** Nodes of each class, in node order. */
  private readonly members: Int32Array[];
  /** Leaf number of each node within its class. */
  private readonly leafOf: Int32Array;
  /** Leaves of each class's trees (a power of two ≥ its node count). */
  private readonly leaves: Int32Array;
  /** trees[c][n]: class c's max tree of size n (entry 1 the root, leaves from `leaves[c]`), built on first use. */
  private readonly trees: Array<Array<Float64Array | undefined>>;
  /** Per GPU offset: free memory after evicting every stale slot of the node, largest first (nodes in the index only). */
  private readonly potential: Float64Array;
  /** 1 for nodes with at least one stale slot (their keys are finite). */
  private readonly inIndex: Uint8Array;
  /** Walk stack of collect. */
  private stack = new Int32Array(64);

  constructor(
    private readonly table: StaleTable,
    private readonly classOf: Int32Array,
    classCount: number,
  ) {
    ({ members: this.members, leafOf: this.leafOf, leaves: this.leaves } = classLeaves(classOf, classCount));
    this.trees = this.members.map(() => []);
    this.potential = new Float64Array(table.gpuStart[classOf.length]!);
    this.inIndex = new Uint8Array(classOf.length);
  }

  /** Node k's key in the tree of size n. */
  private key(n: number, k: number): number {
    const start = this.table.gpuStart[k]!;
    if (this.inIndex[k] === 0 || this.table.gpuStart[k + 1]! - start < n) return -Infinity;
    return this.potential[start + n - 1]!;
  }

  /** Class c's tree of size n (built on first use). */
  private tree(c: number, n: number): Float64Array {
    const bySize = this.trees[c]!;
    let tree = bySize[n];
    if (tree === undefined) {
      const L = this.leaves[c]!;
      const members = this.members[c]!;
      tree = new Float64Array(2 * L).fill(-Infinity);
      for (let m = 0; m < members.length; m++) tree[L + m] = this.key(n, members[m]!);
      buildTree(tree, L, Math.max);
      while (bySize.length <= n) bySize.push(undefined);
      bySize[n] = tree;
    }
    return tree;
  }

  /**
   * Node k changed. `evictable` is the memory per GPU position its stale slots hold (null: it holds
   * none); the node's keys in every built tree of its class follow.
   */
  update(k: number, evictable: Float64Array | null): void {
    if (evictable === null && this.inIndex[k] === 0) return;
    const { gpuStart, free } = this.table;
    const start = gpuStart[k]!;
    const N = gpuStart[k + 1]! - start;
    if (evictable === null) this.inIndex[k] = 0;
    else {
      this.inIndex[k] = 1;
      const p = this.potential;
      for (let q = 0; q < N; q++) p[start + q] = free[start + q]! + evictable[q]!;
      sortLargestFirst(p, start, start + N);
    }
    const c = this.classOf[k]!;
    const bySize = this.trees[c]!;
    const L = this.leaves[c]!;
    for (let n = 1; n < bySize.length; n++) {
      const tree = bySize[n];
      if (tree === undefined) continue;
      const t = L + this.leafOf[k]!;
      tree[t] = this.key(n, k);
      replayAbove(tree, t, Math.max);
    }
  }

  /** True when some node of class c could take `share` on n GPUs after evicting its stale slots. */
  any(c: number, n: number, share: number): boolean {
    return this.members[c]!.length > 0 && this.tree(c, n)[1]! >= share;
  }

  /** Appends to `out` every node of class c whose key of size n takes `share` (in leaf order). */
  collect(c: number, n: number, share: number, out: number[]): void {
    if (this.members[c]!.length === 0) return;
    const tree = this.tree(c, n);
    if (!(tree[1]! >= share)) return;
    const L = this.leaves[c]!;
    const members = this.members[c]!;
    let stack = this.stack;
    let top = 0;
    stack[top++] = 1;
    while (top > 0) {
      const t = stack[--top]!;
      if (t >= L) {
        out.push(members[t - L]!);
        continue;
      }
      if (top + 2 > stack.length) {
        const grown = new Int32Array(stack.length * 2);
        grown.set(stack);
        stack = this.stack = grown;
      }
      // Right first, so the left child is visited first.
      if (tree[2 * t + 1]! >= share) stack[top++] = 2 * t + 1;
      if (tree[2 * t]! >= share) stack[top++] = 2 * t;
    }
  }

  /** Bytes held by the built trees and the per-node arrays (for the memory report). */
  bytes(): number {
    let b = this.leafOf.byteLength + this.leaves.byteLength + this.potential.byteLength + this.inIndex.byteLength + this.stack.byteLength;
    for (const m of this.members) b += m.byteLength;
    for (const bySize of this.trees) for (const t of bySize) if (t !== undefined) b += t.byteLength;
    return b;
  }
}
