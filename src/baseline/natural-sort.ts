// Natural order in TypeScript: the same keys as assembly/natural-sort.ts, compared on the strings.
import type { SortKernels } from '../devices/natural-sort.js';
import { compareNatural } from '../shared/natural-order.js';

/** The sort kernels in plain TypeScript. */
export function sortTsKernels(): SortKernels {
  return {
    naturalOrder(ids: readonly string[]): Int32Array {
      const order = new Int32Array(ids.length);
      for (let k = 0; k < order.length; k++) order[k] = k;
      // TypedArray sort is stable, so equal strings keep their input positions.
      order.sort((x, y) => compareNatural(ids[x]!, ids[y]!)); // positions of ids
      return order;
    },
  };
}
