import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { depth } from '../support/depth.js';
import { engines } from '../support/engines.js';
import { naiveBestEffort } from '../support/oracle/besteffort.js';
import { arbRequest, arbTopology } from '../support/oracle/topologies.js';

const { wasm, ts } = await engines();

describe('besteffort equals the naive partition enumeration', () => {
  it('on random topologies of up to 10 GPUs (both backends)', () => {
    fc.assert(
      fc.property(
        arbTopology(1, 10).chain((t) => arbRequest(t).map((r) => ({ t, r }))),
        ({ t, r }) => {
          const expected = naiveBestEffort(t, r.available, r.required, r.size);
          for (const e of [ts, wasm]) {
            const got = e.allocateAligned({ topology: t, available: r.available, required: r.required, size: r.size, policy: 'besteffort' });
            expect(got.devices).toEqual(expected);
          }
        },
      ),
      { numRuns: depth(100, 400) },
    );
  });
});

describe('besteffort on full nodes of 6 to 10 GPUs', () => {
  it('every GPU available, in a random order, up to two required', () => {
    const arb = arbTopology(6, 10).chain((t) =>
      fc
        .record({
          available: fc.shuffledSubarray(
            Array.from({ length: t.gpus }, (_, g) => g),
            { minLength: t.gpus, maxLength: t.gpus },
          ),
          size: fc.integer({ min: 2, max: t.gpus - 1 }),
          requiredCount: fc.integer({ min: 0, max: 2 }),
        })
        .chain((r) => fc.shuffledSubarray(r.available, { minLength: r.requiredCount, maxLength: r.requiredCount }).map((required) => ({ t, ...r, required }))),
    );
    fc.assert(
      fc.property(arb, ({ t, available, required, size }) => {
        const expected = naiveBestEffort(t, available, required, size);
        expect(expected.length).toBe(required.length > size ? 0 : size);
        for (const e of [ts, wasm]) expect(e.allocateAligned({ topology: t, available, required, size, policy: 'besteffort' }).devices).toEqual(expected);
      }),
      { numRuns: depth(75, 300) },
    );
  });
});

describe('besteffort on full nodes of 11 and 12 GPUs (three or more groups: greedy start, bounds, memoised upper bounds)', () => {
  it('every GPU available in a random order, sizes 2 to 5, up to three required', () => {
    const arb = arbTopology(11, 12).chain((t) =>
      fc
        .record({
          available: fc.shuffledSubarray(
            Array.from({ length: t.gpus }, (_, g) => g),
            { minLength: t.gpus, maxLength: t.gpus },
          ),
          size: fc.integer({ min: 2, max: 5 }),
          requiredCount: fc.integer({ min: 0, max: 3 }),
        })
        .chain((r) => fc.shuffledSubarray(r.available, { minLength: r.requiredCount, maxLength: r.requiredCount }).map((required) => ({ t, ...r, required }))),
    );
    fc.assert(
      fc.property(arb, ({ t, available, required, size }) => {
        const expected = naiveBestEffort(t, available, required, size);
        for (const e of [ts, wasm]) expect(e.allocateAligned({ topology: t, available, required, size, policy: 'besteffort' }).devices).toEqual(expected);
      }),
      { numRuns: depth(50, 200) },
    );
  });
});
