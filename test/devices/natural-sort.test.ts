import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AllocationError } from '../../src/shared/errors.js';
import { compareNatural } from '../../src/shared/natural-order.js';
import { engines } from '../support/engines.js';

const { wasm, ts } = await engines();

const golden: Array<[string[], string[]]> = [
  [
    ['cuda10', 'cuda2', 'cuda1'],
    ['cuda1', 'cuda2', 'cuda10'],
  ],
  [
    ['nvme0n1p10', 'nvme0n1p2'],
    ['nvme0n1p2', 'nvme0n1p10'],
  ],
  [
    ['gpu1', 'cuda0'],
    ['cuda0', 'gpu1'],
  ],
  [
    ['a', ''],
    ['', 'a'],
  ],
  [
    ['1', ''],
    ['', '1'],
  ],
  [
    ['cuda', 'cuda0', 'Cuda'],
    ['Cuda', 'cuda', 'cuda0'],
  ],
  [
    ['x01', 'x1', 'x001'],
    ['x001', 'x01', 'x1'],
  ],
  [
    ['GPU2', 'gpu10', 'gpu1'],
    ['gpu1', 'GPU2', 'gpu10'],
  ],
  [
    ['a1b', 'a1', 'a1b2', 'a2'],
    ['a1', 'a1b', 'a1b2', 'a2'],
  ],
  [
    ['n1234567890123456789012345678901234567891', 'n1234567890123456789012345678901234567890', 'n99'],
    ['n99', 'n1234567890123456789012345678901234567890', 'n1234567890123456789012345678901234567891'],
  ],
  [
    ['ab', 'a1'],
    ['a1', 'ab'],
  ],
  [
    ['b', 'B', 'a'],
    ['a', 'B', 'b'],
  ],
  [
    ['dup', 'dup', 'Dup'],
    ['Dup', 'dup', 'dup'],
  ],
  [[], []],
];

describe('naturalSort golden table', () => {
  for (const [input, expected] of golden) {
    it(`${JSON.stringify(input)} → ${JSON.stringify(expected)}`, () => {
      expect(wasm.naturalSort(input)).toEqual(expected);
      expect(ts.naturalSort(input)).toEqual(expected);
    });
  }

  it('does not mutate its input', () => {
    const input = ['cuda10', 'cuda2'];
    wasm.naturalSort(input);
    expect(input).toEqual(['cuda10', 'cuda2']);
  });

  it('rejects non-string IDs naming the position', () => {
    for (const e of [wasm, ts]) {
      expect(() => e.naturalSort(['a', 3 as unknown as string])).toThrow(/ids\[1\]: expected a string, got 3/);
      expect(() => e.naturalSort('abc' as unknown as string[])).toThrow(AllocationError);
    }
  });
});

const idChars = fc.constantFrom('a', 'B', 'c', 'z', '0', '1', '2', '9', '0', '-', ':', '_', 'é', '\ud800');
const id = fc.oneof(
  fc.string({ unit: idChars, maxLength: 12 }),
  fc.tuple(fc.constantFrom('cuda', 'nvme', 'GPU-', 'mig'), fc.nat({ max: 200 }), fc.constantFrom('', 'n1', 'p', '::3')).map(([a, n, s]) => `${a}${n}${s}`),
);

describe('naturalSort properties', () => {
  it('wasm and ts agree on random ID lists', () => {
    fc.assert(
      fc.property(fc.array(id, { maxLength: 60 }), (ids) => {
        expect(wasm.naturalSort(ids)).toEqual(ts.naturalSort(ids));
      }),
      { numRuns: 500 },
    );
  });

  it('is a sorted permutation of the input under the documented comparison', () => {
    fc.assert(
      fc.property(fc.array(id, { maxLength: 60 }), (ids) => {
        const out = wasm.naturalSort(ids);
        expect([...out].sort()).toEqual([...ids].sort());
        for (let k = 1; k < out.length; k++) expect(compareNatural(out[k - 1], out[k])).toBeLessThanOrEqual(0);
      }),
      { numRuns: 300 },
    );
  });

  it('digit runs compare by value whatever their length', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 40n }), fc.bigInt({ min: 0n, max: 10n ** 40n }), (a, b) => {
        const out = wasm.naturalSort([`dev${a}`, `dev${b}`]);
        const expected = a <= b ? [`dev${a}`, `dev${b}`] : [`dev${b}`, `dev${a}`];
        expect(out).toEqual(expected);
      }),
    );
  });

  it('keeps WASM memory stable over 10^5 calls after warm-up', () => {
    const ids = Array.from({ length: 64 }, (_, k) => `cuda${(k * 37) % 64}`);
    for (let k = 0; k < 1000; k++) wasm.naturalSort(ids);
    const pages = wasm.memoryPages();
    for (let k = 0; k < 100_000; k++) wasm.naturalSort(ids);
    expect(wasm.memoryPages()).toBe(pages);
  });
});
