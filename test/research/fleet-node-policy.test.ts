// The default policy, fgd-node (docs/fleet.md, "The default: fgd-node"), on the default trace at 100 %
// arrived, seeds 42..46: 96.30, 96.25, 96.30, 96.26, 96.24 (mean 96.27, the target 96.2 met on every
// seed), the same on both backends and with the scan; without its rollouts 96.24; FGD 95.19.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClusterState } from '../../src/cluster/state.js';
import { DEFAULT_POLICY, policyByName } from '../../src/fleet/policies/index.js';
import { Prng } from '../../src/fleet/prng.js';
import { PodScheduler } from '../../src/fleet/scheduler.js';
import { parseNodeCsv, parsePodCsv } from '../../src/fleet/trace.js';
import { validateNodes, validatePods } from '../../src/fleet/types.js';
import { typicalPods } from '../../src/fleet/typical.js';
import { binCurve, fleetClusterNodes, prepareWorkload, rint, round2, simulateRun, simulationNodeValues } from '../../src/simulation/simulate.js';
import { ROOT } from '../support/cli.js';
import { engines } from '../support/engines.js';

describe('fleet: fgd-node, the default, on the default trace', async () => {
  const { wasm, ts } = await engines();
  const nodesFile = join(ROOT, 'data/openb/openb_node_list_gpu_node.csv');
  const podsFile = join(ROOT, 'data/openb/openb_pod_list_default.csv');
  const nodes = parseNodeCsv(nodesFile, readFileSync(nodesFile, 'utf8'));
  const pods = parsePodCsv(podsFile, readFileSync(podsFile, 'utf8'));
  const SEEDS = [42, 43, 44, 45, 46];
  const specs = validateNodes('nodes', nodes);
  const work = validatePods('pods', pods);
  // fgd-node's node-level LP solved once for the wasm runs of every seed (test/fleet/simulate-node-values.test.ts:
  // the same runs as with an LP per run); the ts run and the scan run go through simulateFleet whole.
  const values = simulationNodeValues(wasm.kernels, specs, work);

  it('is the default; seeds 42..46: 96.30 96.25 96.30 96.26 96.24, every seed at 96.2 or more, on wasm and ts', () => {
    expect(DEFAULT_POLICY).toBe('fgd-node');
    const figures = SEEDS.map((seed) => simulateRun(wasm.kernels, specs, work, { policy: DEFAULT_POLICY, seed, ...(values === undefined ? {} : { values }) }).allocation[100]);
    expect(figures).toEqual([96.3, 96.25, 96.3, 96.26, 96.24]);
    expect(figures.reduce((a, b) => a + b, 0) / figures.length).toBeGreaterThanOrEqual(96.2);
    expect(ts.simulateFleet({ nodes, pods, seed: 44 }).allocation[100]).toBe(96.3);
    expect(wasm.simulateFleet({ nodes, pods, seed: 45, search: 'scan' }).allocation[100]).toBe(96.26);
  });

  it('without its rollouts: 96.28 96.25 96.26 96.19 96.22 (mean 96.24); FGD 95.19', () => {
    const policy = { ...policyByName('fgd-node'), lookahead: undefined };
    const gpus = specs.reduce((a, n) => a + n.gpus, 0);
    const figures = SEEDS.map((seed) => {
      const { order, ranks } = prepareWorkload(specs, work, 1.3, new Prng(seed));
      const state = ClusterState.create(wasm.kernels, { nodes: fleetClusterNodes(specs) });
      const scheduler = new PodScheduler(wasm.kernels, state.nodeView(), policy, typicalPods(work), ranks, work, seed, undefined, 'index', work, values);
      const bins: number[] = [];
      const alloc: number[] = [];
      let arrived = 0;
      let used = 0;
      for (const pod of order) {
        arrived += pod.gpus * pod.milli;
        const at = scheduler.planWithDraws(pod, 0, 0);
        if (at !== null) {
          state.commit(at);
          used += pod.gpus * pod.milli;
        }
        bins.push(rint(arrived / gpus / 10));
        alloc.push(round2(used / gpus / 10));
      }
      scheduler.close();
      return binCurve(bins, alloc)[100];
    });
    expect(figures).toEqual([96.28, 96.25, 96.26, 96.19, 96.22]);
    const fgd = SEEDS.map((seed) => wasm.simulateFleet({ nodes, pods, policy: 'fgd', seed }).allocation[100]);
    expect(fgd.reduce((a, b) => a + b, 0) / 5).toBeCloseTo(95.194, 2);
  });
});
