// The share values of the 'fgd-lp' policy: what fraction of a GPU each share size of a workload is
// worth in an optimal fractional packing of its shares, from the configuration LP of bin packing
// (Gilmore–Gomory): minimize the GPUs used, Σ_c x_c, where a configuration c is a multiset of the
// workload's share sizes that fits one GPU (Σ ≤ 1000 milli) and every size s is covered, Σ_c c_s x_c
// ≥ n_s (its number of pods). Its dual, max Σ_s n_s y_s subject to Σ_s c_s y_s ≤ 1 for every
// configuration, prices each size: y_s is the share of a GPU a pod of size s costs when the whole
// workload is packed as tightly as fractions allow (an 810 costs a whole GPU, since nothing but the
// rare 160, 110 and 50 fits beside it; a 470 half of one; a 160 nothing: it fills holes that are
// lost anyway). The LP is solved here, in plain TypeScript, by constraint generation on the dual:
// a dense simplex tableau over the configurations found so far (each new one added by a few dual
// simplex pivots from the last optimum), and a knapsack over the sizes (at most as many of a size
// as the workload has) that finds the configuration the current prices violate most. Exact enough
// for its use: values are compared with a tolerance of 1e-9.
// Index reads carry `!`: every tableau row is as wide as the objective row, basis has an entry per
// row, and the knapsack tables span 0..1000 milli.
import { AllocationError } from '../../shared/errors.js';

/**
 * Sizes the LP prices at most: the most frequent share sizes of a workload (openb has 20 at most).
 * The LP's time grows quickly with them (tens of milliseconds for openb's 20 sizes, 2–5 s for 64–128
 * random sizes on a loaded 2-core VM); a share of a size beyond them is on plan wherever it goes
 * (planTables), so FGD's score places it.
 */
export const MAX_PRICED_SIZES = 32;

/** The MAX_PRICED_SIZES most frequent share sizes (milli, 1..999) of `pods` (a tie: the larger) and how many pods ask each, largest size first. */
export function shareCounts(pods: readonly { gpus: number; milli: number }[]): { sizes: number[]; counts: number[] } {
  const by = new Map<number, number>();
  for (const p of pods) if (p.gpus === 1 && p.milli > 0 && p.milli < 1000) by.set(p.milli, (by.get(p.milli) ?? 0) + 1);
  const kept = [...by.keys()].sort((a, b) => (by.get(b) as number) - (by.get(a) as number) || b - a).slice(0, MAX_PRICED_SIZES);
  const sizes = kept.sort((a, b) => b - a);
  return { sizes, counts: sizes.map((s) => by.get(s) as number) };
}

const EPS = 1e-9;

/**
 * The LP max c·y subject to A y ≤ 1 (each row of A a configuration's counts), y ≥ 0, as a simplex
 * tableau over y and one slack per row: rows `rows[i]` (coefficients, then the right-hand side
 * last), the objective row `cost` (reduced costs; the optimum has none above 0), `basis[i]` the
 * variable of row i. Rows (configurations) are added one at a time; each addition is restored to
 * the optimum by the dual simplex from the last optimum (warm start), so a solve costs a few pivots.
 */
class Tableau {
  private readonly rows: number[][] = [];
  private readonly basis: number[] = [];
  private readonly cost: number[];

  /** The LP over the first rows `start` (y = 0, all slacks basic, is feasible), solved by the primal simplex. */
  constructor(
    private readonly c: readonly number[],
    start: readonly (readonly number[])[],
  ) {
    const n = c.length;
    const m = start.length;
    this.cost = [...c, ...new Array<number>(m + 1).fill(0)];
    start.forEach((a, i) => {
      const row = new Array<number>(n + m + 1).fill(0);
      for (let j = 0; j < n; j++) row[j] = a[j]!;
      row[n + i] = 1;
      row[n + m] = 1;
      this.rows.push(row);
      this.basis.push(n + i);
    });
    this.primalSimplex();
  }

  /** Adds the constraint a·y ≤ 1 and re-optimizes. */
  add(a: readonly number[]): void {
    const n = this.c.length;
    // A new slack column (0 in every row so far), just before the right-hand side.
    for (const row of this.rows) row.splice(row.length - 1, 0, 0);
    this.cost.splice(this.cost.length - 1, 0, 0);
    const width = this.cost.length;
    const row = new Array<number>(width).fill(0);
    for (let j = 0; j < n; j++) row[j] = a[j]!;
    row[width - 2] = 1;
    row[width - 1] = 1;
    // In terms of the current non-basic variables: eliminate the basic ones.
    this.rows.forEach((r, i) => {
      const factor = row[this.basis[i]!]!;
      if (factor !== 0) for (let j = 0; j < width; j++) row[j]! -= factor * r[j]!;
    });
    this.rows.push(row);
    this.basis.push(width - 2);
    this.dualSimplex();
    this.primalSimplex();
  }

  private pivot(leave: number, enter: number): void {
    const width = this.cost.length;
    const p = this.rows[leave]!;
    const k = p[enter]!;
    for (let j = 0; j < width; j++) p[j]! /= k;
    const eliminate = (r: number[]): void => {
      const factor = r[enter]!;
      if (factor !== 0) for (let j = 0; j < width; j++) r[j]! -= factor * p[j]!;
    };
    this.rows.forEach((r, i) => i !== leave && eliminate(r));
    eliminate(this.cost);
    this.basis[leave] = enter;
  }

  /** Restores primal feasibility (no right-hand side below 0) keeping the reduced costs at most 0. */
  private dualSimplex(): void {
    const width = this.cost.length;
    for (let iteration = 0; iteration < 100000; iteration++) {
      let leave = -1;
      for (let i = 0; i < this.rows.length; i++) if (this.rows[i]![width - 1]! < -EPS && (leave < 0 || this.basis[i]! < this.basis[leave]!)) leave = i;
      if (leave < 0) return;
      let enter = -1;
      let ratio = Infinity;
      for (let j = 0; j < width - 1; j++) {
        const a = this.rows[leave]![j]!;
        if (a >= -EPS) continue;
        const r = Math.max(0, this.cost[j]!) / a;
        if (-r < ratio - EPS) {
          ratio = -r;
          enter = j;
        }
      }
      if (enter < 0) throw new AllocationError('INTERNAL', 'share values: the LP is infeasible (cannot happen: y = 0 is feasible)');
      this.pivot(leave, enter);
    }
    throw new AllocationError('INTERNAL', 'share values: the dual simplex did not converge');
  }

  /** Raises the objective while a reduced cost is above 0 (Bland's rule: no cycling). */
  private primalSimplex(): void {
    const width = this.cost.length;
    for (let iteration = 0; iteration < 100000; iteration++) {
      let enter = -1;
      for (let j = 0; j < width - 1 && enter < 0; j++) if (this.cost[j]! > EPS) enter = j;
      if (enter < 0) return;
      let leave = -1;
      let ratio = Infinity;
      for (let i = 0; i < this.rows.length; i++) {
        const a = this.rows[i]![enter]!;
        if (a <= EPS) continue;
        const r = this.rows[i]![width - 1]! / a;
        if (r < ratio - EPS || (Math.abs(r - ratio) <= EPS && this.basis[i]! < this.basis[leave]!)) {
          ratio = r;
          leave = i;
        }
      }
      if (leave < 0) throw new AllocationError('INTERNAL', 'share values: the LP is unbounded (a share size without its own configuration)');
      this.pivot(leave, enter);
    }
    throw new AllocationError('INTERNAL', 'share values: the simplex did not converge');
  }

  /** The current y (at least 0: a rounding error of the order of 1e-16 below it is cut). */
  solution(): number[] {
    const y = new Array<number>(this.c.length).fill(0);
    const width = this.cost.length;
    this.rows.forEach((r, i) => {
      if (this.basis[i]! < this.c.length) y[this.basis[i]!] = Math.max(0, r[width - 1]!);
    });
    return y;
  }
}

/** The configuration (at most counts[i] of size i, Σ ≤ 1000) of the highest Σ y, and that sum (a bounded knapsack over milli). */
function bestConfiguration(sizes: readonly number[], counts: readonly number[], y: readonly number[]): { config: number[]; value: number } {
  // best[r]: the highest value within r milli using the sizes seen so far; taken[i][r]: copies of size i taken there.
  let best = new Float64Array(1001);
  const taken: Int32Array[] = [];
  sizes.forEach((s, i) => {
    const next = new Float64Array(1001);
    const copies = new Int32Array(1001);
    const most = Math.min(counts[i]!, Math.floor(1000 / s));
    for (let r = 0; r <= 1000; r++) {
      next[r] = best[r]!;
      for (let k = 1; k <= most && k * s <= r; k++) {
        const v = best[r - k * s]! + k * y[i]!;
        if (v > next[r]! + EPS) {
          next[r] = v;
          copies[r] = k;
        }
      }
    }
    taken.push(copies);
    best = next;
  });
  const config = new Array<number>(sizes.length).fill(0);
  let r = 1000;
  for (let i = sizes.length - 1; i >= 0; i--) {
    config[i] = taken[i]![r]!;
    r -= config[i]! * sizes[i]!;
  }
  return { config, value: best[1000]! };
}

/**
 * The dual prices y_s of the configuration LP of `sizes` (milli, 1..999) with `counts` pods each: a
 * GPU's worth of each size in an optimal fractional packing. Constraint generation: start from each
 * size alone (as many copies as fit and the workload has), solve, add the configuration whose Σ y
 * exceeds 1 the most, until none does.
 */
export function sharePrices(sizes: readonly number[], counts: readonly number[]): number[] {
  if (sizes.length === 0) return [];
  const tableau = new Tableau(
    counts,
    sizes.map((s, i) => sizes.map((_, j) => (j === i ? Math.min(counts[i]!, Math.floor(1000 / s)) : 0))),
  );
  for (let round = 0; round < 100000; round++) {
    const y = tableau.solution();
    const { config, value } = bestConfiguration(sizes, counts, y);
    if (value <= 1 + EPS) return y;
    tableau.add(config);
  }
  throw new AllocationError('INTERNAL', 'share values: the configuration LP did not converge');
}

/**
 * The tables the kernels read for 'fgd-lp' (PLAN_SIZE f64 each, see src/fleet/layout.ts H_F_PLAN):
 * `value[r]` for r = 0..1000, the most a set of the workload's shares (any number of each size) that
 * fits r milli is worth at the prices y; and `price[m]` for m = 0..1000, the price of size m, or
 * value[1000] for a size the LP does not price (not in the workload, or beyond MAX_PRICED_SIZES):
 * no placement loses more than that, so such a share is on plan wherever it goes. A
 * share of m milli put on a GPU with v free is *on plan* when value[v] − price[m] − value[v − m] is
 * below 1e-9: the GPU's best completion at these prices still includes it (for a priced size the
 * loss is never below 0, since value is superadditive).
 */
export function planTables(pods: readonly { gpus: number; milli: number }[]): { value: Float64Array; price: Float64Array } {
  const { sizes, counts } = shareCounts(pods);
  const y = sharePrices(sizes, counts);
  const value = new Float64Array(1001);
  for (let r = 1; r <= 1000; r++) {
    let best = value[r - 1]!;
    for (let i = 0; i < sizes.length; i++) if (sizes[i]! <= r && value[r - sizes[i]!]! + y[i]! > best) best = value[r - sizes[i]!]! + y[i]!;
    value[r] = best;
  }
  // An unpriced size costs a whole GPU's worth: value[v] − value[v − m] never exceeds it, so such a share is on plan anywhere.
  const price = new Float64Array(1001).fill(value[1000]!);
  sizes.forEach((s, i) => (price[s] = y[i]!));
  return { value, price };
}
