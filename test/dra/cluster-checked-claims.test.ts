// A pod's claims are checked once and their models serve every node tried, each node's devices are
// listed once, and a capacity fit on a device that takes one allocation is answered from the node
// class: what the handle then allocates is what allocateClaims allocates on that node, in both
// modes, for `All` requests (whose devices depend on the node) and for capacity requests too.
import { describe, expect, it } from 'vitest';
import { allocateClaims, createDraCluster, DEFAULT_DRA_FEATURES, DRA_MODES, type DraClusterInit, readDeviceClasses, readResourceClaims, readResourceSlices } from '../../src/dra/index.js';
import { AllocationModel, addCheckedClaims, addClaims, claimsNodeIndependent, gatherPools, listCandidates } from '../../src/dra/testing.js';
import { CLASSES, claimObject } from '../support/dra-clusters.js';
import { nodeObject, type Obj, sliceObject } from '../support/dra-objects.js';

// GPUs of 1Gi and 2Gi in turn (gpu-0 1Gi, gpu-1 2Gi, …).
const gpus = (node: string, n: number) =>
  sliceObject(
    `${node}-gpus`,
    { devices: Array.from({ length: n }, (_, i) => ({ name: `gpu-${i}`, attributes: { type: { string: 'gpu' } }, capacity: { memory: { value: i % 2 === 0 ? '1Gi' : '2Gi' } } })) },
    { node },
  );
// Nodes of 4, 2 and 3 GPUs: three classes; node-0 is the most devices, node-1 the fewest.
const init = (mode: (typeof DRA_MODES)[number]): DraClusterInit => ({
  classes: CLASSES,
  slices: [gpus('node-0', 4), gpus('node-1', 2), gpus('node-2', 3)],
  nodes: ['node-0', 'node-1', 'node-2'].map((n) => nodeObject(n)),
  mode,
  nodeScore: 'first',
});
const request = (exactly: Obj) => ({ name: 'r', exactly: { deviceClassName: 'gpu', ...exactly } });
const all = (name: string) => claimObject(name, { devices: { requests: [request({ allocationMode: 'All' })] } });
const withMemory = (name: string, memory: string, count = 1) => claimObject(name, { devices: { requests: [request({ allocationMode: 'ExactCount', count, capacity: { requests: { memory } } })] } });

describe('claims checked once for every node', () => {
  for (const mode of DRA_MODES) {
    it(`${mode}: an All request gets every device of the node it lands on, as allocateClaims gives them`, () => {
      const cluster = createDraCluster(init(mode));
      const placed = cluster.schedule(all('everything'));
      expect(placed.node).toBe('node-0');
      const devices = placed.results[0]?.devices.results.map((r) => r.device);
      expect(devices).toEqual(['gpu-0', 'gpu-1', 'gpu-2', 'gpu-3']);
      const alone = allocateClaims({ classes: CLASSES, slices: [gpus('node-0', 4)], claims: [all('everything')], node: nodeObject('node-0'), mode });
      expect(placed.results).toEqual(alone.results);
      // node-0 is full now: the next All claim goes to node-1 and gets its two devices, not node-0's four.
      const next = cluster.schedule(all('second'));
      expect(next.node).toBe('node-1');
      expect(next.results[0]?.devices.results.map((r) => r.device)).toEqual(['gpu-0', 'gpu-1']);
    });

    it(`${mode}: capacity requests take only devices they fit, each amount answered on its own`, () => {
      const cluster = createDraCluster(init(mode));
      expect(cluster.schedule(withMemory('too-big', '3Gi')).reason?.code).toBe('UNSCHEDULABLE');
      expect(cluster.stats().claims).toBe(0);
      // 1Gi fits every device; then 2Gi, on the same node, fits only the 2Gi ones (never the answer kept for 1Gi).
      const small = cluster.schedule(withMemory('small', '1Gi'));
      expect(small.results[0]?.devices.results.map((r) => r.device)).toEqual(['gpu-0']);
      cluster.release('ns/small');
      const large = cluster.schedule(withMemory('large', '2Gi', 2));
      expect(large.node).toBe('node-0');
      expect(large.results[0]?.devices.results.map((r) => r.device)).toEqual(['gpu-1', 'gpu-3']);
      const alone = allocateClaims({ classes: CLASSES, slices: [gpus('node-0', 4)], claims: [withMemory('large', '2Gi', 2)], node: nodeObject('node-0'), mode });
      expect(large.results).toEqual(alone.results);
    });
  }
});

describe('addCheckedClaims', () => {
  const features = DEFAULT_DRA_FEATURES;
  const classes = readDeviceClasses(CLASSES);
  const probe = (claims: Obj[]) => {
    const model = new AllocationModel({ name: '', labels: {} }, features, [], { devices: new Set(), sharedDeviceIds: new Set(), capacity: new Map() });
    addClaims(model, readResourceClaims(claims), classes);
    return model.claims;
  };

  it('adds the checked claims to a node model as they are, over the devices listCandidates gives', () => {
    const checked = probe([withMemory('a', '1Gi', 2)]);
    expect(claimsNodeIndependent(checked)).toBe(true);
    const node = { name: 'node-0', labels: {} };
    const pools = gatherPools(readResourceSlices([gpus('node-0', 4)]), node, features);
    const model = new AllocationModel(node, features, pools, { devices: new Set(), sharedDeviceIds: new Set(), capacity: new Map() }, undefined, listCandidates(pools, features));
    addCheckedClaims(model, checked);
    expect(model.claims).toEqual(checked);
    expect(model.candidates.map((c) => c.id)).toEqual(['gpu.example.com/node-0/gpu-0', 'gpu.example.com/node-0/gpu-1', 'gpu.example.com/node-0/gpu-2', 'gpu.example.com/node-0/gpu-3']);
  });

  it('refuses claims with an All request (their devices depend on the node)', () => {
    const checked = probe([all('x')]);
    expect(claimsNodeIndependent(checked)).toBe(false);
    const model = new AllocationModel({ name: 'n', labels: {} }, features, [], { devices: new Set(), sharedDeviceIds: new Set(), capacity: new Map() });
    expect(() => addCheckedClaims(model, checked)).toThrow(/request for all devices/);
    expect(model.claims).toEqual([]);
  });
});

describe('a node search passes over a class whose members are all in states met already', () => {
  const uniform = (nodes: number, nodeScore: 'pack' | 'fragmentation'): DraClusterInit => ({
    classes: CLASSES,
    slices: Array.from({ length: nodes }, (_, k) => gpus(`node-${k}`, 4)),
    nodes: Array.from({ length: nodes }, (_, k) => nodeObject(`node-${k}`)),
    mode: 'scored',
    nodeScore,
  });
  // Two devices with the same memory: no node has them (memory alternates 1Gi, 2Gi), so every node fails in the allocator, not in the index's counts.
  const sameMemory = (name: string) =>
    claimObject(name, { devices: { requests: [request({ allocationMode: 'ExactCount', count: 3 })], constraints: [{ matchAttribute: `${'gpu.example.com'}/memoryClass` }] } });

  it('one allocator run for 300 identical nodes that all refuse, the others counted as in the same state', () => {
    const slices = Array.from({ length: 300 }, (_, k) =>
      sliceObject(
        `node-${k}-gpus`,
        { devices: Array.from({ length: 4 }, (_, i) => ({ name: `gpu-${i}`, attributes: { type: { string: 'gpu' }, memoryClass: { int: i % 2 } } })) },
        { node: `node-${k}` },
      ),
    );
    const cluster = createDraCluster({ classes: CLASSES, slices, nodes: Array.from({ length: 300 }, (_, k) => nodeObject(`node-${k}`)), mode: 'scored' });
    const refused = cluster.schedule(sameMemory('three-alike'));
    expect(refused.reason?.message).toMatch(/: 0 of 300 node\(s\) have too few free devices that match; tried 1 \(and 299 in the same state as one of them\): node-0: /);
    expect(cluster.stats().tries).toBe(1);
    // One node in another state (one device held) is still tried.
    cluster.schedule(claimObject('one', { devices: { requests: [request({ allocationMode: 'ExactCount', count: 1 })] } }));
    const again = cluster.schedule(sameMemory('three-alike-again'));
    expect(again.reason?.message).toMatch(/tried 2 \(and 298 in the same state as one of them\)/);
    expect(cluster.stats().tries).toBe(1 + 1 + 2);
  });

  it('passes over nodes whose free devices cannot pass the counts as well: a full node does not keep the class open', () => {
    const slices = Array.from({ length: 300 }, (_, k) =>
      sliceObject(
        `node-${k}-gpus`,
        { devices: Array.from({ length: 4 }, (_, i) => ({ name: `gpu-${i}`, attributes: { type: { string: 'gpu' }, memoryClass: { int: i % 2 } } })) },
        { node: `node-${k}` },
      ),
    );
    const held = [0, 1, 2, 3].map((i) => `gpu.example.com/node-0/gpu-${i}`).concat('gpu.example.com/node-1/gpu-0');
    for (const nodeScore of ['pack', 'fragmentation'] as const) {
      const cluster = createDraCluster({ classes: CLASSES, slices, nodes: Array.from({ length: 300 }, (_, k) => nodeObject(`node-${k}`)), mode: 'scored', nodeScore, allocatedDevices: held });
      const refused = cluster.schedule(sameMemory('three-alike'));
      // node-0 is full (the counts), node-1 and an empty node are tried, the next empty node is in a state met: the rest are passed over at once.
      expect(refused.reason?.message).toMatch(/: 1 of 300 node\(s\) have too few free devices that match; tried 2 \(and 297 in the same state as one of them\): node-1: /);
      expect(cluster.stats()).toMatchObject({ tries: 2, steps: 3 });
    }
  });

  it("nodeScore 'fragmentation' on identical nodes: one allocator run, the first node, as on a small cluster", () => {
    const big = createDraCluster(uniform(2000, 'fragmentation'));
    const small = createDraCluster(uniform(2, 'fragmentation'));
    for (let i = 0; i < 5; i++) {
      const claim = withMemory(`c${i}`, '1Gi');
      const a = big.schedule(claim);
      const b = small.schedule(claim);
      expect(a.node).toBe(b.node);
      expect(a.results).toEqual(b.results);
    }
    expect(big.stats().tries).toBe(small.stats().tries);
  });
});
