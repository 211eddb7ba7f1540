// The scored mode where it differs from first-fit: it keeps a PCIe root's pair whole for a later
// 2-GPU claim, packs MIG slices onto a GPU already in use so a later whole-GPU claim fits, keeps a
// multi-device claim under one PCIe root, honours the first firstAvailable alternative; infeasible
// families are answered by proof (no search), symmetric devices cost one branch each, and the step
// budget returns the best allocation found and says so.
import { describe, expect, it } from 'vitest';
import { allocateClaims, type DraAllocateRequest, type DraAllocateResult } from '../../src/dra/index.js';
import { checkAllocation } from '../support/dra-checker.js';
import { claimObject, classObject, DRIVER, exactRequest, nodeObject, sliceObject, V1 } from '../support/dra-objects.js';

const node = nodeObject('node-1', {});
const gpuClass = classObject('gpu');
const slice = (devices: unknown[], sharedCounters: unknown[] = []) => sliceObject('node-1-gpus', { devices, ...(sharedCounters.length > 0 ? { sharedCounters } : {}) });
const claim = (name: string, count: number, extra: { selector?: string; constraints?: unknown[] } = {}) =>
  claimObject(
    name,
    {
      devices: {
        requests: [exactRequest('gpus', 'gpu', count, extra.selector !== undefined ? { selectors: [{ cel: { expression: extra.selector } }] } : {})],
        ...(extra.constraints !== undefined ? { constraints: extra.constraints } : {}),
      },
    },
    'ml',
  );
const devicesOf = (r: DraAllocateResult): string[] => r.results.flatMap((a) => a.devices.results.map((d) => d.device));
const ids = (r: DraAllocateResult): string[] => r.results.flatMap((a) => a.devices.results.map((d) => `${d.driver}/${d.pool}/${d.device}`));

function both(request: DraAllocateRequest): { firstFit: DraAllocateResult; scored: DraAllocateResult } {
  const firstFit = allocateClaims({ ...request, mode: 'first-fit' });
  const scored = allocateClaims({ ...request, mode: 'scored' });
  for (const r of [firstFit, scored]) expect(checkAllocation(request, r.results)).toEqual([]);
  return { firstFit, scored };
}

describe('scored allocation beats first-fit', () => {
  it('keeps a PCIe root whole: a 1-GPU claim takes the GPU whose root partner is busy, so a later 2-GPU claim under one root fits', () => {
    // gpu-0/gpu-1 and gpu-2/gpu-3 share a PCIe root each; gpu-2 is held by another claim.
    const gpus = ['pci0000:00', 'pci0000:00', 'pci0000:40', 'pci0000:40'].map((root, i) => ({
      name: `gpu-${i}`,
      attributes: { 'resource.kubernetes.io/pcieRoot': { string: root }, index: { int: i } },
    }));
    const base = { classes: [gpuClass], slices: [slice(gpus)], node, allocatedDevices: [`${DRIVER}/node-1/gpu-2`] };
    const { firstFit, scored } = both({ ...base, claims: [claim('one-gpu', 1)] });
    expect(devicesOf(firstFit)).toEqual(['gpu-0']);
    expect(devicesOf(scored)).toEqual(['gpu-3']);
    expect(scored.objective).toMatchObject({ parents: 1, fragmentation: 0, domains: -1 });
    const pair = claim('two-gpus', 2, { constraints: [{ matchAttribute: 'resource.kubernetes.io/pcieRoot' }] });
    const afterFirstFit = allocateClaims({ ...base, claims: [pair], allocatedDevices: [...base.allocatedDevices, ...ids(firstFit)] });
    const afterScored = allocateClaims({ ...base, claims: [pair], allocatedDevices: [...base.allocatedDevices, ...ids(scored)] });
    expect(afterFirstFit.reason?.code).toBe('UNSCHEDULABLE');
    expect(devicesOf(afterScored)).toEqual(['gpu-0', 'gpu-1']);
  });

  it('packs MIG slices onto the GPU already in use, so a later whole-GPU claim still fits', () => {
    // Two GPUs, each a counter set of 4 memory slices, published whole and as four 1-slice partitions.
    const sets = [0, 1].map((g) => ({ name: `gpu-${g}-counters`, counters: { memory: { value: '40Gi' } } }));
    const devices = [0, 1].flatMap((g) => [
      { name: `gpu-${g}`, attributes: { type: { string: 'gpu' } }, consumesCounters: [{ counterSet: `gpu-${g}-counters`, counters: { memory: { value: '40Gi' } } }] },
      ...[0, 1, 2, 3].map((s) => ({
        name: `gpu-${g}-mig-${s}`,
        attributes: { type: { string: 'mig' } },
        consumesCounters: [{ counterSet: `gpu-${g}-counters`, counters: { memory: { value: '10Gi' } } }],
      })),
    ]);
    const base = { classes: [gpuClass], slices: [slice(devices, sets)], node, allocatedDevices: [`${DRIVER}/node-1/gpu-1-mig-0`] };
    const mig = `device.attributes["${DRIVER}"].type == "mig"`;
    const { firstFit, scored } = both({ ...base, claims: [claim('small', 1, { selector: mig })] });
    expect(devicesOf(firstFit)).toEqual(['gpu-0-mig-0']);
    expect(devicesOf(scored)).toEqual(['gpu-1-mig-1']);
    expect(scored.objective).toMatchObject({ parents: 0, consumption: 250 });
    const whole = claim('whole', 1, { selector: `device.attributes["${DRIVER}"].type == "gpu"` });
    expect(allocateClaims({ ...base, claims: [whole], allocatedDevices: [...base.allocatedDevices, ...ids(firstFit)] }).reason?.code).toBe('UNSCHEDULABLE');
    expect(devicesOf(allocateClaims({ ...base, claims: [whole], allocatedDevices: [...base.allocatedDevices, ...ids(scored)] }))).toEqual(['gpu-0']);
  });

  it('keeps the devices of a claim under one PCIe root, then one NUMA node', () => {
    const roots = [
      ['pci0000:00', 0],
      ['pci0000:40', 0],
      ['pci0000:80', 1],
      ['pci0000:80', 1],
    ] as const;
    const gpus = roots.map(([root, numa], i) => ({ name: `gpu-${i}`, attributes: { 'resource.kubernetes.io/pcieRoot': { string: root }, 'resource.kubernetes.io/numaNode': { int: numa } } }));
    const { firstFit, scored } = both({ classes: [gpuClass], slices: [slice(gpus)], node, claims: [claim('two', 2)] });
    expect(devicesOf(firstFit)).toEqual(['gpu-0', 'gpu-1']);
    expect(devicesOf(scored)).toEqual(['gpu-2', 'gpu-3']);
    // gpu-3 held: the pair on NUMA 0 (two roots) beats a pair across NUMA nodes.
    const held = both({ classes: [gpuClass], slices: [slice(gpus)], node, claims: [claim('two', 2)], allocatedDevices: [`${DRIVER}/node-1/gpu-3`] });
    expect(devicesOf(held.scored)).toEqual(['gpu-0', 'gpu-1']);
    expect(held.scored.objective?.topology).toBeLessThan(held.scored.objective?.topology === undefined ? 0 : 1e9);
  });

  it('prefers the earliest firstAvailable alternative even where a later one scores better', () => {
    const gpus = [0, 1].map((i) => ({ name: `gpu-${i}`, attributes: { 'resource.kubernetes.io/numaNode': { int: i } } }));
    const prioritized = {
      apiVersion: V1,
      kind: 'ResourceClaim',
      metadata: { name: 'flexible', namespace: 'ml' },
      spec: {
        devices: {
          requests: [
            {
              name: 'gpus',
              firstAvailable: [
                { name: 'two', deviceClassName: 'gpu', count: 2 },
                { name: 'one', deviceClassName: 'gpu', count: 1 },
              ],
            },
          ],
        },
      },
    };
    const { scored } = both({ classes: [gpuClass], slices: [slice(gpus)], node, claims: [prioritized] });
    expect(scored.results[0].devices.results.map((d) => d.request)).toEqual(['gpus/two', 'gpus/two']);
    expect(scored.objective?.alternatives).toEqual([0]);
  });
});

describe('scored search effort', () => {
  /** n partitions on n/perParent GPUs whose counters hold `holds` each; claims for `total` partitions (at most 32 per claim). */
  const counterFamily = (n: number, perParent: number, holds: number, total: number) => {
    const parents = Math.ceil(n / perParent);
    const sets = Array.from({ length: parents }, (_, p) => ({ name: `gpu-${p}`, counters: { memory: { value: `${holds * 10}Gi` } } }));
    const devices = Array.from({ length: n }, (_, i) => ({
      name: `part-${i}`,
      attributes: { index: { int: i } },
      consumesCounters: [{ counterSet: `gpu-${Math.floor(i / perParent)}`, counters: { memory: { value: '10Gi' } } }],
    }));
    const claims = Array.from({ length: Math.ceil(total / 32) }, (_, c) => claim(`k-${c}`, Math.min(32, total - 32 * c)));
    return { classes: [gpuClass], slices: [slice(devices, sets)], node, claims };
  };

  it('proves infeasible counter families without searching (one shared counter, and MIG-like parents)', () => {
    for (const n of [8, 16, 32, 64]) {
      // One counter set holding k - 1 of the n devices: the per-request check both modes run sees it.
      const k = Math.min(n, 32);
      const one = allocateClaims(counterFamily(n, n, k - 1, k));
      expect(one.reason?.message, `n=${n}`).toMatch(/consume at least \d+Gi of counter memory in counter set gpu-0/);
      expect(one.budgetExhausted).toBeUndefined();
    }
    for (const n of [16, 32, 64]) {
      // MIG-like: GPUs of 8 partitions each holding 7, claims for 7n/8 + 1 partitions: only the
      // scored proof (a flow through the parents' capacities) sees it.
      const mig = allocateClaims(counterFamily(n, 8, 7, (7 * n) / 8 + 1));
      expect(mig.reason?.message, `n=${n}`).toContain('no assignment of distinct devices serves them within the shared counters');
      expect(mig.budgetExhausted).toBeUndefined();
      // One partition fewer fits.
      const fits = allocateClaims(counterFamily(n, 8, 7, (7 * n) / 8));
      expect(fits.results.flatMap((r) => r.devices.results)).toHaveLength((7 * n) / 8);
    }
  });

  it("finds the allocation of upstream's partitionable backtracking fixture (device-1 takes 20Gi, a claim for 7 of 8)", () => {
    const sets = [{ name: 'shared', counters: { memory: { value: '70Gi' } } }, ...Array.from({ length: 8 }, (_, i) => ({ name: `own-${i}`, counters: { slot: { value: '1' } } }))];
    const devices = Array.from({ length: 8 }, (_, i) => ({
      name: `device-${i}`,
      consumesCounters: [
        { counterSet: `own-${i}`, counters: { slot: { value: '1' } } },
        { counterSet: 'shared', counters: { memory: { value: i === 1 ? '20Gi' : '10Gi' } } },
      ],
    }));
    const request = { classes: [gpuClass], slices: [slice(devices, sets)], node, claims: [claim('seven', 7)] };
    const { scored } = both(request);
    expect(devicesOf(scored)).not.toContain('device-1');
    expect(scored.budgetExhausted).toBeUndefined();
  });

  it('treats interchangeable devices as one: 64 identical GPUs, a claim for 32, well within the default budget', () => {
    const gpus = Array.from({ length: 64 }, (_, i) => ({ name: `gpu-${i}`, attributes: { model: { string: 'A100' } } }));
    const r = allocateClaims({ classes: [gpuClass], slices: [slice(gpus)], node, claims: [claim('many', 32)] });
    expect(devicesOf(r)).toEqual(Array.from({ length: 32 }, (_, i) => `gpu-${i}`));
    expect(r.budgetExhausted).toBeUndefined();
  });

  it('returns the best allocation found when the budget runs out, and says so', () => {
    // 24 GPUs on distinct PCIe roots in 6 NUMA nodes: no symmetry, C(24, 4) ways for a 4-GPU claim.
    const gpus = Array.from({ length: 24 }, (_, i) => ({ name: `gpu-${i}`, attributes: { pcieRoot: { string: `pci${i}` }, numa: { int: i % 6 } } }));
    const request = { classes: [gpuClass], slices: [slice(gpus)], node, claims: [claim('four', 4)] };
    const small = allocateClaims({ ...request, budget: 6 });
    expect(small.budgetExhausted).toBe(true);
    expect(devicesOf(small)).toHaveLength(4);
    expect(checkAllocation(request, small.results)).toEqual([]);
    const full = allocateClaims({ ...request, budget: 1_000_000 });
    expect(full.budgetExhausted).toBeUndefined();
    expect(full.objective?.topology).toBeLessThanOrEqual(small.objective?.topology as number);
    // Best: four GPUs on one NUMA node (i, i+6, i+12, i+18).
    expect(devicesOf(full)).toEqual(['gpu-0', 'gpu-6', 'gpu-12', 'gpu-18']);
    const none = allocateClaims({ ...request, claims: [claim('four', 4, { constraints: [{ matchAttribute: `${DRIVER}/numa` }] }), claim('more', 1)], budget: 1 });
    expect(none.budgetExhausted).toBe(true);
    expect(none.reason?.message).toContain('budget of 1 steps');
  });
});
