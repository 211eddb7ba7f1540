// The engine's rollouts (a policy's lookahead, src/fleet/lookahead.ts; docs/fleet.md "The rollouts in
// the engine") reproduce the research copy's figure: fgd-lp with rollouts on exact ties of shares
// (n 2, 16 continuations of 16 pods) allocates 96.06 % at 100 % arrived over seeds 42..46 (the
// research copy: 96.06 ± 0.04), above fgd-lp on every seed, the same on both backends.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPolicy } from '../../bench/fleet-rollout.bench.js';
import { policyByName } from '../../src/fleet/policies/index.js';
import { parseNodeCsv, parsePodCsv } from '../../src/fleet/trace.js';
import { validateNodes, validatePods } from '../../src/fleet/types.js';
import { ROOT } from '../support/cli.js';
import { engines } from '../support/engines.js';

describe('fleet research: the engine rollouts', async () => {
  const { wasm, ts } = await engines();
  const nodes = validateNodes('nodes', parseNodeCsv('nodes', readFileSync(join(ROOT, 'data/openb/openb_node_list_gpu_node.csv'), 'utf8')));
  const pods = validatePods('pods', parsePodCsv('pods', readFileSync(join(ROOT, 'data/openb/openb_pod_list_default.csv'), 'utf8')));
  const lp = policyByName('fgd-lp');
  const rolled = { ...lp, lookahead: { delta: 0, continuations: 16, depth: 16, scope: 'shares' as const, candidates: 2 } };
  const SEEDS = [42, 43, 44, 45, 46];

  it('fgd-lp with rollouts on exact ties of shares: 96.06 over seeds 42..46, above fgd-lp on every seed', { timeout: 120_000 }, () => {
    const base = SEEDS.map((seed) => runPolicy(wasm, nodes, pods, lp, seed, 'index').at100);
    const withRollouts = SEEDS.map((seed) => runPolicy(wasm, nodes, pods, rolled, seed, 'index').at100);
    expect(base).toEqual([95.99, 95.98, 96.02, 95.94, 95.99]);
    expect(withRollouts).toEqual([96.11, 96.15, 96.03, 96.01, 96.02]);
    for (let i = 0; i < SEEDS.length; i++) expect(withRollouts[i]).toBeGreaterThan(base[i]!);
    const mean = withRollouts.reduce((a, b) => a + b, 0) / SEEDS.length;
    expect(mean).toBeCloseTo(96.064, 3);
  });

  it('the same run on ts (seed 42)', { timeout: 120_000 }, () => {
    expect(runPolicy(ts, nodes, pods, rolled, 42, 'index').at100).toBe(96.11);
  });
});
