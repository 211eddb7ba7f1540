// Property tests on small random pools (devices with attributes, counters and capacity; claims with
// counts, All, selectors, matchAttribute/distinctAttribute, firstAvailable, consumable capacity):
// scored and first-fit reach the same verdict (allocated or not), both agree with brute force, the
// independent checker accepts both allocations, and the scored one is never worse by its own
// objective than any allocation brute force finds. Same input, same output.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allocateClaims, type DraAllocateRequest } from '../../src/dra/index.js';
import { checkAllocation } from '../support/dra-checker.js';
import { bruteForce } from '../support/dra-brute-force.js';
import { canonical } from '../support/dra-upstream-table.js';

const V1 = 'resource.k8s.io/v1';
const DRIVER = 'gpu.example.com';
const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', labels: { zone: 'a' } } };
const classes = [
  { apiVersion: V1, kind: 'DeviceClass', metadata: { name: 'gpu' }, spec: { selectors: [{ cel: { expression: `device.driver == "${DRIVER}"` } }] } },
  { apiVersion: V1, kind: 'DeviceClass', metadata: { name: 'big' }, spec: { selectors: [{ cel: { expression: `device.capacity["${DRIVER}"].memory.compareTo(quantity("2Gi")) >= 0` } }] } },
];
const SELECTORS = [
  `device.attributes["${DRIVER}"].model == "a"`,
  `"numa" in device.attributes["${DRIVER}"] && device.attributes["${DRIVER}"].numa <= 1`,
  `device.capacity["${DRIVER}"].memory.isLessThan(quantity("4Gi"))`,
];

const device = fc.record({
  numa: fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined, freq: 6 }),
  model: fc.constantFrom('a', 'b'),
  memory: fc.constantFrom('1Gi', '2Gi', '4Gi'),
  parent: fc.option(fc.integer({ min: 0, max: 1 }), { nil: undefined }),
  share: fc.boolean(),
  taint: fc.boolean(),
});

const body = fc.record({
  cls: fc.constantFrom('gpu', 'gpu', 'big'),
  count: fc.integer({ min: 1, max: 3 }),
  all: fc.boolean(),
  selector: fc.option(fc.integer({ min: 0, max: SELECTORS.length - 1 }), { nil: undefined }),
  bw: fc.option(fc.constantFrom('1G', '3G'), { nil: undefined }),
});

const claimShape = fc.record({
  requests: fc.array(fc.record({ main: body, alt: fc.option(body, { nil: undefined }) }), { minLength: 1, maxLength: 2 }),
  constraint: fc.constantFrom('none', 'none', 'match', 'distinct'),
});

const scenario = fc.record({
  devices: fc.array(device, { minLength: 1, maxLength: 6 }),
  claims: fc.array(claimShape, { minLength: 1, maxLength: 2 }),
  allocated: fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 2 }),
  consumable: fc.boolean(),
  counterTotal: fc.constantFrom('2Gi', '4Gi', '8Gi'),
});

type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

function requestOf(s: Scenario): DraAllocateRequest {
  const devices = s.devices.map((d, i) => {
    const attributes: Record<string, unknown> = { model: { string: d.model } };
    if (d.numa !== undefined) attributes.numa = { int: d.numa };
    const out: Record<string, unknown> = { name: `dev-${i}`, attributes, capacity: { memory: { value: d.memory } } };
    if (d.parent !== undefined) out.consumesCounters = [{ counterSet: `parent-${d.parent}`, counters: { memory: { value: d.memory } } }];
    if (s.consumable && d.share) {
      out.allowMultipleAllocations = true;
      out.capacity = { memory: { value: d.memory }, bw: { value: '4G', requestPolicy: { default: '1G', validRange: { min: '1G', step: '1G' } } } };
    }
    if (d.taint) out.taints = [{ key: 'maintenance', effect: 'NoSchedule' }];
    return out;
  });
  const sharedCounters = [0, 1].map((p) => ({ name: `parent-${p}`, counters: { memory: { value: s.counterTotal } } }));
  const slices = [{ apiVersion: V1, kind: 'ResourceSlice', metadata: { name: 's' }, spec: { driver: DRIVER, pool: { name: 'pool-1', generation: 1, resourceSliceCount: 1 }, nodeName: 'node-1', devices, sharedCounters } }];
  const exact = (b: Scenario['claims'][number]['requests'][number]['main'], i: number) => {
    const out: Record<string, unknown> = { deviceClassName: b.cls, allocationMode: b.all ? 'All' : 'ExactCount' };
    if (!b.all) out.count = b.count;
    if (b.selector !== undefined) out.selectors = [{ cel: { expression: SELECTORS[b.selector] } }];
    if (s.consumable && b.bw !== undefined && !b.all) out.capacity = { requests: { bw: b.bw } };
    if (i % 2 === 1) out.tolerations = [{ key: 'maintenance', operator: 'Exists' }];
    return out;
  };
  const claims = s.claims.map((c, ci) => {
    const requests = c.requests.map((r, ri) =>
      r.alt === undefined ? { name: `r${ri}`, exactly: exact(r.main, ri) } : { name: `r${ri}`, firstAvailable: [{ name: 'a', ...exact(r.main, ri) }, { name: 'b', ...exact(r.alt, ri + 1) }] },
    );
    const constraints = c.constraint === 'none' ? [] : [{ [c.constraint === 'match' ? 'matchAttribute' : 'distinctAttribute']: `${DRIVER}/numa` }];
    return { apiVersion: V1, kind: 'ResourceClaim', metadata: { name: `c${ci}`, namespace: 'ns' }, spec: { devices: { requests, constraints } } };
  });
  const allocatedDevices = [...new Set(s.allocated.filter((i) => i < s.devices.length && !(s.consumable && s.devices[i].share)))].map((i) => `${DRIVER}/pool-1/dev-${i}`);
  const features = { prioritizedList: true, partitionableDevices: true, deviceTaints: true, consumableCapacity: s.consumable };
  return { classes, slices, claims, node, allocatedDevices, features };
}

function run(request: DraAllocateRequest, mode: 'scored' | 'first-fit'): { ok: boolean; error?: string; results?: ReturnType<typeof allocateClaims>['results'] } {
  try {
    const r = allocateClaims({ ...request, mode });
    return { ok: r.results.length > 0, results: r.results };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

describe('scored allocation on random pools', () => {
  it('agrees with first-fit and with brute force on the verdict; both allocations pass the checker', () => {
    let feasible = 0;
    let infeasible = 0;
    fc.assert(
      fc.property(scenario, (s) => {
        const request = requestOf(s);
        const scored = run(request, 'scored');
        const first = run(request, 'first-fit');
        expect(scored.error).toBe(first.error);
        if (first.error !== undefined) return;
        expect(scored.ok).toBe(first.ok);
        const brute = bruteForce(request, 500_000);
        expect(brute.error).toBeUndefined();
        expect(brute.complete).toBe(true);
        expect(brute.answers.length > 0).toBe(scored.ok);
        if (scored.ok) {
          feasible++;
          expect(checkAllocation(request, scored.results ?? [])).toEqual([]);
          expect(checkAllocation(request, first.results ?? [])).toEqual([]);
        } else infeasible++;
      }),
      { numRuns: 400, seed: 20260727 },
    );
    // The generator must exercise both verdicts.
    expect(feasible).toBeGreaterThan(50);
    expect(infeasible).toBeGreaterThan(50);
  });

  it('gives the same allocation for the same input', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const request = requestOf(s);
        const a = run(request, 'scored');
        const b = run(structuredClone(request), 'scored');
        expect(canonical(a)).toBe(canonical(b));
      }),
      { numRuns: 100, seed: 7 },
    );
  });
});
