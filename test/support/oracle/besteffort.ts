// The naive BestEffort oracle: go-gpuallocator's partition enumeration (bench/reference), with
// gpualloc's padding fix, returning GPU indices in ascending order like allocateAligned.
import { bestEffortReference } from '../../../bench/reference/gpuallocator.js';
import { pairScoreMatrix, type Topology } from '../../../src/hardware/topology.js';

/** The GPUs BestEffort picks by enumerating every partition (ascending), or [] when infeasible. */
export function naiveBestEffort(topology: Topology, available: number[], required: number[], size: number): number[] {
  const matrix = pairScoreMatrix(topology);
  return bestEffortReference(matrix, topology.gpus, available, required, size).devices.sort((a, b) => a - b);
}

/**
 * The same answer as naiveBestEffort by a memoised search over the positions left (a set of
 * positions, padding included), written from the reference's rules rather than from the engine's
 * method: value(left) = the best over the groups the reference would form next (the first position
 * left plus every combination of size-1 later ones, all padding in one group) of the group's score
 * plus value(left without it); the winner is the first group in that order reaching the best, at
 * every step. Fast enough for 16-GPU nodes, where the enumeration is not.
 */
export function dpBestEffort(topology: Topology, available: number[], required: number[], size: number): number[] {
  const matrix = pairScoreMatrix(topology);
  const gpus = topology.gpus;
  const n = available.length;
  if (size <= 0 || n < size || required.length > size) return [];
  const padding = (size - (n % size)) % size;
  const total = n + padding;
  const requiredMask = required.reduce((m, g) => m | (1 << available.indexOf(g)), 0);
  const padMask = 2 ** total - 1 - (2 ** n - 1);
  const members = (mask: number) => {
    const out: number[] = [];
    for (let p = 0; p < total; p++) if (mask & (1 << p)) out.push(p);
    return out;
  };
  const score = (group: number[]) => {
    let s = 0;
    for (let a = 0; a < group.length; a++) for (let b = a + 1; b < group.length; b++) if (group[a] < n && group[b] < n) s += matrix[available[group[a]] * gpus + available[group[b]]];
    return s;
  };
  // A group the required GPUs can still be completed with: all of them and no padding, or none of them.
  const allowed = (mask: number) => {
    const hit = mask & requiredMask;
    return hit === 0 || (hit === requiredMask && (mask & padMask) === 0);
  };
  // Next groups in the reference's order: the first position left plus combinations of later ones,
  // where a combination takes either no padding or all of it (padding sorts last, so taking it ends
  // the combination: the generation order is unchanged, only combinations the reference drops are skipped).
  const nextGroups = (left: number): number[] => {
    const rest = members(left);
    const first = rest.shift() as number;
    const pads = rest.filter((p) => p >= n).length;
    const groups: number[] = [];
    const pick = (from: number, need: number, mask: number) => {
      if (need === 0) {
        if (allowed(mask)) groups.push(mask);
        return;
      }
      for (let i = from; i <= rest.length - need; i++) {
        if (rest[i] >= n) {
          // The first padding slot: all of it, or none.
          if (need === pads)
            pick(
              rest.length,
              0,
              rest.slice(i).reduce((m, p) => m | (1 << p), mask),
            );
          return;
        }
        pick(i + 1, need - 1, mask | (1 << rest[i]));
      }
    };
    pick(0, size - 1, 1 << first);
    return groups;
  };
  const scores = new Map<number, number>();
  const scoreOf = (g: number) => {
    let s = scores.get(g);
    if (s === undefined) scores.set(g, (s = score(members(g))));
    return s;
  };
  const memo = new Map<number, number>();
  const value = (left: number): number => {
    if (left === 0) return 0;
    const known = memo.get(left);
    if (known !== undefined) return known;
    let best = Number.NEGATIVE_INFINITY;
    for (const g of nextGroups(left)) best = Math.max(best, scoreOf(g) + value(left & ~g));
    memo.set(left, best);
    return best;
  };
  let left = 2 ** total - 1;
  if (value(left) === Number.NEGATIVE_INFINITY) return [];
  let chosen: number[] = [];
  let chosenScore = -1;
  while (left !== 0) {
    const target = value(left);
    const g = nextGroups(left).find((x) => scoreOf(x) + value(left & ~x) === target) as number;
    const group = members(g);
    if ((g & requiredMask) === requiredMask && (g & padMask) === 0 && scoreOf(g) > chosenScore) {
      chosen = group;
      chosenScore = scoreOf(g);
    }
    left &= ~g;
  }
  return chosen.map((p) => available[p]).sort((a, b) => a - b);
}
