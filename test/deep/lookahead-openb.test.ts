// The openb default trace (1,213 nodes, 10,814 pod attempts) under fgd-lp with rollouts on every pod
// (δ 0, n 4, 16 continuations of 16 pods): the same event log on wasm and ts, and through the pod
// index and by the scan (test/fleet/lookahead-parity.test.ts runs random small fleets in npm test).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { policyByName } from '../../src/fleet/policies/index.js';
import { parseNodeCsv, parsePodCsv } from '../../src/fleet/trace.js';
import { engines } from '../support/engines.js';
import { runWithPolicy } from '../support/lookahead-run.js';

describe('fleet lookahead on the openb default trace', async () => {
  const { wasm, ts } = await engines();

  it('fgd-lp with rollouts: wasm and ts, index and scan give the same events', { timeout: 120_000 }, () => {
    const root = join(import.meta.dirname, '../..');
    const nodes = parseNodeCsv('nodes', readFileSync(join(root, 'data/openb/openb_node_list_gpu_node.csv'), 'utf8'));
    const pods = parsePodCsv('pods', readFileSync(join(root, 'data/openb/openb_pod_list_default.csv'), 'utf8'));
    const policy = { ...policyByName('fgd-lp'), lookahead: { delta: 0, continuations: 16, depth: 16, scope: 'all' as const, candidates: 4 } };
    const w = runWithPolicy(wasm, nodes, pods, policy, 42);
    expect(runWithPolicy(ts, nodes, pods, policy, 42)).toStrictEqual(w);
    // About a third of the 10,814 attempts have two or more exact ties among the best four.
    expect(w.looked).toBeGreaterThan(2000);
    expect(runWithPolicy(wasm, nodes, pods, policy, 42, 'scan')).toStrictEqual(w);
  });
});
