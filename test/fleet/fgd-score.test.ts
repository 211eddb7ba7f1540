// FGD's quantized score ⌊100·σ(Δ/1000)⌋ through precomputed thresholds equals the direct formula.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fgdThresholds } from '../../src/fleet/layout.js';
import { fgdQuantize } from '../../src/fleet/policies/fgd.js';

describe('fleet FGD score quantization', () => {
  const thr = fgdThresholds();
  it('matches ⌊100/(1+e^(−Δ/1000))⌋ away from the bucket edges', () => {
    fc.assert(
      fc.property(fc.double({ min: -20000, max: 20000, noNaN: true }), (delta) => {
        const direct = 100 / (1 + Math.exp(-delta / 1000));
        fc.pre(Math.abs(direct - Math.round(direct)) > 1e-9);
        expect(fgdQuantize(delta, thr, 0)).toBe(Math.floor(direct));
      }),
      { numRuns: 2000 },
    );
  });
  it('gives 50 at Δ = 0, 0 for a large increase, 99 for a large decrease', () => {
    expect(fgdQuantize(0, thr, 0)).toBe(50);
    expect(fgdQuantize(-8000, thr, 0)).toBe(0);
    expect(fgdQuantize(8000, thr, 0)).toBe(99);
  });
});
