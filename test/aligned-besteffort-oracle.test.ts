import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { engines } from './engines.js';
import { naiveBestEffort } from './oracle/besteffort.js';
import { arbRequest, arbTopology } from './oracle/topologies.js';

const { wasm, ts } = await engines();

describe('besteffort equals the naive partition enumeration', () => {
  it('on random topologies of up to 10 GPUs (both backends)', () => {
    fc.assert(
      fc.property(arbTopology(1, 10).chain((t) => arbRequest(t).map((r) => ({ t, r }))), ({ t, r }) => {
        const expected = naiveBestEffort(t, r.available, r.required, r.size);
        for (const e of [ts, wasm]) {
          const got = e.allocateAligned({ topology: t, available: r.available, required: r.required, size: r.size, policy: 'besteffort' });
          expect(got.devices).toEqual(expected);
        }
      }),
      { numRuns: 400 },
    );
  });
});
