// planPlacement and GPUs in MIG mode (NodeGpu.mig): they are never in an option unless the request
// sets allowMig, each is rejected with MIG_MODE and the message the CLI shows; the other GPUs plan
// exactly as on the node without them; with allowMig the node plans as if no GPU were in MIG mode.
// Both backends alike.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { NodeGpu, PlacementRequest, Slot } from '../../src/placement/index.js';
import { engines } from '../support/engines.js';

const { wasm, ts } = await engines();
const G = 2 ** 30;

/** A node of n GPUs (some in MIG mode, some with memory in use), slots only on GPUs not in MIG mode, an NVLink pair. */
const arbNode = fc.integer({ min: 1, max: 8 }).chain((n) =>
  fc
    .record({
      totals: fc.array(fc.constantFrom(24, 40, 80), { minLength: n, maxLength: n }),
      mig: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
      inUse: fc.array(fc.constantFrom(0, 0, 5), { minLength: n, maxLength: n }),
      slots: fc.array(
        fc.record({
          gpus: fc.uniqueArray(fc.integer({ min: 0, max: n - 1 }), { minLength: 1, maxLength: 3 }),
          mem: fc.integer({ min: 1, max: 30 }),
          stale: fc.boolean(),
          model: fc.constantFrom('a', 'b'),
          last: fc.integer({ min: 0, max: 3 }),
        }),
        { maxLength: 4 },
      ),
      topo: fc.boolean(),
    })
    .map((r) => {
      const gpus: NodeGpu[] = r.totals.map((t, index) => {
        const g: NodeGpu = { index, memoryTotal: t * G };
        if (r.inUse[index] > 0) g.memoryUsed = r.inUse[index] * G;
        if (r.mig[index]) g.mig = true;
        return g;
      });
      const used = r.inUse.slice();
      const slots: Slot[] = [];
      r.slots.forEach((s, k) => {
        if (s.gpus.some((g) => r.mig[g] || used[g] + s.mem > r.totals[g])) return;
        for (const g of s.gpus) used[g] += s.mem;
        slots.push({ id: `s${k}`, gpus: s.gpus, memoryPerGpu: s.mem * G, stale: s.stale, model: s.model, lastActivity: s.last });
      });
      const topology = r.topo && n > 1 ? { gpus: n, links: [{ a: 0, b: 1, nvlink: 2 }, ...(n > 3 ? [{ a: 2, b: 3, nvlink: 1 }] : [])] } : undefined;
      return { gpus, slots, topology };
    }),
);

const arbRequest = fc.record({
  memory: fc.integer({ min: 1, max: 200 }).map((x) => x * G),
  model: fc.constantFrom('a', 'b'),
  policy: fc.constantFrom<'spread' | 'pack'>('spread', 'pack'),
  limit: fc.integer({ min: 1, max: 40 }),
});

const request = (node: { gpus: NodeGpu[]; slots: Slot[]; topology?: PlacementRequest['topology'] }, gpus: NodeGpu[], extra: object): PlacementRequest =>
  ({ gpus, slots: node.slots, ...(node.topology ? { topology: node.topology } : {}), ...extra }) as unknown as PlacementRequest;

describe('planPlacement with GPUs in MIG mode', () => {
  it('leaves them out (as if the node had only its other GPUs) and rejects each with MIG_MODE; allowMig plans as if none were in MIG mode', () => {
    fc.assert(
      fc.property(arbNode, arbRequest, (node, req) => {
        const others = node.gpus.filter((g) => g.mig !== true);
        const plain = node.gpus.map(({ mig: _m, ...g }) => g);
        for (const engine of [wasm, ts]) {
          const plan = engine.planPlacement(request(node, node.gpus, req));
          const migIndices = node.gpus.filter((g) => g.mig === true).map((g) => g.index);
          for (const o of plan.options) expect(o.gpus.some((g) => migIndices.includes(g))).toBe(false);
          expect(plan.rejected.filter((r) => r.code === 'MIG_MODE').map((r) => [r.gpu, r.message])).toEqual(
            migIndices.map((g) => [g, `GPU ${g} is in MIG mode (its slices are allocated with gpualloc replicas)`]),
          );
          // The same sizes on both (the default ones depend on the GPU count).
          const sizes = { tensorParallelSizes: Array.from({ length: node.gpus.length }, (_, k) => k + 1) };
          const sized = engine.planPlacement(request(node, node.gpus, { ...req, ...sizes }));
          expect(sized.options).toEqual(plan.options);
          if (others.length > 0) expect(sized.options).toEqual(engine.planPlacement(request(node, others, { ...req, ...sizes })).options);
          else expect(sized.options).toEqual([]);
          if (plan.options.length === 0 && migIndices.length > 0) expect(plan.reason?.message).toMatch(new RegExp(`${migIndices.length} of them in MIG mode`));
          const allowed = engine.planPlacement(request(node, node.gpus, { ...req, allowMig: true }));
          expect(allowed).toEqual(engine.planPlacement(request(node, plain, req)));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a prepared node keeps the flag; allowMig must be a boolean and mig too', () => {
    const gpus = [
      { index: 0, memoryTotal: 80 * G, mig: true },
      { index: 1, memoryTotal: 80 * G },
    ];
    for (const engine of [wasm, ts]) {
      const node = engine.prepare({ gpus });
      expect(node.gpus).toEqual(gpus);
      expect(engine.planPlacement({ node, memory: 60 * G }).options.map((o) => o.gpus)).toEqual([[1]]);
      expect(engine.planPlacement({ node, memory: 60 * G, allowMig: true, tensorParallelSizes: [1] }).options.map((o) => o.gpus)).toEqual([[0], [1]]);
      expect(() => engine.planPlacement({ gpus, memory: G, allowMig: 'yes' as unknown as boolean })).toThrow(/allowMig/);
      expect(() => engine.planPlacement({ gpus: [{ index: 0, memoryTotal: G, mig: 1 as unknown as boolean }], memory: G })).toThrow(/gpus\[0\]\.mig/);
    }
  });
});
