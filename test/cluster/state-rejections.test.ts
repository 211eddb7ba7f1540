// A cluster plan with no option: per-GPU rejections of the first CLUSTER_REJECTED_NODES nodes (in
// the order given), and a reason that counts theirs and says how many nodes there are. Both backends.
import { describe, expect, it } from 'vitest';
import { CLUSTER_REJECTED_NODES } from '../../src/cluster/state.js';
import type { Engine } from '../../src/engine.js';
import { engines } from '../support/engines.js';

const { wasm, ts } = await engines();
const G = 2 ** 30;

describe.each([
  ['wasm', wasm],
  ['ts', ts],
] as Array<[string, Engine]>)('ClusterState.plan rejections (%s)', (_name, engine) => {
  it("lists the first nodes' rejections and counts them in the reason", () => {
    const count = CLUSTER_REJECTED_NODES + 36;
    // Node k: 2 GPUs of 40 GiB; the last node's GPU 1 has 30 GiB in use (it is rejected too, for another reason).
    const nodes = Array.from({ length: count }, (_, k) => ({
      id: `n${k}`,
      gpus: [{ index: 0, memoryTotal: 40 * G }, k === count - 1 ? { index: 1, memoryTotal: 80 * G, memoryUsed: 30 * G } : { index: 1, memoryTotal: 40 * G }],
    }));
    const state = engine.createClusterState({ nodes });
    const plan = state.plan({ memory: 60 * G, tensorParallelSizes: [1] });
    expect(plan.options).toEqual([]);
    expect(plan.rejected).toHaveLength(2 * CLUSTER_REJECTED_NODES);
    expect(plan.rejected[0]).toMatchObject({ node: 'n0', gpu: 0, code: 'GPU_TOO_SMALL' });
    expect(plan.rejected.at(-1)).toMatchObject({ node: `n${CLUSTER_REJECTED_NODES - 1}`, gpu: 1 });
    expect(plan.reason?.message).toContain(`(${2 * CLUSTER_REJECTED_NODES}/${2 * CLUSTER_REJECTED_NODES} GPUs of the first ${CLUSTER_REJECTED_NODES} of ${count} nodes cannot take their share)`);
  });

  it('counts only the listed GPUs that cannot take the share; a small cluster lists and counts every node', () => {
    const nodes = Array.from({ length: CLUSTER_REJECTED_NODES + 2 }, (_, k) => ({
      id: `n${k}`,
      gpus: [
        { index: 0, memoryTotal: k === 0 ? 80 * G : 40 * G },
        { index: 1, memoryTotal: 40 * G },
      ],
    }));
    // TP 2 of 100 GiB: 50 GiB a GPU; node n0's 80 GiB GPU could take it, its other cannot.
    const big = engine.createClusterState({ nodes }).plan({ memory: 100 * G, tensorParallelSizes: [2] });
    expect(big.reason?.message).toContain(`(${2 * CLUSTER_REJECTED_NODES - 1}/${2 * CLUSTER_REJECTED_NODES} GPUs of the first`);
    const small = engine.createClusterState({ nodes: nodes.slice(0, 3) }).plan({ memory: 100 * G, tensorParallelSizes: [2] });
    expect(small.rejected).toHaveLength(5);
    expect(small.reason?.message).toContain('(5/6 GPUs cannot take their share)');
  });
});
