// Placeholder, replaced below.
import { P_OURS } from '../layout.js';
import type { FleetPolicy } from './types.js';
export const ours: FleetPolicy = { name: 'ours', id: P_OURS, gpuChoice: 'score', summary: '' };
export function oursScore(delta: number, cpuAfter: number, freeAfter: number): number {
  return delta;
}
