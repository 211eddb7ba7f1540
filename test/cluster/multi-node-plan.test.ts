// ClusterState.plan across nodes: a model no node holds alone (Llama 3.1 405B in BF16 on two
// 8 × 80 GB nodes) gets options of tensor-parallel 8 × 2 pipeline stages; fewer nodes rank first,
// then the topology; required and preferred labels; maxNodes; vLLM's size rules; bad input.
import { describe, expect, it } from 'vitest';
import type { ClusterNode } from '../../src/index.js';
import { engines, errorOf } from '../support/engines.js';

const { wasm, ts } = await engines();
const GB = 1e9;

/** A node of `gpus` GPUs of 80 GB (NVSwitch: no topology), labelled. */
function node(id: string, labels: Record<string, string>, gpus = 8, used = 0): ClusterNode {
  return { id, gpus: Array.from({ length: gpus }, (_, index) => ({ index, memoryTotal: 80 * GB, ...(used > 0 ? { memoryUsed: used } : {}) })), labels };
}

describe.each([
  ['wasm', wasm],
  ['ts', ts],
] as const)('multi-node plans (%s)', (_name, engine) => {
  it('places 810 GB on two 8-GPU nodes as tensor-parallel 8 × pipeline 2, and commits it as one slot', () => {
    const s = engine.createClusterState({ nodes: [node('a', { rack: 'r1' }), node('b', { rack: 'r1' })] });
    const plan = s.plan({ memory: 810 * GB, model: 'llama-405b' });
    expect(plan.options).toHaveLength(1);
    const [o] = plan.options;
    expect(o).toMatchObject({ tensorParallel: 8, pipelineParallel: 2, gpus: [], evict: [], memoryPerGpu: Math.ceil((810 * GB) / 16), model: 'llama-405b' });
    expect(o.parts!.map((p) => p.node)).toEqual(['a', 'b']);
    expect(o.parts![0].gpus).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    const id = s.commit(o);
    expect(s.listSlots('a')[0]).toMatchObject({ id, gpus: [0, 1, 2, 3, 4, 5, 6, 7], parts: o.parts });
    expect(s.listSlots('b')[0]).toMatchObject({ id, parts: o.parts });
    expect(s.listSlots()).toHaveLength(1);
    // Nothing is left for a second one, on either node.
    expect(s.plan({ memory: 810 * GB }).options).toEqual([]);
    expect(() => s.commit(o)).toThrow(expect.objectContaining({ code: 'CONFLICT' }));
    // The state round-trips through JSON, the slot on both nodes.
    const again = engine.restoreClusterState(JSON.parse(JSON.stringify(s.toJSON())));
    expect(again.toJSON()).toEqual(s.toJSON());
    expect(again.usage().every((u) => u.allocated === o.memoryPerGpu)).toBe(true);
    // Release, stale and touch act on the whole slot.
    s.markStale(id);
    expect(s.listSlots('b')[0].stale).toBe(true);
    s.touch(id, 1234);
    expect(s.listSlots('b')[0].lastActivity).toBe(1234);
    s.release(id);
    expect(s.usage().every((u) => u.allocated === 0)).toBe(true);
    expect(s.plan({ memory: 810 * GB }).options).toHaveLength(1);
  });

  it('a stale multi-node slot is evicted whole by a one-node option on either of its nodes', () => {
    const s = engine.createClusterState({ nodes: [node('a', {}), node('b', {})] });
    const id = s.commit(s.plan({ memory: 810 * GB, model: 'big' }).options[0]);
    s.markStale(id);
    const p = s.plan({ memory: 300 * GB, model: 'small', tensorParallelSizes: [8] });
    expect(p.options[0].evict).toEqual([id]);
    s.commit(p.options[0]);
    expect(s.listSlots().map((x) => x.model)).toEqual(['small']);
    expect(s.listSlots('b')).toEqual([]);
  });

  it('ranks fewer nodes first, then the preferred labels, and keeps required domains whole', () => {
    const nodes = [node('n1', { zone: 'z1', rack: 'r1' }), node('n2', { zone: 'z2', rack: 'r2' }), node('n3', { zone: 'z1', rack: 'r3' }), node('n4', { zone: 'z2', rack: 'r2' })];
    const s = engine.createClusterState({ nodes });
    const plan = s.plan({ memory: 810 * GB, topology: { preferred: ['zone', 'rack'] }, limit: 100, maxNodes: 2 });
    // 6 pairs of 2 nodes; same zone and rack first (n2+n4), then same zone (n1+n3), then the rest by their
    // worse node (equal nodes: the later ID in natural order is the worse).
    expect(plan.options.map((o) => o.parts!.map((p) => p.node).join('+'))).toEqual(['n2+n4', 'n1+n3', 'n1+n2', 'n2+n3', 'n1+n4', 'n3+n4']);
    // Without maxNodes, 3 and 4 nodes follow every pair (fewer nodes first).
    const all = s.plan({ memory: 810 * GB, limit: 100 }).options.map((o) => o.pipelineParallel);
    expect(all).toEqual([...all].sort((a, b) => a! - b!));
    expect(new Set(all)).toEqual(new Set([2, 3, 4]));
    const zone = s.plan({ memory: 810 * GB, topology: { required: 'rack' }, limit: 100 });
    expect(zone.options.map((o) => o.parts!.map((p) => p.node).join('+'))).toEqual(['n2+n4']);
    // 1.5 TB needs 3 nodes (the 4 nodes' 2.56 TB split over 2 is 80 GB per GPU, too much at 1.5 TB / 16 = 94 GB).
    const three = s.plan({ memory: 1500 * GB, topology: { required: 'rack' } });
    expect(three.options).toEqual([]);
    expect(three.reason).toMatchObject({ code: 'NO_VIABLE_OPTION' });
    expect(three.reason!.message).toContain('label rack');
    expect(s.plan({ memory: 1500 * GB }).options[0].pipelineParallel).toBe(3);
  });

  it('offers options across nodes next to one-node options only when maxNodes allows it', () => {
    const s = engine.createClusterState({ nodes: [node('a', {}), node('b', {})] });
    expect(s.plan({ memory: 300 * GB }).options.every((o) => o.parts === undefined)).toBe(true);
    // 142 one-node options (C(8,4) × 2 + 2), then the ones across both nodes.
    const both = s.plan({ memory: 300 * GB, maxNodes: 2, tensorParallelSizes: [4, 8], limit: 200 });
    expect(both.options.filter((o) => o.parts === undefined)).toHaveLength(142);
    const spans = both.options.filter((o) => o.parts !== undefined);
    expect(spans.length).toBeGreaterThan(0);
    // Every one-node option ranks before every option across nodes.
    expect(both.options.findIndex((o) => o.parts !== undefined)).toBe(both.options.length - spans.length);
    // Fewer GPUs first among them: TP 4 × 2 before TP 8 × 2.
    expect(spans[0].tensorParallel).toBe(4);
    expect(s.plan({ memory: 810 * GB, maxNodes: 1 }).options).toEqual([]);
  });

  it("follows vLLM's rules: one tensor-parallel size dividing each node's GPUs and the attention heads", () => {
    // A 6-GPU node pairs with an 8-GPU one only at TP 1 or 2 (dividing both); 300 GB over 2 × 2 GPUs is 75 GB each.
    const s = engine.createClusterState({ nodes: [node('a', {}, 8), node('b', {}, 6)] });
    const spans = s.plan({ memory: 300 * GB, maxNodes: 2, limit: 1000 }).options.filter((o) => o.parts !== undefined);
    expect(spans.map((o) => o.tensorParallel)).toEqual([2]);
    expect(spans[0].parts).toEqual([
      { node: 'a', gpus: [0, 1], memoryPerGpu: 75 * GB },
      { node: 'b', gpus: [0, 1], memoryPerGpu: 75 * GB },
    ]);
    // 2 attention heads allow TP 1 and 2; 3 heads only TP 1 (300 GB on 2 GPUs: too much).
    expect(s.plan({ memory: 300 * GB, maxNodes: 2, attentionHeads: 2, tensorParallelSizes: [2] }).options.at(-1)?.tensorParallel).toBe(2);
    expect(s.plan({ memory: 300 * GB, attentionHeads: 3 }).options).toEqual([]);
  });

  it('names bad input: unknown keys with the key meant, bad labels and maxNodes', () => {
    const s = engine.createClusterState({ nodes: [node('a', {}), node('b', {})] });
    expect(errorOf(() => s.plan({ memory: GB, maxnodes: 2 } as never))).toMatchObject({ code: 'INVALID_ARGUMENT', field: 'maxnodes' });
    expect(errorOf(() => s.plan({ memory: GB, maxnodes: 2 } as never))?.message).toContain('maxNodes');
    expect(errorOf(() => s.plan({ memory: GB, topology: { prefered: ['zone'] } } as never))?.message).toContain('preferred');
    expect(errorOf(() => s.plan({ memory: GB, topology: { required: 'no spaces allowed' } }))).toMatchObject({ field: 'topology.required' });
    expect(errorOf(() => s.plan({ memory: GB, maxNodes: 0 }))).toMatchObject({ field: 'maxNodes' });
    expect(errorOf(() => engine.createClusterState({ nodes: [{ id: 'x', gpus: [], labels: { rack: 'has space' } }] }))?.message).toContain('rack');
  });
});
