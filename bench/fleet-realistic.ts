// The fleet as a scheduler meets it, for bench/fleet.bench.ts's realistic rows: the openb nodes with
// a topology on every node (8 GPUs: DGX-1 Volta's hybrid cube mesh; 4: the RTX 8000 workstation's
// NVLink pairs; 2: its first pair; 1: none needed), GPUs of real sizes, some GPU memory held by
// processes outside the scheduler (memoryUsed), and memory-placed models (some stale) already on a
// tenth of the nodes. The pods are then planned by the pod scheduler and committed through
// `state.commit`, exactly as `replay` does for the plain state, so the two rows differ in the nodes only.

import type { ClusterNode } from '../src/cluster/node.js';
import type { ClusterState } from '../src/cluster/state.js';
import type { Engine } from '../src/engine.js';
import type { FleetPolicyName } from '../src/fleet/index.js';
import { Prng } from '../src/fleet/prng.js';
import { fleetPodOf, type NodeSpec, type Pod } from '../src/fleet/types.js';
import { getPreset } from '../src/hardware/presets.js';
import type { Topology } from '../src/hardware/topology.js';
import { fleetClusterNodes, prepareWorkload } from '../src/simulation/simulate.js';

const GIB = 2 ** 30;

/** A topology for a node of `gpus` GPUs from the presets (undefined for one GPU). */
function topologyFor(gpus: number): Topology | undefined {
  if (gpus === 8) return { gpus: 8, links: getPreset('dgx1-volta').links };
  if (gpus === 4) return { gpus: 4, links: getPreset('4x-rtx8000').links };
  if (gpus === 2) return { gpus: 2, links: getPreset('4x-rtx8000').links.filter((l) => l.a < 2 && l.b < 2) };
  return undefined;
}

/**
 * The realistic cluster nodes of a fleet (deterministic for `seed`): 32 GiB GPUs, a topology on every
 * multi-GPU node, on a quarter of the GPUs 0.5–2 GiB used by other processes, and on every tenth node
 * a memory-placed model of 4 GiB on its first GPU (every other one of them stale).
 */
export function realisticNodes(nodes: readonly NodeSpec[], seed: number): ClusterNode[] {
  const rng = new Prng(seed);
  return fleetClusterNodes(nodes).map((node, k) => {
    const gpus = node.gpus.map((g) => {
      const gpu = { ...g, memoryTotal: 32 * GIB };
      if (rng.float() < 0.25) return { ...gpu, memoryUsed: Math.floor((0.5 + 1.5 * rng.float()) * GIB) };
      return gpu;
    });
    const out: ClusterNode = { ...node, gpus };
    const topology = topologyFor(gpus.length);
    if (topology !== undefined) out.topology = topology;
    if (k % 10 === 0 && gpus.length > 0) out.slots = [{ id: `model-${node.id}`, model: 'llama-8b', gpus: [0], memoryPerGpu: 4 * GIB, stale: k % 20 === 0 }];
    return out;
  });
}

/** What one replay did: pods placed and failed, and the state it left. */
export type Replay = { placed: number; failed: number; state: ClusterState };

/**
 * Plans every pod of the seed's workload (FGD protocol order, tuned to 130 %) with `policy` on a
 * state of `clusterNodes` and commits each option through `state.commit`.
 */
export function replay(engine: Engine, clusterNodes: ClusterNode[], nodes: readonly NodeSpec[], pods: readonly Pod[], policy: FleetPolicyName, seed: number): Replay {
  const { order, ranks } = prepareWorkload(nodes, pods, 1.3, new Prng(seed));
  const state = engine.createClusterState({ nodes: clusterNodes });
  const scheduler = state.podScheduler({ policy, typical: pods.map(fleetPodOf), ranks });
  let placed = 0;
  let failed = 0;
  try {
    for (const pod of order) {
      const plan = scheduler.plan(fleetPodOf(pod));
      if (plan.options.length === 0) failed++;
      else {
        state.commit(plan.options[0]!); // the state names the slot (pod names need not be unique slot IDs)
        placed++;
      }
    }
  } finally {
    scheduler.close();
  }
  return { placed, failed, state };
}
