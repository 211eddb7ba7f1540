// What the look-ahead counts a claim as worth: on NVIDIA's DynamicMIG GPUs the compute slices of its
// MIG profile (the `<n>g` of the `profile` attribute the driver publishes) over the GPU's seven, what
// a GPU's compute is split by; elsewhere (a driver that publishes no compute slices) the share of
// its parent's counters. One H100 as NVIDIA's driver publishes it, and the same devices under
// another driver name, where the objective reads no compute slices.
import { describe, expect, it } from 'vitest';
import { buildFleet, dynamicMigNode, H100_80GB, HGX_H100_LAYOUT, NVIDIA_CLASSES, shapeClaim, shapeMix } from '../../bench/dra-fleets/index.js';
import { createDraCluster, DEFAULT_DRA_FEATURES, readNodes, readResourceSlices } from '../../src/dra/index.js';
import { AllocationModel, gatherPools, TopologySetup } from '../../src/dra/testing.js';

const layout = { ...HGX_H100_LAYOUT, gpuBus: HGX_H100_LAYOUT.gpuBus.slice(0, 1), gpuRoot: HGX_H100_LAYOUT.gpuRoot.slice(0, 1), gpuNuma: HGX_H100_LAYOUT.gpuNuma.slice(0, 1) };
const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', labels: {} } };
const nvidia = dynamicMigNode('node-1', H100_80GB, layout);
/** The same objects under a driver whose `profile` attribute the objective does not read. */
const renamed = <T>(x: T): T => JSON.parse(JSON.stringify(x).replaceAll('gpu.nvidia.com', 'gpu.example.com')) as T;
// The benchmark's DynamicMIG mix (MIG profiles and whole GPUs; the GPU + NIC pair left out: no NIC here).
const mix = shapeMix(buildFleet('h100-dynamic-mig')).filter((m) => m.shape !== 'pair');
const workload = mix.map((m, i) => ({ claim: shapeClaim(`w-${i}`, m.shape).claim, weight: m.weight }));

function worthByDevice(slices: unknown[]): Map<string, number> {
  const features = { ...DEFAULT_DRA_FEATURES, partitionableDevices: true };
  const n = readNodes(node)[0]!;
  const model = new AllocationModel(n, features, gatherPools(readResourceSlices(slices), n, features), { devices: new Set(), sharedDeviceIds: new Set(), capacity: new Map() });
  const setup = new TopologySetup(model);
  return new Map(model.candidates.map((c) => [c.device.name, setup.layout.worth[c.index]!]));
}

function place(slices: unknown[], rename: boolean, shapes: string[]): string[] {
  const cluster = createDraCluster({
    classes: rename ? renamed(NVIDIA_CLASSES) : NVIDIA_CLASSES,
    slices,
    nodes: [node],
    mode: 'scored',
    workload: rename ? renamed(workload) : workload,
  });
  return shapes.map((s, i) => {
    const claim = shapeClaim(`c-${i}`, s).claim;
    const r = cluster.schedule(rename ? renamed(claim) : claim);
    return r.node === undefined ? '-' : r.results[0]!.devices.results.map((d) => d.device).join(',');
  });
}

describe("a claim's worth in the look-ahead", () => {
  it("is a MIG profile's compute slices over the GPU's seven where NVIDIA's driver publishes them, else the counters' share", () => {
    const byProfile = worthByDevice(nvidia);
    expect(byProfile.get('gpu-0-mig-1g10gb-19-0')).toBeCloseTo(1000 / 7, 9);
    expect(byProfile.get('gpu-0-mig-1g20gb-15-2')).toBeCloseTo(1000 / 7, 9);
    expect(byProfile.get('gpu-0-mig-2g20gb-14-4')).toBeCloseTo(2000 / 7, 9);
    expect(byProfile.get('gpu-0-mig-3g40gb-9-4')).toBeCloseTo(3000 / 7, 9);
    expect(byProfile.get('gpu-0-mig-4g40gb-5-0')).toBeCloseTo(4000 / 7, 9);
    expect(byProfile.get('gpu-0-mig-7g80gb-0-0')).toBeCloseTo(1000, 9);
    // The whole GPU publishes no profile: its share of the counters, all of them.
    expect(byProfile.get('gpu-0')).toBeCloseTo(1000, 9);
    // Another driver: the mean over the 14 counters with a positive total (encoders is 0) of the
    // part consumed: a 1g.10gb takes 16/132 multiprocessors, 1/8 copy engines, 1/7 decoders and
    // JPEG engines, no OFA engine, 10240/81920 MiB of memory and one of eight memory slices.
    const byShare = worthByDevice(renamed(nvidia));
    expect(byShare.get('gpu-0-mig-1g10gb-19-0')).toBeCloseTo((1000 * (16 / 132 + 1 / 8 + 1 / 7 + 1 / 7 + 0 + 1 / 8 + 1)) / 14, 9);
    expect(byShare.get('gpu-0')).toBeCloseTo(1000, 9);
  });

  it('decides where a 1g.10gb goes beside a 4g.40gb: by compute slices a later 2g.20gb still fits; by the counters it does not', () => {
    // Compute slices: slice 6 leaves 4–5 for a 2g.20gb (4 + 1 + 2 of the 7 in use); the counters'
    // share puts the 1g.10gb on slice 4, after which no 2g.20gb placement (0, 2, 4) is free.
    expect(place(nvidia, false, ['mig:4g.40gb', 'mig:1g.10gb', 'mig:2g.20gb'])).toEqual(['gpu-0-mig-4g40gb-5-0', 'gpu-0-mig-1g10gb-19-6', 'gpu-0-mig-2g20gb-14-4']);
    expect(place(renamed(nvidia), true, ['mig:4g.40gb', 'mig:1g.10gb', 'mig:2g.20gb'])).toEqual(['gpu-0-mig-4g40gb-5-0', 'gpu-0-mig-1g10gb-19-4', '-']);
  });
});
