// GpuPacking (plugin/gpu_packing_score.go): fill partly used GPUs first, then partly used nodes,
// idle nodes last (small idle nodes before big ones).
// Index reads carry `!`: the kernel arrays are read at the layout's offsets.
import { POLICY_REGISTRY } from './registry.js';
import type { FleetPolicy } from './types.js';

export const packing: FleetPolicy = { ...POLICY_REGISTRY.packing, gpuChoice: 'best', summary: 'partly used GPUs, then partly used nodes, then idle nodes' };

/**
 * The score of a node with `gpus` GPUs (free milli in `s[at..at+gpus)`), `full` of them wholly free,
 * for a pod of `num` GPUs × `milli`: 0 for a CPU-only pod; idle node → max(33 − F, F); else take the
 * `num` GPUs with the least free milli that still fit: any of them wholly free → max(50 − #free taken, 33),
 * else max(100 − ⌊Σ⌊g·100/1000⌋ / 10⌋, 50).
 */
export function packingScore(s: Int32Array, at: number, gpus: number, full: number, num: number, milli: number): number {
  if (num === 0 || milli === 0) return 0;
  if (full === gpus) return Math.max(33 - full, full);
  if (num === 1) {
    // The single GPU taken: the least free milli that fits (a stable ascending walk takes it first).
    let best = 1001;
    for (let i = 0; i < gpus; i++) {
      const g = s[at + i]!;
      if (g >= milli && g < best) best = g;
    }
    if (best === 1000) return 49;
    return Math.max(100 - Math.trunc(Math.trunc((best * 100) / 1000) / 10), 50);
  }
  // Several GPUs are only ever whole ones (milli 1000): every GPU taken is wholly free.
  return Math.max(50 - num, 33);
}
