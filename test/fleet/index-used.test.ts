// The pod index answers from its trees, and only where it should: with search 'index' a plan is read
// from the tree of the pod's class and memory (a leaf score changed behind the index's back moves the
// plan there, which the scan never sees), a policy whose score is not cached (random) and a pod whose
// shape has no class keep the scan, and search 'scan' builds no index at all. Both backends.
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import type { FleetPolicyName } from '../../src/fleet/index.js';
import type { FleetMemory } from '../../src/fleet/kernels.js';
import * as L from '../../src/fleet/layout.js';
import { createPodScheduler } from '../../src/fleet/scheduler.js';
import type { FleetPod } from '../../src/fleet/types.js';
import { engines } from '../support/engines.js';

const G = 2 ** 30;
const nodes = ['a', 'b', 'c', 'd'].map((id) => ({
  id,
  gpus: [
    { index: 0, memoryTotal: 16 * G },
    { index: 1, memoryTotal: 16 * G },
  ],
  cpu: 16000,
  hostMemory: 64 * G,
  gpuModel: 'T4',
}));
const share: FleetPod = { id: 's', cpu: 1000, memoryMiB: 1024, gpus: 1, milli: 500 };

/** A scheduler over a fresh state whose kernels hand the test the fleet's memory at every pick. */
function scheduler(engine: Engine, policy: FleetPolicyName, search: 'index' | 'scan') {
  const state = engine.createClusterState({ nodes });
  let memory: FleetMemory | undefined;
  const kernels = { ...engine.kernels, fleetPick: (m: FleetMemory, ...rest: number[]) => ((memory = m), (engine.kernels.fleetPick as (...a: unknown[]) => number)(m, ...rest)) };
  const pods = createPodScheduler(kernels as typeof engine.kernels, state.nodeView(), { policy, typical: [share], search });
  return { state, pods, memory: () => memory! };
}

describe.each(['wasm', 'ts'] as const)('the pod index is what answers (%s)', async (backend) => {
  const engine = (await engines())[backend];

  it('bestfit: the first pick builds the class and its tree; a leaf raised behind its back wins the next plan', () => {
    const { pods, memory } = scheduler(engine, 'bestfit', 'index');
    const first = pods.plan(share).options[0].node;
    const s = memory().ints();
    const f = memory().floats();
    expect(s[L.H_INDEX]).toBe(1);
    expect(s[L.H_TREES]).toBe(1);
    expect(s[s[L.H_CLASS_AT]]).toBe(1); // the class's leaves are scored
    expect(s[s[L.H_TREE_AT] + 2]).toBe(1); // its tree is built
    // The root (entry 0) holds the plan's node: its rank (node order, by default) above the memory left.
    const at = s[L.H_F_TREE];
    const root = f[at];
    const packed = f[at + 1];
    expect(Math.floor(packed / L.RANK_UNIT)).toBe(['a', 'b', 'c', 'd'].indexOf(first!));
    expect(packed % L.RANK_UNIT).toBe(64 * 1024);
    // Node d's leaf gets a score above the root's, and so does every entry above it: d wins the next plan.
    const n = nodes.length;
    const inner = s[L.H_INNER];
    const leafOfD = s[s[L.H_LEAF_AT] + n + 3];
    f[s[L.H_F_CACHE] + 2 * leafOfD] = root + 1000;
    for (let t = (inner + leafOfD - 1) >> 2; ; t = (t - 1) >> 2) {
      f[at + 2 * t] = root + 1000;
      f[at + 2 * t + 1] = 3 * L.RANK_UNIT + 64 * 1024;
      if (t === 0) break;
    }
    expect(pods.plan(share).options[0].node).toBe('d');
    pods.close();
  });

  it('with search scan the same plan comes from the scan, which keeps no trees', () => {
    const index = scheduler(engine, 'bestfit', 'index');
    const scan = scheduler(engine, 'bestfit', 'scan');
    expect(scan.pods.plan(share)).toEqual(index.pods.plan(share));
    expect(scan.memory().ints()[L.H_INDEX]).toBe(0);
    expect(scan.memory().ints()[L.H_TREES]).toBe(0);
    index.pods.close();
    scan.pods.close();
  });

  it('random keeps the scan: no index', () => {
    const { pods, memory } = scheduler(engine, 'random', 'index');
    expect(pods.plan(share).options).toHaveLength(1);
    expect(memory().ints()[L.H_INDEX]).toBe(0);
    pods.close();
  });

  it("a pod of a shape without a class, or asking less memory than its class's shapes, is planned by the scan: no class is scored", () => {
    const { pods, memory } = scheduler(engine, 'fgd', 'index');
    expect(pods.plan({ ...share, id: 'other', milli: 300 }).options).toHaveLength(1);
    expect(pods.plan({ ...share, id: 'small', memoryMiB: 10 }).options).toHaveLength(1);
    const s = memory().ints();
    expect(s[L.H_INDEX]).toBe(1);
    expect(s[s[L.H_CLASS_AT]]).toBe(0);
    expect(s[s[L.H_TREE_AT] + 2]).toBe(0);
    pods.close();
  });
});
