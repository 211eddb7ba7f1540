// allocateAligned answers size 1 and size = every available GPU without calling the kernels: the
// answers must be exactly what the kernels give (both backends' kernels, both policies).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pairScoreMatrix, setScore, validateTopology } from '../../src/hardware/topology.js';
import { engines } from '../support/engines.js';
import { arbRequest, arbTopology } from '../support/oracle/topologies.js';

const { wasm, ts } = await engines();

describe('size 1 and size = available answered in TypeScript', () => {
  it('equal the kernels on random topologies (required or not, any available order)', () => {
    fc.assert(
      fc.property(
        arbTopology(1, 16).chain((t) => arbRequest(t).map((r) => ({ t, r }))),
        fc.boolean(),
        fc.constantFrom('besteffort' as const, 'topology' as const),
        ({ t, r }, whole, policy) => {
          const size = whole ? r.available.length : 1;
          const required = r.required.slice(0, size);
          const matrix = pairScoreMatrix(validateTopology(t));
          for (const e of [wasm, ts]) {
            const got = e.allocateAligned({ topology: t, available: r.available, required, size, policy });
            const avail = Int32Array.from(r.available);
            const reqd = Int32Array.from(required);
            const kernel = policy === 'besteffort' ? e.kernels.alignedBestEffort(matrix, t.gpus, avail, reqd, size) : e.kernels.alignedTopology(matrix, t.gpus, avail, reqd, size, 1 << 20);
            const devices = Array.from(kernel);
            expect(got).toEqual({ devices, score: setScore(matrix, t.gpus, devices) });
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('topology size 1 picks the least-connected available GPU, ties to the lowest index', () => {
    // 0-1 and 1-2 linked: 0 and 2 tie (one link each), 3 has none but is not available.
    const topology = {
      gpus: 4,
      links: [
        { a: 0, b: 1, pcie: 'PIX' as const },
        { a: 1, b: 2, pcie: 'PIX' as const },
      ],
    };
    for (const e of [wasm, ts]) {
      expect(e.allocateAligned({ topology, available: [2, 1, 0], size: 1 }).devices).toEqual([0]);
      expect(e.allocateAligned({ topology, available: [1, 2], size: 1 }).devices).toEqual([1]);
      expect(e.allocateAligned({ topology, available: [1, 2, 3], size: 1 }).devices).toEqual([3]);
      expect(e.allocateAligned({ topology, available: [2, 1, 0], size: 1, policy: 'besteffort' }).devices).toEqual([2]);
      expect(e.allocateAligned({ topology, available: [2, 1, 0], size: 1, required: [1] }).devices).toEqual([1]);
      expect(e.allocateAligned({ topology, available: [2, 1, 0], size: 3, required: [1] })).toEqual({ devices: [0, 1, 2], score: 100 });
    }
  });
});
