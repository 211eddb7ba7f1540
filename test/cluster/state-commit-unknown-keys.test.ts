// commit takes a PlacementOption (node, model, gpus, memoryPerGpu, evict, score, milli, cpu,
// hostMemory) and CommitOptions (id, lastActivity). A misspelt key used to be ignored: a pod committed
// with `hostmemory` or `cpus` held no host memory or CPU, silently over-committing the node. Any other
// key is now INVALID_ARGUMENT naming it, and nothing changes; options from plan and podScheduler.plan
// still commit. Both backends.
import { describe, expect, it } from 'vitest';
import { engines, errorOf } from '../support/engines.js';

const { wasm, ts } = await engines();
const G = 2 ** 30;

describe.each([
  ['wasm', wasm],
  ['ts', ts],
] as const)('commit rejects unknown keys (%s)', (_name, engine) => {
  const fresh = () => engine.createClusterState({ nodes: [{ id: 'a', gpus: [{ index: 0, memoryTotal: 10 * G }], cpu: 4000, hostMemory: 8 * G }] });

  it('a misspelt pod resource in the option is an error naming the key; nothing is committed', () => {
    const state = fresh();
    const before = JSON.stringify(state.toJSON());
    for (const key of ['cpus', 'hostmemory', 'memory']) {
      const option = { node: 'a', gpus: [], memoryPerGpu: 0, evict: [], score: 0, cpu: 1000, [key]: 4 * G };
      const e = errorOf(() => state.commit(option));
      expect(e.code).toBe('INVALID_ARGUMENT');
      expect(e.field).toBe(`option.${key}`);
      expect(JSON.stringify(state.toJSON())).toBe(before);
    }
  });

  it('an unknown commit option is an error naming it', () => {
    const state = fresh();
    const e = errorOf(() => state.commit({ node: 'a', gpus: [0], memoryPerGpu: G, evict: [], score: 0 }, { id: 'x', lastActivty: 5 } as never));
    expect(e.code).toBe('INVALID_ARGUMENT');
    expect(e.field).toBe('options.lastActivty');
    expect(state.listSlots()).toEqual([]);
  });

  it('options from plan and from the pod scheduler commit as before', () => {
    const state = fresh();
    const pods = state.podScheduler({ policy: 'bestfit' });
    try {
      const model = state.commit(state.plan({ memory: 2 * G, model: 'm' }).options[0], { id: 'm', lastActivity: 1 });
      const pod = state.commit(pods.plan({ id: 'p', cpu: 1000, memoryMiB: 1024, gpus: 1, milli: 500 }).options[0]);
      expect(state.listSlots().map((s) => s.id)).toEqual([model, pod]);
      expect(pods.view('a')).toEqual({ cpu: 3000, memoryMiB: 8 * 1024 - 1024, gpus: [300] });
    } finally {
      pods.close();
    }
  });
});
