// Test helper: the simulator's protocol (src/simulation/simulate.ts's steps: shuffle, tuning, ranks,
// plan, commit) with a policy object, so that a policy carrying a lookahead (src/fleet/lookahead.ts)
// runs before any registered policy has one. Returns the event log (one line per pod attempt) and the
// decisions looked ahead on.

import { ClusterState } from '../../src/cluster/state.js';
import type { Engine } from '../../src/engine.js';
import type { FleetPolicy } from '../../src/fleet/policies/index.js';
import { Prng } from '../../src/fleet/prng.js';
import { PodScheduler, type PodSearch } from '../../src/fleet/scheduler.js';
import { type FleetNode, type FleetPod, validateNodes, validatePods } from '../../src/fleet/types.js';
import { typicalPods } from '../../src/fleet/typical.js';
import { fleetClusterNodes, prepareWorkload } from '../../src/simulation/simulate.js';

export type LookaheadRun = { events: string[]; looked: number };

/** One run of the protocol over `nodes` and `pods` by `policy` (tune 1.3) with `seed`; the scheduler seeded with `schedulerSeed` (default: the same). */
export function runWithPolicy(
  engine: Engine,
  rawNodes: FleetNode[],
  rawPods: FleetPod[],
  policy: FleetPolicy,
  seed: number,
  search: PodSearch = 'index',
  schedulerSeed = seed,
  /** The pods whose shapes get the index's classes and trees (default: the workload's). */
  rawShapes?: FleetPod[],
): LookaheadRun {
  const nodes = validateNodes('nodes', rawNodes);
  const pods = validatePods('pods', rawPods);
  const { order, ranks } = prepareWorkload(nodes, pods, 1.3, new Prng(seed));
  const state = ClusterState.create(engine.kernels, { nodes: fleetClusterNodes(nodes) });
  const shapes = rawShapes === undefined ? pods : validatePods('shapes', rawShapes);
  const scheduler = new PodScheduler(engine.kernels, state.nodeView(), policy, typicalPods(pods), ranks, shapes, schedulerSeed, undefined, search, pods);
  const events: string[] = [];
  try {
    for (const pod of order) {
      const at = scheduler.planWithDraws(pod, 0, 0);
      if (at !== null) state.commit(at);
      events.push(`${pod.id} ${at === null ? '-' : `${at.node} [${at.gpus.join(',')}]`}`);
    }
    return { events, looked: scheduler.lookaheadDecisions() };
  } finally {
    scheduler.close();
  }
}
