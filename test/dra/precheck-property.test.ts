// The early infeasibility answer never changes first-fit's outcome: on random small pools (counters,
// taints, devices held by other claims, constraints, several requests and claims) allocateClaims
// (with the check) and the bare first-fit search (without it) agree on every answer.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DraAllocateRequest } from '../../src/dra/index.js';
import { allocateClaims, DEFAULT_DRA_FEATURES, readDeviceClasses, readNodes, readResourceClaims, readResourceSlices } from '../../src/dra/index.js';
import { AllocationModel, addClaims, firstFit, gatherPools } from '../../src/dra/testing.js';
import { classObject, DRIVER, V1 } from '../support/dra-objects.js';

const device = fc.record({
  numa: fc.integer({ min: 0, max: 2 }),
  memory: fc.constantFrom('10Gi', '20Gi', '40Gi'),
  tainted: fc.integer({ min: 0, max: 4 }).map((v) => v === 0),
  counters: fc.boolean(),
  held: fc.integer({ min: 0, max: 4 }).map((v) => v === 0),
});

const instance = fc.record({
  devices: fc.array(device, { minLength: 1, maxLength: 8 }),
  counter: fc.constantFrom('40Gi', '80Gi', '200Gi'),
  claims: fc.array(
    fc.record({
      counts: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 2 }),
      match: fc.integer({ min: 0, max: 3 }).map((v) => v === 0),
      distinct: fc.integer({ min: 0, max: 3 }).map((v) => v === 0),
      tolerate: fc.boolean(),
    }),
    { minLength: 1, maxLength: 2 },
  ),
});

type Instance = typeof instance extends fc.Arbitrary<infer T> ? T : never;

function requestOf(x: Instance): DraAllocateRequest {
  const pool = { name: 'pool-1', generation: 1, resourceSliceCount: 2 };
  const devices = x.devices.map((d, i) => ({
    name: `dev-${i}`,
    attributes: { numa: { int: d.numa } },
    capacity: { memory: { value: d.memory } },
    ...(d.counters ? { consumesCounters: [{ counterSet: 'gpu', counters: { memory: { value: d.memory } } }] } : {}),
    ...(d.tainted ? { taints: [{ key: 'broken', effect: 'NoSchedule' }] } : {}),
  }));
  return {
    classes: [classObject('gpu')],
    slices: [
      {
        apiVersion: V1,
        kind: 'ResourceSlice',
        metadata: { name: 'counters' },
        spec: { driver: DRIVER, pool, nodeName: 'node-1', sharedCounters: [{ name: 'gpu', counters: { memory: { value: x.counter } } }] },
      },
      { apiVersion: V1, kind: 'ResourceSlice', metadata: { name: 'devices' }, spec: { driver: DRIVER, pool, nodeName: 'node-1', devices } },
    ],
    claims: x.claims.map((c, ci) => ({
      apiVersion: V1,
      kind: 'ResourceClaim',
      metadata: { name: `claim-${ci}` },
      spec: {
        devices: {
          requests: c.counts.map((count, ri) => ({
            name: `req-${ri}`,
            exactly: { deviceClassName: 'gpu', allocationMode: 'ExactCount', count, ...(c.tolerate ? { tolerations: [{ key: 'broken', operator: 'Exists' }] } : {}) },
          })),
          constraints: [...(c.match ? [{ matchAttribute: `${DRIVER}/numa` }] : []), ...(c.distinct ? [{ distinctAttribute: `${DRIVER}/numa`, requests: ['req-0'] }] : [])],
        },
      },
    })),
    node: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' } },
    allocatedDevices: x.devices.flatMap((d, i) => (d.held ? [`${DRIVER}/pool-1/dev-${i}`] : [])),
    features: { ...DEFAULT_DRA_FEATURES, consumableCapacity: true },
  };
}

/** first-fit alone, without the early check: the devices per claim, or 'unschedulable'. */
function bareFirstFit(request: DraAllocateRequest): string {
  const features = { ...DEFAULT_DRA_FEATURES, consumableCapacity: true };
  const [node] = readNodes(request.node);
  const model = new AllocationModel(node, features, gatherPools(readResourceSlices(request.slices), node, features), {
    devices: new Set(request.allocatedDevices),
    sharedDeviceIds: new Set(),
    capacity: new Map(),
  });
  addClaims(model, readResourceClaims(request.claims), readDeviceClasses(request.classes));
  const outcome = firstFit(model);
  if (outcome.state === undefined) return 'unschedulable';
  return JSON.stringify(outcome.state.picked.map((claim) => claim.map((p) => model.candidates[p.index].device.name)));
}

describe('early infeasibility answer', () => {
  it('agrees with the bare first-fit search on random small pools', () => {
    let infeasible = 0;
    fc.assert(
      fc.property(instance, (x) => {
        const request = requestOf(x);
        const full = allocateClaims({ ...request, mode: 'first-fit' });
        const got = full.results.length === 0 ? 'unschedulable' : JSON.stringify(full.results.map((r) => r.devices.results.map((d) => d.device)));
        if (got === 'unschedulable') infeasible++;
        expect(got).toBe(bareFirstFit(request));
      }),
      { numRuns: 400, seed: 20260727 },
    );
    // Both outcomes occur, so the comparison is not vacuous.
    expect(infeasible).toBeGreaterThan(40);
    expect(infeasible).toBeLessThan(360);
  });
});
