// DotProd (plugin/dot_product_score.go with dimExt=merge, norm=max): prefers the node whose
// remaining CPU and GPU have the smallest dot product with the pod's request.
import { POLICY_REGISTRY } from './registry.js';
import type { FleetPolicy } from './types.js';

export const dotprod: FleetPolicy = { ...POLICY_REGISTRY.dotprod, gpuChoice: 'best', summary: "smallest dot product of the node's remaining CPU/GPU with the request" };

/** ⌊100·(1 − ½·[(cL/128000)(c/128000) + (G/8000)(r/8000)])⌋; 0 when the CPU does not fit. */
export function dotprodScore(cpuLeft: number, freeMilli: number, cpu: number, gpuMilli: number): number {
  if (cpuLeft < cpu) return 0;
  const dot = (cpuLeft / 128000) * (cpu / 128000) + (freeMilli / 8000) * (gpuMilli / 8000);
  return Math.trunc(100 * (1 - 0.5 * dot));
}
