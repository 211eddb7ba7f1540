// The DRA cluster handle beyond the scan: one allocator run per pod on a uniform cluster and none
// once it is full (the index filters), partitions of a GPU taken whole are not counted, devices of
// pools several nodes see are one ledger, release gives devices back, the allocated state given at
// creation is respected, and bad input is refused with nothing changed.
import { describe, expect, it } from 'vitest';
import { createDraCluster, type DraClusterInit } from '../../src/dra/index.js';
import { openEngine } from '../../src/engine.js';
import { CLASSES, claimObject, GPU, NIC, V1 } from '../support/dra-clusters.js';
import { errorOf, nodeObject, type Obj, sliceObject } from '../support/dra-objects.js';

const node = (name: string, zone = 'a') => nodeObject(name, { zone });
const gpus = (node: string, n: number, extra: Obj = {}) =>
  sliceObject(`${node}-gpus`, { devices: Array.from({ length: n }, (_, i) => ({ name: `gpu-${i}`, attributes: { type: { string: 'gpu' }, numa: { int: i % 2 } } })), ...extra }, { node });
const want = (name: string, count = 1, cls = 'gpu') => claimObject(name, { devices: { requests: [{ name: 'r', exactly: { deviceClassName: cls, allocationMode: 'ExactCount', count } }] } });
const uniform = (nodes: number, perNode: number): DraClusterInit => ({
  classes: CLASSES,
  slices: Array.from({ length: nodes }, (_, k) => gpus(`node-${k}`, perNode)),
  nodes: Array.from({ length: nodes }, (_, k) => node(`node-${k}`)),
});

describe('DraCluster', () => {
  it("'pack' on a uniform cluster runs the allocator once per pod, and not at all once the cluster is full", () => {
    const c = createDraCluster({ ...uniform(200, 4), nodeScore: 'pack' });
    expect(c.stats()).toMatchObject({ nodes: 200, nodeClasses: 1 });
    for (let i = 0; i < 800; i++) expect(c.schedule(want(`c${i}`)).node).toBe(`node-${i >> 2}`);
    expect(c.stats()).toMatchObject({ tries: 800, claims: 800, shapes: 1 });
    const full = c.schedule(want('late'));
    expect(full.reason?.message).toMatch(/^no node can take claim ns\/late \(needs 1 of class gpu\): 200 of 200 node\(s\) have too few free devices that match$/);
    expect(c.stats().tries).toBe(800);
  });

  it('by default (scored) on a cluster with nothing to fragment runs the allocator once per pod, as pack does, while a claim stays within its roots', () => {
    const c = createDraCluster(uniform(200, 4));
    for (let i = 0; i < 800; i++) expect(c.schedule(want(`c${i}`)).node).toBe(`node-${i >> 2}`);
    expect(c.stats()).toMatchObject({ tries: 800, claims: 800, shapes: 1 });
  });

  it('by default (scored) looks past the most allocated node where a claim would be split across PCIe roots there', () => {
    const rooted = (n: string) =>
      gpus(n, 4, { devices: Array.from({ length: 4 }, (_, i) => ({ name: `gpu-${i}`, attributes: { type: { string: 'gpu' }, 'resource.kubernetes.io/pcieRoot': { string: `pci-${i >> 1}` } } })) });
    // node-0 has one GPU of each root held: a 2-GPU claim there spans both roots; node-1 is empty.
    const init: DraClusterInit = {
      classes: CLASSES,
      slices: [rooted('node-0'), rooted('node-1')],
      nodes: [node('node-0'), node('node-1')],
      allocatedDevices: ['gpu.example.com/node-0/gpu-0', 'gpu.example.com/node-0/gpu-2'],
    };
    const pack = createDraCluster({ ...init, nodeScore: 'pack' });
    expect(pack.schedule(want('pair', 2)).node).toBe('node-0');
    const scored = createDraCluster(init);
    const r = scored.schedule(want('pair', 2));
    expect(r.node).toBe('node-1');
    expect(r.results[0]!.devices.results.map((d) => d.device)).toEqual(['gpu-0', 'gpu-1']);
    expect(scored.stats().tries).toBe(2);
  });

  it("'spread' goes to the least allocated node, 'first' to the first that fits, whatever the load", () => {
    const spread = createDraCluster({ ...uniform(5, 4), nodeScore: 'spread' });
    expect(Array.from({ length: 7 }, (_, i) => spread.schedule(want(`c${i}`)).node)).toEqual(['node-0', 'node-1', 'node-2', 'node-3', 'node-4', 'node-0', 'node-1']);
    const first = createDraCluster({ ...uniform(3, 2), nodeScore: 'first' });
    first.schedule(want('a'));
    first.schedule(want('b'));
    first.release('ns/a');
    // node-0 is half used, node-1 empty: 'first' still picks node-0 (pack would too, spread would not).
    expect(first.schedule(want('c')).node).toBe('node-0');
  });

  it('does not count the partitions of a GPU taken whole: a partition goes to the next node at the first try', () => {
    const partitioned = (n: string) => [
      {
        apiVersion: V1,
        kind: 'ResourceSlice',
        metadata: { name: `${n}-devices` },
        spec: {
          driver: GPU,
          pool: { name: n, generation: 1, resourceSliceCount: 2 },
          nodeName: n,
          devices: [
            { name: 'part-0', attributes: { type: { string: 'part' } }, consumesCounters: [{ counterSet: 'set', counters: { slices: { value: '1' } } }] },
            { name: 'part-1', attributes: { type: { string: 'part' } }, consumesCounters: [{ counterSet: 'set', counters: { slices: { value: '1' } } }] },
            { name: 'gpu', attributes: { type: { string: 'gpu' } }, consumesCounters: [{ counterSet: 'set', counters: { slices: { value: '2' } } }] },
          ],
        },
      },
      {
        apiVersion: V1,
        kind: 'ResourceSlice',
        metadata: { name: `${n}-counters` },
        spec: { driver: GPU, pool: { name: n, generation: 1, resourceSliceCount: 2 }, nodeName: n, sharedCounters: [{ name: 'set', counters: { slices: { value: '2' } } }] },
      },
    ];
    const c = createDraCluster({ classes: CLASSES, slices: [...partitioned('n0'), ...partitioned('n1')], nodes: [node('n0'), node('n1')] });
    expect(c.schedule(want('whole', 1, 'gpu')).node).toBe('n0');
    const tries = c.stats().tries;
    const part = c.schedule(want('part', 1, 'part'));
    expect(part.node).toBe('n1');
    expect(c.stats().tries).toBe(tries + 1);
    // With one partition of n1 taken, the whole GPU of n1 cannot be: nothing fits a second whole GPU.
    expect(c.schedule(want('whole-2', 1, 'gpu')).reason?.code).toBe('UNSCHEDULABLE');
    expect(c.stats().tries).toBe(tries + 1);
  });

  it('keeps one ledger for devices several nodes see: an allNodes NIC taken from one node is gone for the others', () => {
    const fabric = {
      apiVersion: V1,
      kind: 'ResourceSlice',
      metadata: { name: 'fabric' },
      spec: { driver: NIC, pool: { name: 'fabric', generation: 1, resourceSliceCount: 1 }, allNodes: true, devices: [{ name: 'nic-0' }, { name: 'nic-1' }] },
    };
    const c = createDraCluster({ classes: CLASSES, slices: [fabric, gpus('n0', 1), gpus('n1', 1)], nodes: [node('n0'), node('n1')], nodeScore: 'first' });
    const both = (name: string) =>
      claimObject(name, {
        devices: {
          requests: [
            { name: 'gpu', exactly: { deviceClassName: 'gpu', allocationMode: 'ExactCount', count: 1 } },
            { name: 'nic', exactly: { deviceClassName: 'nic', allocationMode: 'ExactCount', count: 1 } },
          ],
        },
      });
    expect(c.schedule(both('a'))).toMatchObject({ node: 'n0', results: [{ devices: { results: [{ device: 'gpu-0' }, { device: 'nic-0' }] } }] });
    expect(c.schedule(both('b'))).toMatchObject({ node: 'n1', results: [{ devices: { results: [{ device: 'gpu-0' }, { device: 'nic-1' }] } }] });
    expect(c.schedule(want('nic', 1, 'nic')).reason?.code).toBe('UNSCHEDULABLE');
    c.release('ns/a');
    expect(c.schedule(want('nic', 1, 'nic'))).toMatchObject({ node: 'n0', results: [{ devices: { results: [{ device: 'nic-0' }] } }] });
  });

  it('release gives the devices back: the same claim is allocated the same way again', () => {
    const c = createDraCluster(uniform(3, 2));
    const first = c.schedule(want('x', 2));
    c.schedule(want('y'));
    const released = c.release(want('x', 2));
    expect(released).toEqual({ claim: 'ns/x', node: first.node, allocation: first.results[0] });
    expect(c.allocated().claims.map((h) => h.claim)).toEqual(['ns/y']);
    // y now sits alone on node-1 (pack): the most allocated node that fits two GPUs is node-0 again.
    expect(c.schedule(want('x', 2))).toEqual(first);
    expect(() => c.release('ns/nope')).toThrow(/release: ResourceClaim\/ns\/nope is not allocated in this cluster/);
  });

  it('respects devices held outside the handle (allocatedDevices) and reports them in allocated()', () => {
    const c = createDraCluster({ ...uniform(2, 2), allocatedDevices: [`${GPU}/node-0/gpu-0`, `${GPU}/node-0/gpu-1`] });
    expect(c.schedule(want('a')).node).toBe('node-1');
    expect(c.allocated().allocatedDevices).toEqual([`${GPU}/node-0/gpu-0`, `${GPU}/node-0/gpu-1`, `${GPU}/node-1/gpu-0`]);
  });

  it('refuses bad claims before trying any node, and changes nothing', () => {
    const c = createDraCluster(uniform(2, 2));
    c.schedule(want('held'));
    const before = c.allocated();
    const tries = c.stats().tries;
    expect(errorOf(() => c.schedule(want('x', 1, 'tpu'))).message).toMatch(/claim ns\/x, request r: could not retrieve device class tpu/);
    const badCel = claimObject('y', {
      devices: { requests: [{ name: 'r', exactly: { deviceClassName: 'gpu', allocationMode: 'ExactCount', count: 1, selectors: [{ cel: { expression: 'nope == 1' } }] } }] },
    });
    const cel = errorOf(() => c.schedule(badCel));
    expect(cel.code).toBe('DRA_REJECTED');
    expect(cel.message).toMatch(/claim ns\/y: selector #0: CEL compile error: .*undeclared reference/s);
    expect(errorOf(() => c.schedule(want('z', 33))).message).toMatch(/exceeds the claim limit of 32/);
    expect(errorOf(() => c.schedule(want('held'))).message).toMatch(/ResourceClaim\/ns\/held: already allocated on node node-0; release it first/);
    expect(errorOf(() => c.schedule([want('d'), want('d')])).message).toMatch(/ResourceClaim\/ns\/d: given twice/);
    expect(errorOf(() => c.schedule([])).message).toMatch(/at least one ResourceClaim/);
    const bad = { ...want('q'), spec: { devices: { requests: [{ name: 'r', exactly: { deviceClassName: 'gpu', count: 'two' } }] } } };
    expect(errorOf(() => c.schedule(bad)).message).toMatch(/^ResourceClaim\/ns\/q: spec\.devices\.requests\[0\]\.exactly\.count: expected an integer/);
    expect(c.allocated()).toEqual(before);
    expect(c.stats().tries).toBe(tries);
  });

  it('refuses a malformed cluster: unknown keys, a node given twice, an unknown node score, a bad slice', () => {
    const init = uniform(2, 1);
    expect(errorOf(() => createDraCluster({ ...init, nodez: [] } as unknown as DraClusterInit)).message).toMatch(/nodez/);
    expect(errorOf(() => createDraCluster({ ...init, nodes: [node('a'), node('a')] })).message).toMatch(/Node\/a: metadata\.name: expected a name no other node has/);
    expect(errorOf(() => createDraCluster({ ...init, nodeScore: 'best' as 'pack' })).message).toMatch(/nodeScore: expected 'pack', 'spread', 'first', 'fragmentation', got "best"/);
    const slice = gpus('node-0', 1);
    (slice.spec.devices as Obj[])[0].capacity = { memory: { value: '12XiB' } };
    expect(errorOf(() => createDraCluster({ ...init, slices: [slice] })).message).toMatch(/^ResourceSlice\/node-0-gpus: spec\.devices\[0\]\.capacity\.memory\.value: expected a quantity/);
  });

  it('is the engine method createDraCluster on both backends, and never modifies its input', async () => {
    const freeze = <T>(v: T): T => {
      if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
        Object.freeze(v);
        for (const x of Object.values(v)) freeze(x);
      }
      return v;
    };
    const init = freeze(uniform(3, 2));
    const claim = freeze(want('a', 2));
    const answers = [];
    for (const backend of ['wasm', 'ts'] as const) {
      const engine = await openEngine({ backend });
      const c = engine.createDraCluster(init);
      answers.push(c.schedule(claim));
    }
    expect(answers[0]).toEqual(answers[1]);
    expect(answers[0]).toMatchObject({ node: 'node-0', results: [{ devices: { results: [{ device: 'gpu-0' }, { device: 'gpu-1' }] } }] });
  });
});
