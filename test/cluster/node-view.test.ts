// The cluster state's read port for pod schedulers (src/cluster/node-view.ts): live values, a
// per-node version that grows on every change to that node only, and change listeners that stop
// when unsubscribed. Both backends.
import { describe, expect, it } from 'vitest';
import { AllocationError } from '../../src/shared/errors.js';
import { engines } from '../support/engines.js';

const { wasm, ts } = await engines();
const G = 2 ** 30;

describe.each([
  ['wasm', wasm],
  ['ts', ts],
] as const)('NodeView (%s)', (_name, engine) => {
  const nodes = () => [
    {
      id: 'a',
      gpus: [
        { index: 1, memoryTotal: 80 * G },
        { index: 0, memoryTotal: 80 * G, memoryUsed: 8 * G },
      ],
      cpu: 32000,
      hostMemory: 256 * G,
      gpuModel: 'A100',
    },
    { id: 'b', gpus: [{ index: 0, memoryTotal: 40 * G }], topology: { gpus: 1, links: [] } },
  ];

  it('reads the nodes as the state has them, live', () => {
    const state = engine.createClusterState({ nodes: nodes() });
    const view = state.nodeView();
    expect(view.count).toBe(2);
    expect(view.nodeIds()).toEqual(['a', 'b']);
    expect(view.indexOf('b')).toBe(1);
    expect(() => view.indexOf('zz', 'where')).toThrow(expect.objectContaining({ code: 'UNKNOWN_NODE', field: 'where' }));
    expect(() => view.indexOf('zz')).toThrow(AllocationError);
    const a = view.gpus(0);
    expect(a.indices).toEqual([0, 1]);
    expect([...a.total]).toEqual([80 * G, 80 * G]);
    expect([...a.free]).toEqual([72 * G, 80 * G]);
    expect([view.cpuLeft(0), view.hostMemoryLeft(0), view.gpuModel(0), view.topology(0)]).toEqual([32000, 256 * G, 'A100', undefined]);
    expect([view.cpuLeft(1), view.hostMemoryLeft(1), view.gpuModel(1), view.topology(1)]).toEqual([-1, -1, undefined, { gpus: 1, links: [] }]);
    const id = state.commit({ node: 'a', gpus: [1], memoryPerGpu: 8 * G, milli: 100, cpu: 1000, hostMemory: G, evict: [], score: 0 }, { id: 'p' });
    // The same arrays, now showing the slot.
    expect([...a.free]).toEqual([72 * G, 72 * G]);
    expect([view.cpuLeft(0), view.hostMemoryLeft(0)]).toEqual([31000, 255 * G]);
    const seen: Array<[string, number[]]> = [];
    view.forEachSlot(0, (slot, positions) => seen.push([slot.id, [...positions]]));
    expect(seen).toEqual([[id, [1]]]);
    view.forEachSlot(1, () => seen.push(['none', []]));
    expect(seen).toHaveLength(1);
  });

  it('versions grow by one per change of that node; listeners hear each change until unsubscribed', () => {
    const state = engine.createClusterState({ nodes: nodes() });
    const view = state.nodeView();
    const heard: number[] = [];
    const versionsHeard: number[] = [];
    const stop = view.onChange((k) => {
      heard.push(k);
      versionsHeard.push(view.version(k));
    });
    const second: number[] = [];
    const stopSecond = view.onChange((k) => second.push(k));
    expect([view.version(0), view.version(1)]).toEqual([0, 0]);
    const s1 = state.commit(state.plan({ memory: 10 * G, tensorParallelSizes: [1] }).options.find((o) => o.node === 'b')!);
    expect([view.version(0), view.version(1)]).toEqual([0, 1]);
    state.markStale(s1);
    expect([view.version(0), view.version(1)]).toEqual([0, 2]);
    const s2 = state.commit({ node: 'a', gpus: [0], memoryPerGpu: G, evict: [], score: 0 });
    expect([view.version(0), view.version(1)]).toEqual([1, 2]);
    stopSecond();
    state.release(s1);
    state.release(s2);
    expect([view.version(0), view.version(1)]).toEqual([2, 3]);
    expect(heard).toEqual([1, 1, 0, 1, 0]);
    expect(versionsHeard).toEqual([1, 2, 1, 3, 2]);
    expect(second).toEqual([1, 1, 0]);
    stop();
    stop();
    state.commit({ node: 'a', gpus: [0], memoryPerGpu: G, evict: [], score: 0 });
    expect(heard).toHaveLength(5);
    expect(view.version(0)).toBe(3);
  });

  it('a refused commit changes no version and tells no listener', () => {
    const state = engine.createClusterState({ nodes: nodes() });
    const view = state.nodeView();
    const heard: number[] = [];
    view.onChange((k) => heard.push(k));
    expect(() => state.commit({ node: 'b', gpus: [0], memoryPerGpu: 41 * G, evict: [], score: 0 })).toThrow(expect.objectContaining({ code: 'CONFLICT' }));
    expect([view.version(0), view.version(1), heard.length]).toEqual([0, 0, 0]);
  });
});
