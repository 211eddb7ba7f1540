// state.podScheduler's `shapes` option only chooses the score-cache columns: the default policy's
// dead hole (the 1st percentile of the share sizes) comes from the `typical` workload, so giving
// `shapes` never changes a plan. Both backends.
import { describe, expect, it } from 'vitest';
import type { FleetPod } from '../../src/index.js';
import { engines } from '../support/engines.js';

const { wasm, ts } = await engines();
const G = 2 ** 30;

const pod = (id: string, milli: number, gpus = 1): FleetPod => ({ id, cpu: 1000, memoryMiB: 1, gpus, milli });
// 20 whole-GPU pods, 10 shares of 500 and 10 of 300 (the typical pods, 40 of 41), and one share of
// 100: outside the typical pods, but the workload's smallest share, so the dead hole is 100.
const workload: FleetPod[] = [
  ...Array.from({ length: 20 }, (_, i) => pod(`w${i}`, 1000)),
  ...Array.from({ length: 10 }, (_, i) => pod(`h${i}`, 500)),
  ...Array.from({ length: 10 }, (_, i) => pod(`t${i}`, 300)),
  pod('tiny', 100),
];

describe.each([
  ['wasm', wasm],
  ['ts', ts],
] as const)('podScheduler shapes (%s)', (_name, engine) => {
  /** Plans and commits a 300 then a 500 on two one-GPU nodes; the nodes each lands on. */
  const run = (shapes?: FleetPod[]): string[] => {
    const state = engine.createClusterState({ nodes: ['a', 'b'].map((id) => ({ id, gpus: [{ index: 0, memoryTotal: 16 * G }], cpu: 64_000, gpuModel: 'T4' })) });
    const pods = state.podScheduler({ policy: 'fgd-close', typical: workload, ...(shapes === undefined ? {} : { shapes }) });
    try {
      return [pod('p300', 300), pod('p500', 500)].map((p) => {
        const option = pods.plan(p).options[0];
        state.commit(option, { id: p.id });
        return option.node!;
      });
    } finally {
      pods.close();
    }
  };

  it('a 500 beside the 300 would leave 200, above the dead hole of 100 and no sum of 300s and 500s: it opens b', () => {
    expect(run()).toEqual(['a', 'b']);
  });

  it("the same plans when shapes lists only the 500 (the dead hole stays the workload's, not 500)", () => {
    expect(run([pod('only', 500)])).toEqual(['a', 'b']);
    expect(run([])).toEqual(['a', 'b']);
  });
});
