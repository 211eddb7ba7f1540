// The simulator's pseudo-random numbers: mulberry32, a small 32-bit generator. The FGD protocol
// allows any PRNG (its Go runs are not bit-reproducible anyway); this one is the same on every
// platform, so a seed fixes a run.
// Index reads carry `!`: a shuffle swaps positions below the list's length.

/** A seeded stream of uniform numbers. */
export class Prng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** The next 32-bit unsigned integer. */
  nextU32(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** A uniform number in [0, 1). */
  float(): number {
    return this.nextU32() / 4294967296;
  }

  /** A uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** Fisher–Yates shuffle in place (from the last item down, like Go's rand.Shuffle). */
  shuffle<T>(items: T[]): void {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const t = items[i]!;
      items[i] = items[j]!;
      items[j] = t;
    }
  }

  /** A random permutation of 0..n-1. */
  perm(n: number): number[] {
    const p = Array.from({ length: n }, (_, i) => i);
    this.shuffle(p);
    return p;
  }
}
