// DraCluster.scheduleGroup with the handle's `explain` (scored mode): each placement carries the
// terms of its pod's allocation beside first-fit's on the node the search gave it, with first-fit's
// devices on that node; nothing without `explain`, and nothing on a gang that is not placed.
import { describe, expect, it } from 'vitest';
import { createDraCluster } from '../../src/dra/index.js';
import { CLASSES, claimObject, GPU, V1 } from '../support/dra-clusters.js';

const node = (name: string) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: {} } });
// GPUs on two NUMA nodes: a pair across them costs topology, so the scored search keeps a pair together.
const gpus = (node: string) => ({
  apiVersion: V1,
  kind: 'ResourceSlice',
  metadata: { name: `${node}-gpus` },
  spec: {
    driver: GPU,
    pool: { name: node, generation: 1, resourceSliceCount: 1 },
    nodeName: node,
    devices: Array.from({ length: 4 }, (_, i) => ({ name: `gpu-${i}`, attributes: { type: { string: 'gpu' }, 'resource.kubernetes.io/numaNode': { int: i === 0 ? 0 : 1 } } })),
  },
});
const pair = (name: string) => claimObject(name, { devices: { requests: [{ name: 'r', exactly: { deviceClassName: 'gpu', allocationMode: 'ExactCount', count: 2 } }] } });
const clusterOf = (explain: boolean) => createDraCluster({ classes: CLASSES, slices: [gpus('n0'), gpus('n1')], nodes: [node('n0'), node('n1')], ...(explain ? { explain } : {}) });

describe('scheduleGroup explains each placement', () => {
  it('gives each placed pod its terms beside first-fit on its own node', () => {
    const r = clusterOf(true).scheduleGroup({ pods: [[pair('a')], [pair('b')]] });
    expect(r.reason).toBeUndefined();
    expect(r.placements).toHaveLength(2);
    for (const p of r.placements) {
      expect(p.explain, p.node).toBeDefined();
      for (const id of p.explain!.firstFit.devices.flat()) expect(id.split('/')[1]).toBe(p.node);
      // The pod's chosen devices are never worse than first-fit's (gpu-0 and gpu-1 straddle NUMA nodes).
      expect(p.explain!.comparison).toBeLessThanOrEqual(0);
      expect(p.explain!.chosen.topology).toBeLessThanOrEqual(p.explain!.firstFit.objective.topology);
    }
    // On an empty node first-fit takes gpu-0 and gpu-1 across NUMA nodes; the scored search does not.
    const first = r.placements[0]!;
    expect(first.explain!.firstFit.devices).toEqual([[`${GPU}/${first.node}/gpu-0`, `${GPU}/${first.node}/gpu-1`]]);
    expect(first.explain!.comparison).toBe(-1);
    expect(first.results[0]!.devices.results.map((d) => d.device)).not.toContain('gpu-0');
  });

  it('has no explain without the option, nor on a gang not placed', () => {
    expect(clusterOf(false).scheduleGroup({ pods: [[pair('a')]] }).placements[0]!.explain).toBeUndefined();
    const none = clusterOf(true).scheduleGroup({ pods: [[pair('a')], [pair('b')], [pair('c')], [pair('d')], [pair('e')]] });
    expect(none.reason).toBeDefined();
    expect(none.placements).toEqual([]);
  });
});
