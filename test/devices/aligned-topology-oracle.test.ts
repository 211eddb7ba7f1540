import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pairScoreMatrix, setScore } from '../../src/hardware/topology.js';
import { engines } from '../support/engines.js';
import { arbRequest, arbTopology } from '../support/oracle/topologies.js';
import { bruteTopology } from '../support/oracle/topology.js';

const { wasm, ts } = await engines();

describe("the 'topology' policy equals brute force", () => {
  it('on random topologies of up to 10 GPUs (both backends)', () => {
    fc.assert(
      fc.property(
        arbTopology(1, 10).chain((t) => arbRequest(t).map((r) => ({ t, r }))),
        ({ t, r }) => {
          const expected = bruteTopology(t, r.available, r.required, r.size);
          for (const e of [ts, wasm]) {
            const got = e.allocateAligned({ topology: t, available: r.available, required: r.required, size: r.size });
            expect(got.devices).toEqual(expected);
            expect(got.score).toBe(expected.length === 0 ? 0 : setScore(pairScoreMatrix(t), t.gpus, expected));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('ignores the order of available and required', () => {
    fc.assert(
      fc.property(
        arbTopology(2, 12).chain((t) => arbRequest(t).map((r) => ({ t, r }))),
        ({ t, r }) => {
          const a = wasm.allocateAligned({ topology: t, available: r.available, required: r.required, size: r.size });
          const b = wasm.allocateAligned({ topology: t, available: [...r.available].reverse(), required: [...r.required].reverse(), size: r.size });
          expect(b).toEqual(a);
        },
      ),
      { numRuns: 200 },
    );
  });
});
