// BestFit (plugin/best_fit_score.go): the node left with the least CPU and GPU wins. The
// framework's min-max normalization is strictly increasing on these raw scores, so it changes
// neither the winner nor the ties and is left out.
import { POLICY_REGISTRY } from './registry.js';
import type { FleetPolicy } from './types.js';

export const bestfit: FleetPolicy = { ...POLICY_REGISTRY.bestfit, gpuChoice: 'best', summary: 'the node left with the least CPU and GPU' };

/** ⌊100·(1 − [0.5·(cL−c)/128000 + 0.5·(G−r)/8000])⌋. */
export function bestfitScore(cpuLeft: number, freeMilli: number, cpu: number, gpuMilli: number): number {
  return Math.trunc(100 * (1 - ((0.5 * (cpuLeft - cpu)) / 128000 + (0.5 * (freeMilli - gpuMilli)) / 8000)));
}
