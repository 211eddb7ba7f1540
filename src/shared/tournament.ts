// Tournament trees stored as arrays, the one layout the cluster state's indexes (free memory, stale
// slots) and the DRA cluster's node index share: entry 1 is the root, the children of entry t are
// 2t and 2t + 1, and the leaves start at L, a power of two at least the number of players. What an
// entry holds and how two children are matched is up to each tree.

/** A tree's entries (Int32Array or Float64Array): 2L of them, so the children of every t < L are in range. */
type Entries = { [t: number]: number };

/** The first leaf (L) of a tree over `players` players: the least power of two ≥ players (1 for none). */
export function leavesFor(players: number): number {
  let L = 1;
  while (L < players) L *= 2;
  return L;
}

/** Plays every match of a tree whose leaves (from L) are set, bottom up. */
export function buildTree(tree: Entries, L: number, match: (a: number, b: number) => number): void {
  for (let t = L - 1; t >= 1; t--) tree[t] = match(tree[2 * t]!, tree[2 * t + 1]!);
}

/** Replays the matches above entry t (a leaf that changed), up to the root. */
export function replayAbove(tree: Entries, t: number, match: (a: number, b: number) => number): void {
  for (t >>= 1; t >= 1; t >>= 1) tree[t] = match(tree[2 * t]!, tree[2 * t + 1]!);
}
