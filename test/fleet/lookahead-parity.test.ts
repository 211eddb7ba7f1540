// A policy with a lookahead (rollouts on close decisions, src/fleet/lookahead.ts) gives the same run on
// both backends, and the same through the pod index as by the scan: event logs equal line for line,
// on random small fleets, workloads, settings and seeds (test/deep/lookahead-openb.test.ts runs the
// openb default trace).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Lookahead } from '../../src/fleet/lookahead.js';
import { policyByName } from '../../src/fleet/policies/index.js';
import type { FleetNode, FleetPod } from '../../src/fleet/types.js';
import { depth } from '../support/depth.js';
import { engines } from '../support/engines.js';
import { runWithPolicy } from '../support/lookahead-run.js';

const MODELS = ['A', 'B', 'C'];
const nodeArb = fc.record({
  cpu: fc.integer({ min: 0, max: 64000 }),
  memoryMiB: fc.integer({ min: 0, max: 1 << 18 }),
  gpus: fc.integer({ min: 0, max: 8 }),
  model: fc.constantFrom(...MODELS),
});
const podArb = fc.oneof(
  fc.record({ cpu: fc.integer({ min: 0, max: 16000 }), memoryMiB: fc.integer({ min: 0, max: 1 << 15 }), gpus: fc.constant(0), milli: fc.constant(0), models: fc.constant([] as string[]) }),
  fc.record({
    cpu: fc.integer({ min: 0, max: 16000 }),
    memoryMiB: fc.integer({ min: 0, max: 1 << 15 }),
    gpus: fc.constant(1),
    milli: fc.constantFrom(100, 160, 230, 320, 470, 500, 650, 810, 1000),
    models: fc.subarray([...MODELS, 'Z']),
  }),
  fc.record({ cpu: fc.integer({ min: 0, max: 16000 }), memoryMiB: fc.integer({ min: 0, max: 1 << 15 }), gpus: fc.integer({ min: 1, max: 8 }), milli: fc.constant(1000), models: fc.subarray(MODELS) }),
);
const lookArb: fc.Arbitrary<Lookahead> = fc.record({
  delta: fc.constantFrom(0, 1, 3, 1000, 1e7, 1e13),
  continuations: fc.integer({ min: 1, max: 8 }),
  depth: fc.integer({ min: 1, max: 8 }),
  scope: fc.constantFrom('shares' as const, 'gpu' as const, 'all' as const),
  candidates: fc.integer({ min: 2, max: 5 }),
});

describe('fleet lookahead parity', async () => {
  const { wasm, ts } = await engines();

  it('wasm and ts, index and scan: the same events on random fleets, workloads, settings and seeds', () => {
    let looked = 0;
    fc.assert(
      fc.property(
        fc.array(nodeArb, { minLength: 2, maxLength: 10 }),
        fc.array(podArb, { minLength: 1, maxLength: 40 }),
        fc.constantFrom('fgd', 'fgd-close', 'fgd-lp', 'bestfit', 'packing'),
        lookArb,
        fc.integer({ min: 0, max: 1000 }),
        (rawNodes, rawPods, name, lookahead, seed) => {
          const nodes: FleetNode[] = rawNodes.map((n, i) => ({ id: `node-${i}`, ...n }));
          const pods: FleetPod[] = rawPods.map((p, i) => ({ id: `pod-${String(i).padStart(3, '0')}`, ...p }));
          const policy = { ...policyByName(name), lookahead };
          const w = runWithPolicy(wasm, nodes, pods, policy, seed);
          expect(runWithPolicy(ts, nodes, pods, policy, seed)).toStrictEqual(w);
          expect(runWithPolicy(wasm, nodes, pods, policy, seed, 'scan')).toStrictEqual(w);
          // The index's trees at coarser memory floors (pods asking more than their tree's floor), and some shapes without a class.
          const shapes = pods.filter((_, i) => i % 3 !== 2).map((p) => ({ ...p, memoryMiB: p.memoryMiB & ~4095 }));
          expect(runWithPolicy(ts, nodes, pods, policy, seed, 'index', seed, shapes)).toStrictEqual(w);
          looked += w.looked;
        },
      ),
      { numRuns: depth(25, 600) },
    );
    // The cases exercise the rollouts, not only picks with one close candidate.
    expect(looked).toBeGreaterThan(20);
  });
});
