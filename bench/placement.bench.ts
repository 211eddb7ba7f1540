// Workload 5: placement on one node of 8 GPUs and one of 16 with 20 running slots, TP sizes 1, 2, 4, 8.
import type { Case, Suite } from './harness.js';
import { deepFreeze, presetGpus, presetTopology, runningSlots } from './inputs.js';
import type { PlacementRequest, PlacementSearch } from '../src/placement.js';
import type { Engine } from '../src/engine.js';

const GIB = 2 ** 30;

/** The two nodes: an 8-GPU DGX A100 (80 GB) and a 16-GPU DGX-2 (32 GB), each with 20 running slots. */
export const PLACEMENT_NODES = [
  { label: '8 GPUs (dgx-a100)', preset: 'dgx-a100', model: 96 * GIB },
  { label: '16 GPUs (dgx2)', preset: 'dgx2', model: 48 * GIB },
] as const;

/** Tensor-parallel sizes timed on each node. */
export const PLACEMENT_TP_SIZES: readonly number[] = [1, 2, 4, 8];

/**
 * The kernel input planPlacement builds for `request` (a copy: planPlacement reuses its arrays), or
 * null when it answers without a search (no GPU can take its share of any allowed size).
 */
export function searchOf(engine: Engine, request: PlacementRequest): PlacementSearch | null {
  const kernels = engine.kernels;
  const real = kernels.placementSearch;
  let seen: PlacementSearch | null = null;
  kernels.placementSearch = (s) => {
    seen = { ...s, free: s.free.slice(), total: s.total.slice(), sizes: s.sizes.slice(), shares: s.shares.slice(), staleMasks: s.staleMasks.slice(), staleBytes: s.staleBytes.slice() };
    return real.call(kernels, s);
  };
  try {
    engine.planPlacement(request);
  } finally {
    kernels.placementSearch = real;
  }
  return seen;
}

/** TP sizes also timed with the 16-GPU node's state frozen by the caller. */
export const FROZEN_TP_SIZES: readonly number[] = [2, 4];

/** Placement suite. */
export const suite: Suite = {
  family: 'placement',
  description: 'engine.planPlacement with eviction of stale slots, topology scores, every TP size separately',
  cases({ engines }) {
    const cases: Case[] = [];
    for (const node of PLACEMENT_NODES) {
      const gpus = presetGpus(node.preset);
      const topology = presetTopology(node.preset);
      const slots = runningSlots(gpus.length, 20, gpus[0].memoryTotal);
      for (const tp of PLACEMENT_TP_SIZES) {
        const request: PlacementRequest = { gpus, slots, topology, memory: node.model, model: 'llama3-70b', tensorParallelSizes: [tp], allowEviction: true, policy: 'spread' };
        const search = searchOf(engines.ts, request);
        cases.push({
          family: 'placement',
          name: `${node.label}, 20 slots, TP ${tp}`,
          run: { wasm: () => engines.wasm.planPlacement(request), ts: () => engines.ts.planPlacement(request) },
          search: search === null ? undefined : { wasm: () => engines.wasm.kernels.placementSearch(search), ts: () => engines.ts.kernels.placementSearch(search) },
        });
      }
    }
    // The same 16-GPU searches when the caller keeps its node state frozen (Object.freeze all the way
    // down, as immutable-state libraries do): the engine reads it once instead of comparing every
    // field on each call. Same answers; only the input's mutability differs.
    const node = PLACEMENT_NODES[1];
    const gpus = deepFreeze(presetGpus(node.preset));
    const slots = deepFreeze(runningSlots(gpus.length, 20, gpus[0].memoryTotal));
    const topology = presetTopology(node.preset);
    for (const tp of FROZEN_TP_SIZES) {
      const request: PlacementRequest = { gpus, slots, topology, memory: node.model, model: 'llama3-70b', tensorParallelSizes: [tp], allowEviction: true, policy: 'spread' };
      const search = searchOf(engines.ts, request);
      cases.push({
        family: 'placement',
        name: `${node.label}, 20 slots (frozen), TP ${tp}`,
        run: { wasm: () => engines.wasm.planPlacement(request), ts: () => engines.ts.planPlacement(request) },
        search: search === null ? undefined : { wasm: () => engines.wasm.kernels.placementSearch(search), ts: () => engines.ts.kernels.placementSearch(search) },
      });
    }
    return cases;
  },
};
