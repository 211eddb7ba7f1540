// How many members of each node class are in each state (the cluster's state key of a node: its
// class, the devices it holds and can still give, the capacity its shares consume), so that a node
// search that has met some states can tell when every member of a class is in one of them and
// pass over the class at once instead of node by node. Kept up to date lazily: a node that changed
// is keyed again only when the counts are next asked for.

/** Members per state key, per class. Node numbers k and classes c are in range by construction (the cluster's). */
export class StateCounts {
  /** Per node: the key it is counted under (undefined: not counted yet). */
  private readonly counted: Array<string | undefined>;
  private readonly counts: Array<Map<string, number>>;
  /** Nodes changed since they were counted (every node at first). */
  private readonly stale = new Set<number>();

  constructor(
    private readonly classOf: Int32Array,
    classes: number,
    private readonly keyOf: (k: number) => string,
  ) {
    this.counted = new Array(classOf.length);
    this.counts = Array.from({ length: classes }, () => new Map());
    for (let k = 0; k < classOf.length; k++) this.stale.add(k);
  }

  /** Node k's state may have changed. */
  changed(k: number): void {
    this.stale.add(k);
  }

  /** Whether all `members` members of class c are in states `seen` accepts. */
  allIn(c: number, members: number, seen: (key: string) => boolean): boolean {
    for (const k of this.stale) {
      const counts = this.counts[this.classOf[k]!]!;
      const before = this.counted[k];
      if (before !== undefined) {
        const n = counts.get(before)! - 1; // counted under `before`
        if (n === 0) counts.delete(before);
        else counts.set(before, n);
      }
      const key = this.keyOf(k);
      this.counted[k] = key;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    this.stale.clear();
    let n = 0;
    for (const [key, count] of this.counts[c]!) if (seen(key)) n += count;
    return n === members;
  }
}
