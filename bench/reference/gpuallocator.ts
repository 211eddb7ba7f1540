// A straightforward port of go-gpuallocator's BestEffort policy (NVIDIA/go-gpuallocator,
// gpuallocator/besteffort_policy.go): enumerate every partition of the available GPUs into groups of
// `size`, score each, keep the first best. This is the upstream cost the benchmark compares against,
// and the naive oracle the tests check the fast subset DP with.

/** Options of bestEffortReference. */
export type ReferenceOptions = {
  /**
   * true (default): never return a group holding padding, and only count unpadded groups as the one
   * holding the required GPUs (gpualloc's rule). false: upstream as is, defect included.
   */
  fixPadding?: boolean;
  /** Stop after this many partitions (a bounded sample for timing); the result is then the best so far. */
  maxPartitions?: number;
};

/** What the reference returns: the group (GPU indices in the caller's order), and how many partitions it scored. */
export type ReferenceResult = { devices: number[]; partitions: number; complete: boolean };

/**
 * BestEffort by partition enumeration. `matrix` is the n×n pair-score matrix (row-major) of a node
 * with `gpus` GPUs; `available` is in the caller's order (it drives the enumeration order).
 */
export function bestEffortReference(matrix: Int32Array, gpus: number, available: readonly number[], required: readonly number[], size: number, options: ReferenceOptions = {}): ReferenceResult {
  const fix = options.fixPadding ?? true;
  const limit = options.maxPartitions ?? Number.POSITIVE_INFINITY;
  if (size <= 0 || available.length < size || required.length > size) return { devices: [], partitions: 0, complete: true };
  if (!required.every((g) => available.includes(g))) return { devices: [], partitions: 0, complete: true };

  // Positions 0..n-1 are the available GPUs; n..total-1 are padding (null devices upstream).
  const n = available.length;
  const padding = (size - (n % size)) % size;
  const total = n + padding;
  const isPad = (p: number) => p >= n;
  const pairScore = (p: number, q: number) => (isPad(p) || isPad(q) ? 0 : matrix[available[p]! * gpus + available[q]!]!);
  const setScore = (group: readonly number[]) => {
    let s = 0;
    for (let a = 0; a < group.length; a++) for (let b = a + 1; b < group.length; b++) s += pairScore(group[a]!, group[b]!);
    return s;
  };
  const requiredPositions = required.map((g) => available.indexOf(g));
  const holdsRequired = (group: readonly number[]) => requiredPositions.every((p) => group.includes(p)) && (!fix || !group.some(isPad));

  let bestPartition: number[][] | null = null;
  let bestScore = 0;
  let partitions = 0;
  let stopped = false;

  const visit = (partition: number[][]) => {
    partitions++;
    if (partitions >= limit) stopped = true;
    if (!partition.some(holdsRequired)) return;
    let score = 0;
    for (const group of partition) score += setScore(group);
    if (bestPartition === null || score > bestScore) {
      bestPartition = partition;
      bestScore = score;
    }
  };

  // Every combination of `k` items of `items`, in lexicographic position order.
  const combinations = (items: readonly number[], k: number, from: number, picked: number[], emit: (c: number[]) => void) => {
    if (stopped) return;
    if (picked.length === k) {
      emit(picked.slice());
      return;
    }
    for (let i = from; i <= items.length - (k - picked.length); i++) {
      picked.push(items[i]!);
      combinations(items, k, i + 1, picked, emit);
      picked.pop();
      if (stopped) return;
    }
  };

  const iterate = (remaining: readonly number[], accum: number[][]) => {
    if (stopped) return;
    if (remaining.length === size) {
      visit([...accum, remaining.slice()]);
      return;
    }
    combinations(remaining.slice(1), size - 1, 0, [], (combo) => {
      const group = [remaining[0]!, ...combo]; // more than `size` remain here
      // All padding sits in one group.
      const pads = group.filter(isPad).length;
      if (pads > 0 && pads !== padding) return;
      iterate(
        remaining.filter((p) => !group.includes(p)),
        [...accum, group],
      );
    });
  };

  iterate(
    Array.from({ length: total }, (_, p) => p),
    [],
  );

  let bestSet: number[] | null = null;
  let bestSetScore = 0;
  for (const group of (bestPartition as number[][] | null) ?? []) {
    if (!holdsRequired(group)) continue;
    const s = setScore(group);
    if (bestSet === null || s > bestSetScore) {
      bestSet = group;
      bestSetScore = s;
    }
  }
  // Upstream returns the devices of the group; a padded group (fixPadding false) loses its empty slots here.
  const devices = (bestSet ?? []).filter((p) => !isPad(p)).map((p) => available[p]!);
  return { devices, partitions, complete: !stopped };
}
