// Workload 5: placement on one node of 8 GPUs and one of 16 with 20 running slots, TP sizes 1, 2, 4, 8.
import { searchOf, type Case, type Suite, type SuiteContext } from './harness.js';
import { deepFreeze, presetGpus, presetTopology, runningSlots } from './inputs.js';
import type { PlacementRequest } from '../src/placement.js';

const GIB = 2 ** 30;

/** The two nodes: an 8-GPU DGX A100 (80 GB) and a 16-GPU DGX-2 (32 GB), each with 20 running slots. */
export const PLACEMENT_NODES = [
  { label: '8 GPUs (dgx-a100)', preset: 'dgx-a100', model: 96 * GIB },
  { label: '16 GPUs (dgx2)', preset: 'dgx2', model: 48 * GIB },
] as const;

/** Tensor-parallel sizes timed on each node. */
export const PLACEMENT_TP_SIZES: readonly number[] = [1, 2, 4, 8];

/** TP sizes also timed with the 16-GPU node's state frozen by the caller. */
export const FROZEN_TP_SIZES: readonly number[] = [2, 4];

/**
 * The cases of one node: each TP size of `tpSizes` alone, with `label` in the name. `frozen`: the
 * caller keeps the node's GPUs and slots frozen all the way down (as immutable-state libraries do),
 * so the engine reads them once instead of comparing every field on each call; same answers.
 */
function nodeCases(engines: SuiteContext['engines'], node: (typeof PLACEMENT_NODES)[number], tpSizes: readonly number[], frozen: boolean): Case[] {
  const keep = <T>(v: T): T => (frozen ? deepFreeze(v) : v);
  const gpus = keep(presetGpus(node.preset));
  const slots = keep(runningSlots(gpus.length, 20, gpus[0].memoryTotal));
  const topology = presetTopology(node.preset);
  return tpSizes.map((tp) => {
    const request: PlacementRequest = { gpus, slots, topology, memory: node.model, model: 'llama3-70b', tensorParallelSizes: [tp], allowEviction: true, policy: 'spread' };
    const run = { wasm: () => engines.wasm.planPlacement(request), ts: () => engines.ts.planPlacement(request) };
    return {
      family: 'placement',
      name: `${node.label}, 20 slots${frozen ? ' (frozen)' : ''}, TP ${tp}`,
      run,
      // The frozen rows differ only in how the request is read: their search is the plain row's.
      search: frozen ? undefined : searchOf(engines, run),
    };
  });
}

/** Placement suite. */
export const suite: Suite = {
  family: 'placement',
  description: 'engine.planPlacement with eviction of stale slots, topology scores, every TP size separately',
  cases({ engines }) {
    // Every TP size on both nodes, then the 16-GPU node's TP 2 and 4 with its state frozen by the caller.
    return [...PLACEMENT_NODES.flatMap((node) => nodeCases(engines, node, PLACEMENT_TP_SIZES, false)), ...nodeCases(engines, PLACEMENT_NODES[1], FROZEN_TP_SIZES, true)];
  },
};
