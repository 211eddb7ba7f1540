// A pod that no node can take: plan returns no option and a NO_NODE_FITS reason whose message names
// the pod, what it asks for and how many nodes have each part, once (no repeated generic sentence).
// Both backends.
import { describe, expect, it } from 'vitest';
import { engines } from '../support/engines.js';

const { wasm, ts } = await engines();
const G = 2 ** 30;

describe.each([
  ['wasm', wasm],
  ['ts', ts],
] as const)('podScheduler NO_NODE_FITS (%s)', (_name, engine) => {
  it('names the request and the count of nodes with each part', () => {
    const state = engine.createClusterState({
      nodes: [
        { id: 'a', gpus: [0, 1].map((index) => ({ index, memoryTotal: 16 * G })), cpu: 8000, hostMemory: 64 * G, gpuModel: 'T4' },
        { id: 'b', gpus: [{ index: 0, memoryTotal: 16 * G }], cpu: 16_000, hostMemory: 8 * G, gpuModel: 'V100' },
      ],
    });
    const pods = state.podScheduler({ policy: 'bestfit' });
    try {
      expect(pods.plan({ id: 'big', cpu: 12_000, memoryMiB: 16_384, gpus: 1, milli: 500, models: ['T4'] })).toEqual({
        options: [],
        reason: {
          code: 'NO_NODE_FITS',
          message:
            'pod big: no node has 12000 milli-CPU, 16384 MiB of host memory and a GPU with 500 milli free of model T4 at once (1 of 2 nodes have the CPU, 1 the host memory, 2 the free GPUs, 1 the GPU model)',
        },
      });
      expect(pods.plan({ id: 'wide', cpu: 1000, memoryMiB: 1024, gpus: 2 }).reason).toBeUndefined();
      expect(pods.plan({ id: 'wider', cpu: 1000, memoryMiB: 1024, gpus: 3 }).reason?.message).toBe(
        'pod wider: no node has 1000 milli-CPU, 1024 MiB of host memory and 3 wholly free GPUs at once (2 of 2 nodes have the CPU, 2 the host memory, 0 the free GPUs)',
      );
      expect(pods.plan({ id: 'cpu', cpu: 20_000, memoryMiB: 0, gpus: 0 }).reason?.message).toBe(
        'pod cpu: no node has 20000 milli-CPU, 0 MiB of host memory at once (0 of 2 nodes have the CPU, 2 the host memory)',
      );
    } finally {
      pods.close();
    }
  });
});
