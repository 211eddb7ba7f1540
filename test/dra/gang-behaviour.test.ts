// Gangs on the DRA cluster: every pod placed (or at least minCount) with each pod's claims on one
// node, one domain of the required label, fewest domains of the preferred labels; symmetric nodes
// tried once; a counted check refuses without search; a step budget; a gang that fails, and bad
// input, leave the cluster exactly as it was.
import { describe, expect, it } from 'vitest';
import { createDraCluster, type DraCluster } from '../../src/dra/index.js';
import { AllocationError } from '../../src/shared/errors.js';
import { CLASSES, claimObject, GPU, V1 } from '../support/dra-clusters.js';

const CLIQUE = 'nvidia.com/gpu.clique';
const node = (name: string, labels: Record<string, string>) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels } });
const gpus = (node: string, n: number) => ({
  apiVersion: V1,
  kind: 'ResourceSlice',
  metadata: { name: `${node}-gpus` },
  spec: {
    driver: GPU,
    pool: { name: node, generation: 1, resourceSliceCount: 1 },
    nodeName: node,
    devices: Array.from({ length: n }, (_, i) => ({ name: `gpu-${i}`, attributes: { type: { string: 'gpu' } } })),
  },
});
const want = (name: string, count = 1) => claimObject(name, { devices: { requests: [{ name: 'r', exactly: { deviceClassName: 'gpu', allocationMode: 'ExactCount', count } }] } });
/** Pod p of a gang: one claim of `count` GPUs. */
const pods = (gang: string, n: number, count: number) => Array.from({ length: n }, (_, p) => [want(`${gang}-${p}`, count)]);

/** Nodes with GPUs and labels. */
function clusterOf(spec: Array<{ gpus: number; labels?: Record<string, string> }>): DraCluster {
  return createDraCluster({
    classes: CLASSES,
    slices: spec.map((s, k) => gpus(`n${k}`, s.gpus)),
    nodes: spec.map((s, k) => node(`n${k}`, s.labels ?? {})),
  });
}

function errorOf(fn: () => unknown): AllocationError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AllocationError);
    return error as AllocationError;
  }
  throw new Error('expected an AllocationError');
}

describe('DraCluster.scheduleGroup', () => {
  it('places every pod, each pod on one node, and keeps the allocation', () => {
    const c = clusterOf([{ gpus: 4 }, { gpus: 4 }, { gpus: 4 }]);
    const r = c.scheduleGroup({ pods: pods('g', 3, 4) });
    expect(r.reason).toBeUndefined();
    expect(r.placements.map((p) => p.pod)).toEqual([0, 1, 2]);
    expect(new Set(r.placements.map((p) => p.node)).size).toBe(3);
    for (const p of r.placements) for (const res of p.results) for (const d of res.devices.results) expect(d.pool).toBe(p.node);
    expect(
      c
        .allocated()
        .claims.map((h) => h.claim)
        .sort(),
    ).toEqual(['ns/g-0', 'ns/g-1', 'ns/g-2']);
    expect(c.allocated().allocatedDevices).toHaveLength(12);
  });

  it('backtracks: a greedy first choice that blocks a later pod is undone', () => {
    // Pod 0 needs 2, pod 1 needs 4: pod 0 must not take the 4-GPU node although it comes first.
    const c = clusterOf([{ gpus: 4 }, { gpus: 2 }]);
    const r = c.scheduleGroup({ pods: [[want('a', 2)], [want('b', 4)]] });
    expect(r.reason).toBeUndefined();
    expect(r.placements.map((p) => p.node)).toEqual(['n1', 'n0']);
    // Each pod's claims on one node, several claims per pod.
    const c2 = clusterOf([{ gpus: 3 }, { gpus: 3 }]);
    const r2 = c2.scheduleGroup({ pods: [[want('x', 2), want('y', 1)], [want('z', 3)]] });
    expect(r2.placements.map((p) => [p.pod, p.node])).toEqual([
      [0, 'n0'],
      [1, 'n1'],
    ]);
    expect(r2.placements[0].results).toHaveLength(2);
  });

  it('refuses a gang that does not fit, all or nothing, leaving the cluster exactly as it was', () => {
    const c = clusterOf([{ gpus: 4 }, { gpus: 4 }, { gpus: 2 }]);
    expect(c.schedule([want('before', 1)]).node).toBe('n0');
    const before = c.allocated();
    // 4 + 4 + 1 = 9 free devices and room for 9 one-device pods pass the counted check, but only n1
    // has 4 free: searched and refused.
    const r = c.scheduleGroup({ pods: [[want('a', 4)], [want('b', 4)], [want('c', 1)]] });
    expect(r.placements).toEqual([]);
    expect(r.reason?.code).toBe('UNSCHEDULABLE');
    expect(r.reason?.message).toMatch(/no placement of 3 of 3 pod/);
    expect(c.allocated()).toEqual(before);
  });

  it('says a gang larger than the cluster is, without running the allocator', () => {
    const c = clusterOf([{ gpus: 8 }, { gpus: 8 }]);
    const tries = c.stats().tries;
    const r = c.scheduleGroup({ pods: pods('big', 3, 8) });
    expect(r.placements).toEqual([]);
    expect(r.reason?.message).toMatch(/larger than the cluster: 3 pod\(s\) need at least 24 device\(s\).*16 free/);
    expect(c.stats().tries).toBe(tries);
    expect(c.allocated().claims).toEqual([]);
  });

  it('minCount: places as many pods as fit, at least minCount, and refuses below it', () => {
    const c = clusterOf([{ gpus: 8 }, { gpus: 8 }]);
    const r = c.scheduleGroup({ pods: pods('g', 3, 8), minCount: 2 });
    expect(r.reason).toBeUndefined();
    expect(r.placements.map((p) => p.pod)).toEqual([0, 1]);
    const c2 = clusterOf([{ gpus: 8 }, { gpus: 8 }]);
    const r2 = c2.scheduleGroup({ pods: [[want('a', 8)], [want('b', 16)], [want('c', 8)]], minCount: 2 });
    expect(r2.placements.map((p) => p.pod)).toEqual([0, 2]);
    const r3 = clusterOf([{ gpus: 8 }]).scheduleGroup({ pods: pods('g', 3, 8), minCount: 2 });
    expect(r3.placements).toEqual([]);
    expect(r3.reason?.message).toMatch(/larger than the cluster: 2 pod/);
  });

  it('topology.required: every pod in one domain; the counted check refuses small domains without search', () => {
    const spec: Array<{ gpus: number; labels: Record<string, string> }> = [
      { gpus: 8, labels: { [CLIQUE]: 'c1' } },
      { gpus: 8, labels: { [CLIQUE]: 'c2' } },
      { gpus: 8, labels: { [CLIQUE]: 'c2' } },
      { gpus: 8, labels: {} },
    ];
    const c = clusterOf(spec);
    const r = c.scheduleGroup({ pods: pods('g', 2, 8), topology: { required: CLIQUE } });
    expect(r.placements.map((p) => p.node)).toEqual(['n1', 'n2']);
    // Three pods: the whole cluster has room (4 nodes) but no clique does, and no allocator runs.
    const c2 = clusterOf(spec);
    const r2 = c2.scheduleGroup({ pods: pods('h', 3, 8), topology: { required: CLIQUE } });
    expect(r2.placements).toEqual([]);
    expect(r2.reason?.message).toMatch(/in any of 2 domain\(s\) of "nvidia.com\/gpu.clique"; refused without search: nvidia.com\/gpu.clique=c1: .*; nvidia.com\/gpu.clique=c2: /);
    expect(c2.stats().tries).toBe(0);
    // Without the constraint the same gang fits.
    expect(clusterOf(spec).scheduleGroup({ pods: pods('h', 3, 8) }).placements).toHaveLength(3);
  });

  it('topology.required: a label no node has is a reason naming it', () => {
    const c = clusterOf([{ gpus: 8, labels: { rack: 'r1' } }]);
    const r = c.scheduleGroup({ pods: pods('g', 1, 1), topology: { required: 'rak' } });
    expect(r.placements).toEqual([]);
    expect(r.reason?.message).toBe('no node has the label "rak" (topology.required)');
  });

  it('topology.preferred: as few domains as possible, keys in order', () => {
    // Racks r1 (n0, n1: 4 GPUs each) and r2 (n2, n3: 8 each). Two pods of 4: both fit in r1 or in r2.
    const spec = [
      { gpus: 4, labels: { rack: 'r1', zone: 'z1' } },
      { gpus: 8, labels: { rack: 'r2', zone: 'z1' } },
      { gpus: 4, labels: { rack: 'r1', zone: 'z1' } },
      { gpus: 8, labels: { rack: 'r3', zone: 'z2' } },
    ];
    const r = clusterOf(spec).scheduleGroup({ pods: pods('g', 2, 4), topology: { preferred: ['rack'] } });
    // One rack: n1 alone (8 GPUs), found before n0 + n2.
    expect(new Set(r.placements.map((p) => spec[Number(p.node.slice(1))].labels.rack)).size).toBe(1);
    // Three pods of 8: no rack holds them all; the fewest zones is one (z1 cannot: 4+8+4 holds only one 8).
    const r2 = clusterOf(spec).scheduleGroup({ pods: [[want('a', 4)], [want('b', 4)], [want('c', 8)]], topology: { preferred: ['zone', 'rack'] } });
    expect(r2.reason).toBeUndefined();
    const zones = new Set(r2.placements.map((p) => spec[Number(p.node.slice(1))].labels.zone));
    const racks = new Set(r2.placements.map((p) => spec[Number(p.node.slice(1))].labels.rack));
    expect(zones.size).toBe(1);
    expect(racks.size).toBe(2);
  });

  it('identical nodes with different preferred labels are not interchangeable', () => {
    // n0 in r1, n1 and n2 in r2, all alike: the gang of two whole nodes goes to r2 alone.
    const spec = [
      { gpus: 4, labels: { rack: 'r1' } },
      { gpus: 4, labels: { rack: 'r2' } },
      { gpus: 4, labels: { rack: 'r2' } },
    ];
    const r = clusterOf(spec).scheduleGroup({ pods: pods('g', 2, 4), topology: { preferred: ['rack'] } });
    expect(r.placements.map((p) => p.node)).toEqual(['n1', 'n2']);
  });

  it('tries identical nodes once per pod: few allocator runs on identical nodes', () => {
    // Each node has 4 GPUs; pods need 3 and 2: pod 1 can never share a node with pod 0, a second 3 never fits beside it.
    const c = clusterOf(Array.from({ length: 50 }, () => ({ gpus: 4 })));
    const r = c.scheduleGroup({ pods: [[want('a', 3)], [want('b', 3)]] });
    expect(r.placements).toHaveLength(2);
    expect(c.stats().tries).toBeLessThanOrEqual(2);
    // Five pods of 3 and two of 2 on five 4-GPU nodes: 19 of 20 GPUs, so the count passes, but the
    // 3s leave one GPU per node. Free nodes are one state, so the refusal costs few runs, not 5^7.
    const c2 = clusterOf(Array.from({ length: 5 }, () => ({ gpus: 4 })));
    const r2 = c2.scheduleGroup({ pods: [[want('x', 2)], [want('y', 2)], [want('z', 3)], [want('w', 3)], [want('v', 3)], [want('u', 3)], [want('t', 3)]] });
    expect(r2.placements).toEqual([]);
    expect(c2.stats().tries).toBeLessThan(100);
    expect(c2.allocated().claims).toEqual([]);
  });

  it('tries pods with identical claims in one order: a symmetric choice is tried once', () => {
    // Nodes of 5, 6, 9 and 10 GPUs (four node classes) have room for six 4-GPU pods, and the 3-GPU
    // pod takes one of those places: infeasible, though the counts pass (27 of 30 GPUs; 9 pods of
    // 3 GPUs by node). Six identical pods on distinct nodes: every order of them is the same choice,
    // so the refusal costs tens of allocator runs (over 500 when each order is tried).
    const c = clusterOf([{ gpus: 5 }, { gpus: 6 }, { gpus: 9 }, { gpus: 10 }]);
    const r = c.scheduleGroup({ pods: [...pods('f', 6, 4), [want('t', 3)]] });
    expect(r.placements).toEqual([]);
    expect(r.reason?.message).toBe('no placement of 7 of 7 pod(s) on 4 node(s)');
    expect(c.stats().tries).toBeLessThanOrEqual(60);
    expect(c.allocated().claims).toEqual([]);
    // The same pods place when the 3-GPU pod has room of its own (an 11th GPU on the 10-GPU node
    // makes it 11: two 4s and the 3), and the placement lists the pods in pod order.
    const c2 = clusterOf([{ gpus: 5 }, { gpus: 6 }, { gpus: 9 }, { gpus: 11 }]);
    const r2 = c2.scheduleGroup({ pods: [[want('t', 3)], ...pods('f', 6, 4)] });
    expect(r2.placements.map((p) => p.pod)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(r2.placements[0].node).toBe('n3');
  });

  it('the per-node count refuses pods too big for any node without search', () => {
    // 16 free GPUs in all, but no node has 5 free: two 5-GPU pods are refused without an allocator run.
    const c = clusterOf([{ gpus: 4 }, { gpus: 4 }, { gpus: 4 }, { gpus: 4 }]);
    const r = c.scheduleGroup({ pods: pods('g', 2, 5) });
    expect(r.reason?.message).toMatch(/larger than the cluster: 2 pod\(s\) each need at least 5 device\(s\) of one request shape on one node; 4 node\(s\) have room for 0/);
    expect(c.stats().tries).toBe(0);
  });

  it('a step budget returns the best placement found and says so', () => {
    const spec = Array.from({ length: 6 }, (_, k) => ({ gpus: 4, labels: { rack: `r${k}` } }));
    const c = clusterOf(spec);
    const r = c.scheduleGroup({ pods: pods('g', 3, 4), minCount: 1, budget: 2, topology: { preferred: ['rack'] } });
    expect(r.budgetExhausted).toBe(true);
    expect(r.placements.map((p) => [p.pod, p.node])).toEqual([
      [0, 'n0'],
      [1, 'n1'],
    ]);
    expect(c.allocated().claims).toHaveLength(r.placements.length);
    // No placement within the budget: a reason, nothing kept.
    const c2 = clusterOf([{ gpus: 2 }, { gpus: 2 }, { gpus: 4 }]);
    const r2 = c2.scheduleGroup({ pods: [[want('a', 2)], [want('b', 4)]], budget: 1 });
    expect(r2).toMatchObject({ placements: [], budgetExhausted: true });
    expect(r2.reason?.message).toMatch(/step budget of 1/);
    expect(c2.allocated().claims).toEqual([]);
  });

  it('refuses bad input with an error naming it, changing nothing', () => {
    const c = clusterOf([{ gpus: 8 }, { gpus: 8 }]);
    c.schedule([want('held', 1)]);
    const before = c.allocated();
    const twice = [want('a', 1)];
    expect(errorOf(() => c.scheduleGroup({ pods: [twice, [want('b', 1)], twice] })).message).toMatch(/ns\/a: listed in pods\[0\] and again in pods\[2\]/);
    expect(errorOf(() => c.scheduleGroup({ pods: pods('g', 2, 1), minCount: 3 })).message).toMatch(/minCount.*\[1, 2\].*got 3/);
    expect(errorOf(() => c.scheduleGroup({ pods: pods('g', 2, 1), minCount: 0 })).message).toMatch(/minCount.*got 0/);
    expect(errorOf(() => c.scheduleGroup({ pods: pods('g', 2, 1), minCont: 1 } as never)).message).toMatch(/minCont.*did you mean minCount/);
    expect(errorOf(() => c.scheduleGroup({ pods: pods('g', 2, 1), topology: { requird: 'x' } } as never)).message).toMatch(/topology.requird.*did you mean required/);
    expect(errorOf(() => c.scheduleGroup({ pods: pods('g', 2, 1), topology: { preferred: ['a', 'a'] } })).message).toMatch(/topology.preferred\[1\]/);
    expect(errorOf(() => c.scheduleGroup({ pods: [] })).message).toMatch(/pods/);
    expect(errorOf(() => c.scheduleGroup({ pods: [[]] })).message).toMatch(/pods\[0\]/);
    expect(errorOf(() => c.scheduleGroup({ pods: [[want('held', 1)]] })).message).toMatch(/ns\/held: already allocated/);
    expect(errorOf(() => c.scheduleGroup({ pods: pods('g', 1, 1), budget: 0 })).message).toMatch(/budget/);
    expect(c.allocated()).toEqual(before);
  });

  it('gives back every pod placed during the search when the allocator throws', () => {
    const c = clusterOf([{ gpus: 4 }, { gpus: 4 }]);
    const unknownClass = claimObject('bad', { devices: { requests: [{ name: 'r', exactly: { deviceClassName: 'nope', allocationMode: 'ExactCount', count: 1 } }] } });
    errorOf(() => c.scheduleGroup({ pods: [[want('a', 1)], [unknownClass]] }));
    expect(c.allocated().claims).toEqual([]);
  });
});
