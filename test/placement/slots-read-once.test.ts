// planPlacement validates the caller's slots without copying them first: each field is read exactly
// once (a getter cannot answer one thing to the check and another to the use), and a getter or proxy
// that throws is an AllocationError naming the path. Plain and prepared requests, both backends.
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import { AllocationError } from '../../src/shared/errors.js';
import { engines } from '../support/engines.js';

const { wasm, ts } = await engines();
const G = 2 ** 30;
const gpus = [
  { index: 0, memoryTotal: 80 * G },
  { index: 1, memoryTotal: 80 * G },
];

describe.each([
  ['wasm', wasm],
  ['ts', ts],
] as Array<[string, Engine]>)('planPlacement slots (%s)', (_name, engine) => {
  for (const prepared of [false, true]) {
    const where = prepared ? 'prepared node' : 'plain objects';
    const request = (slots: unknown) => (prepared ? { node: engine.prepare({ gpus }), slots, memory: 50 * G, tensorParallelSizes: [1] } : { gpus, slots, memory: 50 * G, tensorParallelSizes: [1] });

    it(`reads each slot field once (${where})`, () => {
      const reads: Record<string, number> = {};
      let memory = 60 * G;
      const slot = {} as Record<string, unknown>;
      for (const [key, value] of Object.entries({ id: 's', gpus: [0], model: 'm', stale: false })) {
        Object.defineProperty(slot, key, { enumerable: true, get: () => ((reads[key] = (reads[key] ?? 0) + 1), value) });
      }
      // The second read would say the slot takes nothing: a check-then-use on two reads would place the model on GPU 0.
      Object.defineProperty(slot, 'memoryPerGpu', { enumerable: true, get: () => ((reads.memoryPerGpu = (reads.memoryPerGpu ?? 0) + 1), memory === 60 * G ? ((memory = 0), 60 * G) : 0) });
      const plan = engine.planPlacement(request([slot]) as never);
      expect(plan.options.map((o) => o.gpus)).toEqual([[1]]);
      expect(reads).toEqual({ id: 1, gpus: 1, model: 1, stale: 1, memoryPerGpu: 1 });
    });

    it(`a slot getter that throws is an AllocationError naming its path (${where})`, () => {
      const slot = {
        id: 's',
        gpus: [0],
        get memoryPerGpu(): number {
          throw new Error('boom');
        },
      };
      let error: unknown;
      try {
        engine.planPlacement(request([slot]) as never);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(AllocationError);
      expect((error as AllocationError).field).toBe('slots[0].memoryPerGpu');
      expect((error as AllocationError).message).toMatch(/^slots\[0\]\.memoryPerGpu: reading the value threw \(Error: boom\)/);
    });
  }
});
