// The upper bound of bench/fleet-bound.ts as functions (tested in test/research/fleet-upper-bound.test.ts):
// the most GPU milli that any placement of a set of pods can allocate on a fleet's GPUs, relaxed to
// loose GPUs (no nodes, no CPU, memory or GPU-model limits; each relaxation only raises the bound).
// Whole-GPU pods fill their GPUs exactly, so an optimal packing places all of them while there are
// GPUs (swapping a placed whole-GPU pod for shares never gains); the shares then go into the other
// GPUs, at most the optimum of the configuration LP (Gilmore–Gomory): a variable per multiset of
// share sizes that fits one GPU (sum ≤ 1000), at most `bins` GPUs in all, at most n_i shares of size i.
import highsLoader from 'highs';
import type { Pod } from '../src/fleet/types.js';

/** HiGHS's one-shot solver (the `highs` package's loaded module). */
export type Solver = Awaited<ReturnType<(typeof highsLoader)['default']>>;

/**
 * Loads HiGHS. `highs` is a CommonJS package whose types say `export default`: under NodeNext
 * TypeScript types the default import as the module object, while Node's ESM import gives the loader.
 */
export async function loadSolver(): Promise<Solver> {
  return (highsLoader as unknown as (typeof highsLoader)['default'])();
}

/** Every multiset of the sizes (at most count[i] of size i, at least one share) whose sum is at most 1000, as count vectors. */
export function configurations(sizes: readonly number[], count: readonly number[]): number[][] {
  const all: number[][] = [];
  const pick = new Array<number>(sizes.length).fill(0);
  const walk = (i: number, room: number) => {
    if (i === sizes.length) {
      if (pick.some((k) => k > 0)) all.push([...pick]);
      return;
    }
    for (let k = 0; k <= count[i]! && k * sizes[i]! <= room; k++) {
      pick[i] = k;
      walk(i + 1, room - k * sizes[i]!);
    }
    pick[i] = 0;
  };
  walk(0, 1000);
  return all;
}

/** The configuration LP's optimum: at least the most share milli (shares in 1..999) that fits `bins` GPUs. */
export function shareBound(solver: Solver, shares: readonly number[], bins: number): { milli: number; configurations: number } {
  if (bins <= 0 || shares.length === 0) return { milli: 0, configurations: 0 };
  const bySize = new Map<number, number>();
  for (const m of shares) bySize.set(m, (bySize.get(m) ?? 0) + 1);
  const sizes = [...bySize.keys()].sort((a, b) => b - a);
  const count = sizes.map((s) => bySize.get(s) as number);
  const configs = configurations(sizes, count);
  const value = configs.map((c) => c.reduce((a, k, i) => a + k * sizes[i]!, 0));
  const lines: string[] = ['Maximize', ' obj: ' + configs.map((_, j) => `${value[j]} x${j}`).join(' + '), 'Subject To'];
  lines.push(' bins: ' + configs.map((_, j) => `x${j}`).join(' + ') + ` <= ${bins}`);
  sizes.forEach((s, i) => {
    const terms = configs.map((c, j) => (c[i]! > 0 ? `${c[i]} x${j}` : '')).filter((t) => t !== '');
    lines.push(` size${s}: ${terms.join(' + ')} <= ${count[i]}`);
  });
  lines.push('End');
  const solution = solver.solve(lines.join('\n'));
  if (solution.Status !== 'Optimal') throw new Error(`HiGHS: ${solution.Status}`);
  return { milli: solution.ObjectiveValue, configurations: configs.length };
}

/** At least the most GPU milli any placement of `pods` on `gpus` GPUs allocates (never more than the pods ask). */
export function allocationBound(solver: Solver, pods: readonly Pod[], gpus: number): { milli: number; configurations: number } {
  let whole = 0;
  let total = 0;
  const shares: number[] = [];
  for (const p of pods) {
    total += p.gpus * p.milli;
    if (p.gpus === 0 || p.milli === 0) continue;
    if (p.milli === 1000) whole += p.gpus;
    else shares.push(p.milli);
  }
  const placedWhole = Math.min(whole, gpus);
  const s = shareBound(solver, shares, gpus - placedWhole);
  return { milli: Math.min(total, placedWhole * 1000 + s.milli), configurations: s.configurations };
}

/**
 * What a clairvoyant offline best-fit-decreasing packing allocates under the same relaxation (loose
 * GPUs, whole-GPU pods first (largest first, each whole or not at all), then the shares largest first, each into the GPU it leaves with the
 * least room): a feasible packing of the relaxation, so at most allocationBound. For scale only.
 */
export function bestFitDecreasing(pods: readonly Pod[], gpus: number): number {
  const whole: number[] = [];
  const shares: number[] = [];
  for (const p of pods) {
    if (p.gpus === 0 || p.milli === 0) continue;
    if (p.milli === 1000) whole.push(p.gpus);
    else shares.push(p.milli);
  }
  // Whole-GPU pods largest first, each only when all its GPUs are left.
  let placedWhole = 0;
  for (const k of whole.sort((a, b) => b - a)) if (placedWhole + k <= gpus) placedWhole += k;
  // GPUs by room left: bins[r] = how many GPUs have r milli free.
  const bins = new Array<number>(1001).fill(0);
  bins[1000] = gpus - placedWhole;
  let placed = placedWhole * 1000;
  for (const m of shares.sort((a, b) => b - a)) {
    let r = m;
    while (r <= 1000 && bins[r] === 0) r++;
    if (r > 1000) continue;
    bins[r]!--;
    bins[r - m]!++;
    placed += m;
  }
  return placed;
}

/**
 * The must-place bound: the most GPU milli a policy allocates, under the same relaxation (loose GPUs),
 * when it must place every pod that fits, as the protocol's scheduler does (a pod is dropped only when
 * no GPU has room). Clairvoyant (it knows the order), so it bounds every online policy too. Let τ be
 * the first arrival that finds no wholly free GPU; GPUs only fill up, so none is free after it either.
 * Before τ every share and every one-GPU pod fits a free GPU, so each is placed; a multi-GPU pod may
 * find too few free GPUs together (optional). From τ on, whole-GPU pods fail, and a share is
 * relaxed to optional (it must be placed only where some GPU has room). For a fixed τ the best
 * placement is at most a configuration LP: at least F_s shares of size s (those before τ), at most
 * all of them, whole GPUs before τ, `gpus` GPUs in all. The bound is the maximum over τ, found by
 * branch and bound over ranges [a, b] of τ: the LP with the shares before a forced and the whole GPUs
 * before b counted bounds every τ in the range, so a range whose LP is no better than the best single
 * τ found is dropped. `order`: the pods in arrival order. Returns the milli and the maximizing τ.
 */
export function mustPlaceBound(solver: Solver, order: readonly Pod[], gpus: number): { milli: number; tau: number; solves: number } {
  const sizes = [...new Set(order.filter((p) => p.gpus === 1 && p.milli > 0 && p.milli < 1000).map((p) => p.milli))].sort((a, b) => b - a);
  const index = new Map(sizes.map((s, i) => [s, i]));
  const total = sizes.map(() => 0);
  for (const p of order) if (index.has(p.milli) && p.gpus === 1) total[index.get(p.milli) as number]!++;
  const configs = configurations(sizes, total);
  const value = configs.map((c) => c.reduce((a, k, i) => a + k * sizes[i]!, 0));
  const objective = ` obj: 1000 w${configs.map((_, j) => ` + ${value[j]} x${j}`).join('')}`;
  const columns = sizes.map((_, i) =>
    configs
      .map((c, j) => (c[i]! > 0 ? `${c[i]} x${j}` : ''))
      .filter((t) => t !== '')
      .join(' + '),
  );
  const binsRow = configs.map((_, j) => ` + x${j}`).join('');
  // Prefix counts: shares of each size, one-GPU pods, GPUs of multi-GPU pods, among the first t pods.
  const shares: number[][] = [sizes.map(() => 0)];
  const single = [0];
  const multi = [0];
  for (const p of order) {
    // The three prefix lists start with one row and grow together.
    const s = [...shares[shares.length - 1]!];
    let one = single[single.length - 1]!;
    let many = multi[multi.length - 1]!;
    if (p.gpus === 1 && index.has(p.milli))
      s[index.get(p.milli) as number]!++; // a size of `sizes`: s has one entry per size
    else if (p.milli === 1000 && p.gpus === 1) one++;
    else if (p.milli === 1000) many += p.gpus;
    shares.push(s);
    single.push(one);
    multi.push(many);
  }
  let solves = 0;
  /** The LP bounding every τ in [a, b] (−∞ where infeasible). */
  const lp = (a: number, b: number): number => {
    solves++;
    const forced = single[a]!;
    const lines = ['Maximize', objective, 'Subject To', ` bins: w${binsRow} <= ${gpus - forced}`];
    sizes.forEach((s, i) => {
      if (columns[i] === '') return; // a size that fits no GPU alone (never on these traces)
      if (shares[a]![i]! > 0) lines.push(` lo${s}: ${columns[i]} >= ${shares[a]![i]}`);
      lines.push(` hi${s}: ${columns[i]} <= ${total[i]}`);
    });
    lines.push('Bounds', ` 0 <= w <= ${single[b]! - single[a]! + multi[b]!}`, 'End');
    if (gpus - forced < 0) return Number.NEGATIVE_INFINITY;
    const solution = solver.solve(lines.join('\n'));
    if (solution.Status === 'Infeasible') return Number.NEGATIVE_INFINITY;
    if (solution.Status !== 'Optimal') throw new Error(`HiGHS: ${solution.Status}`);
    return forced * 1000 + solution.ObjectiveValue;
  };
  const n = order.length;
  let best = lp(n, n);
  let tau = n;
  const stack: Array<[number, number]> = [];
  const width = Math.max(1, Math.ceil(n / 64));
  for (let a = 0; a <= n; a += width) stack.push([a, Math.min(n, a + width - 1)]);
  while (stack.length > 0) {
    const [a, b] = stack.pop() as [number, number];
    const bound = lp(a, b);
    if (bound <= best + 1e-6) continue;
    if (a === b) {
      best = bound;
      tau = a;
      continue;
    }
    const mid = (a + b) >> 1;
    stack.push([mid + 1, b], [a, mid]);
  }
  return { milli: best, tau, solves };
}
