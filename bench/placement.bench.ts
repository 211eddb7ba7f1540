// Workload 5: placement on one node of 8 GPUs and one of 16 with 20 running slots, TP sizes 1, 2, 4, 8.
// Two input paths: the node prepared once (engine.prepare; the request carries the handle and the
// slots), and plain objects (gpus, topology and slots read and validated on every call).

import type { PlacementRequest, PreparedPlacementRequest } from '../src/placement/index.js';
import { type Case, type Suite, type SuiteContext, searchOf } from './harness.js';
import { presetGpus, presetTopology, runningSlots } from './inputs.js';

const GIB = 2 ** 30;

/** The two nodes: an 8-GPU DGX A100 (80 GB) and a 16-GPU DGX-2 (32 GB), each with 20 running slots. */
export const PLACEMENT_NODES = [
  { label: '8 GPUs (dgx-a100)', preset: 'dgx-a100', model: 96 * GIB },
  { label: '16 GPUs (dgx2)', preset: 'dgx2', model: 48 * GIB },
] as const;

/** Tensor-parallel sizes timed on each node (prepared path). */
export const PLACEMENT_TP_SIZES: readonly number[] = [1, 2, 4, 8];

/** TP sizes also timed with plain objects (reported, not targeted). */
export const PLAIN_TP_SIZES: readonly number[] = [2, 4];

/** The name part that marks a plain-object row (targets.ts leaves them out of wasm ≥ ts). */
export const PLAIN_OBJECTS = 'plain objects';

/** The cases of one node: each TP size of `tpSizes` alone; `prepared`: through engine.prepare's handle. */
function nodeCases(engines: SuiteContext['engines'], node: (typeof PLACEMENT_NODES)[number], tpSizes: readonly number[], prepared: boolean): Case[] {
  const gpus = presetGpus(node.preset);
  const slots = runningSlots(gpus.length, 20, gpus[0]!.memoryTotal);
  const topology = presetTopology(node.preset);
  const handles = { wasm: engines.wasm.prepare({ gpus, topology }), ts: engines.ts.prepare({ gpus, topology }) };
  return tpSizes.map((tp) => {
    const base = { slots, memory: node.model, model: 'llama3-70b', tensorParallelSizes: [tp], allowEviction: true, policy: 'spread' as const };
    const plain: PlacementRequest = { gpus, topology, ...base };
    const onWasm: PreparedPlacementRequest = { node: handles.wasm, ...base };
    const onTs: PreparedPlacementRequest = { node: handles.ts, ...base };
    const run = prepared
      ? { wasm: () => engines.wasm.planPlacement(onWasm), ts: () => engines.ts.planPlacement(onTs) }
      : { wasm: () => engines.wasm.planPlacement(plain), ts: () => engines.ts.planPlacement(plain) };
    return {
      family: 'placement',
      name: `${node.label}, 20 slots, ${prepared ? 'prepared' : PLAIN_OBJECTS}, TP ${tp}`,
      run,
      // The plain rows differ only in how the request is read: their search is the prepared row's.
      search: prepared ? searchOf(engines, run) : undefined,
    };
  });
}

/** Placement suite. */
export const suite: Suite = {
  family: 'placement',
  description: 'engine.planPlacement with eviction of stale slots, topology scores, every TP size separately; prepared node and plain objects',
  cases({ engines }) {
    return [...PLACEMENT_NODES.flatMap((node) => nodeCases(engines, node, PLACEMENT_TP_SIZES, true)), ...PLACEMENT_NODES.flatMap((node) => nodeCases(engines, node, PLAIN_TP_SIZES, false))];
  },
};
