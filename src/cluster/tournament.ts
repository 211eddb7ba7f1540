// The classes of the cluster state's per-class indexes (free-memory and stale-slot): one tree per
// topology class over the class's nodes, in shared/tournament.ts's layout (entry 1 the root, the
// children of entry t at 2t and 2t + 1, the leaves from L). What an entry holds and how two
// children are matched is up to each index. classOf's classes are below classCount: `!`.
import { leavesFor } from '../shared/tournament.js';

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
  for (let k = 0; k < classOf.length; k++) counts[classOf[k]!]!++;
  const members = Array.from(counts, (n) => new Int32Array(n));
  const leafOf = new Int32Array(classOf.length);
  counts.fill(0);
  for (let k = 0; k < classOf.length; k++) {
    const c = classOf[k]!;
    const at = counts[c]!;
    leafOf[k] = at;
    members[c]![at] = k;
    counts[c] = at + 1;
  }
  const leaves = Int32Array.from(members, (m) => leavesFor(m.length));
  return { members, leafOf, leaves };
}
