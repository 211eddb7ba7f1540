// A share is charged floor(milli × memoryTotal / 1000) bytes, and a GPU's free milli is read back from
// its free bytes; that is exact only on GPUs of more than 10^6 bytes (src/shared/share.ts). On a
// smaller GPU the rounding lets shares add up past 1000 milli (1500 bytes: ten 1-milli pods are
// charged 10 bytes, leaving 993 milli "free"), or charges 0 bytes (below 1000 bytes). Such a GPU takes
// no share: the scheduler offers it to no GPU pod (NO_NODE_FITS, not an option commit refuses), and
// commit refuses a share on it naming the field; memory-placed models still use it. Both backends.
import { describe, expect, it } from 'vitest';
import { AllocationError } from '../../src/shared/errors.js';
import { engines } from '../support/engines.js';

const { wasm, ts } = await engines();

describe.each([
  ['wasm', wasm],
  ['ts', ts],
] as const)('shares on GPUs of at most 10^6 bytes (%s)', (_name, engine) => {
  const pod = (id: string, milli: number) => ({ id, cpu: 1, memoryMiB: 0, gpus: 1, milli });

  for (const memoryTotal of [500, 1500, 1_000_000]) {
    it(`a GPU of ${memoryTotal} bytes: no GPU pod is planned there, CPU-only pods and models still are`, () => {
      const state = engine.createClusterState({ nodes: [{ id: 'tiny', gpus: [{ index: 0, memoryTotal }], cpu: 100_000 }] });
      const pods = state.podScheduler({ policy: 'bestfit' });
      try {
        const plan = pods.plan(pod('p', 1));
        expect(plan.options).toEqual([]);
        expect(plan.reason?.code).toBe('NO_NODE_FITS');
        const cpuOnly = pods.plan({ id: 'c', cpu: 1000, memoryMiB: 0, gpus: 0, milli: 0 });
        expect(cpuOnly.options[0]).toMatchObject({ node: 'tiny', gpus: [], cpu: 1000 });
        state.commit(cpuOnly.options[0]);
        expect(state.plan({ memory: memoryTotal }).options[0]).toMatchObject({ node: 'tiny', gpus: [0], memoryPerGpu: memoryTotal });
      } finally {
        pods.close();
      }
    });
  }

  it('commit refuses a share on a GPU of 1500 bytes, naming option.milli and the GPU, and changes nothing', () => {
    const state = engine.createClusterState({ nodes: [{ id: 'tiny', gpus: [{ index: 0, memoryTotal: 1500 }], cpu: 100_000 }] });
    const before = JSON.stringify(state.toJSON());
    let error: unknown;
    try {
      state.commit({ node: 'tiny', gpus: [0], memoryPerGpu: 1, evict: [], score: 0, milli: 1, cpu: 1 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AllocationError);
    expect((error as AllocationError).code).toBe('INVALID_ARGUMENT');
    expect((error as AllocationError).field).toBe('option.milli');
    expect((error as AllocationError).message).toMatch(/GPU 0 of node tiny.*1500 bytes/);
    expect(JSON.stringify(state.toJSON())).toBe(before);
  });

  it('a GPU of 1,000,001 bytes takes shares, and 1000 single-milli pods fill it exactly', () => {
    const state = engine.createClusterState({ nodes: [{ id: 'small', gpus: [{ index: 0, memoryTotal: 1_000_001 }] }] });
    const pods = state.podScheduler({ policy: 'bestfit' });
    try {
      for (let i = 0; i < 1000; i++) state.commit(pods.plan({ id: `p${i}`, cpu: 0, memoryMiB: 0, gpus: 1, milli: 1 }).options[0]);
      expect(pods.view('small').gpus).toEqual([0]);
      expect(pods.plan({ id: 'one-more', cpu: 0, memoryMiB: 0, gpus: 1, milli: 1 }).options).toEqual([]);
    } finally {
      pods.close();
    }
  });
});
