// The free-memory index of a cluster state: per topology class and GPU position j, a tournament tree
// over the class's nodes whose winner has the largest j-th largest free memory (then the lower load,
// then the node ID in natural order). A spread plan walks the trees of its sizes, best first, instead
// of scanning every node. Trees are built on first use and kept up to date on every change.

/** What the index reads about nodes (arrays owned by the cluster state, indexed by node or GPU). */
export type NodeTable = {
  /** Where each node's GPUs start (node count + 1 entries). */
  gpuStart: Int32Array;
  /** Each node's free memory per GPU, largest first, at the node's GPU offsets. */
  sortedFree: Float64Array;
  /** (memoryTotal − free) / memoryTotal of each node. */
  nodeLoad: Float64Array;
  /** Position of each node ID in natural order. */
  nodeRank: Int32Array;
};

/** Tournament trees per (class, position). */
export class FreeIndex {
  /** Nodes of each class, in node order. */
  private readonly members: Int32Array[];
  /** Leaf number of each node within its class. */
  private readonly leafOf: Int32Array;
  private readonly classOf: Int32Array;
  /** Leaves of each class's trees (a power of two ≥ its node count). */
  private readonly leaves: Int32Array;
  /** trees[c][j]: class c's tree of position j, or undefined until used. */
  private readonly trees: Array<Array<Int32Array | undefined>>;

  constructor(private readonly table: NodeTable, classOf: Int32Array, classCount: number) {
    this.classOf = classOf;
    const counts = new Int32Array(classCount);
    for (let k = 0; k < classOf.length; k++) counts[classOf[k]]++;
    this.members = Array.from(counts, (n) => new Int32Array(n));
    this.leafOf = new Int32Array(classOf.length);
    counts.fill(0);
    for (let k = 0; k < classOf.length; k++) {
      const c = classOf[k];
      this.leafOf[k] = counts[c];
      this.members[c][counts[c]++] = k;
    }
    this.leaves = Int32Array.from(this.members, (m) => {
      let L = 1;
      while (L < m.length) L *= 2;
      return L;
    });
    this.trees = this.members.map(() => []);
  }

  /** True when node a ranks before node b (b may be -1: none) in a tree of position j. */
  private before(j: number, a: number, b: number): boolean {
    if (b < 0) return true;
    const { sortedFree, gpuStart, nodeLoad, nodeRank } = this.table;
    const fa = sortedFree[gpuStart[a] + j];
    const fb = sortedFree[gpuStart[b] + j];
    if (fa !== fb) return fa > fb;
    const la = nodeLoad[a];
    const lb = nodeLoad[b];
    if (la !== lb) return la < lb;
    return nodeRank[a] < nodeRank[b];
  }

  private has(j: number, k: number): boolean {
    return this.table.gpuStart[k + 1] - this.table.gpuStart[k] > j;
  }

  /** Class c's tree of position j (built on first use). */
  tree(c: number, j: number): Int32Array {
    const list = this.trees[c];
    let tree = list[j];
    if (tree === undefined) {
      const L = this.leaves[c];
      const members = this.members[c];
      tree = new Int32Array(2 * L).fill(-1);
      for (let i = 0; i < members.length; i++) if (this.has(j, members[i])) tree[L + i] = members[i];
      for (let t = L - 1; t >= 1; t--) {
        const a = tree[2 * t];
        const b = tree[2 * t + 1];
        tree[t] = a < 0 ? b : this.before(j, a, b) ? a : b;
      }
      while (list.length <= j) list.push(undefined);
      list[j] = tree;
    }
    return tree;
  }

  /** Sets node k's leaf in class c's tree of position j (present, or -1 when `absent`) and replays the matches above it. */
  setLeaf(tree: Int32Array, j: number, k: number, absent = false): void {
    const c = this.classOf[k];
    let t = this.leaves[c] + this.leafOf[k];
    tree[t] = !absent && this.has(j, k) ? k : -1;
    for (t >>= 1; t >= 1; t >>= 1) {
      const a = tree[2 * t];
      const b = tree[2 * t + 1];
      tree[t] = a < 0 ? b : this.before(j, a, b) ? a : b;
    }
  }

  /** Node k changed (free memory or load): every built tree of its class replays its leaf. */
  update(k: number): void {
    const list = this.trees[this.classOf[k]];
    for (let j = 0; j < list.length; j++) {
      const tree = list[j];
      if (tree !== undefined) this.setLeaf(tree, j, k);
    }
  }

  /** Bytes held by the built trees (for the memory report). */
  bytes(): number {
    let b = this.leafOf.byteLength + this.classOf.byteLength;
    for (const m of this.members) b += m.byteLength;
    for (const list of this.trees) for (const t of list) if (t !== undefined) b += t.byteLength;
    return b;
  }
}
