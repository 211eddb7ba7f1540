// Waste beyond the request in the scored objective: a claim that selects MIG devices by memory
// (`capacity.memory >= 20Gi`) can take any profile that large. Fragmentation alone (FGD) prefers
// the profile that fills a GPU — a full parent leaves no fragment — so without waste a 7g.80gb,
// the whole GPU, went to a claim a 1g.20gb serves. The capacity a pick holds beyond the smallest
// device its request could take counts as fragment for every shape.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { allocateClaims, type DraAllocateResult, fragmentationParts } from '../../src/dra/index.js';
import { checkAllocation } from '../support/dra-checker.js';

type Obj = Record<string, unknown>;
const items = (file: string): Obj[] => (JSON.parse(readFileSync(new URL(`../../data/samples/dra/${file}`, import.meta.url), 'utf8')) as { items: Obj[] }).items;
const ofKind = (all: Obj[], kind: string): Obj[] => all.filter((x) => x.kind === kind);
const memoryClaim = (name: string, gib: number): Obj => ({
  apiVersion: 'resource.k8s.io/v1',
  kind: 'ResourceClaim',
  metadata: { name, namespace: 'ml' },
  spec: {
    devices: {
      requests: [
        { name: 'mig', exactly: { deviceClassName: 'mig.nvidia.com', selectors: [{ cel: { expression: `device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('${gib}Gi')) >= 0` } }] } },
      ],
    },
  },
});
const profileClaim = (name: string, profile: string): Obj => ({
  apiVersion: 'resource.k8s.io/v1',
  kind: 'ResourceClaim',
  metadata: { name, namespace: 'ml' },
  spec: {
    devices: { requests: [{ name: 'mig', exactly: { deviceClassName: 'mig.nvidia.com', selectors: [{ cel: { expression: `device.attributes['gpu.nvidia.com'].profile == '${profile}'` } }] } }] },
  },
});
const devicesOf = (r: DraAllocateResult): string[] => r.results.flatMap((a) => a.devices.results.map((d) => d.device));

function onNode(file: string, node: string) {
  const all = items(file);
  return { classes: ofKind(all, 'DeviceClass'), slices: ofKind(all, 'ResourceSlice'), node: ofKind(all, 'Node').find((n) => (n.metadata as Obj).name === node) };
}

describe('scored: what a pick holds beyond its request is waste', () => {
  it('gives a claim for ≥ 20Gi a 1g.20gb, not the 7g.80gb that fills the free GPU (DynamicMIG H100, GPU 0 held)', () => {
    const base = { ...onNode('h100-dynamic-mig.json', 'h100-mig-1'), allocatedDevices: ['gpu.nvidia.com/h100-mig-1/gpu-0'] };
    const request = { ...base, claims: [memoryClaim('infer-20g', 20)], explain: true };
    const scored = allocateClaims({ ...request, mode: 'scored' });
    expect(checkAllocation(request, scored.results)).toEqual([]);
    const [device] = devicesOf(scored);
    expect(device).toMatch(/^gpu-1-mig-1g20gb-15-/);
    // The 1g.20gb leaves GPU 1's 4g.40gb placement open, and a 2g.20gb beside it.
    const after = allocateClaims({
      ...base,
      allocatedDevices: [...base.allocatedDevices, `gpu.nvidia.com/h100-mig-1/${device}`],
      claims: [profileClaim('big', '4g.40gb'), profileClaim('small', '2g.20gb')],
    });
    expect(devicesOf(after)).toEqual(['gpu-1-mig-4g40gb-5-0', 'gpu-1-mig-2g20gb-14-4']);
    // What the 1g.20gb costs is well below the 7g.80gb's waste alone (about 810 thousandths of a GPU beyond the 1g.20gb's 190).
    expect(fragmentationParts(scored.objective?.fragmentation ?? Infinity).share).toBeLessThan(400);
    // Asked for 80Gi, the 7g.80gb is the smallest that fits: no waste, and it is taken.
    expect(devicesOf(allocateClaims({ ...base, claims: [memoryClaim('infer-80g', 80)] }))).toEqual(['gpu-1-mig-7g80gb-0-0']);
  });

  it('takes the smallest profile that satisfies a memory request where 1g.20gb is too small (20096Mi < 20Gi: a 3g.40gb)', () => {
    // The bundled cluster's H100 publishes nvidia-smi's sizes: a 1g.20gb and a 2g.20gb hold 20096Mi.
    const base = { ...onNode('cluster.json', 'h100-mig-1'), allocatedDevices: ['gpu.nvidia.com/h100-mig-1/gpu-0-mig-3g40gb-9-4', 'gpu.nvidia.com/h100-mig-1/gpu-0-mig-1g10gb-19-0'] };
    const request = { ...base, claims: [memoryClaim('infer-20g', 20)] };
    const scored = allocateClaims({ ...request, mode: 'scored', explain: true });
    expect(checkAllocation(request, scored.results)).toEqual([]);
    expect(devicesOf(scored)).toEqual(['gpu-1-mig-3g40gb-9-4']);
    // First-fit takes the first 3g.40gb placement (slice 0), which blocks GPU 1's only 4g.40gb.
    expect(scored.explain?.firstFit.devices).toEqual([['gpu.nvidia.com/h100-mig-1/gpu-1-mig-3g40gb-9-0']]);
    expect(scored.explain?.comparison).toBe(-1);
  });

  it('splits an objective into its units: thousandths of a parent, and placements', () => {
    expect(fragmentationParts(147294 * 2 ** 20 + 835)).toEqual({ share: 147.294, placements: 0.835 });
    expect(fragmentationParts(-23380 * 2 ** 20 + 668)).toEqual({ share: -23.38, placements: 0.668 });
    expect(fragmentationParts(5 * 2 ** 20 - 300)).toEqual({ share: 0.005, placements: -0.3 });
  });
});
