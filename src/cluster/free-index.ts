// The free-memory index of a cluster state. Per topology class, size n and score level (see
// TopologyClasses.levels), a tournament tree over the class's nodes keyed by what the level's best
// set keeps free: the largest, over the level's sets, of the smallest free memory in the set (for a
// level without set list, the n-th largest free memory of the node); then the lower load, then the
// node ID in natural order. A node's option of that level with n GPUs exists exactly when its key
// takes the share, and the best one keeps key − share on its fullest GPU. A spread plan walks the
// trees of its sizes best first instead of scanning every node. Trees are built on first use and
// kept up to date on every change. Index reads are in range by construction (node numbers, leaves
// and tree entries this index lays out; arrays sized with them), so they carry `!`.
import { ctz } from '../shared/bits.js';
import type { ScoreLevel, TopologyClasses } from './classes.js';
import { classLeaves } from './tournament.js';

/** What the index reads about nodes (arrays owned by the cluster state, indexed by node or GPU). */
export type NodeTable = {
  /** Where each node's GPUs start (node count + 1 entries). */
  gpuStart: Int32Array;
  /** Free memory per GPU at the node's GPU offsets, by position. */
  free: Float64Array;
  /** Each node's free memory per GPU, largest first, at the node's GPU offsets. */
  sortedFree: Float64Array;
  /** (memoryTotal − free) / memoryTotal of each node. */
  nodeLoad: Float64Array;
  /** Position of each node ID in natural order. */
  nodeRank: Int32Array;
};

/** One tree: a score level of one class and size. */
export type LevelTree = {
  level: ScoreLevel;
  n: number;
  /** Each member's key (−Infinity: not in the tree, fewer than n GPUs). */
  keys: Float64Array;
  /** Winners: entry 1 is the root; leaves from `leaves`; node numbers or -1. */
  win: Int32Array;
};

/** Score-level trees per (class, size). */
export class FreeIndex {
  /** Nodes of each class, in node order. */
  private readonly members: Int32Array[];
  /** Leaf number of each node within its class. */
  private readonly leafOf: Int32Array;
  /** Leaves of each class's trees (a power of two ≥ its node count). */
  private readonly leaves: Int32Array;
  /** trees[c][n][i]: class c's tree of size n and level i, built on first use. */
  private readonly trees: Array<Array<Array<LevelTree | undefined> | undefined>>;

  constructor(
    private readonly table: NodeTable,
    private readonly classOf: Int32Array,
    private readonly classes: TopologyClasses,
  ) {
    ({ members: this.members, leafOf: this.leafOf, leaves: this.leaves } = classLeaves(classOf, classes.list.length));
    this.trees = this.members.map(() => []);
  }

  /** Nodes in class c. */
  size(c: number): number {
    return this.members[c]!.length;
  }

  /** Node k's key in a tree of `level` and size n. */
  private key(level: ScoreLevel, n: number, k: number): number {
    const { gpuStart, free, sortedFree } = this.table;
    const start = gpuStart[k]!;
    if (gpuStart[k + 1]! - start < n) return -Infinity;
    const sets = level.sets;
    if (sets === null) return sortedFree[start + n - 1]!;
    let best = -Infinity;
    for (let q = 0; q < sets.length; q += 2) {
      let min = Infinity;
      for (let m = sets[q]!; m !== 0; m &= m - 1) {
        const f = free[start + ctz(m)]!;
        if (f < min) min = f;
      }
      if (min > best) best = min;
    }
    return best;
  }

  /** True when member leaf a ranks before leaf b (b may be -1: none) in `tree`. */
  private before(tree: LevelTree, a: number, b: number): boolean {
    if (b < 0) return true;
    const fa = tree.keys[this.leafOf[a]!]!;
    const fb = tree.keys[this.leafOf[b]!]!;
    if (fa !== fb) return fa > fb;
    const { nodeLoad, nodeRank } = this.table;
    const la = nodeLoad[a]!;
    const lb = nodeLoad[b]!;
    if (la !== lb) return la < lb;
    return nodeRank[a]! < nodeRank[b]!;
  }

  /** Plays the match at inner entry t of `tree`: the better of its two children's winners. */
  private play(tree: LevelTree, t: number): void {
    const win = tree.win;
    const a = win[2 * t]!;
    const b = win[2 * t + 1]!;
    win[t] = a < 0 ? b : this.before(tree, a, b) ? a : b;
  }

  /** Class c's tree of size n and level i (built on first use). */
  tree(c: number, n: number, i: number): LevelTree {
    const bySize = this.trees[c]!;
    let byLevel = bySize[n];
    if (byLevel === undefined) {
      while (bySize.length <= n) bySize.push(undefined);
      byLevel = bySize[n] = [];
    }
    let tree = byLevel[i];
    if (tree === undefined) {
      const level = this.classes.levels(c, n)[i]!;
      const L = this.leaves[c]!;
      const members = this.members[c]!;
      const keys = new Float64Array(members.length);
      const win = new Int32Array(2 * L).fill(-1);
      tree = { level, n, keys, win };
      for (let m = 0; m < members.length; m++) {
        keys[m] = this.key(level, n, members[m]!);
        if (keys[m]! > -Infinity) win[L + m] = members[m]!;
      }
      // The matches are played inline, not through shared/tournament.ts's buildTree / replayAbove: a match
      // closure per tree on this hot path gave a higher p99 in quick cluster bench runs.
      for (let t = L - 1; t >= 1; t--) this.play(tree, t);
      while (byLevel.length <= i) byLevel.push(undefined);
      byLevel[i] = tree;
    }
    return tree;
  }

  /** Sets node k's leaf in `tree` (present unless `absent` or its key is −Infinity) and replays the matches above it. */
  setLeaf(tree: LevelTree, k: number, absent = false): void {
    const m = this.leafOf[k]!;
    const win = tree.win;
    let t = this.leaves[this.classOf[k]!]! + m;
    win[t] = !absent && tree.keys[m]! > -Infinity ? k : -1;
    for (t >>= 1; t >= 1; t >>= 1) this.play(tree, t);
  }

  /** Node k's key in `tree` (as kept up to date). */
  keyOf(tree: LevelTree, k: number): number {
    return tree.keys[this.leafOf[k]!]!;
  }

  /** Node k changed (free memory or load): every built tree of its class recomputes its key and replays its leaf. */
  update(k: number): void {
    const bySize = this.trees[this.classOf[k]!]!;
    const m = this.leafOf[k]!;
    for (let n = 0; n < bySize.length; n++) {
      const byLevel = bySize[n];
      if (byLevel === undefined) continue;
      for (const tree of byLevel) {
        if (tree === undefined) continue;
        tree.keys[m] = this.key(tree.level, n, k);
        this.setLeaf(tree, k);
      }
    }
  }

  /** Bytes held by the built trees and the membership arrays (for the memory report). */
  bytes(): number {
    let b = this.leafOf.byteLength + this.classOf.byteLength + this.leaves.byteLength;
    for (const m of this.members) b += m.byteLength;
    for (const bySize of this.trees) for (const byLevel of bySize) for (const t of byLevel ?? []) if (t !== undefined) b += t.keys.byteLength + t.win.byteLength;
    return b;
  }
}
