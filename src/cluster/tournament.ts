// The tree layout shared by the cluster state's per-class indexes (free-memory and stale-slot): one
// tree per topology class over the class's nodes, stored as an array with entry 1 the root, the
// children of entry t at 2t and 2t + 1, and the leaves from L (a power of two ≥ the class's node
// count). What an entry holds and how two children are matched is up to each index.

/** Which class tree each node is a leaf of. */
export type ClassLeaves = {
  /** Nodes of each class, in node order. */
  members: Int32Array[];
  /** Leaf number of each node within its class. */
  leafOf: Int32Array;
  /** Leaves of each class's trees (a power of two ≥ its node count). */
  leaves: Int32Array;
};

/** Groups nodes by class (`classOf[k]` in 0..classCount-1) and sizes each class's trees. */
export function classLeaves(classOf: Int32Array, classCount: number): ClassLeaves {
  const counts = new Int32Array(classCount);
  for (let k = 0; k < classOf.length; k++) counts[classOf[k]]++;
  const members = Array.from(counts, (n) => new Int32Array(n));
  const leafOf = new Int32Array(classOf.length);
  counts.fill(0);
  for (let k = 0; k < classOf.length; k++) {
    const c = classOf[k];
    leafOf[k] = counts[c];
    members[c][counts[c]++] = k;
  }
  const leaves = Int32Array.from(members, (m) => {
    let L = 1;
    while (L < m.length) L *= 2;
    return L;
  });
  return { members, leafOf, leaves };
}

/** A tree's entries (Int32Array or Float64Array). */
type Entries = { [t: number]: number };

/** Plays every match of a tree whose leaves (from L) are set, bottom up. */
export function buildTree(tree: Entries, L: number, match: (a: number, b: number) => number): void {
  for (let t = L - 1; t >= 1; t--) tree[t] = match(tree[2 * t], tree[2 * t + 1]);
}

/** Replays the matches above entry t (a leaf that changed), up to the root. */
export function replayAbove(tree: Entries, t: number, match: (a: number, b: number) => number): void {
  for (t >>= 1; t >= 1; t >>= 1) tree[t] = match(tree[2 * t], tree[2 * t + 1]);
}
