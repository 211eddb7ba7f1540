import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unstructuredTopology } from '../../bench/inputs.js';
import { depth } from '../support/depth.js';
import { engines } from '../support/engines.js';
import { dpBestEffort, naiveBestEffort } from '../support/oracle/besteffort.js';
import { arbRequest, arbTopology } from '../support/oracle/topologies.js';

const { wasm, ts } = await engines();

describe('the memoised oracle (dpBestEffort) is the enumeration', () => {
  it('on random topologies of up to 9 GPUs', () => {
    fc.assert(
      fc.property(
        arbTopology(1, 9).chain((t) => arbRequest(t).map((r) => ({ t, r }))),
        ({ t, r }) => {
          expect(dpBestEffort(t, r.available, r.required, r.size)).toEqual(naiveBestEffort(t, r.available, r.required, r.size));
        },
      ),
      { numRuns: depth(50, 200) },
    );
  });
});

describe('besteffort on unstructured 16-GPU nodes equals the memoised oracle', () => {
  // Short form: one topology (the oracle takes seconds a topology); deep form: three.
  for (const seed of depth([42], [42, 7, 1234])) {
    it(`seed ${seed}: every size, with and without required GPUs, shuffled and in index order, both backends`, () => {
      const topology = unstructuredTopology(16, seed);
      // A shuffled order (upstream's answer depends on it), and every GPU in index order (the cores
      // build the position matrix for that case without a gather).
      const shuffled = Array.from({ length: 16 }, (_, g) => (g * 7 + seed) % 16);
      const inOrder = Array.from({ length: 16 }, (_, g) => g);
      for (const available of [shuffled, inOrder]) {
        for (let size = 2; size <= 15; size++) {
          for (const required of [[], [available[5]], [available[3], available[11]]]) {
            if (required.length > size) continue;
            const expected = dpBestEffort(topology, available, required, size);
            expect(expected).toHaveLength(size);
            for (const e of [wasm, ts]) expect(e.allocateAligned({ topology, available, required, size, policy: 'besteffort' }).devices).toEqual(expected);
          }
        }
      }
    }, 60_000);
  }
});
