// A lookahead's sampler is seeded per decision from the scheduler's seed, the node changes it has
// seen and the pod (src/fleet/lookahead.ts decisionSeed): the same input and seed give the same
// placements, another scheduler seed other continuations, and a plan repeated on an unchanged state
// the same option. Its setting is validated like any input.
import { describe, expect, it } from 'vitest';
import { ClusterState } from '../../src/cluster/state.js';
import type { Lookahead } from '../../src/fleet/lookahead.js';
import { policyByName } from '../../src/fleet/policies/index.js';
import { PodScheduler } from '../../src/fleet/scheduler.js';
import { type FleetNode, type FleetPod, validateNodes, validatePods } from '../../src/fleet/types.js';
import { typicalPods } from '../../src/fleet/typical.js';
import { fleetClusterNodes } from '../../src/simulation/simulate.js';
import { engines, errorOf } from '../support/engines.js';
import { runWithPolicy } from '../support/lookahead-run.js';

// Twelve 4-GPU nodes and a workload of shares and whole GPUs: many close decisions (every node alike at first).
const NODES: FleetNode[] = Array.from({ length: 12 }, (_, i) => ({ id: `n${i}`, cpu: 32000 + 1000 * (i % 3), memoryMiB: 262144, gpus: 4, model: 'V100' }));
const SIZES = [160, 230, 320, 470, 650, 810, 1000, 1000];
const PODS: FleetPod[] = Array.from({ length: 60 }, (_, i) => ({
  id: `p${String(i).padStart(2, '0')}`,
  cpu: 1000 + 500 * (i % 5),
  memoryMiB: 1024,
  gpus: i % 11 === 0 ? 2 : 1,
  milli: i % 11 === 0 ? 1000 : SIZES[i % SIZES.length]!,
}));
const LOOK: Lookahead = { delta: 0, continuations: 4, depth: 4, scope: 'all', candidates: 3 };
const POLICY = { ...policyByName('fgd-lp'), lookahead: LOOK };

describe('fleet lookahead: determinism by seed', async () => {
  const { wasm, ts } = await engines();

  it('the same input and seed give the same placements, on both backends', () => {
    const first = runWithPolicy(wasm, NODES, PODS, POLICY, 7);
    expect(first.looked).toBeGreaterThan(10);
    expect(runWithPolicy(wasm, NODES, PODS, POLICY, 7)).toStrictEqual(first);
    expect(runWithPolicy(ts, NODES, PODS, POLICY, 7)).toStrictEqual(first);
  });

  it("the scheduler's seed picks the continuations: other seeds, other placements (same order and ranks)", () => {
    const logs = new Set([1, 2, 3, 4, 5, 6].map((s) => runWithPolicy(ts, NODES, PODS, POLICY, 7, 'index', s).events.join('\n')));
    expect(logs.size).toBeGreaterThan(1);
  });

  it('a plan repeated on an unchanged state gives the same option', () => {
    const nodes = validateNodes('nodes', NODES);
    const pods = validatePods('pods', PODS);
    const state = ClusterState.create(ts.kernels, { nodes: fleetClusterNodes(nodes) });
    const scheduler = new PodScheduler(
      ts.kernels,
      state.nodeView(),
      POLICY,
      typicalPods(pods),
      nodes.map((_, k) => k),
      pods,
      3,
    );
    const pod = pods[1]!;
    const plans = Array.from({ length: 5 }, () => scheduler.planWithDraws(pod, 0, 0));
    expect(scheduler.lookaheadDecisions()).toBe(5);
    for (const p of plans) expect(p).toStrictEqual(plans[0]);
    scheduler.close();
  });

  it('a setting out of range or with an unknown key is an error naming the field', () => {
    const nodes = validateNodes('nodes', NODES);
    const state = ClusterState.create(ts.kernels, { nodes: fleetClusterNodes(nodes) });
    const make = (lookahead: unknown) => () => new PodScheduler(ts.kernels, state.nodeView(), { ...POLICY, lookahead: lookahead as Lookahead }, [], [...nodes.keys()], []);
    expect(errorOf(make({ ...LOOK, candidates: 1 })).field).toBe('policy.lookahead.candidates');
    expect(errorOf(make({ ...LOOK, depth: 0 })).field).toBe('policy.lookahead.depth');
    expect(errorOf(make({ ...LOOK, delta: -1 })).field).toBe('policy.lookahead.delta');
    expect(errorOf(make({ ...LOOK, scope: 'some' })).field).toBe('policy.lookahead.scope');
    expect(errorOf(make({ ...LOOK, width: 2 })).field).toBe('policy.lookahead.width');
  });
});
