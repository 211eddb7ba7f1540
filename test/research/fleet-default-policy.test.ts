// The default policy (fgd-node) against FGD, measured: over the authors' seeds 42..51 its mean GPU
// allocation at 100 % arrived beats FGD's by at least 1.0 on the default trace and multigpu20, 0.8 on
// gpushare40, and 0.2 on gpuspec33.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_POLICY, type FleetPolicyName } from '../../src/fleet/policies/index.js';
import { parseNodeCsv, parsePodCsv } from '../../src/fleet/trace.js';
import { validateNodes, validatePods } from '../../src/fleet/types.js';
import { simulateRun, simulationNodeValues } from '../../src/simulation/index.js';
import { ROOT } from '../support/cli.js';
import { engines } from '../support/engines.js';

describe('fleet: the default policy is not below FGD', async () => {
  const { wasm } = await engines();
  const nodesFile = join(ROOT, 'data/openb/openb_node_list_gpu_node.csv');
  const nodes = validateNodes('nodes', parseNodeCsv(nodesFile, readFileSync(nodesFile, 'utf8')));
  it('is fgd-node', () => expect(DEFAULT_POLICY).toBe('fgd-node'));
  for (const [trace, margin] of [
    ['default', 1.0],
    ['gpushare40', 0.8],
    ['multigpu20', 1.0],
    ['gpuspec33', 0.2],
  ] as const) {
    it(`${trace}: mean over seeds 42..51 at 100 % arrived, at least FGD's + ${margin}`, () => {
      const file = join(ROOT, `data/openb/openb_pod_list_${trace}.csv`);
      const pods = validatePods('pods', parsePodCsv(file, readFileSync(file, 'utf8')));
      // The runs engine.simulateFleet makes, with fgd-node's node-level LP solved once for the ten seeds
      // (test/fleet/simulate-node-values.test.ts: the same runs as with an LP per run).
      const values = simulationNodeValues(wasm.kernels, nodes, pods);
      const mean = (policy: FleetPolicyName) => {
        let sum = 0;
        for (let seed = 42; seed <= 51; seed++) sum += simulateRun(wasm.kernels, nodes, pods, { policy, seed, ...(values === undefined ? {} : { values }) }).allocation[100];
        return sum / 10;
      };
      expect(mean(DEFAULT_POLICY)).toBeGreaterThanOrEqual(mean('fgd') + margin);
    });
  }
});
