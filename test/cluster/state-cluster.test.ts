// ClusterState: plan across nodes, atomic commit, release, round-trip, and the no-over-scheduling invariant.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ClusterState } from '../../src/cluster/state.js';
import type { Engine } from '../../src/engine.js';
import { codeOf, engines, errorOf } from '../support/engines.js';

const { wasm, ts } = await engines();
const G = 2 ** 30;
const gpus = (...totals: number[]) => totals.map((t, index) => ({ index, memoryTotal: t * G }));

/** No GPU's allocated memory exceeds its total, and slots add up to what usage() reports. */
function checkInvariant(state: ClusterState): void {
  const json = state.toJSON();
  for (const node of json.nodes) {
    for (const g of node.gpus) {
      const sum = node.slots.filter((s) => s.gpus.includes(g.index)).reduce((a, s) => a + s.memoryPerGpu, 0);
      expect(sum).toBeLessThanOrEqual(g.memoryTotal);
      expect(state.usage().find((u) => u.node === node.id && u.gpu === g.index)!.allocated).toBe(sum);
    }
  }
}

describe.each([
  ['wasm', wasm],
  ['ts', ts],
] as Array<[string, Engine]>)('ClusterState (%s)', (_name, engine) => {
  it('two 70 GiB models land on different GPUs; a third 200 GiB model gets no plan', () => {
    const state = engine.createClusterState({ nodes: [{ id: 'n1', gpus: gpus(80, 80) }] });
    const p1 = state.plan({ memory: 70 * G, model: 'm1' });
    expect(p1.options[0]).toEqual({ node: 'n1', model: 'm1', gpus: [0], memoryPerGpu: 70 * G, evict: [], score: 0 });
    state.commit(p1.options[0]);
    checkInvariant(state);
    const p2 = state.plan({ memory: 70 * G, model: 'm2' });
    expect(p2.options.map((o) => o.gpus)).toEqual([[1]]);
    state.commit(p2.options[0]);
    checkInvariant(state);
    const p3 = state.plan({ memory: 200 * G, model: 'm3' });
    expect(p3.options).toEqual([]);
    expect(p3.reason?.code).toBe('NO_VIABLE_OPTION');
    expect(p3.rejected.map((r) => [r.node, r.gpu, r.code])).toEqual([
      ['n1', 0, 'GPU_TOO_SMALL'],
      ['n1', 1, 'GPU_TOO_SMALL'],
    ]);
  });

  it('two plans raced against one state: the second commit conflicts and changes nothing', () => {
    const state = engine.createClusterState({ nodes: [{ id: 'n1', gpus: gpus(80) }] });
    const a = state.plan({ memory: 60 * G }).options[0];
    const b = state.plan({ memory: 60 * G }).options[0];
    expect(a).toEqual(b);
    const id = state.commit(a);
    const before = JSON.stringify(state.toJSON());
    expect(codeOf(() => state.commit(b))).toBe('CONFLICT');
    expect(JSON.stringify(state.toJSON())).toBe(before);
    expect(state.listSlots().map((s) => s.id)).toEqual([id]);
    checkInvariant(state);
  });

  it('commit conflicts when a slot it would evict is gone or no longer stale', () => {
    const state = engine.createClusterState({ nodes: [{ id: 'n1', gpus: gpus(80), slots: [{ id: 'old', gpus: [0], memoryPerGpu: 60 * G, stale: true }] }] });
    const o = state.plan({ memory: 50 * G }).options[0];
    expect(o.evict).toEqual(['old']);
    state.markStale('old', false);
    expect(codeOf(() => state.commit(o))).toBe('CONFLICT');
    state.release('old');
    expect(codeOf(() => state.commit(o))).toBe('CONFLICT');
    expect(state.listSlots()).toEqual([]);
  });

  it('commit refuses a slot listed twice in evict (it would count its memory twice) and changes nothing', () => {
    const state = engine.createClusterState({
      nodes: [
        {
          id: 'n1',
          gpus: gpus(80),
          slots: [
            { id: 'old', gpus: [0], memoryPerGpu: 30 * G, stale: true },
            { id: 'live', gpus: [0], memoryPerGpu: 30 * G },
          ],
        },
      ],
    });
    const before = JSON.stringify(state.toJSON());
    // Evicting 'old' once leaves 50 GiB, less than 60; counted twice it would seem to leave 80.
    const e = errorOf(() => state.commit({ node: 'n1', gpus: [0], memoryPerGpu: 60 * G, evict: ['old', 'old'], score: 0 }));
    expect([e.code, e.field]).toEqual(['INVALID_ARGUMENT', 'option.evict[1]']);
    expect(codeOf(() => state.commit({ node: 'n1', gpus: [0], memoryPerGpu: 60 * G, evict: ['old'], score: 0 }))).toBe('CONFLICT');
    expect(JSON.stringify(state.toJSON())).toBe(before);
  });

  it('commit evicts what the option lists and adds the slot; release frees every GPU of a slot', () => {
    const state = engine.createClusterState({ nodes: [{ id: 'n1', gpus: gpus(80, 80), slots: [{ id: 'tp', gpus: [0, 1], memoryPerGpu: 60 * G, stale: true, model: 'x' }] }] });
    const o = state.plan({ memory: 100 * G, model: 'y', tensorParallelSizes: [2] }).options[0];
    expect(o).toEqual({ node: 'n1', model: 'y', gpus: [0, 1], memoryPerGpu: 50 * G, evict: ['tp'], score: 0 });
    const id = state.commit(o, { id: 'y-1', lastActivity: 5 });
    expect(id).toBe('y-1');
    expect(state.listSlots()).toEqual([{ id: 'y-1', model: 'y', gpus: [0, 1], memoryPerGpu: 50 * G, lastActivity: 5 }]);
    checkInvariant(state);
    state.release('y-1');
    expect(state.usage().map((u) => u.allocated)).toEqual([0, 0]);
    expect(codeOf(() => state.release('y-1'))).toBe('UNKNOWN_SLOT');
  });

  it('across nodes: the key up to the policy metric, then the least loaded node, then node ID, then GPU indices', () => {
    const state = engine.createClusterState({
      nodes: [
        { id: 'b', gpus: gpus(80, 80) },
        { id: 'a', gpus: gpus(80, 80) },
        { id: 'c', gpus: gpus(80, 80), slots: [{ id: 's', gpus: [1], memoryPerGpu: 10 * G }] },
      ],
    });
    // c's GPU 0 has as much free as any GPU of a or b, but c is more loaded; a and b tie on load: a before b (natural order).
    expect(state.plan({ memory: 30 * G, tensorParallelSizes: [1], limit: 5 }).options.map((o) => [o.node, o.gpus])).toEqual([
      ['a', [0]],
      ['a', [1]],
      ['b', [0]],
      ['b', [1]],
      ['c', [0]],
    ]);
    expect(state.plan({ memory: 30 * G, tensorParallelSizes: [1], limit: 2 }).options.map((o) => [o.node, o.gpus])).toEqual([
      ['a', [0]],
      ['a', [1]],
    ]);
    // pack prefers c's GPU 1 (smallest leftover) whatever the load.
    expect(state.plan({ memory: 30 * G, tensorParallelSizes: [1], policy: 'pack', limit: 1 }).options.map((o) => [o.node, o.gpus])).toEqual([['c', [1]]]);
  });

  it('toJSON / restoreClusterState round-trip exactly, also through JSON text', () => {
    const state = engine.createClusterState({
      nodes: [
        {
          id: 'n1',
          gpus: [
            { index: 3, memoryTotal: 80 * G },
            { index: 1, memoryTotal: 40 * G },
          ],
          topology: { gpus: 4, links: [{ a: 3, b: 1, nvlink: 2 }] },
          slots: [{ id: '__proto__', gpus: [3], memoryPerGpu: G, stale: true, lastActivity: 1, model: 'm' }],
        },
        { id: 'n2', gpus: gpus(16) },
      ],
    });
    state.commit(state.plan({ memory: 10 * G }).options[0]);
    const json = state.toJSON();
    const again = engine.restoreClusterState(JSON.parse(JSON.stringify(json)));
    expect(again.toJSON()).toEqual(json);
    expect(engine.restoreClusterState(JSON.stringify(json)).toJSON()).toEqual(json);
    // The restored state continues where the original did.
    expect(again.plan({ memory: 5 * G })).toEqual(state.plan({ memory: 5 * G }));
    expect(again.commit(again.plan({ memory: 5 * G }).options[0])).toBe(state.commit(state.plan({ memory: 5 * G }).options[0]));
  });

  it('a corrupt or truncated state is INVALID_STATE', () => {
    const text = JSON.stringify(engine.createClusterState({ nodes: [{ id: 'n', gpus: gpus(80), slots: [{ id: 's', gpus: [0], memoryPerGpu: G }] }] }).toJSON());
    expect(codeOf(() => engine.restoreClusterState(text.slice(0, text.length - 7)))).toBe('INVALID_STATE');
    expect(codeOf(() => engine.restoreClusterState({ version: 2, nodes: [], nextSlot: 1 }))).toBe('INVALID_STATE');
    expect(codeOf(() => engine.restoreClusterState(text.replace('"memoryPerGpu":1073741824', '"memoryPerGpu":-1')))).toBe('INVALID_STATE');
    expect(codeOf(() => engine.restoreClusterState(text.replace(/"memoryPerGpu":\d+/, `"memoryPerGpu":${81 * G}`)))).toBe('INVALID_STATE');
  });

  it('rejects over-scheduled slots, duplicate slot IDs and unknown nodes', () => {
    expect(codeOf(() => engine.createClusterState({ nodes: [{ id: 'n', gpus: gpus(80), slots: [{ id: 'a', gpus: [0], memoryPerGpu: 81 * G }] }] }))).toBe('OVERSCHEDULED');
    expect(
      codeOf(() =>
        engine.createClusterState({
          nodes: [
            { id: 'n', gpus: gpus(80), slots: [{ id: 'a', gpus: [0], memoryPerGpu: 1 }] },
            { id: 'm', gpus: gpus(80), slots: [{ id: 'a', gpus: [0], memoryPerGpu: 1 }] },
          ],
        }),
      ),
    ).toBe('DUPLICATE_SLOT');
    const state = engine.createClusterState({ nodes: [{ id: 'n', gpus: gpus(80) }] });
    expect(codeOf(() => state.commit({ node: 'x', gpus: [0], memoryPerGpu: 1, evict: [], score: 0 }))).toBe('UNKNOWN_NODE');
    expect(codeOf(() => state.commit({ node: 'n', gpus: [4], memoryPerGpu: 1, evict: [], score: 0 }))).toBe('UNKNOWN_DEVICE_ID');
    expect(codeOf(() => state.plan({ memory: 0 }))).toBe('INVALID_ARGUMENT');
  });

  it('builds from an inventory: one node named after the host, lost GPUs left out', () => {
    const state = engine.createClusterState({
      version: 1,
      host: 'dgx-01',
      gpus: [
        { index: 0, memoryTotal: 80 * G },
        { index: 1, memoryTotal: 80 * G, lost: true },
      ],
      links: [{ a: 0, b: 1, nvlink: 4 }],
    });
    expect(state.nodes()).toEqual(['dgx-01']);
    expect(state.usage().map((u) => u.gpu)).toEqual([0]);
    expect(state.plan({ memory: 100 * G }).options).toEqual([]);
  });
});

describe('ClusterState invariant', () => {
  type Op = { kind: 'plan'; memory: number; model: number; pick: number; pack: boolean; sizes?: number[] } | { kind: 'release'; pick: number } | { kind: 'stale'; pick: number } | { kind: 'replay' };
  const op: fc.Arbitrary<Op> = fc.oneof(
    {
      weight: 5,
      arbitrary: fc.record({
        kind: fc.constant('plan' as const),
        memory: fc.integer({ min: 1, max: 300 }).map((x) => x * G),
        model: fc.integer({ min: 0, max: 3 }),
        pick: fc.nat(20),
        pack: fc.boolean(),
        sizes: fc.option(fc.constantFrom<number[]>([1], [2], [1, 2, 4], [4, 8]), { nil: undefined }),
      }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('release' as const), pick: fc.nat(50) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('stale' as const), pick: fc.nat(50) }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'replay' as const }) },
  );

  it('no sequence of plan / commit / release over-schedules a GPU, and both backends stay identical', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const init = {
          nodes: [
            {
              id: 'n1',
              gpus: gpus(80, 80, 80, 80),
              topology: {
                gpus: 4,
                links: [
                  { a: 0, b: 1, nvlink: 2 },
                  { a: 2, b: 3, pcie: 'PIX' as const },
                ],
              },
            },
            { id: 'n2', gpus: gpus(40, 40) },
            { id: 'n3', gpus: gpus(24, 80, 80, 80, 80, 80, 80, 80) },
          ],
        };
        const states = [wasm.createClusterState(init), ts.createClusterState(init)];
        let old: ReturnType<ClusterState['plan']>['options'] = [];
        for (const o of ops) {
          const results = states.map((state) => {
            if (o.kind === 'plan') {
              const req = { memory: o.memory, model: `m${o.model}`, policy: o.pack ? ('pack' as const) : ('spread' as const), ...(o.sizes ? { tensorParallelSizes: o.sizes } : {}) };
              const p = state.plan(req);
              if (p.options.length > 0) {
                const chosen = p.options[o.pick % p.options.length];
                state.commit(chosen);
                old = [chosen];
              }
              return p;
            }
            const ids = state.listSlots().map((s) => s.id);
            if (o.kind === 'replay') {
              // A stale option committed again either fits or conflicts; never over-schedules.
              return old.map((x) => codeOf(() => state.commit(x)) ?? 'ok');
            }
            if (ids.length === 0) return null;
            const id = ids[o.pick % ids.length];
            if (o.kind === 'release') state.release(id);
            else state.markStale(id, true);
            return id;
          });
          expect(results[0]).toEqual(results[1]);
          for (const s of states) checkInvariant(s);
          expect(states[0].toJSON()).toEqual(states[1].toJSON());
        }
      }),
      { numRuns: 150 },
    );
  });
});
