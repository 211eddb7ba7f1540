// createClusterState and restoreClusterState read a node's id, gpus, topology, slots, cpu, hostMemory
// and gpuModel, a GPU's index, memoryTotal and memoryUsed, and a slot's id, model, gpus, memoryPerGpu,
// lastActivity, stale, milli, cpu and hostMemory. A misspelt key used to be dropped: a node given
// `cpus` or `hostmemory` tracked no CPU or host memory, so every pod fitted it; a slot's `cpus` held
// nothing. Any other key is now an error naming it (INVALID_ARGUMENT, or INVALID_STATE for restore).
// Both backends.
import { describe, expect, it } from 'vitest';
import { engines, errorOf } from '../support/engines.js';

const { wasm, ts } = await engines();
const G = 2 ** 30;

describe.each([
  ['wasm', wasm],
  ['ts', ts],
] as const)('unknown keys in a state (%s)', (_name, engine) => {
  const gpu = { index: 0, memoryTotal: 16 * G };

  it('a misspelt node resource is an error naming it', () => {
    for (const key of ['cpus', 'hostmemory', 'model']) {
      const e = errorOf(() => engine.createClusterState({ nodes: [{ id: 'a', gpus: [gpu], [key]: 4000 } as never] }));
      expect(e.code).toBe('INVALID_ARGUMENT');
      expect(e.field).toBe(`nodes[0].${key}`);
    }
  });

  it('a misspelt slot or GPU key is an error naming it', () => {
    const slot = errorOf(() => engine.createClusterState({ nodes: [{ id: 'a', gpus: [gpu], cpu: 4000, slots: [{ id: 's', gpus: [], memoryPerGpu: 0, cpu: 1, cpus: 3000 }] } as never] }));
    expect(slot.code).toBe('INVALID_ARGUMENT');
    expect(slot.field).toBe('nodes[0].slots[0].cpus');
    const g = errorOf(() => engine.createClusterState({ nodes: [{ id: 'a', gpus: [{ ...gpu, memoryUsd: G }] } as never] }));
    expect(g.code).toBe('INVALID_ARGUMENT');
    expect(g.field).toBe('nodes[0].gpus[0].memoryUsd');
  });

  it('restore names the key as INVALID_STATE', () => {
    const e = errorOf(() => engine.restoreClusterState({ version: 1, nextSlot: 1, nodes: [{ id: 'a', gpus: [gpu], slots: [], hostmemory: 8 * G }] }));
    expect(e.code).toBe('INVALID_STATE');
    expect(e.field).toBe('state.nodes[0].hostmemory');
  });

  it('a state with every known key restores as written', () => {
    const json = {
      version: 1,
      nextSlot: 3,
      nodes: [
        {
          id: 'a',
          gpus: [
            { index: 0, memoryTotal: 16 * G, memoryUsed: G },
            { index: 1, memoryTotal: 16 * G },
          ],
          topology: { gpus: 2, links: [{ a: 0, b: 1, nvlink: 2 }] },
          slots: [
            { id: 'm', model: 'llama', gpus: [0], memoryPerGpu: 4 * G, lastActivity: 5, stale: true },
            { id: 'p', gpus: [1], memoryPerGpu: Math.floor((250 * 16 * G) / 1000), milli: 250, cpu: 1000, hostMemory: G },
          ],
          cpu: 8000,
          hostMemory: 32 * G,
          gpuModel: 'A100',
        },
      ],
    };
    expect(engine.restoreClusterState(json).toJSON()).toEqual(json);
  });
});
