// Brute force for the 'topology' policy: every size-subset containing the required GPUs, ranked by
// (set score, remainder score, sorted indices) exactly as the issue states the rule.
import { pairScoreMatrix, setScore, type Topology } from '../../../src/hardware/topology.js';

/** The best subset by brute force (ascending), or [] when none fits. */
export function bruteTopology(topology: Topology, available: number[], required: number[], size: number): number[] {
  const m = pairScoreMatrix(topology);
  const n = topology.gpus;
  const pool = [...available].sort((a, b) => a - b);
  if (pool.length < size || required.length > size || !required.every((g) => pool.includes(g))) return [];
  let best: number[] | null = null;
  let bestKey: [number, number] = [0, 0];
  const pick = (from: number, chosen: number[]) => {
    if (chosen.length === size) {
      if (!required.every((g) => chosen.includes(g))) return;
      const rest = pool.filter((g) => !chosen.includes(g));
      const key: [number, number] = [setScore(m, n, chosen), setScore(m, n, rest)];
      if (best === null || key[0] > bestKey[0] || (key[0] === bestKey[0] && key[1] > bestKey[1])) {
        best = [...chosen];
        bestKey = key;
      }
      return;
    }
    for (let k = from; k < pool.length; k++) pick(k + 1, [...chosen, pool[k]]);
  };
  pick(0, []);
  return best ?? [];
}
