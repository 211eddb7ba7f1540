// The share values of the 'fgd-lp' policy: what fraction of a GPU each share size of a workload is
// worth in an optimal fractional packing of its shares, from the configuration LP of bin packing
// (Gilmore–Gomory): minimize the GPUs used, Σ_c x_c, where a configuration c is a multiset of the
// workload's share sizes that fits one GPU (Σ ≤ 1000 milli) and every size s is covered, Σ_c c_s x_c
// ≥ n_s (its number of pods). Its dual, max Σ_s n_s y_s subject to Σ_s c_s y_s ≤ 1 for every
// configuration, prices each size: y_s is the share of a GPU a pod of size s costs when the whole
// workload is packed as tightly as fractions allow (an 810 costs a whole GPU, since nothing but the
// rare 160, 110 and 50 fits beside it; a 470 half of one; a 160 nothing: it fills holes that are
// lost anyway). The LP is solved here, in plain TypeScript, by constraint generation on the dual:
// a dense simplex over the configurations found so far, and a knapsack over the sizes (at most as
// many of a size as the workload has) that finds the configuration the current prices violate
// most. Exact enough for its use: values are compared with a tolerance of 1e-9.

/** Share sizes (milli, 1..999) of `pods` and how many pods ask each, largest size first. */
export function shareCounts(pods: readonly { gpus: number; milli: number }[]): { sizes: number[]; counts: number[] } {
  const by = new Map<number, number>();
  for (const p of pods) if (p.gpus === 1 && p.milli > 0 && p.milli < 1000) by.set(p.milli, (by.get(p.milli) ?? 0) + 1);
  const sizes = [...by.keys()].sort((a, b) => b - a);
  return { sizes, counts: sizes.map((s) => by.get(s) as number) };
}

const EPS = 1e-9;

/**
 * max c·y subject to A y ≤ 1 (each row of A a configuration's counts), y ≥ 0, by the primal simplex
 * on the slack tableau (feasible at y = 0 since the right-hand sides are 1), Bland's rule (no
 * cycling). The rows include each size alone, so the LP is bounded. Returns y.
 */
function maximizeUnderConfigurations(c: readonly number[], rows: readonly number[][]): number[] {
  const m = rows.length;
  const n = c.length;
  const width = n + m + 1;
  // Tableau: m constraint rows (y's coefficients, slacks, right-hand side), then the objective row (reduced costs, −value).
  const t = new Float64Array((m + 1) * width);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) t[i * width + j] = rows[i][j];
    t[i * width + n + i] = 1;
    t[i * width + width - 1] = 1;
  }
  for (let j = 0; j < n; j++) t[m * width + j] = c[j];
  const basis = Array.from({ length: m }, (_, i) => n + i);
  for (let iteration = 0; iteration < 100000; iteration++) {
    let enter = -1;
    for (let j = 0; j < n + m; j++) {
      if (t[m * width + j] > EPS) {
        enter = j;
        break;
      }
    }
    if (enter < 0) break;
    let leave = -1;
    let ratio = Infinity;
    for (let i = 0; i < m; i++) {
      const a = t[i * width + enter];
      if (a <= EPS) continue;
      const r = t[i * width + width - 1] / a;
      if (r < ratio - EPS || (Math.abs(r - ratio) <= EPS && basis[i] < basis[leave])) {
        ratio = r;
        leave = i;
      }
    }
    if (leave < 0) throw new Error('share values: the LP is unbounded (a share size without its own configuration)');
    const pivot = t[leave * width + enter];
    for (let j = 0; j < width; j++) t[leave * width + j] /= pivot;
    for (let i = 0; i <= m; i++) {
      if (i === leave) continue;
      const factor = t[i * width + enter];
      if (factor === 0) continue;
      for (let j = 0; j < width; j++) t[i * width + j] -= factor * t[leave * width + j];
    }
    basis[leave] = enter;
  }
  const y = new Array<number>(n).fill(0);
  for (let i = 0; i < m; i++) if (basis[i] < n) y[basis[i]] = t[i * width + width - 1];
  return y;
}

/** The configuration (at most counts[i] of size i, Σ ≤ 1000) of the highest Σ y, and that sum (a bounded knapsack over milli). */
function bestConfiguration(sizes: readonly number[], counts: readonly number[], y: readonly number[]): { config: number[]; value: number } {
  // best[r]: the highest value within r milli using the sizes seen so far; from[i][r]: copies of size i taken there.
  let best = new Float64Array(1001);
  const taken: Int32Array[] = [];
  sizes.forEach((s, i) => {
    const next = new Float64Array(1001);
    const copies = new Int32Array(1001);
    const most = Math.min(counts[i], Math.floor(1000 / s));
    for (let r = 0; r <= 1000; r++) {
      next[r] = best[r];
      for (let k = 1; k <= most && k * s <= r; k++) {
        const v = best[r - k * s] + k * y[i];
        if (v > next[r] + EPS) {
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
    config[i] = taken[i][r];
    r -= config[i] * sizes[i];
  }
  return { config, value: best[1000] };
}

/**
 * The dual prices y_s of the configuration LP of `sizes` (milli, 1..999) with `counts` pods each: a
 * GPU's worth of each size in an optimal fractional packing. Constraint generation: start from each
 * size alone (as many copies as fit and the workload has), solve, add the configuration whose Σ y
 * exceeds 1 the most, until none does.
 */
export function sharePrices(sizes: readonly number[], counts: readonly number[]): number[] {
  if (sizes.length === 0) return [];
  const rows: number[][] = sizes.map((s, i) => sizes.map((_, j) => (j === i ? Math.min(counts[i], Math.floor(1000 / s)) : 0)));
  for (let round = 0; round < 10000; round++) {
    const y = maximizeUnderConfigurations(counts, rows);
    const { config, value } = bestConfiguration(sizes, counts, y);
    // Prices are at least 0; the simplex may leave a rounding error of the order of 1e-16 below it.
    if (value <= 1 + EPS) return y.map((v) => Math.max(0, v));
    rows.push(config);
  }
  throw new Error('share values: the configuration LP did not converge');
}

/**
 * The tables the kernels read for 'fgd-lp' (PLAN_SIZE f64 each, see src/fleet/layout.ts H_F_PLAN):
 * `value[r]` for r = 0..1000, the most a set of the workload's shares (any number of each size) that
 * fits r milli is worth at the prices y; and `price[m]` for m = 0..1000, the price of size m, or
 * value[m] for a size the workload does not have (so such a share is on plan wherever it goes). A
 * share of m milli put on a GPU with v free is *on plan* when value[v] − price[m] − value[v − m] is
 * below 1e-9 (it is never negative): the GPU's best completion at these prices still includes it.
 */
export function planTables(pods: readonly { gpus: number; milli: number }[]): { value: Float64Array; price: Float64Array } {
  const { sizes, counts } = shareCounts(pods);
  const y = sharePrices(sizes, counts);
  const value = new Float64Array(1001);
  for (let r = 1; r <= 1000; r++) {
    let best = value[r - 1];
    for (let i = 0; i < sizes.length; i++) if (sizes[i] <= r && value[r - sizes[i]] + y[i] > best) best = value[r - sizes[i]] + y[i];
    value[r] = best;
  }
  const price = Float64Array.from(value);
  sizes.forEach((s, i) => (price[s] = y[i]));
  return { value, price };
}
