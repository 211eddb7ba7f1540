// planPlacement golden tables: every expectation computed by hand from the rules in the issue.
import { describe, expect, it } from 'vitest';
import type { PlacementPlan, PlacementRequest } from '../../src/placement/index.js';
import { AllocationError } from '../../src/shared/errors.js';
import { engines } from '../support/engines.js';

const { wasm, ts } = await engines();
const G = 2 ** 30;

/** Runs a request on both backends, checks they agree, returns the plan. */
function plan(req: PlacementRequest): PlacementPlan {
  const a = wasm.planPlacement(req);
  const b = ts.planPlacement(req);
  expect(a).toEqual(b);
  return a;
}

const gpus = (...totals: number[]) => totals.map((t, index) => ({ index, memoryTotal: t * G }));
const sets = (p: PlacementPlan) => p.options.map((o) => o.gpus);

describe('2 × 80 GiB', () => {
  it('30 GiB: single-GPU options first, then a 2-GPU option at 15 GiB each', () => {
    const p = plan({ gpus: gpus(80, 80), memory: 30 * G });
    expect(p.options).toEqual([
      { gpus: [0], memoryPerGpu: 30 * G, evict: [], score: 0 },
      { gpus: [1], memoryPerGpu: 30 * G, evict: [], score: 0 },
      { gpus: [0, 1], memoryPerGpu: 15 * G, evict: [], score: 0 },
    ]);
    expect(p.rejected).toEqual([]);
    expect(p.reason).toBeUndefined();
  });

  it('100 GiB: only the 2-GPU option at 50 GiB each', () => {
    const p = plan({ gpus: gpus(80, 80), memory: 100 * G });
    expect(p.options).toEqual([{ gpus: [0, 1], memoryPerGpu: 50 * G, evict: [], score: 0 }]);
  });

  it('200 GiB: no option; each GPU is too small for its 100 GiB share', () => {
    const p = plan({ gpus: gpus(80, 80), memory: 200 * G });
    expect(p.options).toEqual([]);
    expect(p.rejected.map((r) => [r.gpu, r.code, r.shortBy])).toEqual([
      [0, 'GPU_TOO_SMALL', 20 * G],
      [1, 'GPU_TOO_SMALL', 20 * G],
    ]);
    expect(p.reason?.code).toBe('NO_VIABLE_OPTION');
  });

  it('validates per GPU, not against the total (the Helix bug): 80 + 20 GiB cannot take 100 GiB', () => {
    const p = plan({ gpus: gpus(80, 20), memory: 100 * G });
    expect(p.options).toEqual([]);
    expect(p.rejected.map((r) => [r.gpu, r.code, r.shortBy])).toEqual([[1, 'GPU_TOO_SMALL', 30 * G]]);
  });

  it('memory per GPU is ceil(memory / n)', () => {
    const p = plan({
      gpus: [
        { index: 0, memoryTotal: 2 },
        { index: 1, memoryTotal: 2 },
        { index: 2, memoryTotal: 2 },
      ],
      memory: 5,
      tensorParallelSizes: [3],
    });
    expect(p.options).toEqual([{ gpus: [0, 1, 2], memoryPerGpu: 2, evict: [], score: 0 }]);
    const q = plan({
      gpus: [
        { index: 0, memoryTotal: 2 },
        { index: 1, memoryTotal: 2 },
      ],
      memory: 3,
    });
    expect(q.options).toEqual([{ gpus: [0, 1], memoryPerGpu: 2, evict: [], score: 0 }]);
  });
});

describe('eviction', () => {
  // One 80 GiB GPU, full: five 10 GiB stale slots and one 30 GiB busy slot.
  const slots = [
    { id: 'busy', gpus: [0], memoryPerGpu: 30 * G, lastActivity: 0 },
    { id: 'new', gpus: [0], memoryPerGpu: 10 * G, lastActivity: 200, stale: true },
    { id: 'x10', gpus: [0], memoryPerGpu: 10 * G, lastActivity: 100, stale: true },
    { id: 'x9', gpus: [0], memoryPerGpu: 10 * G, lastActivity: 100, stale: true },
    { id: 'same', model: 'llama', gpus: [0], memoryPerGpu: 10 * G, lastActivity: 0, stale: true },
    { id: 'old', gpus: [0], memoryPerGpu: 10 * G, stale: true },
  ];

  it('takes stale slots oldest first (missing lastActivity = oldest, then natural ID order), only as many as needed', () => {
    expect(plan({ gpus: gpus(80), slots, memory: 25 * G, model: 'llama' }).options).toEqual([{ model: 'llama', gpus: [0], memoryPerGpu: 25 * G, evict: ['old', 'x9', 'x10'], score: 0 }]);
    expect(plan({ gpus: gpus(80), slots, memory: 25 * G }).options[0].evict).toEqual(['old', 'same', 'x9']);
  });

  it('never evicts a slot of the same model nor a slot that is not stale', () => {
    const p = plan({ gpus: gpus(80), slots, memory: 45 * G, model: 'llama' });
    expect(p.options).toEqual([]);
    expect(p.rejected).toMatchObject([{ gpu: 0, code: 'INSUFFICIENT_MEMORY', shortBy: 5 * G }]);
  });

  it('does not evict with allowEviction: false', () => {
    const p = plan({ gpus: gpus(80), slots, memory: 25 * G, allowEviction: false });
    expect(p.options).toEqual([]);
    expect(p.rejected).toMatchObject([{ gpu: 0, code: 'INSUFFICIENT_MEMORY', shortBy: 25 * G }]);
  });

  it('skips a stale slot that frees nothing on a GPU still lacking room', () => {
    const s = [
      { id: 'a', gpus: [1], memoryPerGpu: 40 * G, lastActivity: 1, stale: true },
      { id: 'b', gpus: [0], memoryPerGpu: 50 * G, lastActivity: 2, stale: true },
      { id: 'c', gpus: [0], memoryPerGpu: 20 * G },
    ];
    expect(plan({ gpus: gpus(80, 80), slots: s, memory: 80 * G, tensorParallelSizes: [2] }).options).toEqual([{ gpus: [0, 1], memoryPerGpu: 40 * G, evict: ['b'], score: 0 }]);
  });

  it('a multi-GPU slot frees its share on every GPU it spans', () => {
    const s = [{ id: 'tp', gpus: [0, 1], memoryPerGpu: 60 * G, stale: true }];
    expect(plan({ gpus: gpus(80, 80), slots: s, memory: 100 * G, tensorParallelSizes: [2] }).options).toEqual([{ gpus: [0, 1], memoryPerGpu: 50 * G, evict: ['tp'], score: 0 }]);
  });

  it('stops evicting once every chosen GPU has room', () => {
    const s = [
      { id: 's1', gpus: [0], memoryPerGpu: 30 * G, lastActivity: 1, stale: true },
      { id: 's2', gpus: [0], memoryPerGpu: 30 * G, lastActivity: 2, stale: true },
      { id: 's3', gpus: [0], memoryPerGpu: 20 * G, lastActivity: 3, stale: true },
    ];
    expect(plan({ gpus: gpus(80), slots: s, memory: 50 * G }).options[0].evict).toEqual(['s1', 's2']);
  });
});

describe('ranking key, one part at a time', () => {
  it('fewer evictions before fewer GPUs', () => {
    const s = [
      { id: 'st', gpus: [0], memoryPerGpu: 50 * G, stale: true },
      { id: 'run', gpus: [1], memoryPerGpu: 50 * G },
    ];
    const p = plan({ gpus: gpus(80, 80), slots: s, memory: 50 * G });
    expect(p.options.map((o) => [o.gpus, o.evict])).toEqual([
      [[0, 1], []],
      [[0], ['st']],
    ]);
  });

  it('fewer evicted bytes next (beats lowest index)', () => {
    const s = [
      { id: 'big', gpus: [0], memoryPerGpu: 70 * G, stale: true },
      { id: 'small', gpus: [1], memoryPerGpu: 40 * G, stale: true },
    ];
    expect(sets(plan({ gpus: gpus(80, 80), slots: s, memory: 60 * G, tensorParallelSizes: [1] }))).toEqual([[1], [0]]);
  });

  it('evicted bytes count a multi-GPU slot on every GPU it spans', () => {
    // GPU 2's slot spans 2 GPUs × 30 GiB = 60 GiB evicted; GPU 0's slot is 50 GiB.
    const s = [
      { id: 'wide', gpus: [1, 2], memoryPerGpu: 30 * G, stale: true },
      { id: 'one', gpus: [0], memoryPerGpu: 50 * G, stale: true },
      { id: 'fill', gpus: [2], memoryPerGpu: 20 * G },
      { id: 'fill1', gpus: [1], memoryPerGpu: 20 * G },
    ];
    expect(plan({ gpus: gpus(80, 80, 80), slots: s, memory: 50 * G, tensorParallelSizes: [1] }).options.map((o) => [o.gpus, o.evict])).toEqual([
      [[0], ['one']],
      [[1], ['wide']],
      [[2], ['wide']],
    ]);
  });

  it('fewer GPUs before a higher topology score', () => {
    const topology = { gpus: 2, links: [{ a: 0, b: 1, nvlink: 4 }] };
    expect(plan({ gpus: gpus(80, 80), topology, memory: 30 * G }).options.map((o) => [o.gpus, o.score])).toEqual([
      [[0], 0],
      [[1], 0],
      [[0, 1], 400],
    ]);
  });

  it('higher topology score, then lowest indices', () => {
    const topology = {
      gpus: 4,
      links: [
        { a: 0, b: 1, pcie: 'PIX' as const },
        { a: 2, b: 3, pcie: 'SYS' as const, nvlink: 2 },
        { a: 0, b: 2, pcie: 'SYS' as const },
        { a: 0, b: 3, pcie: 'SYS' as const },
        { a: 1, b: 2, pcie: 'SYS' as const },
        { a: 1, b: 3, pcie: 'SYS' as const },
      ],
    };
    const p = plan({ gpus: gpus(80, 80, 80, 80), topology, memory: 100 * G, tensorParallelSizes: [2] });
    expect(p.options.map((o) => [o.gpus, o.score])).toEqual([
      [[2, 3], 210],
      [[0, 1], 50],
      [[0, 2], 10],
      [[0, 3], 10],
      [[1, 2], 10],
      [[1, 3], 10],
    ]);
  });

  const loaded = [
    { id: 'a', gpus: [0], memoryPerGpu: 10 * G },
    { id: 'b', gpus: [1], memoryPerGpu: 40 * G },
  ];
  it('spread: the largest remaining free on the fullest chosen GPU first', () => {
    expect(sets(plan({ gpus: gpus(80, 80, 80), slots: loaded, memory: 30 * G, tensorParallelSizes: [1] }))).toEqual([[2], [0], [1]]);
    expect(sets(plan({ gpus: gpus(80, 80, 80), slots: loaded, memory: 30 * G, tensorParallelSizes: [2] }))).toEqual([
      [0, 2],
      [0, 1],
      [1, 2],
    ]);
  });

  it('pack: the smallest total leftover first', () => {
    expect(sets(plan({ gpus: gpus(80, 80, 80), slots: loaded, memory: 30 * G, tensorParallelSizes: [1], policy: 'pack' }))).toEqual([[1], [0], [2]]);
    expect(sets(plan({ gpus: gpus(80, 80, 80), slots: loaded, memory: 30 * G, tensorParallelSizes: [2], policy: 'pack' }))).toEqual([
      [0, 1],
      [1, 2],
      [0, 2],
    ]);
  });

  it('lowest indices compare sorted index lists in order, whatever the input order', () => {
    const g = [
      { index: 7, memoryTotal: 80 * G },
      { index: 3, memoryTotal: 80 * G },
      { index: 5, memoryTotal: 80 * G },
      { index: 1, memoryTotal: 80 * G },
    ];
    expect(sets(plan({ gpus: g, memory: 100 * G, tensorParallelSizes: [2] }))).toEqual([
      [1, 3],
      [1, 5],
      [1, 7],
      [3, 5],
      [3, 7],
      [5, 7],
    ]);
  });

  it('limit: 16 by default, every n-subset considered', () => {
    const p = plan({ gpus: gpus(80, 80, 80, 80, 80, 80, 80, 80), memory: G });
    expect(p.options).toHaveLength(16);
    expect(sets(p)).toEqual([[0], [1], [2], [3], [4], [5], [6], [7], [0, 1], [0, 2], [0, 3], [0, 4], [0, 5], [0, 6], [0, 7], [1, 2]]);
    expect(plan({ gpus: gpus(80, 80, 80, 80, 80, 80, 80, 80), memory: G, limit: 3 }).options).toHaveLength(3);
  });

  it('tensorParallelSizes restricts the sizes (sizes above the GPU count never fit)', () => {
    expect(sets(plan({ gpus: gpus(80, 80, 80, 80), memory: 30 * G, tensorParallelSizes: [4, 2] }))[0]).toEqual([0, 1]);
    const p = plan({ gpus: gpus(80, 80), memory: 30 * G, tensorParallelSizes: [4] });
    expect(p.options).toEqual([]);
    expect(p.reason?.code).toBe('INSUFFICIENT_DEVICES');
  });
});

describe('rejections', () => {
  it('names each GPU that cannot take its share, with the bytes short', () => {
    const s = [
      { id: 'run', gpus: [1], memoryPerGpu: 70 * G },
      { id: 'st', gpus: [2], memoryPerGpu: 70 * G, stale: true },
    ];
    const p = plan({ gpus: gpus(40, 80, 80, 80), slots: s, memory: 60 * G, tensorParallelSizes: [1] });
    expect(p.options.map((o) => [o.gpus, o.evict])).toEqual([
      [[3], []],
      [[2], ['st']],
    ]);
    expect(p.rejected.map((r) => [r.gpu, r.code, r.shortBy])).toEqual([
      [0, 'GPU_TOO_SMALL', 20 * G],
      [1, 'INSUFFICIENT_MEMORY', 50 * G],
    ]);
    expect(p.rejected[1].message).toMatch(/GPU 1/);
    const q = plan({ gpus: gpus(40, 80, 80, 80), slots: s, memory: 60 * G, tensorParallelSizes: [1], allowEviction: false });
    expect(q.rejected.map((r) => [r.gpu, r.code, r.shortBy])).toEqual([
      [0, 'GPU_TOO_SMALL', 20 * G],
      [1, 'INSUFFICIENT_MEMORY', 50 * G],
      [2, 'INSUFFICIENT_MEMORY', 50 * G],
    ]);
  });
});

describe('bad input', () => {
  const base = { gpus: gpus(80, 80), memory: 30 * G };
  const cases: Array<[string, unknown, string, RegExp]> = [
    ['memory 0', { ...base, memory: 0 }, 'INVALID_ARGUMENT', /memory.*0/],
    ['memory missing', { gpus: base.gpus }, 'INVALID_ARGUMENT', /memory.*undefined/],
    ['memory fractional', { ...base, memory: 1.5 }, 'INVALID_ARGUMENT', /memory.*1\.5/],
    ['policy', { ...base, policy: 'best' }, 'UNKNOWN_POLICY', /policy.*best/],
    [
      'duplicate GPU',
      {
        ...base,
        gpus: [
          { index: 0, memoryTotal: 1 },
          { index: 0, memoryTotal: 1 },
        ],
      },
      'DUPLICATE_DEVICE',
      /gpus\[1\]\.index/,
    ],
    ['negative memoryTotal', { ...base, gpus: [{ index: 0, memoryTotal: -1 }] }, 'INVALID_ARGUMENT', /gpus\[0\]\.memoryTotal.*-1/],
    ['slot on an unknown GPU', { ...base, slots: [{ id: 'a', gpus: [5], memoryPerGpu: 1 }] }, 'UNKNOWN_DEVICE_ID', /slots\[0\]\.gpus\[0\].*5/],
    [
      'duplicate slot',
      {
        ...base,
        slots: [
          { id: 'a', gpus: [0], memoryPerGpu: 1 },
          { id: 'a', gpus: [1], memoryPerGpu: 1 },
        ],
      },
      'DUPLICATE_SLOT',
      /slots\[1\]\.id.*"a"/,
    ],
    ['size 0', { ...base, tensorParallelSizes: [0] }, 'INVALID_ARGUMENT', /tensorParallelSizes\[0\].*0/],
    ['limit 0', { ...base, limit: 0 }, 'INVALID_ARGUMENT', /limit.*0/],
    ['topology too small', { ...base, topology: { gpus: 1, links: [] } }, 'INVALID_TOPOLOGY', /GPU index 1/],
    ['stale not boolean', { ...base, slots: [{ id: 'a', gpus: [0], memoryPerGpu: 1, stale: 'yes' }] }, 'INVALID_ARGUMENT', /slots\[0\]\.stale/],
  ];
  for (const [name, req, code, message] of cases) {
    it(`${name} → ${code}`, () => {
      for (const e of [wasm, ts]) {
        let error: unknown;
        try {
          e.planPlacement(req as PlacementRequest);
        } catch (err) {
          error = err;
        }
        expect(error).toBeInstanceOf(AllocationError);
        expect((error as AllocationError).code).toBe(code);
        expect((error as AllocationError).message).toMatch(message);
      }
    });
  }

  it('does not mutate its input', () => {
    const req = {
      gpus: [
        { index: 1, memoryTotal: 80 * G },
        { index: 0, memoryTotal: 80 * G },
      ],
      slots: [{ id: 'a', gpus: [1, 0], memoryPerGpu: G, stale: true }],
      memory: 79 * G,
      tensorParallelSizes: [2, 1],
    };
    const copy = structuredClone(req);
    plan(req);
    expect(req).toEqual(copy);
  });
});
