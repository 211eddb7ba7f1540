// StaleIndex (the cluster state's index of what evicting stale slots could free): after any
// sequence of node updates, `collect` returns exactly the nodes of a class whose n-th largest
// free-plus-evictable memory takes the share, in node order, and `any` agrees; nodes without stale
// slots and nodes with fewer than n GPUs never appear. Checked against a direct computation.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StaleIndex } from '../../src/cluster/stale-index.js';

type Update = { node: number; free: number[]; evictable: number[] | null };

describe('StaleIndex', () => {
  it('collect and any equal a direct scan after random updates', () => {
    const arbCase = fc.record({
      widths: fc.array(fc.constantFrom(1, 2, 4, 8), { minLength: 1, maxLength: 40 }),
      classes: fc.integer({ min: 1, max: 3 }),
      seedClasses: fc.array(fc.nat(), { minLength: 40, maxLength: 40 }),
      updates: fc.array(
        fc.record({
          node: fc.nat(),
          free: fc.array(fc.integer({ min: 0, max: 80 }), { minLength: 8, maxLength: 8 }),
          evictable: fc.option(fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 8, maxLength: 8 }), { nil: null }),
        }),
        { maxLength: 60 },
      ),
      probes: fc.array(fc.record({ n: fc.constantFrom(1, 2, 3, 4, 8), share: fc.integer({ min: 1, max: 120 }), at: fc.nat() }), { minLength: 1, maxLength: 20 }),
    });
    fc.assert(
      fc.property(arbCase, ({ widths, classes, seedClasses, updates, probes }) => {
        const count = widths.length;
        const gpuStart = new Int32Array(count + 1);
        for (let k = 0; k < count; k++) gpuStart[k + 1] = gpuStart[k] + widths[k];
        const free = new Float64Array(gpuStart[count]);
        const classOf = Int32Array.from(widths, (_, k) => seedClasses[k] % classes);
        const index = new StaleIndex({ gpuStart, free }, classOf, classes);
        const evictableOf: Array<number[] | null> = widths.map(() => null);
        const expected = (c: number, n: number, share: number): number[] => {
          const out: number[] = [];
          for (let k = 0; k < count; k++) {
            const ev = evictableOf[k];
            if (classOf[k] !== c || ev === null || widths[k] < n) continue;
            const potential = Array.from({ length: widths[k] }, (_, p) => free[gpuStart[k] + p] + ev[p]).sort((a, b) => b - a);
            if (potential[n - 1] >= share) out.push(k);
          }
          return out;
        };
        // Probes interleave with the updates, so trees built early are then kept up to date.
        const steps = Math.max(updates.length, probes.length);
        for (let t = 0; t < steps; t++) {
          const u: Update | undefined = updates[t];
          if (u !== undefined) {
            const k = u.node % count;
            for (let p = 0; p < widths[k]; p++) free[gpuStart[k] + p] = u.free[p];
            evictableOf[k] = u.evictable === null ? null : u.evictable.slice(0, widths[k]);
            index.update(k, u.evictable === null ? null : Float64Array.from(u.evictable));
          }
          const probe = probes[t % probes.length];
          const c = probe.at % classes;
          const want = expected(c, probe.n, probe.share);
          const got: number[] = [];
          index.collect(c, probe.n, probe.share, got);
          expect(got).toEqual(want);
          expect(index.any(c, probe.n, probe.share)).toBe(want.length > 0);
        }
      }),
      { numRuns: 200 },
    );
  });
});
