// Test helper: a fleet of FleetNodes as a ClusterState with an attached PodScheduler, and `place`,
// which plans one pod and commits it (the simulator's step), answering { node index, GPU indices }.

import { ClusterState } from '../../src/cluster/state.js';
import type { Engine } from '../../src/engine.js';
import { policyByName } from '../../src/fleet/policies/index.js';
import { PodScheduler } from '../../src/fleet/scheduler.js';
import { type FleetNode, type Pod, validateNodes } from '../../src/fleet/types.js';
import type { TypicalPod } from '../../src/fleet/typical.js';
import { fleetClusterNodes } from '../../src/simulation/simulate.js';

export type FleetOnState = { state: ClusterState; scheduler: PodScheduler; place(pod: Pod): { node: number; gpus: number[] } | null };

/** A state of `nodes` and a scheduler by `policy` over it (close the scheduler when done). */
export function fleetOnState(engine: Engine, policy: string, nodes: FleetNode[], typical: TypicalPod[], ranks: number[], shapes: Pod[] = []): FleetOnState {
  const state = ClusterState.create(engine.kernels, { nodes: fleetClusterNodes(validateNodes('nodes', nodes)) });
  const scheduler = new PodScheduler(engine.kernels, state.nodeView(), policyByName(policy), typical, ranks, shapes);
  const ids = state.nodes();
  return {
    state,
    scheduler,
    place(pod) {
      const option = scheduler.planWithDraws(pod, 0, 0);
      if (option === null) return null;
      state.commit(option, { id: pod.id });
      return { node: ids.indexOf(option.node!), gpus: option.gpus };
    },
  };
}
