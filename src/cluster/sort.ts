// The cluster state's per-node sort: free memory per GPU, largest first.

/**
 * Sorts a[start..end) largest first, in place (insertion sort: a node has at most 64 GPUs, and it
 * allocates nothing on the hot paths that call it).
 */
export function sortLargestFirst(a: Float64Array, start: number, end: number): void {
  for (let i = start + 1; i < end; i++) {
    const x = a[i]!;
    let j = i - 1;
    while (j >= start && a[j]! < x) {
      a[j + 1] = a[j]!;
      j--;
    }
    a[j + 1] = x;
  }
}
