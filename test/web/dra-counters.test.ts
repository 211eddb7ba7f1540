// The DRA page's GPU picture (web/dra/counters.ts) and its replay (web/dra/replay.ts), in Node: the
// bundled sample's counter sets and whole GPUs, what the counters still allow once partitions are
// in use (aggregate counters, as the sample publishes them, and one counter per memory slice, as
// NVIDIA's DynamicMIG does), and a seeded stream replayed under both modes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEngine, splitDraDump } from '../../src/index.js';
import { gpuStates, lanes, readGpus, totals } from '../../web/dra/counters.js';
import { claimStream, replay } from '../../web/dra/replay.js';

const SAMPLE = join(import.meta.dirname, '..', '..', 'data', 'samples', 'dra', 'cluster.json');
const dump = splitDraDump(JSON.parse(readFileSync(SAMPLE, 'utf8')), 'cluster.json');
const nodeNames = (dump.nodes as Array<{ metadata: { name: string } }>).map((n) => n.metadata.name);
const A100 = 'gpu.nvidia.com/dgx-a100-1';

/** A DynamicMIG-like GPU: one counter per memory slice (8) and compute slices (7); 1g at each of 0..6, 3g at 0 and 4, the whole GPU. */
function dynamicMigSlice(): unknown {
  const slice = (k: number) => `memory-slice-${k}`;
  const counters = Object.fromEntries([...Array.from({ length: 8 }, (_, k) => [slice(k), { value: '1' }]), ['compute', { value: '7' }]]);
  const device = (name: string, profile: string, from: number, n: number, compute: number) => ({
    name,
    attributes: { profile: { string: profile } },
    consumesCounters: [{ counterSet: 'gpu-0', counters: { ...Object.fromEntries(Array.from({ length: n }, (_, k) => [slice(from + k), { value: '1' }])), compute: { value: String(compute) } } }],
  });
  return {
    spec: {
      driver: 'gpu.nvidia.com',
      pool: { name: 'h100' },
      nodeName: 'h100',
      sharedCounters: [{ name: 'gpu-0', counters }],
      devices: [...Array.from({ length: 7 }, (_, k) => device(`mig-1g-${k}`, '1g.10gb', k, 1, 1)), device('mig-3g-0', '3g.40gb', 0, 4, 3), device('mig-3g-4', '3g.40gb', 4, 4, 3), device('gpu-0', 'gpu', 0, 8, 7)],
    },
  };
}

describe('the GPUs of a dump', () => {
  it('reads the sample as 16 GPUs: two counter sets with their partitions, fourteen whole GPUs, in node order', () => {
    const map = readGpus(dump.slices, nodeNames);
    expect(map.gpus.length).toBe(16);
    expect(map.gpus.map((g) => g.node)).toEqual([...Array(8).fill('dgx-a100-1'), ...Array(8).fill('hgx-h100-nvl-1')]);
    const set = map.gpus.find((g) => g.key === `${A100}/gpu-0-counter-set`)!;
    expect(set.layout).toBe('amount');
    expect(set.barCounters).toEqual(['memorySlices']);
    expect(set.units).toBe(8);
    expect(set.placements.map((p) => p.profile)).toEqual([...Array(7).fill('1g.10gb'), ...Array(3).fill('2g.20gb'), '3g.40gb', '3g.40gb', 'gpu']);
    expect(map.gpus.filter((g) => g.layout === 'whole').length).toBe(14);
  });

  it('greys what the aggregate counters no longer allow, and counts the memory slices in use', () => {
    const map = readGpus(dump.slices, nodeNames);
    const key = `${A100}/gpu-0-counter-set`;
    const empty = gpuStates(map, []).get(key)!;
    expect([...empty.placement.values()].every((v) => v === 'free')).toBe(true);
    // A 3g (3 compute, 4 memory slices) and a 2g (2, 2): 5 of 7 compute and 6 of 8 memory slices in use.
    const st = gpuStates(map, [`${A100}/gpu-0-mig-3g.40gb-0`, `${A100}/gpu-0-mig-2g.20gb-0`]).get(key)!;
    expect(st.usedUnits).toBe(6);
    expect(Object.fromEntries(st.used)).toEqual({ computeSlices: 5, memorySlices: 6 });
    const of = (name: string) => st.placement.get(`${A100}/${name}`);
    expect(of('gpu-0-mig-3g.40gb-0')).toBe('used');
    expect(of('gpu-0-mig-3g.40gb-1')).toBe('blocked'); // 3 more compute: 8 > 7
    expect(of('gpu-0-mig-2g.20gb-1')).toBe('free'); // 7 of 7 compute, 8 of 8 memory
    expect(of('gpu-0-mig-1g.10gb-3')).toBe('free');
    expect(of('gpu-0')).toBe('blocked');
    // The other GPUs are untouched.
    expect(gpuStates(map, [`${A100}/gpu-0`]).get(`${A100}/gpu-1-counter-set`)!.usedUnits).toBe(0);
    const t = totals(map.gpus, gpuStates(map, [`${A100}/gpu-0-mig-3g.40gb-0`, `${A100}/gpu-2`]));
    expect(t).toMatchObject({ gpus: 16, busy: 2, allocated: 1.5 });
  });

  it('places partitions on their memory slices where a driver publishes one counter per slice', () => {
    const map = readGpus([dynamicMigSlice()], ['h100']);
    expect(map.gpus.length).toBe(1);
    const gpu = map.gpus[0];
    expect(gpu.layout).toBe('slices');
    expect(gpu.units).toBe(8);
    expect(gpu.placements.map((p) => p.span)).toEqual([[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [0, 4], [4, 8], [0, 8]]);
    // A 1g on slice 5 takes the 3g at 4 and the whole GPU away, not the 3g at 0.
    const st = gpuStates(map, ['gpu.nvidia.com/h100/mig-1g-5']).get(gpu.key)!;
    expect(st.usedUnits).toBe(1);
    expect(st.placement.get('gpu.nvidia.com/h100/mig-3g-4')).toBe('blocked');
    expect(st.placement.get('gpu.nvidia.com/h100/mig-3g-0')).toBe('free');
    expect(st.placement.get('gpu.nvidia.com/h100/gpu-0')).toBe('blocked');
    expect(st.placement.get('gpu.nvidia.com/h100/mig-1g-4')).toBe('free');
    // Lanes: the seven 1g fit in one, the two 3g in one, the whole GPU in one.
    expect(lanes(gpu.placements.filter((p) => p.profile === '3g.40gb')).length).toBe(1);
    expect(lanes(gpu.placements).length).toBe(3);
  });
});

describe('the replay', () => {
  it('draws the same stream for a seed, up to 100 % of the fleet, and records a share per arrival in both modes', async () => {
    const engine = await createEngine({ backend: 'ts' });
    const map = readGpus(dump.slices, nodeNames);
    const a = claimStream(engine, dump, map, 7);
    const b = claimStream(engine, dump, map, 7);
    expect(a.labels).toEqual(b.labels);
    expect(a.labels).not.toEqual(claimStream(engine, dump, map, 8).labels);
    expect(a.start).toBeCloseTo(100 / 16, 9); // the held notebook's GPU
    expect(a.arrived.at(-1)!).toBeGreaterThanOrEqual(100);
    expect(a.arrived.at(-2)!).toBeLessThan(100);
    for (const mode of ['first-fit', 'scored'] as const) {
      const run = replay(engine, dump, map, a, mode, 'pack');
      expect(run.share.length).toBe(a.claims.length);
      expect(run.start).toBeCloseTo(100 / 16, 9);
      // Shares only grow (nothing is released) and never pass 100 %.
      run.share.forEach((s, k) => expect(s).toBeGreaterThanOrEqual(k === 0 ? run.start : run.share[k - 1]));
      expect(run.share.at(-1)!).toBeLessThanOrEqual(100 + 1e-9);
      // The last share is the devices given, summed per GPU.
      const given = run.devices.flat();
      expect(run.share.at(-1)!).toBeCloseTo((100 * totals(map.gpus, gpuStates(map, [...given, 'gpu.nvidia.com/hgx-h100-nvl-1/gpu-7'])).allocated) / 16, 9);
      expect(run.node.filter((n) => n === undefined).length > 0).toBe(run.firstFailure >= 0);
    }
  });
});
