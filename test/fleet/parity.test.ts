// Both backends give the same run (every event, both curves) on random clusters (some nodes with a
// topology) and workloads, under every policy (a third of the random cases in npm test, all of them in
// the deep suite).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { POLICIES } from '../../src/fleet/policies/index.js';
import type { FleetNode, FleetPod } from '../../src/fleet/types.js';
import { depth } from '../support/depth.js';
import { engines } from '../support/engines.js';

const MODELS = ['A', 'B', 'C'];
const nodeArb = fc.record({
  cpu: fc.integer({ min: 0, max: 128000 }),
  memoryMiB: fc.integer({ min: 0, max: 1 << 20 }),
  gpus: fc.integer({ min: 0, max: 8 }),
  model: fc.constantFrom(...MODELS),
});
const podArb = fc.oneof(
  fc.record({ cpu: fc.integer({ min: 0, max: 64000 }), memoryMiB: fc.integer({ min: 0, max: 1 << 17 }), gpus: fc.constant(0), milli: fc.constant(0), models: fc.constant([] as string[]) }),
  fc.record({
    cpu: fc.integer({ min: 0, max: 32000 }),
    memoryMiB: fc.integer({ min: 0, max: 1 << 17 }),
    gpus: fc.constant(1),
    milli: fc.integer({ min: 1, max: 1000 }),
    models: fc.subarray([...MODELS, 'Z']),
  }),
  fc.record({ cpu: fc.integer({ min: 0, max: 64000 }), memoryMiB: fc.integer({ min: 0, max: 1 << 17 }), gpus: fc.integer({ min: 1, max: 8 }), milli: fc.constant(1000), models: fc.subarray(MODELS) }),
);

describe('fleet parity: wasm and ts give identical runs', async () => {
  const { wasm, ts } = await engines();
  it('on random clusters, workloads, seeds and policies', () => {
    fc.assert(
      fc.property(
        fc.array(nodeArb, { minLength: 1, maxLength: 12 }),
        fc.array(podArb, { minLength: 1, maxLength: 60 }),
        fc.constantFrom(...POLICIES.map((p) => p.name)),
        fc.integer({ min: 0, max: 1000 }),
        fc.double({ min: 0.2, max: 2, noNaN: true }),
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 28, maxLength: 28 }),
        (rawNodes, rawPods, policy, seed, tune, links) => {
          // Every other node with two or more GPUs gets a topology: each pair over SYS or 1..3 NVLinks.
          const nodes: FleetNode[] = rawNodes.map((n, i) => {
            if (n.gpus < 2 || i % 2 === 1) return { id: `node-${i}`, ...n };
            const pairs = [];
            for (let a = 0, k = 0; a < n.gpus; a++)
              for (let b = a + 1; b < n.gpus; b++, k++) pairs.push(links[k % links.length] === 0 ? { a, b, pcie: 'SYS' as const } : { a, b, nvlink: links[k % links.length] });
            return { id: `node-${i}`, ...n, topology: { gpus: n.gpus, links: pairs } };
          });
          const pods: FleetPod[] = rawPods.map((p, i) => ({ id: `pod-${String(i).padStart(3, '0')}`, ...p }));
          const request = { nodes, pods, policy, seed, tune, events: true, fragmentation: true };
          expect(wasm.simulateFleet(request)).toStrictEqual(ts.simulateFleet(request));
        },
      ),
      { numRuns: depth(100, 300) },
    );
  });

  it('fgd, fgd-close, fgd-lp and fgd-node on workloads of a few share sizes (the clean-remainder table then has many clean entries, the LP prices many sizes)', () => {
    const share = fc.record({
      cpu: fc.integer({ min: 0, max: 16000 }),
      memoryMiB: fc.constant(1),
      gpus: fc.constant(1),
      milli: fc.constantFrom(110, 160, 230, 320, 470, 550, 650, 810, 1000),
      models: fc.constant([] as string[]),
    });
    fc.assert(
      fc.property(
        fc.array(nodeArb, { minLength: 1, maxLength: 12 }),
        fc.array(share, { minLength: 1, maxLength: 80 }),
        fc.constantFrom('fgd', 'fgd-close', 'fgd-lp', 'fgd-node'),
        fc.integer({ min: 0, max: 1000 }),
        (rawNodes, rawPods, policy, seed) => {
          const nodes: FleetNode[] = rawNodes.map((n, i) => ({ id: `node-${i}`, ...n }));
          const pods: FleetPod[] = rawPods.map((p, i) => ({ id: `pod-${String(i).padStart(3, '0')}`, ...p }));
          const request = { nodes, pods, policy, seed, events: true, fragmentation: true };
          expect(wasm.simulateFleet(request)).toStrictEqual(ts.simulateFleet(request));
        },
      ),
      { numRuns: depth(50, 150) },
    );
  });
});
