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
    for (let k = 0; k <= count[i] && k * sizes[i] <= room; k++) {
      pick[i] = k;
      walk(i + 1, room - k * sizes[i]);
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
  const value = configs.map((c) => c.reduce((a, k, i) => a + k * sizes[i], 0));
  const lines: string[] = ['Maximize', ' obj: ' + configs.map((_, j) => `${value[j]} x${j}`).join(' + '), 'Subject To'];
  lines.push(' bins: ' + configs.map((_, j) => `x${j}`).join(' + ') + ` <= ${bins}`);
  sizes.forEach((s, i) => {
    const terms = configs.map((c, j) => (c[i] > 0 ? `${c[i]} x${j}` : '')).filter((t) => t !== '');
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
    bins[r]--;
    bins[r - m]++;
    placed += m;
  }
  return placed;
}
