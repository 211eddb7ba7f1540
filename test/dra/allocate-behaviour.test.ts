// allocateClaims beyond the upstream table: the engine entry on both backends, inputs never
// modified (deep-frozen), results that do not alias inputs, the backtracking bugs upstream had
// (fixed here), the reason of an infeasible claim, the early answer to an exponential search,
// deterministic share IDs and the default features.
import { describe, expect, it } from 'vitest';
import { allocateClaims, type DraAllocateRequest } from '../../src/dra/index.js';
import { openEngine } from '../../src/engine.js';
import { AllocationError } from '../../src/shared/errors.js';
import { claimObject, classObject, DRIVER, errorOf, exactRequest, nodeObject, type Obj, sliceObject } from '../support/dra-objects.js';
import { canonical, requestOf, upstreamCases } from '../support/dra-upstream-table.js';

const node = nodeObject();
const cls = (name: string, driver = DRIVER) => classObject(name, [`device.driver == "${driver}"`]);
const slice = (name: string, spec: Obj) => sliceObject(name, spec, { pool: 'pool-1' });
const claim = (name: string, requests: unknown[], constraints: unknown[] = []) => claimObject(name, { devices: { requests, constraints } });
const exactly = (name: string, count: number, extra: Obj = {}) => exactRequest(name, 'gpu', count, extra);
const picked = (r: ReturnType<typeof allocateClaims>) => r.results.map((a) => a.devices.results.map((d) => d.device));

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

describe('allocateClaims', () => {
  it('never modifies its input: every table case runs on deep-frozen objects', () => {
    for (const c of upstreamCases()) {
      const request = deepFreeze(structuredClone(requestOf(c)));
      try {
        allocateClaims(request);
      } catch (error) {
        expect(error, c.name).toBeInstanceOf(AllocationError);
      }
    }
  });

  it('gives the same answer on both backends through the engine', async () => {
    const [wasm, ts] = await Promise.all([openEngine({ backend: 'wasm' }), openEngine({ backend: 'ts' })]);
    for (const c of upstreamCases()) {
      const run = (engine: typeof wasm) => {
        try {
          return canonical(engine.allocateClaims(requestOf(c)));
        } catch (error) {
          return (error as Error).message;
        }
      };
      expect(run(wasm), c.name).toBe(run(ts));
    }
  });

  it('returns results that share nothing with the input', () => {
    const tolerations = [{ key: 'maintenance', operator: 'Exists' }];
    const request: DraAllocateRequest = {
      classes: [{ ...cls('gpu'), spec: { ...cls('gpu').spec, config: [{ opaque: { driver: 'gpu.example.com', parameters: { mode: 'fast' } } }] } }],
      slices: [slice('s', { devices: [{ name: 'gpu-0' }] })],
      claims: [claim('c', [exactly('r', 1, { tolerations })])],
      node,
      features: {},
    };
    const result = allocateClaims(request);
    const d = result.results[0].devices;
    (d.results[0].tolerations as Array<{ key?: string }>)[0].key = 'changed';
    (d.config as Array<{ opaque: { parameters: { mode: string } } }>)[0].opaque.parameters.mode = 'changed';
    expect(tolerations[0].key).toBe('maintenance');
    expect(JSON.stringify(request.classes)).toContain('"fast"');
  });

  it('keeps distinctAttribute within one request (two devices of one request never share the value)', () => {
    const devices = [
      { name: 'nic-0', attributes: { numa: { int: 0 } } },
      { name: 'nic-1', attributes: { numa: { int: 0 } } },
      { name: 'nic-2', attributes: { numa: { int: 1 } } },
    ];
    const r = allocateClaims({
      classes: [cls('gpu')],
      slices: [slice('s', { devices })],
      claims: [claim('c', [exactly('r', 2)], [{ distinctAttribute: 'gpu.example.com/numa' }])],
      node,
      features: { consumableCapacity: true },
    });
    expect(picked(r)).toEqual([['nic-0', 'nic-2']]);
    const none = allocateClaims({
      classes: [cls('gpu')],
      slices: [slice('s', { devices: devices.slice(0, 2) })],
      claims: [claim('c', [exactly('r', 2)], [{ distinctAttribute: 'gpu.example.com/numa' }])],
      node,
      features: { consumableCapacity: true },
    });
    expect(none.reason?.code).toBe('UNSCHEDULABLE');
  });

  it('returns counters reserved by a device it then rejects (taint), so the next device fits', () => {
    const counters = [{ name: 'mem', counters: { memory: { value: '8Gi' } } }];
    const uses = [{ counterSet: 'mem', counters: { memory: { value: '8Gi' } } }];
    const r = allocateClaims({
      classes: [cls('gpu')],
      slices: [
        { ...slice('a-counters', { sharedCounters: counters }), spec: { ...slice('x', {}).spec, pool: { name: 'pool-1', generation: 1, resourceSliceCount: 2 }, sharedCounters: counters } },
        {
          ...slice('b-devices', {}),
          spec: {
            ...slice('x', {}).spec,
            pool: { name: 'pool-1', generation: 1, resourceSliceCount: 2 },
            devices: [
              { name: 'whole-tainted', consumesCounters: uses, taints: [{ key: 'broken', effect: 'NoSchedule' }] },
              { name: 'whole', consumesCounters: uses },
            ],
          },
        },
      ],
      claims: [claim('c', [exactly('r', 1)])],
      node,
      features: { partitionableDevices: true, deviceTaints: true },
    });
    expect(picked(r)).toEqual([['whole']]);
  });

  it('restores a list-attribute intersection when it backtracks', () => {
    // d0 ∩ d1 = {b}; d2 shares only "a" with d0: after dropping d1 the intersection must be d0's {a, b} again.
    const devices = [
      { name: 'd0', attributes: { links: { strings: ['a', 'b'] } } },
      { name: 'd1', attributes: { links: { strings: ['b'] } } },
      { name: 'd2', attributes: { links: { strings: ['a'] } } },
      { name: 'd3', attributes: { links: { strings: ['a', 'c'] } } },
    ];
    const r = allocateClaims({
      classes: [cls('gpu')],
      slices: [slice('s', { devices })],
      claims: [claim('c', [exactly('r', 3)], [{ matchAttribute: 'gpu.example.com/links' }])],
      node,
      features: { listTypeAttributes: true },
    });
    expect(picked(r)).toEqual([['d0', 'd2', 'd3']]);
  });

  it('says which request failed and how many devices each filter left', () => {
    const devices = [{ name: 'gpu-0' }, { name: 'gpu-1' }, { name: 'gpu-2' }];
    const r = allocateClaims({
      classes: [cls('gpu')],
      slices: [slice('s', { devices })],
      claims: [claim('c', [exactly('r', 3)])],
      node,
      allocatedDevices: ['gpu.example.com/pool-1/gpu-1'],
      features: {},
    });
    expect(r.results).toEqual([]);
    expect(r.reason?.message).toContain('claim ns/c, request r');
    expect(r.reason?.message).toContain("3 device(s) on node node-1, 3 match the class, 3 the request's selectors, 2 free, 2 untainted, 2 usable");
    // Each device usable alone, but no two share the attribute: the search itself fails.
    const devices2 = [
      { name: 'gpu-0', attributes: { numa: { int: 0 } } },
      { name: 'gpu-1', attributes: { numa: { int: 1 } } },
      { name: 'gpu-2', taints: [{ key: 'k', effect: 'NoExecute' }] },
    ];
    const on = (numa: number) => ({ selectors: [{ cel: { expression: `device.attributes["gpu.example.com"].numa == ${numa}` } }] });
    const c = claim('c', [exactly('a', 1, on(0)), exactly('b', 1, on(1))], [{ matchAttribute: 'gpu.example.com/numa' }]);
    const s = allocateClaims({ classes: [cls('gpu')], slices: [slice('s', { devices: devices2.slice(0, 2) })], claims: [c], node, features: {}, mode: 'first-fit' });
    expect(s.reason?.message).toContain('claim ns/c, request b: cannot be satisfied together with the requests before it');
    expect(s.reason?.message).toContain("1 device(s) of class gpu: 2 device(s) on node node-1, 2 match the class, 1 the request's selectors, 1 free, 1 untainted, 1 usable");
    // The scored mode proves it before searching: no value of the attribute serves both requests.
    const scored = allocateClaims({ classes: [cls('gpu')], slices: [slice('s', { devices: devices2.slice(0, 2) })], claims: [c], node, features: {} });
    expect(scored.reason?.message).toContain('claim ns/c: no single value of gpu.example.com/numa is shared by enough devices');
    const t = allocateClaims({
      classes: [cls('gpu')],
      slices: [slice('s', { devices: [{ name: 'gpu-0' }, devices2[2]] })],
      claims: [claim('c', [exactly('r', 2)])],
      node,
      features: { deviceTaints: true },
    });
    expect(t.reason?.message).toContain("2 device(s) on node node-1, 2 match the class, 2 the request's selectors, 2 free, 1 untainted, 1 usable");
  });

  it('answers an infeasible claim at once where the search is exponential', () => {
    // 28 devices, a request for 14 of them and a second request no device can serve: upstream tries
    // every one of the C(28,14) = 40,116,600 combinations of the first before giving up.
    const devices = Array.from({ length: 28 }, (_, i) => ({ name: `gpu-${i}` }));
    const r = allocateClaims({
      classes: [cls('gpu'), cls('fpga', 'fpga.example.com')],
      slices: [slice('s', { devices })],
      claims: [claim('c', [exactly('many', 14), { name: 'fpga', exactly: { deviceClassName: 'fpga', allocationMode: 'ExactCount', count: 1 } }])],
      node,
      features: {},
    });
    expect(r.reason?.message).toContain('request fpga: not enough devices');
  });

  it('gives share IDs that are UUIDs, the same for the same seed and different for another', () => {
    const request = (seed: number): DraAllocateRequest => ({
      classes: [cls('gpu')],
      slices: [slice('s', { devices: [{ name: 'nic-0', allowMultipleAllocations: true, capacity: { bw: { value: '10G' } } }] })],
      claims: [claim('c', [exactly('a', 1, { capacity: { requests: { bw: '1G' } } }), exactly('b', 1, { capacity: { requests: { bw: '2G' } } })])],
      node,
      features: { consumableCapacity: true },
      seed,
    });
    const ids = (seed: number) => allocateClaims(request(seed)).results[0].devices.results.map((d) => d.shareID);
    const [a, b] = ids(1);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a).not.toBe(b);
    expect(ids(1)).toEqual([a, b]);
    expect(ids(2)).not.toEqual([a, b]);
    expect(allocateClaims(request(1)).results[0].devices.results.map((d) => d.consumedCapacity)).toEqual([{ bw: '1G' }, { bw: '2G' }]);
  });

  it('runs with the default features when none are given, and refuses an unknown key or mode', () => {
    const base = { classes: [cls('gpu')], slices: [slice('s', { devices: [{ name: 'gpu-0' }, { name: 'gpu-1' }] })], node };
    const prioritized = claim('c', [
      {
        name: 'r',
        firstAvailable: [
          { name: 'two', deviceClassName: 'gpu', allocationMode: 'ExactCount', count: 3 },
          { name: 'one', deviceClassName: 'gpu', allocationMode: 'ExactCount', count: 1 },
        ],
      },
    ]);
    expect(allocateClaims({ ...base, claims: [prioritized] }).results[0].devices.results[0].request).toBe('r/one');
    expect(errorOf(() => allocateClaims({ ...base, claims: [prioritized], features: {} })).message).toContain('DRAPrioritizedList feature is disabled');
    // DRAConsumableCapacity is on by default from Kubernetes 1.36: a capacity request is refused only with the feature off.
    const capacity = claim('c', [exactly('r', 1, { capacity: { requests: { memory: '1Gi' } } })]);
    expect(() => allocateClaims({ ...base, claims: [capacity] })).not.toThrow();
    expect(errorOf(() => allocateClaims({ ...base, claims: [capacity], features: { prioritizedList: true } })).message).toContain('DRAConsumableCapacity feature is disabled');
    expect(errorOf(() => allocateClaims({ ...base, claims: [], nodes: [] } as unknown as DraAllocateRequest)).message).toContain('nodes');
    expect(errorOf(() => allocateClaims({ ...base, claims: [], mode: 'best-fit' } as unknown as DraAllocateRequest)).field).toBe('mode');
    expect(errorOf(() => allocateClaims({ ...base, claims: [], budget: 0 })).field).toBe('budget');
  });
});
