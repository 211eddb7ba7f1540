// The lookahead's sampling table: the guide table's search finds, for every draw, the shape a binary
// search over the row's cumulative counts finds (the first whose count exceeds the draw), so the
// continuations are the ones the binary search drew; and the least CPU and memory of the GPU shapes.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as L from '../../src/fleet/layout.js';
import { guideShift, type Lookahead, lookaheadSize, type Sampling, writeLookahead } from '../../src/fleet/lookahead.js';

const LOOK: Lookahead = { delta: 0, continuations: 2, depth: 3, scope: 'all', candidates: 2 };

/** The first index whose cumulative count exceeds u (a binary search, as the kernels drew before the guide). */
function binary(s: Int32Array, row: number, shapes: number, u: number): number {
  let lo = 0;
  let hi = shapes - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (s[row + mid]! > u) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

describe('lookahead sampling table', () => {
  it('the guide search gives the binary search’s shape for every draw of every row', () => {
    const shapeArb = fc.record({
      gpus: fc.constantFrom(0, 1, 2),
      milli: fc.constantFrom(0, 300, 1000),
      cpu: fc.integer({ min: 0, max: 9000 }),
      mem: fc.integer({ min: 0, max: 9000 }),
      mask: fc.integer({ min: 1, max: 3 }),
      count: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 1500 })),
    });
    fc.assert(
      fc.property(fc.array(shapeArb, { minLength: 1, maxLength: 40 }), (list) => {
        const sampling: Sampling = {
          shape: Int32Array.from(list.flatMap((x) => [x.cpu, x.mem, x.gpus, x.gpus === 0 ? 0 : x.milli])),
          mask: Int32Array.from(list.map((x) => (x.gpus === 0 ? -1 : x.mask))),
          count: Int32Array.from(list.map((x) => x.count)),
        };
        const rows = 3;
        const size = lookaheadSize(LOOK, sampling, rows, 8);
        const at = L.HEADER;
        const s = new Int32Array(at + size.ints);
        const f = new Float64Array(1 + size.floats);
        writeLookahead(s, f, at, 1, LOOK, sampling, rows);
        const shapes = list.length;
        const bits = s[at + L.LK_GUIDE_BITS]!;
        expect(1 << bits).toBeGreaterThanOrEqual(shapes);
        for (let r = 0; r < rows; r++) {
          const row = s[at + L.LK_CUM_AT]! + r * shapes;
          const guide = s[at + L.LK_GUIDE_AT]! + (r << bits);
          const total = s[row + shapes - 1]!;
          const shift = guideShift(total, bits);
          if (total > 0) expect((total - 1) >>> shift).toBeLessThan(1 << bits);
          for (let u = 0; u < total; u++) {
            let i = s[guide + (u >>> shift)]!;
            while (s[row + i]! <= u) i++;
            if (i !== binary(s, row, shapes, u)) expect([r, u, i]).toEqual([r, u, binary(s, row, shapes, u)]);
          }
        }
        const gpuShapes = list.filter((x) => x.gpus > 0 && x.milli > 0);
        expect(s[at + L.LK_MIN_CPU]).toBe(gpuShapes.length === 0 ? 0x7fffffff : Math.min(...gpuShapes.map((x) => x.cpu)));
        expect(s[at + L.LK_MIN_MEM]).toBe(gpuShapes.length === 0 ? 0x7fffffff : Math.min(...gpuShapes.map((x) => x.mem)));
      }),
      { numRuns: 40 },
    );
  });
});
