// Small bit and counting helpers the TypeScript kernels share (the twins of assembly/bits.ts).

/** Bits set in a 32-bit integer. */
export function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/**
 * Set a before set b (32-bit masks) in lexicographic order of their sorted members: the lowest member
 * in which they differ is a's (false for equal sets). Where sizes differ, a proper prefix of the other
 * set comes after it. assembly/bits.ts lexBefore is the same rule.
 */
export function lexBefore(a: number, b: number): boolean {
  const d = a ^ b;
  return (d & -d & a) !== 0;
}

/** Position of the lowest set bit of a non-zero 32-bit integer. */
export function ctz(x: number): number {
  return 31 - Math.clz32(x & -x);
}

/**
 * C(n, k) (0 outside 0 <= k <= n): exact while it fits 2^53, and only ever compared with search
 * limits and budgets beyond that. assembly/bits.ts binomial computes it the same way.
 */
export function binomial(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let c = 1;
  for (let i = 1; i <= k; i++) c = (c * (n - k + i)) / i;
  return Math.round(c);
}
