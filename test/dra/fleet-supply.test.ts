// The cluster's sum of pairing supplies (src/dra/cluster/fleet-supply.ts): after any sequence of
// node changes the sum is what adding up every counted node's supply afresh gives, nodes of a class
// without counters never count, and a node whose supply cannot be read (a fault no real node
// produces, made here by a source that throws) stays stale without leaving the sum wrong.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FleetSupply } from '../../src/dra/cluster/fleet-supply.js';
import { depth } from '../support/depth.js';

/** A source over per-node "true" supplies, changed by the test; class 1 has no counters. */
function source(classOf: Int32Array, truth: Array<{ free: number; holes: number[] }>, fail = new Set<number>()) {
  return {
    nodes: classOf.length,
    counts: (k: number) => classOf[k] !== 1,
    of: (k: number) => {
      if (fail.has(k)) throw new Error(`node ${k} unreadable`);
      return { free: truth[k]!.free, holes: Float64Array.from(truth[k]!.holes) };
    },
  };
}

function fresh(classOf: Int32Array, truth: Array<{ free: number; holes: number[] }>) {
  let free = 0;
  const holes = [0, 0];
  truth.forEach((t, k) => {
    if (classOf[k] === 1) return;
    free += t.free;
    t.holes.forEach((h, s) => (holes[s]! += h));
  });
  return { free, holes };
}

describe('the fleet supply of a cluster handle', () => {
  it('equals the sum made afresh after any changes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(0, 1, 2), { minLength: 1, maxLength: 8 }),
        fc.array(fc.tuple(fc.nat(7), fc.nat(8000), fc.nat(8), fc.nat(8)), { maxLength: depth(20, 100) }),
        (classes, changes) => {
          const classOf = Int32Array.from(classes);
          const truth = classes.map(() => ({ free: 8000, holes: [0, 0] }));
          const supply = new FleetSupply(source(classOf, truth));
          for (const [n, free, a, b] of changes) {
            const k = n % classes.length;
            truth[k] = { free, holes: [a, b] };
            supply.changed(k);
            const sum = supply.sum();
            const want = fresh(classOf, truth);
            if (classes.every((c) => c === 1)) expect(sum).toBeUndefined();
            else expect({ free: sum!.free, holes: [...sum!.holes] }).toEqual(want);
          }
        },
      ),
      { numRuns: depth(50, 500), seed: 7 },
    );
  });

  it('keeps a node it could not read stale, and the sum right once it can', () => {
    const classOf = Int32Array.from([0, 0, 0]);
    const truth = [
      { free: 1000, holes: [1, 0] },
      { free: 2000, holes: [0, 2] },
      { free: 3000, holes: [3, 3] },
    ];
    const fail = new Set([1]);
    const supply = new FleetSupply(source(classOf, truth, fail));
    expect(() => supply.sum()).toThrow('node 1 unreadable');
    fail.clear();
    const sum = supply.sum()!;
    expect({ free: sum.free, holes: [...sum.holes] }).toEqual({ free: 6000, holes: [4, 5] });
  });
});
