// Which members of each node class are in each state (the cluster's state key of a node: its
// class, the devices it holds and can still give, the capacity its shares consume), so that a node
// search that has met some states can tell when every member of a class is in one of them, or in a
// state that cannot take the pod at all, and pass over the class at once instead of node by node.
// Kept up to date lazily: a node that changed is keyed again only when the states are next asked for.

/** How a search sees one state: met already, unable to take the pod (the index's counts), or neither. */
export type StateVerdict = 'seen' | 'out' | 'open';

/** Members per state key, per class. Node numbers k and classes c are in range by construction (the cluster's). */
export class StateCounts {
  /** Per node: the key it is counted under (undefined: not counted yet). */
  private readonly counted: Array<string | undefined>;
  private readonly members: Array<Map<string, Set<number>>>;
  /** Nodes changed since they were counted (every node at first). */
  private readonly stale = new Set<number>();

  constructor(
    private readonly classOf: Int32Array,
    classes: number,
    private readonly keyOf: (k: number) => string,
  ) {
    this.counted = new Array(classOf.length);
    this.members = Array.from({ length: classes }, () => new Map());
    for (let k = 0; k < classOf.length; k++) this.stale.add(k);
  }

  /** Node k's state may have changed. */
  changed(k: number): void {
    this.stale.add(k);
  }

  /**
   * Class c's members by how `verdict` sees their state (asked once per state, with one member in
   * it): how many are in states met and how many in states that cannot take the pod; the rest are open.
   */
  tally(c: number, verdict: (key: string, member: number) => StateVerdict): { seen: number; out: number } {
    for (const k of this.stale) {
      const states = this.members[this.classOf[k]!]!;
      const before = this.counted[k];
      if (before !== undefined) {
        const set = states.get(before)!; // counted under `before`
        set.delete(k);
        if (set.size === 0) states.delete(before);
      }
      const key = this.keyOf(k);
      this.counted[k] = key;
      const set = states.get(key);
      if (set === undefined) states.set(key, new Set([k]));
      else set.add(k);
    }
    this.stale.clear();
    let seen = 0;
    let out = 0;
    for (const [key, set] of this.members[c]!) {
      const v = verdict(key, set.values().next().value as number);
      if (v === 'seen') seen += set.size;
      else if (v === 'out') out += set.size;
    }
    return { seen, out };
  }
}

/** A node's n bit words from `from`, as part of its state key. */
export function words(bits: Uint32Array, from: number, n: number): string {
  let s = '';
  for (let w = 0; w < n; w++) s += `${bits[from + w]!.toString(36)},`;
  return s;
}
