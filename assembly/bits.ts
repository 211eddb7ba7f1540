// Small helpers the searches share. Not exported from the module (index.ts does not list it).

/**
 * C(n, k) as f64 (0 outside 0 <= k <= n): exact while it fits 2^53, and only ever compared with
 * search limits and budgets beyond that. src/shared/bits.ts binomial computes it the same way.
 */
export function binomial(n: i32, k: i32): f64 {
  if (k < 0 || k > n) return 0;
  let c: f64 = 1;
  for (let i = 1; i <= k; i++) c = (c * <f64>(n - k + i)) / <f64>i;
  return Math.round(c);
}

/**
 * Set a before set b in lexicographic order of their sorted members: the lowest member in which they
 * differ is a's (false for equal sets). For sets of one size that is the usual order; where sizes
 * differ, a set that is a proper prefix of the other (its members all lowest) comes after it, which
 * buildLive relies on to put a padded group after its full extensions. u32 or u64 masks.
 * src/shared/bits.ts lexBefore is the same rule.
 */
// @ts-ignore: decorator
@inline export function lexBefore<T>(a: T, b: T): bool {
  const d = a ^ b;
  return (d & (<T>0 - d) & a) != 0;
}

/** The smallest of an i32x4's four lanes. */
// @ts-ignore: decorator
@inline export function minLane(v: v128): i32 {
  const m = i32x4.min_s(v, i32x4.shuffle(v, v, 2, 3, 0, 1));
  return min<i32>(i32x4.extract_lane(m, 0), i32x4.extract_lane(m, 1));
}

/** The largest of an i32x4's four lanes. */
// @ts-ignore: decorator
@inline export function maxLane(v: v128): i32 {
  const m = i32x4.max_s(v, i32x4.shuffle(v, v, 2, 3, 0, 1));
  return max<i32>(i32x4.extract_lane(m, 0), i32x4.extract_lane(m, 1));
}

/** Writes the GPUs of a u64 mask to `out` in ascending order; returns how many. */
export function writeMask(mask: u64, out: usize): i32 {
  let k: i32 = 0;
  let m = mask;
  while (m != 0) {
    store<i32>(out + (<usize>k << 2), <i32>ctz(m));
    m &= m - 1;
    k++;
  }
  return k;
}
