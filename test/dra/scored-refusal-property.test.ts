// On one node as NVIDIA's GPU driver publishes it (DynamicMIG: every MIG placement on per-GPU
// counter sets, the whole GPU consuming all of it; and a static-MIG node), from any state reached by
// earlier claims in either mode, the scored mode never refuses a claim that first-fit places (nor
// places one first-fit refuses), and both allocations pass the independent checker. Across two
// such nodes, the default scored handle (the node chosen by the objective too) places a pod exactly
// when a first-fit handle does from the same state.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { A100_80GB, ALL_BALANCED, DGX_A100_LAYOUT, dynamicMigNode, H100_80GB, HGX_H100_LAYOUT, type MachineLayout, NVIDIA_CLASSES, shapeClaim, staticMigNode } from '../../bench/dra-fleets/index.js';
import { allocateClaims, createDraCluster, type DraAllocateRequest, type DraMode } from '../../src/dra/index.js';

import { checkAllocation } from '../support/dra-checker.js';

/** Two GPUs of a machine (the property's nodes stay small: a DynamicMIG GPU publishes 19 devices). */
function twoGpus(layout: MachineLayout): MachineLayout {
  return { ...layout, gpuBus: layout.gpuBus.slice(0, 2), gpuRoot: layout.gpuRoot.slice(0, 2), gpuNuma: layout.gpuNuma.slice(0, 2) };
}

const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', labels: {} } };
const NODES = {
  dynamic: dynamicMigNode('node-1', H100_80GB, twoGpus(HGX_H100_LAYOUT)),
  static: staticMigNode('node-1', A100_80GB, twoGpus(DGX_A100_LAYOUT), [0], ALL_BALANCED),
};
const SHAPES = ['mig:1g.10gb', 'mig:1g.20gb', 'mig:2g.20gb', 'mig:3g.40gb', 'mig:4g.40gb', 'mig:7g.80gb', 'gpu:1', 'gpu:2'];
const devicesOf = (r: { results: Array<{ devices: { results: Array<{ driver: string; pool: string; device: string }> } }> }): string[] =>
  r.results.flatMap((a) => a.devices.results.map((d) => `${d.driver}/${d.pool}/${d.device}`));

describe('scored never refuses what first-fit places (one node, driver-faithful slices)', () => {
  it('from any state reached by earlier claims, the verdicts agree and both allocations check', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<keyof typeof NODES>('dynamic', 'static'),
        fc.array(fc.record({ shape: fc.constantFrom(...SHAPES), mode: fc.constantFrom<DraMode>('first-fit', 'scored') }), { maxLength: 8 }),
        fc.array(fc.constantFrom(...SHAPES), { minLength: 1, maxLength: 2 }),
        (kind, history, last) => {
          const base = { classes: NVIDIA_CLASSES, slices: NODES[kind], node };
          const held: string[] = [];
          history.forEach((step, i) => {
            const r = allocateClaims({ ...base, claims: [shapeClaim(`h-${i}`, step.shape).claim], allocatedDevices: held, mode: step.mode });
            held.push(...devicesOf(r));
          });
          // The last claim asks for one or two shapes together (a claim with two requests).
          const parts = last.map((shape, i) => shapeClaim(`x-${i}`, shape).claim as { spec: { devices: { requests: Array<{ name: string }> } } });
          const requests = parts.flatMap((c, i) => c.spec.devices.requests.map((r) => ({ ...r, name: `${r.name}-${i}` })));
          const claim = { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim', metadata: { name: 'last', namespace: 'bench' }, spec: { devices: { requests } } };
          const request: DraAllocateRequest = { ...base, claims: [claim], allocatedDevices: held };
          const firstFit = allocateClaims({ ...request, mode: 'first-fit' });
          const scored = allocateClaims({ ...request, mode: 'scored' });
          expect(scored.budgetExhausted).toBeUndefined();
          expect(scored.reason === undefined, JSON.stringify({ kind, held, last, firstFit: firstFit.reason, scored: scored.reason })).toBe(firstFit.reason === undefined);
          for (const r of [firstFit, scored]) if (r.reason === undefined) expect(checkAllocation(request, r.results)).toEqual([]);
        },
      ),
      { numRuns: 40, seed: 35 },
    );
  });

  it('across nodes, from the same state, the default scored handle places a pod exactly when a first-fit handle does', () => {
    const nodeOf = (name: string) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: {} } });
    const init = {
      classes: NVIDIA_CLASSES,
      slices: [...dynamicMigNode('node-a', H100_80GB, twoGpus(HGX_H100_LAYOUT)), ...staticMigNode('node-b', A100_80GB, twoGpus(DGX_A100_LAYOUT), [0], ALL_BALANCED)],
      nodes: [nodeOf('node-a'), nodeOf('node-b')],
    };
    fc.assert(
      fc.property(
        fc.array(fc.record({ shape: fc.constantFrom(...SHAPES), mode: fc.constantFrom<DraMode>('first-fit', 'scored') }), { maxLength: 8 }),
        fc.array(fc.constantFrom(...SHAPES), { minLength: 1, maxLength: 2 }),
        (history, last) => {
          // The state: earlier pods, each scheduled by a handle of its mode (scored: the default node score) from the state before it.
          const held: string[] = [];
          history.forEach((step, i) => {
            const r = createDraCluster({ ...init, mode: step.mode, allocatedDevices: held }).schedule(shapeClaim(`h-${i}`, step.shape).claim);
            if (r.node !== undefined) held.push(...devicesOf(r));
          });
          // The last pod has one or two claims, on one node together.
          const pod = last.map((shape, i) => shapeClaim(`x-${i}`, shape).claim);
          const firstFit = createDraCluster({ ...init, mode: 'first-fit', allocatedDevices: held }).schedule(pod);
          const scored = createDraCluster({ ...init, allocatedDevices: held }).schedule(pod);
          expect(scored.node !== undefined, JSON.stringify({ held, last, firstFit: firstFit.reason, scored: scored.reason })).toBe(firstFit.node !== undefined);
          if (scored.node !== undefined) {
            const request: DraAllocateRequest = { ...init, node: nodeOf(scored.node), claims: pod, allocatedDevices: held };
            expect(checkAllocation(request, scored.results)).toEqual([]);
          }
        },
      ),
      { numRuns: 25, seed: 35 },
    );
  });
});
