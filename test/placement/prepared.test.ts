// engine.prepare({ gpus, topology }): a node validated once; planPlacement with the handle plans
// exactly as with plain objects, on both backends, and refuses anything that is not a handle.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import { getPreset } from '../../src/hardware/presets.js';
import { PreparedNode } from '../../src/index.js';
import type { NodeGpu, PlacementRequest, Slot } from '../../src/placement/index.js';
import { AllocationError } from '../../src/shared/errors.js';
import { engines, outcome } from '../support/engines.js';

const { wasm, ts } = await engines();
const G = 2 ** 30;

const arbNode = fc.integer({ min: 1, max: 8 }).chain((n) =>
  fc.record({
    n: fc.constant(n),
    totals: fc.array(fc.constantFrom(16, 40, 80), { minLength: n, maxLength: n }),
    used: fc.array(fc.constantFrom(0, 0, 4, 10), { minLength: n, maxLength: n }),
    slots: fc.array(
      fc.record({
        gpus: fc.uniqueArray(fc.integer({ min: 0, max: n - 1 }), { minLength: 1, maxLength: 3 }),
        mem: fc.integer({ min: 1, max: 6 }),
        stale: fc.boolean(),
        model: fc.constantFrom('a', 'b'),
      }),
      { maxLength: 5 },
    ),
    nvlink: fc.integer({ min: 0, max: 3 }),
    memory: fc.integer({ min: 1, max: 120 }),
    sizes: fc.option(fc.constantFrom<number[]>([1], [2], [1, 2, 4, 8], [2, 4]), { nil: undefined }),
  }),
);

describe.each([
  ['wasm', wasm],
  ['ts', ts],
] as Array<[string, Engine]>)('engine.prepare (%s)', (_name, engine) => {
  it('plans with the handle exactly as with plain objects (random nodes with used memory, slots and topology)', () => {
    fc.assert(
      fc.property(arbNode, (r) => {
        const gpus: NodeGpu[] = r.totals.map((t, index) => (r.used[index] > 0 ? { index, memoryTotal: t * G, memoryUsed: r.used[index] * G } : { index, memoryTotal: t * G }));
        const slots: Slot[] = r.slots.map((s, k) => ({ id: `s${k}`, gpus: s.gpus, memoryPerGpu: s.mem * G, stale: s.stale, model: s.model }));
        const topology = { gpus: r.n, links: r.n > 1 ? [{ a: 0, b: r.n - 1, nvlink: r.nvlink }] : [] };
        const rest = { slots, memory: r.memory * G, model: 'a', ...(r.sizes ? { tensorParallelSizes: r.sizes } : {}) };
        const plain: PlacementRequest = { gpus, topology, ...rest };
        const node = engine.prepare({ gpus, topology });
        expect(outcome(() => engine.planPlacement({ node, ...rest }))).toEqual(outcome(() => engine.planPlacement(plain)));
      }),
      { numRuns: 200 },
    );
  });

  it("keeps its own copy: editing the caller's GPUs afterwards changes nothing, and the handle is frozen", () => {
    const gpus = [
      { index: 0, memoryTotal: 80 * G },
      { index: 1, memoryTotal: 80 * G },
    ];
    const node = engine.prepare({ gpus });
    gpus[0].memoryTotal = 8 * G;
    expect(engine.planPlacement({ node, memory: 60 * G, tensorParallelSizes: [1] }).options.map((o) => o.gpus)).toEqual([[0], [1]]);
    expect(Object.isFrozen(node)).toBe(true);
    expect(node.gpus).toEqual([
      { index: 0, memoryTotal: 80 * G },
      { index: 1, memoryTotal: 80 * G },
    ]);
  });

  it('validates once, naming the field; slots are still validated on every call', () => {
    expect(() => engine.prepare({ gpus: [{ index: 0, memoryTotal: -1 }] })).toThrow(/gpus\[0\]\.memoryTotal/);
    expect(() => engine.prepare({ gpus: [{ index: 0, memoryTotal: 1, memoryUsed: 2 }] })).toThrow(/gpus\[0\]\.memoryUsed/);
    expect(() => engine.prepare({ gpus: [], extra: 1 } as never)).toThrow(/extra/);
    const node = engine.prepare({ gpus: [{ index: 0, memoryTotal: 80 * G }] });
    let error: unknown;
    try {
      engine.planPlacement({ node, slots: [{ id: 's', gpus: [3], memoryPerGpu: 1 }], memory: G });
    } catch (e) {
      error = e;
    }
    expect((error as AllocationError).code).toBe('UNKNOWN_DEVICE_ID');
    expect((error as AllocationError).field).toBe('slots[0].gpus[0]');
  });

  it('refuses a node that is not a handle, a handle next to gpus, and a handle made without prepare', () => {
    const node = engine.prepare({ gpus: [{ index: 0, memoryTotal: 80 * G }] });
    const fake = { gpus: [{ index: 0, memoryTotal: 80 * G }] };
    expect(() => engine.planPlacement({ node: fake as never, memory: G })).toThrow(/^node: expected a prepared node/);
    expect(() => engine.planPlacement({ node, gpus: [{ index: 0, memoryTotal: G }], memory: G } as never)).toThrow(/^gpus: expected nothing next to a prepared node/);
    expect(() => new (PreparedNode as unknown as new (t: symbol, m: unknown) => unknown)(Symbol('prepare'), {})).toThrow(AllocationError);
  });

  it('a handle serves either backend (it is data, not engine state)', () => {
    const inv = getPreset('dgx1-volta');
    const gpus = inv.gpus.map((g) => ({ index: g.index, memoryTotal: g.memoryTotal }));
    const node = wasm.prepare({ gpus, topology: { gpus: gpus.length, links: inv.links } });
    const request = { node, memory: 40 * G, tensorParallelSizes: [2, 4] };
    expect(ts.planPlacement(request)).toEqual(wasm.planPlacement(request));
    expect(engine.planPlacement(request).options[0].score).toBeGreaterThan(0);
  });
});
