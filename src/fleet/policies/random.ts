// Random (FGD simulator plugin/random_score.go): every feasible node is equally likely; a sharing
// pod takes a uniformly random GPU among those with room. No score: the kernel draws among the
// feasible nodes with the pod's random number.
import { POLICY_REGISTRY } from './registry.js';
import type { FleetPolicy } from './types.js';

export const random: FleetPolicy = { ...POLICY_REGISTRY.random, gpuChoice: 'random', summary: 'a uniformly random feasible node and GPU' };

/** The index among `count` feasible nodes (or GPUs) that the uniform draw `u` ∈ [0, 1) selects. */
export function randomIndex(u: number, count: number): number {
  return Math.floor(u * count);
}
