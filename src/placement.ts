// planPlacement: every viable way to place a model on a node's GPUs by memory (issue 5; placeholder).
import type { Kernels } from './kernels.js';
import type { Topology } from './topology.js';

/** Work already placed on GPUs. memoryPerGpu in bytes; lastActivity in ms since the epoch. */
export type Slot = { id: string; model?: string; gpus: number[]; memoryPerGpu: number; lastActivity?: number; stale?: boolean };

/** One way to place the model. memoryPerGpu in bytes. */
export type PlacementOption = { node?: string; model?: string; gpus: number[]; memoryPerGpu: number; evict: string[]; score: number };

/** Why a GPU cannot take its share. shortBy in bytes. */
export type Rejection = { node?: string; gpu: number; code: string; message: string; shortBy?: number };

/** Request of planPlacement (see DESIGN.md). */
export type PlacementRequest = {
  gpus: Array<{ index: number; memoryTotal: number }>;
  slots?: Slot[];
  topology?: Topology;
  memory: number;
  model?: string;
  tensorParallelSizes?: number[];
  allowEviction?: boolean;
  policy?: 'spread' | 'pack';
  limit?: number;
};

/** Ranked options and per-GPU rejections. */
export type PlacementPlan = { options: PlacementOption[]; rejected: Rejection[] };

/** Kernels this capability needs. */
export interface PlacementKernels {}

/** Plans every viable option. */
export function planPlacement(_kernels: Kernels, _request: PlacementRequest): PlacementPlan {
  throw new Error('planPlacement: not built yet (issue 5)');
}
