// FGD (plugin/fgd_score.go): the node, and the GPU inside it, whose fragmentation grows the least
// under the typical-pod distribution, quantized as ⌊100·σ(Δ/1000)⌋ with Δ = Frag(node) − Frag(node').
// Index reads carry `!`: the kernel arrays are read at the layout's offsets.
import { POLICY_REGISTRY } from './registry.js';
import type { FleetPolicy } from './types.js';

export const fgd: FleetPolicy = { ...POLICY_REGISTRY.fgd, gpuChoice: 'score', summary: "Fragmentation Gradient Descent (Weng et al., USENIX ATC '23)" };

/**
 * ⌊100·σ(delta/1000)⌋ through the thresholds of fgdThresholds (src/fleet/layout.ts): the number of
 * thresholds `thr[at..at+99)` that delta reaches (binary search; they increase).
 */
export function fgdQuantize(delta: number, thr: Float64Array, at: number): number {
  let lo = 0;
  let hi = 99;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (delta >= thr[at + mid]!) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
