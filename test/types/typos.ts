// Type tests, checked by the type-checker (never run): each `@ts-expect-error` line is a typo that
// must not compile (tsc fails on an unused @ts-expect-error), and the other lines must compile.
// test:consumer checks the same against the packed package's declarations.

import type { ClusterState } from '../../src/cluster/state.js';
import { type ClusterStateLike, type FleetPod, openEngine, type PlacementPlan, type ReasonCode, type SimulateRequest } from '../../src/index.js';
import type { StoredClusterState } from '../../src/store/index.js';

const G = 2 ** 30;
const gpus = [{ index: 0, memoryTotal: 80 * G }] as const;

export async function typosThatMustNotCompile(plan: PlacementPlan, request: SimulateRequest, local: ClusterState, stored: StoredClusterState): Promise<void> {
  const engine = await openEngine();
  // readonly / as-const inputs compile.
  engine.planPlacement({ gpus, memory: G, tensorParallelSizes: [1, 2] as const });
  // A reason exactly where nothing was placed.
  if (plan.reason !== undefined) {
    const none: [] = plan.options;
    const code: ReasonCode = plan.reason.code;
    void none;
    void code;
  }
  // @ts-expect-error a misspelt reason code has no overlap with the ReasonCode union
  if (plan.reason?.code === 'NO_VIABLE_OPTOIN') return;
  // @ts-expect-error a misspelt request key is an excess property
  engine.planPlacement({ gpus, memory: G, alowEviction: true });
  // @ts-expect-error a misspelt engine option
  void openEngine({ bakend: 'ts' });
  // @ts-expect-error an unknown backend name
  void openEngine({ backend: 'wsam' });
  // @ts-expect-error fleet pods name their memory memoryMiB
  const old: FleetPod = { id: 'q', cpu: 1000, memory: 4096, gpus: 1 };
  // @ts-expect-error a misspelt policy name
  const typo: SimulateRequest = { ...request, policy: 'best-fit' };
  // @ts-expect-error a misspelt option of the async simulation
  void engine.simulateFleetAsync(request, { onProgres: () => undefined });
  // The local and the stored state are both ClusterStateLike.
  const states: ClusterStateLike[] = [local, stored];
  void old;
  void typo;
  void states;
}
