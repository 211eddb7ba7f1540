// planPlacement remembers a validated node by the identity of the engine's frozen copies of its GPUs,
// slots and topology, and with it the state it derives for one model and eviction setting. Reading the same request again gives back the same copies (and so the cached
// node); any change to the caller's data gives new copies. Every plan must equal the plan of a deep
// clone of the request (fresh objects: never a cache hit), whatever was asked before, on both backends.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PlacementRequest, Slot } from '../../src/placement/index.js';
import { engines, outcome } from '../support/engines.js';
import { placementRequest } from '../support/fuzz/requests.js';

type Edit = { kind: 'none' | 'memoryPerGpu' | 'stale' | 'dropSlot' | 'gpuMemory' | 'memory' | 'sizes' | 'model' | 'allowEviction'; k: number };

/** Applies an in-place edit to the caller's request (the objects the engine has read before). */
function edit(r: PlacementRequest, e: Edit): void {
  const slots = (r.slots ?? []) as Slot[];
  switch (e.kind) {
    case 'memoryPerGpu':
      if (slots.length > 0) slots[e.k % slots.length].memoryPerGpu = Math.floor(slots[e.k % slots.length].memoryPerGpu / 2);
      break;
    case 'stale':
      if (slots.length > 0) slots[e.k % slots.length].stale = !slots[e.k % slots.length].stale;
      break;
    case 'dropSlot':
      if (slots.length > 0) slots.splice(e.k % slots.length, 1);
      break;
    case 'gpuMemory':
      r.gpus[e.k % r.gpus.length].memoryTotal += 2 ** 30;
      break;
    case 'memory':
      r.memory = Math.max(1, Math.floor(r.memory / 2));
      break;
    case 'sizes':
      r.tensorParallelSizes = [1 + (e.k % r.gpus.length)];
      break;
    case 'model':
      // The same node, another model: which slots may be evicted changes.
      r.model = [undefined, 'm1', 'm3'][e.k % 3];
      break;
    case 'allowEviction':
      r.allowEviction = r.allowEviction === false;
      break;
    default:
  }
}

const editArb: fc.Arbitrary<Edit> = fc.record({ kind: fc.constantFrom('none', 'memoryPerGpu', 'stale', 'dropSlot', 'gpuMemory', 'memory', 'sizes', 'model', 'allowEviction'), k: fc.nat(50) });

describe('planPlacement node cache', () => {
  it('a repeated request, edited in place between calls, plans (or fails) as a fresh clone does, on its first call after the edit', async () => {
    const { wasm, ts } = await engines();
    await fc.assert(
      fc.asyncProperty(placementRequest, fc.array(editArb, { minLength: 1, maxLength: 6 }), async (request, edits) => {
        for (const e of edits) {
          edit(request, e);
          for (const engine of [wasm, ts]) {
            const again = outcome(() => engine.planPlacement(request));
            expect(again).toEqual(outcome(() => engine.planPlacement(structuredClone(request))));
          }
        }
      }),
      { numRuns: 120 },
    );
  });

  it('a node seen before with valid slots still rejects a bad slot added later, naming it', async () => {
    const { wasm, ts } = await engines();
    for (const engine of [wasm, ts]) {
      const request: PlacementRequest = {
        gpus: [
          { index: 0, memoryTotal: 2 ** 34 },
          { index: 1, memoryTotal: 2 ** 34 },
        ],
        slots: [{ id: 'a', gpus: [0], memoryPerGpu: 2 ** 30 }],
        memory: 2 ** 32,
      };
      expect(engine.planPlacement(request).options.length).toBeGreaterThan(0);
      (request.slots as Slot[]).push({ id: 'b', gpus: [7], memoryPerGpu: 1 });
      expect(() => engine.planPlacement(request)).toThrow(/slots\[1\]\.gpus\[0\]: GPU index 7 is not one of the node's GPUs/);
      (request.slots as Slot[]).pop();
      expect(engine.planPlacement(request)).toEqual(engine.planPlacement(structuredClone(request)));
    }
  });
});
