// fgd-node's node values computed once (simulationNodeValues) and passed to several runs give every
// run the same result as the run that solves its own node-level LP: on both backends, over seeds and
// tunings (the values depend on the fleet and the whole workload, not on the backend, the seed's
// shuffle or its clones).
// A run of another policy ignores them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseNodeCsv, parsePodCsv, validateNodes, validatePods } from '../../src/fleet/index.js';
import { simulateRun, simulationNodeValues } from '../../src/simulation/index.js';
import { ROOT } from '../support/cli.js';
import { engines } from '../support/engines.js';

const { wasm, ts } = await engines();
const nodesFile = join(ROOT, 'data/openb/openb_node_list_gpu_node.csv');
const podsFile = join(ROOT, 'data/openb/openb_pod_list_gpushare40.csv');
const nodes = validateNodes('nodes', parseNodeCsv(nodesFile, readFileSync(nodesFile, 'utf8')).slice(0, 30));
const pods = validatePods('pods', parsePodCsv(podsFile, readFileSync(podsFile, 'utf8')));

describe('simulationNodeValues: fgd-node runs given the values computed once', () => {
  // One LP for every run below (the values are the fleet's and the workload's, whatever the backend).
  const values = simulationNodeValues(wasm.kernels, nodes, pods);

  it('equal the runs that compute their own, on both backends, over seeds and tunings', () => {
    expect(values).toBeDefined();
    expect(values!.lambdas).toBeGreaterThan(0);
    for (const [engine, seed, tune] of [
      [wasm, 42, 1.3],
      [ts, 43, 0.8],
    ] as const) {
      const own = simulateRun(engine.kernels, nodes, pods, { policy: 'fgd-node', seed, tune, events: true });
      const given = simulateRun(engine.kernels, nodes, pods, { policy: 'fgd-node', seed, tune, events: true, values: values! });
      expect(given).toEqual(own);
      expect(own.pods - own.failed).toBeGreaterThan(50);
    }
  });

  it('are none for a workload without GPU pods; a run of another policy ignores them', () => {
    expect(simulationNodeValues(wasm.kernels, nodes, [{ id: 'c', cpu: 1000, memory: 1024, gpus: 0, milli: 0, models: [] }])).toBeUndefined();
    const plain = simulateRun(wasm.kernels, nodes, pods, { policy: 'fgd', seed: 7, events: true });
    expect(simulateRun(wasm.kernels, nodes, pods, { policy: 'fgd', seed: 7, events: true, values: values! })).toEqual(plain);
  });
});
