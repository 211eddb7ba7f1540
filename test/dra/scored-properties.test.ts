// Property tests on small random pools (devices with attributes, counters and capacity; claims with
// counts, All, selectors, matchAttribute/distinctAttribute, firstAvailable, consumable capacity):
// scored and first-fit reach the same verdict (allocated or not), both agree with brute force, the
// independent checker accepts both allocations, and the scored one is never worse by its own
// objective than any allocation brute force finds. Same input, same output.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allocateClaims, DEFAULT_DRA_FEATURES, type DraAllocateRequest, type DraObjective, readDeviceClasses, readNodes, readResourceClaims, readResourceSlices } from '../../src/dra/index.js';
import { AllocationModel, addClaims, compareObjective, evaluateObjective, gatherPools, type RequestModel } from '../../src/dra/testing.js';
import { depth } from '../support/depth.js';
import { bruteForce } from '../support/dra-brute-force.js';
import { checkAllocation } from '../support/dra-checker.js';
import { classObject, DRIVER, nodeObject, V1 } from '../support/dra-objects.js';
import { canonical } from '../support/dra-upstream-table.js';

const node = nodeObject();
const classes = [classObject('gpu'), classObject('big', [`device.capacity["${DRIVER}"].memory.compareTo(quantity("2Gi")) >= 0`])];
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
  const slices = [
    {
      apiVersion: V1,
      kind: 'ResourceSlice',
      metadata: { name: 's' },
      spec: { driver: DRIVER, pool: { name: 'pool-1', generation: 1, resourceSliceCount: 1 }, nodeName: 'node-1', devices, sharedCounters },
    },
  ];
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
      r.alt === undefined
        ? { name: `r${ri}`, exactly: exact(r.main, ri) }
        : {
            name: `r${ri}`,
            firstAvailable: [
              { name: 'a', ...exact(r.main, ri) },
              { name: 'b', ...exact(r.alt, ri + 1) },
            ],
          },
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

/** Pools where the objective has something to choose: topology attributes, partitions, devices held. */
const topologyScenario = fc.record({
  devices: fc.array(
    fc.record({
      numa: fc.integer({ min: 0, max: 1 }),
      root: fc.integer({ min: 0, max: 2 }),
      link: fc.option(fc.constantFrom('x', 'y'), { nil: undefined }),
      parent: fc.option(fc.integer({ min: 0, max: 1 }), { nil: undefined }),
    }),
    { minLength: 2, maxLength: 7 },
  ),
  counts: fc.array(fc.record({ count: fc.integer({ min: 1, max: 3 }), alt: fc.option(fc.integer({ min: 1, max: 2 }), { nil: undefined }) }), { minLength: 1, maxLength: 2 }),
  held: fc.array(fc.integer({ min: 0, max: 6 }), { maxLength: 2 }),
});

function topologyRequest(t: typeof topologyScenario extends fc.Arbitrary<infer T> ? T : never): DraAllocateRequest {
  const devices = t.devices.map((d, i) => ({
    name: `gpu-${i}`,
    attributes: {
      'resource.kubernetes.io/numaNode': { int: d.numa },
      'resource.kubernetes.io/pcieRoot': { string: `pci${d.root}` },
      ...(d.link !== undefined ? { nvlinkDomain: { string: d.link } } : {}),
    },
    ...(d.parent !== undefined ? { consumesCounters: [{ counterSet: `parent-${d.parent}`, counters: { slices: { value: '1' } } }] } : {}),
  }));
  const sharedCounters = [0, 1].map((p) => ({ name: `parent-${p}`, counters: { slices: { value: '2' } } }));
  const slices = [
    {
      apiVersion: V1,
      kind: 'ResourceSlice',
      metadata: { name: 's' },
      spec: { driver: DRIVER, pool: { name: 'pool-1', generation: 1, resourceSliceCount: 1 }, nodeName: 'node-1', devices, sharedCounters },
    },
  ];
  const claims = t.counts.map((c, ci) => ({
    apiVersion: V1,
    kind: 'ResourceClaim',
    metadata: { name: `c${ci}`, namespace: 'ns' },
    spec: {
      devices: {
        requests: [
          c.alt === undefined
            ? { name: 'r', exactly: { deviceClassName: 'gpu', count: c.count } }
            : {
                name: 'r',
                firstAvailable: [
                  { name: 'a', deviceClassName: 'gpu', count: c.count },
                  { name: 'b', deviceClassName: 'gpu', count: c.alt },
                ],
              },
        ],
      },
    },
  }));
  const allocatedDevices = [...new Set(t.held.filter((i) => i < t.devices.length))].map((i) => `${DRIVER}/pool-1/gpu-${i}`);
  return { classes, slices, claims, node, allocatedDevices, features: { prioritizedList: true, partitionableDevices: true } };
}

/** The objective of every allocation brute force finds (answers as `request=driver/pool/device` per claim). */
function objectivesOf(request: DraAllocateRequest, answers: readonly string[]): DraObjective[] {
  const features = { ...DEFAULT_DRA_FEATURES, ...(request.features ?? {}) } as typeof DEFAULT_DRA_FEATURES;
  const node = readNodes(request.node)[0];
  const model = new AllocationModel(node, features, gatherPools(readResourceSlices(request.slices), node, features), {
    devices: new Set(request.allocatedDevices ?? []),
    sharedDeviceIds: new Set(),
    capacity: new Map(),
  });
  addClaims(model, readResourceClaims(request.claims), readDeviceClasses(request.classes));
  const byId = new Map(model.candidates.map((c) => [c.id, c.index]));
  return answers.map((answer) => {
    const picks: Array<{ request: RequestModel; index: number }> = [];
    const alternatives: number[] = [];
    answer.split(' | ').forEach((part, ci) => {
      const names = new Map(
        part === ''
          ? []
          : part
              .split(',')
              .map((p) => p.split('=') as [string, string])
              .map(([r, d]) => [d + '#' + r, r]),
      );
      model.claims[ci].groups.forEach((group) => {
        const used = group.alternatives.findIndex((a) => [...names.values()].includes(a.name));
        const alt = group.alternatives[Math.max(0, used)];
        if (group.firstAvailable) alternatives.push(Math.max(0, used));
        for (const key of names.keys()) if (names.get(key) === alt.name) picks.push({ request: alt, index: byId.get(key.split('#')[0]) as number });
      });
    });
    return evaluateObjective(model, picks, alternatives);
  });
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
      { numRuns: depth(100, 400), seed: 20260727 },
    );
    // The generator must exercise both verdicts.
    expect(feasible).toBeGreaterThan(depth(10, 50));
    expect(infeasible).toBeGreaterThan(depth(10, 50));
  });

  it('finds an allocation no other allocation beats by the objective (brute force over every feasible one)', () => {
    let compared = 0;
    fc.assert(
      fc.property(fc.oneof(scenario.map(requestOf), topologyScenario.map(topologyRequest)), (request) => {
        const run = (): ReturnType<typeof allocateClaims> | undefined => {
          try {
            return allocateClaims({ ...request, mode: 'scored' });
          } catch {
            return undefined; // upstream's errors (an All device a constraint refuses): no allocation to compare
          }
        };
        const scored = run();
        if (scored === undefined || scored.results.length === 0 || scored.budgetExhausted === true) return;
        const brute = bruteForce(request, 500_000);
        const all = objectivesOf(request, brute.answers);
        compared += all.length;
        for (const o of all) expect(compareObjective(scored.objective as DraObjective, o), JSON.stringify({ scored: scored.objective, other: o })).toBeLessThanOrEqual(0);
      }),
      { numRuns: depth(100, 400), seed: 4242 },
    );
    expect(compared).toBeGreaterThan(depth(200, 1000));
  });

  it('gives the same allocation for the same input', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const request = requestOf(s);
        const a = run(request, 'scored');
        const b = run(structuredClone(request), 'scored');
        expect(canonical(a)).toBe(canonical(b));
      }),
      { numRuns: depth(25, 100), seed: 7 },
    );
  });
});
