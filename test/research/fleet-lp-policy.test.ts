// The default trace's figures at 100 % arrived, mean over seeds 42..46 (docs/fleet.md, "Past
// fgd-close: the LP-priced share rule"): fgd-close 95.85 (the default before fgd-node), fgd-lp 95.98,
// FGD 95.19. (fgd-lp against FGD on every openb variant over seeds 42..51 is in
// fleet-default-policy.test.ts, which makes FGD's runs once for it and for the default policy.)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FleetPolicyName } from '../../src/fleet/policies/index.js';
import { parseNodeCsv, parsePodCsv } from '../../src/fleet/trace.js';
import { ROOT } from '../support/cli.js';
import { engines } from '../support/engines.js';

describe('fleet: the default trace figures', async () => {
  const { wasm } = await engines();
  const nodesFile = join(ROOT, 'data/openb/openb_node_list_gpu_node.csv');
  const nodes = parseNodeCsv(nodesFile, readFileSync(nodesFile, 'utf8'));
  const podsOf = (trace: string) => {
    const file = join(ROOT, `data/openb/openb_pod_list_${trace}.csv`);
    return parsePodCsv(file, readFileSync(file, 'utf8'));
  };
  const mean = (trace: string, policy: FleetPolicyName, first: number, last: number) => {
    const pods = podsOf(trace);
    let sum = 0;
    for (let seed = first; seed <= last; seed++) sum += wasm.simulateFleet({ nodes, pods, policy, seed }).allocation[100];
    return sum / (last - first + 1);
  };

  it('default trace, seeds 42..46: fgd-close 95.85, fgd-lp 95.98, FGD 95.19 (to 0.005)', () => {
    expect(mean('default', 'fgd-close', 42, 46)).toBeCloseTo(95.854, 2);
    expect(mean('default', 'fgd-lp', 42, 46)).toBeCloseTo(95.984, 2);
    expect(mean('default', 'fgd', 42, 46)).toBeCloseTo(95.194, 2);
  });
});
