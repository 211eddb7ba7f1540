// planPlacement with used memory (memoryUsed): memory held by processes outside gpualloc's slots is
// not free, is never evicted, and a rejection says how much of it there is. Both backends.
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/engine.js';
import { AllocationError } from '../../src/shared/errors.js';
import { codeOf, engines } from '../support/engines.js';

const { wasm, ts } = await engines();
const G = 2 ** 30;

describe.each([
  ['wasm', wasm],
  ['ts', ts],
] as Array<[string, Engine]>)('planPlacement with memoryUsed (%s)', (_name, engine) => {
  it('does not place a model on a GPU that other processes fill', () => {
    const gpus = [
      { index: 0, memoryTotal: 80 * G, memoryUsed: 60 * G },
      { index: 1, memoryTotal: 80 * G },
    ];
    const plan = engine.planPlacement({ gpus, memory: 40 * G, tensorParallelSizes: [1] });
    expect(plan.options.map((o) => o.gpus)).toEqual([[1]]);
    // Without the used memory, GPU 0 ties with GPU 1 and ranks first (lowest index).
    const plain = engine.planPlacement({ gpus: gpus.map(({ index, memoryTotal }) => ({ index, memoryTotal })), memory: 40 * G, tensorParallelSizes: [1] });
    expect(plain.options.map((o) => o.gpus)).toEqual([[0], [1]]);
  });

  it('ranks by the memory left after used memory (spread keeps the emptiest GPU)', () => {
    const gpus = [
      { index: 0, memoryTotal: 80 * G, memoryUsed: 10 * G },
      { index: 1, memoryTotal: 80 * G, memoryUsed: 5 * G },
    ];
    const plan = engine.planPlacement({ gpus, memory: 20 * G, tensorParallelSizes: [1] });
    expect(plan.options.map((o) => o.gpus)).toEqual([[1], [0]]);
    const pack = engine.planPlacement({ gpus, memory: 20 * G, tensorParallelSizes: [1], policy: 'pack' });
    expect(pack.options.map((o) => o.gpus)).toEqual([[0], [1]]);
  });

  it('a rejection names the memory in use by other processes, and the share it lacks', () => {
    const gpus = [
      { index: 0, memoryTotal: 80 * G, memoryUsed: 60 * G },
      { index: 1, memoryTotal: 80 * G },
    ];
    const plan = engine.planPlacement({ gpus, memory: 70 * G, tensorParallelSizes: [1] });
    expect(plan.options.map((o) => o.gpus)).toEqual([[1]]);
    expect(plan.rejected).toHaveLength(1);
    expect(plan.rejected[0].gpu).toBe(0);
    expect(plan.rejected[0].code).toBe('INSUFFICIENT_MEMORY');
    expect(plan.rejected[0].shortBy).toBe(50 * G);
    expect(plan.rejected[0].message).toContain('60 GiB in use by other processes');
    expect(plan.rejected[0].message).toContain('can free 20 GiB');
  });

  it('used memory is never evicted: evicting every stale slot is not enough, and the message says both', () => {
    const gpus = [{ index: 0, memoryTotal: 80 * G, memoryUsed: 60 * G }];
    const slots = [{ id: 'old', gpus: [0], memoryPerGpu: 10 * G, stale: true }];
    const plan = engine.planPlacement({ gpus, slots, memory: 25 * G });
    expect(plan.options).toEqual([]);
    expect(plan.reason?.code).toBe('NO_VIABLE_OPTION');
    expect(plan.rejected[0].message).toContain('can free 20 GiB (10 GiB of it by evicting stale slots; 60 GiB in use by other processes)');
    expect(plan.rejected[0].shortBy).toBe(5 * G);
    // 20 GiB fits once the stale slot goes.
    const fits = engine.planPlacement({ gpus, slots, memory: 20 * G });
    expect(fits.options.map((o) => [o.gpus, o.evict])).toEqual([[[0], ['old']]]);
  });

  it('a GPU whose total is below the share stays GPU_TOO_SMALL', () => {
    const plan = engine.planPlacement({ gpus: [{ index: 0, memoryTotal: 16 * G, memoryUsed: 8 * G }], memory: 20 * G });
    expect(plan.rejected.map((r) => r.code)).toEqual(['GPU_TOO_SMALL']);
  });

  it('memoryUsed 0 or absent plans the same', () => {
    const a = engine.planPlacement({
      gpus: [
        { index: 0, memoryTotal: 80 * G, memoryUsed: 0 },
        { index: 1, memoryTotal: 40 * G },
      ],
      memory: 30 * G,
    });
    const b = engine.planPlacement({
      gpus: [
        { index: 0, memoryTotal: 80 * G },
        { index: 1, memoryTotal: 40 * G },
      ],
      memory: 30 * G,
    });
    expect(a).toEqual(b);
  });

  it('rejects memoryUsed that is not an integer in [0, memoryTotal], naming the field and the value', () => {
    for (const bad of [81 * G, -1, 1.5, '1', null]) {
      let error: unknown;
      try {
        engine.planPlacement({
          gpus: [
            { index: 0, memoryTotal: 80 * G },
            { index: 1, memoryTotal: 80 * G, memoryUsed: bad as number },
          ],
          memory: G,
        });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(AllocationError);
      expect((error as AllocationError).field).toBe('gpus[1].memoryUsed');
      expect((error as AllocationError).message).toContain(bad === null ? 'null' : typeof bad === 'string' ? '"1"' : String(bad));
    }
    expect(codeOf(() => engine.planPlacement({ gpus: [{ index: 0, memoryTotal: 80 * G, memoryUsed: 80 * G }], memory: G }))).toBeUndefined();
  });
});
