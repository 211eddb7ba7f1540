// ClusterState with used memory (memoryUsed): plans avoid GPUs other processes fill, commit
// re-validates against it, rejections name it, and toJSON / restore keep it (written only when > 0).
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import { codeOf, engines } from '../support/engines.js';

const { wasm, ts } = await engines();
const G = 2 ** 30;

describe.each([
  ['wasm', wasm],
  ['ts', ts],
] as Array<[string, Engine]>)('ClusterState with memoryUsed (%s)', (_name, engine) => {
  const nodes = () => [
    {
      id: 'a',
      gpus: [
        { index: 0, memoryTotal: 80 * G, memoryUsed: 70 * G },
        { index: 1, memoryTotal: 80 * G, memoryUsed: 50 * G },
      ],
    },
    { id: 'b', gpus: [{ index: 0, memoryTotal: 40 * G }] },
  ];

  it('places a model on the node with room, not on GPUs other processes fill', () => {
    const state = engine.createClusterState({ nodes: nodes() });
    const plan = state.plan({ memory: 35 * G, tensorParallelSizes: [1] });
    expect(plan.options.map((o) => [o.node, o.gpus])).toEqual([['b', [0]]]);
    // Spread over both nodes: node a's GPU 1 (30 GiB free) takes 25 GiB, node b's (40 GiB) ranks first.
    const small = state.plan({ memory: 25 * G, tensorParallelSizes: [1] });
    expect(small.options.map((o) => [o.node, o.gpus])).toEqual([
      ['b', [0]],
      ['a', [1]],
    ]);
  });

  it('commit of an option that used memory leaves no room for conflicts and changes nothing', () => {
    const state = engine.createClusterState({ nodes: nodes() });
    const before = JSON.stringify(state.toJSON());
    expect(codeOf(() => state.commit({ node: 'a', gpus: [0], memoryPerGpu: 20 * G, evict: [], score: 0 }))).toBe('CONFLICT');
    expect(JSON.stringify(state.toJSON())).toBe(before);
    expect(codeOf(() => state.commit({ node: 'a', gpus: [0], memoryPerGpu: 10 * G, evict: [], score: 0 }))).toBeUndefined();
  });

  it('with no option, the rejections name the memory in use by other processes', () => {
    const state = engine.createClusterState({ nodes: nodes() });
    const plan = state.plan({ memory: 45 * G, tensorParallelSizes: [1], maxNodes: 1 });
    expect(plan.options).toEqual([]);
    const a1 = plan.rejected.find((r) => r.node === 'a' && r.gpu === 1)!;
    expect(a1.code).toBe('INSUFFICIENT_MEMORY');
    expect(a1.shortBy).toBe(15 * G);
    expect(a1.message).toContain('50 GiB in use by other processes');
    const b0 = plan.rejected.find((r) => r.node === 'b' && r.gpu === 0)!;
    expect(b0.code).toBe('GPU_TOO_SMALL');
    expect(b0.message).not.toContain('other processes');
  });

  it('usage reports slots as allocated and used memory apart', () => {
    const state = engine.createClusterState({ nodes: nodes() });
    state.commit(state.plan({ memory: 25 * G, tensorParallelSizes: [1] }).options[1]);
    expect(state.usage()).toEqual([
      { node: 'a', gpu: 0, memoryTotal: 80 * G, allocated: 0, memoryUsed: 70 * G },
      { node: 'a', gpu: 1, memoryTotal: 80 * G, allocated: 25 * G, memoryUsed: 50 * G },
      { node: 'b', gpu: 0, memoryTotal: 40 * G, allocated: 0 },
    ]);
  });

  it('slots and used memory above memoryTotal are OVERSCHEDULED, naming both', () => {
    let message = '';
    try {
      engine.createClusterState({ nodes: [{ id: 'n', gpus: [{ index: 0, memoryTotal: 80 * G, memoryUsed: 60 * G }], slots: [{ id: 's', gpus: [0], memoryPerGpu: 30 * G }] }] });
    } catch (e) {
      message = (e as Error).message;
      expect((e as { code: string }).code).toBe('OVERSCHEDULED');
    }
    expect(message).toContain('30 GiB of slots and 60 GiB in use by other processes on 80 GiB');
    expect(codeOf(() => engine.createClusterState({ nodes: [{ id: 'n', gpus: [{ index: 0, memoryTotal: 80 * G, memoryUsed: 81 * G }] }] }))).toBe('INVALID_ARGUMENT');
  });

  it('toJSON writes memoryUsed only when > 0, and restore round-trips it exactly', () => {
    const state = engine.createClusterState({ nodes: [...nodes(), { id: 'c', gpus: [{ index: 0, memoryTotal: 40 * G, memoryUsed: 0 }] }] });
    state.commit(state.plan({ memory: 25 * G, tensorParallelSizes: [1] }).options[0]);
    const json = state.toJSON();
    expect(json.nodes.map((n) => n.gpus)).toEqual([
      [
        { index: 0, memoryTotal: 80 * G, memoryUsed: 70 * G },
        { index: 1, memoryTotal: 80 * G, memoryUsed: 50 * G },
      ],
      [{ index: 0, memoryTotal: 40 * G }],
      [{ index: 0, memoryTotal: 40 * G }],
    ]);
    expect(JSON.stringify(json)).not.toContain('"memoryUsed":0');
    const text = JSON.stringify(json);
    const restored = engine.restoreClusterState(text);
    expect(JSON.stringify(restored.toJSON())).toBe(text);
    const request = { memory: 25 * G, tensorParallelSizes: [1] };
    expect(restored.plan(request)).toEqual(state.plan(request));
    // The committed slot took 25 of node b's 40 GiB; node a's GPU 1 keeps 30 GiB after its used memory.
    expect(restored.plan(request).options.map((o) => [o.node, o.gpus])).toEqual([
      ['c', [0]],
      ['a', [1]],
    ]);
  });

  it('a state file without memoryUsed restores and writes back byte for byte', () => {
    const old = '{"version":1,"nextSlot":2,"nodes":[{"id":"n","gpus":[{"index":0,"memoryTotal":85899345920}],"slots":[{"id":"slot-1","gpus":[0],"memoryPerGpu":1073741824}]}]}';
    expect(JSON.stringify(engine.restoreClusterState(old).toJSON())).toBe(old);
  });
});
