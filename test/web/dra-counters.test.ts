// The DRA page's GPU picture (web/dra/counters.ts) and its replay (web/dra/replay.ts), in Node: the
// bundled sample's counter sets (one counter per memory slice, as NVIDIA's DynamicMIG publishes them)
// and whole GPUs, read from the sample's JSON; what the counters still allow once partitions are in
// use; the aggregate-counter layout on a small synthetic slice; and a seeded stream replayed under
// both modes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claimsOfDump, openEngine, splitDraDump } from '../../src/index.js';
import { gpuStates, lanes, readGpus, totals } from '../../web/dra/counters.js';
import { claimStream, replay } from '../../web/dra/replay.js';

const SAMPLE = join(import.meta.dirname, '..', '..', 'data', 'samples', 'dra', 'cluster.json');
const dump = splitDraDump(JSON.parse(readFileSync(SAMPLE, 'utf8')), 'cluster.json');
const nodeNames = (dump.nodes as Array<{ metadata: { name: string } }>).map((n) => n.metadata.name);

type RawSlice = {
  spec: {
    driver: string;
    pool: { name: string };
    nodeName?: string;
    sharedCounters?: Array<{ name: string; counters: Record<string, { value: string }> }>;
    devices?: Array<{ name: string; attributes: Record<string, { string?: string }>; consumesCounters?: Array<{ counterSet: string; counters: Record<string, { value: string }> }> }>;
  };
};
const MEMORY_SLICE = /^memory-slice-(\d+)$/;

/** The sample as its JSON says: counter sets (with node and memory-slice count) and devices (with the set and memory slices they take). */
function sampleFacts() {
  const sets = new Map<string, { node: string | undefined; slices: number }>();
  const devices = new Map<string, { node: string | undefined; profile: string | undefined; set: string | undefined; slices: number[] }>();
  for (const s of dump.slices as RawSlice[]) {
    const at = `${s.spec.driver}/${s.spec.pool.name}`;
    for (const set of s.spec.sharedCounters ?? []) sets.set(`${at}/${set.name}`, { node: s.spec.nodeName, slices: Object.keys(set.counters).filter((c) => MEMORY_SLICE.test(c)).length });
    for (const d of s.spec.devices ?? []) {
      const c = d.consumesCounters?.[0];
      const slices = Object.keys(c?.counters ?? {})
        .flatMap((k) => (MEMORY_SLICE.test(k) ? [Number(MEMORY_SLICE.exec(k)![1])] : []))
        .sort((a, b) => a - b);
      devices.set(`${at}/${d.name}`, { node: s.spec.nodeName, profile: d.attributes.profile?.string, set: c === undefined ? undefined : `${at}/${c.counterSet}`, slices });
    }
  }
  return { sets, devices };
}
const facts = sampleFacts();
const wholeIds = [...facts.devices].filter(([, d]) => d.set === undefined).map(([id]) => id);
const sampleGpus = facts.sets.size + wholeIds.length;
const migSets = [...facts.sets.keys()];
const devicesOf = (set: string) => [...facts.devices].filter(([, d]) => d.set === set);
const overlaps = (a: readonly number[], b: readonly number[]) => a.some((k) => b.includes(k));

/**
 * SYNTHETIC, not the sample: a counter set with aggregate counters (memorySlices 8, computeSlices 7)
 * and A100-like partitions stacking on them, plus one device without counters; the page draws such a
 * set in its 'amount' layout.
 */
function aggregateSlice(): unknown {
  const part = (name: string, profile: string, compute: number, memory: number) => ({
    name,
    attributes: { profile: { string: profile } },
    consumesCounters: [{ counterSet: 'gpu-0-counter-set', counters: { computeSlices: { value: String(compute) }, memorySlices: { value: String(memory) } } }],
  });
  return {
    spec: {
      driver: 'gpu.nvidia.com',
      pool: { name: 'a100' },
      nodeName: 'a100',
      sharedCounters: [{ name: 'gpu-0-counter-set', counters: { computeSlices: { value: '7' }, memorySlices: { value: '8' } } }],
      devices: [
        ...Array.from({ length: 7 }, (_, k) => part(`gpu-0-mig-1g.10gb-${k}`, '1g.10gb', 1, 1)),
        ...Array.from({ length: 3 }, (_, k) => part(`gpu-0-mig-2g.20gb-${k}`, '2g.20gb', 2, 2)),
        ...Array.from({ length: 2 }, (_, k) => part(`gpu-0-mig-3g.40gb-${k}`, '3g.40gb', 3, 4)),
        part('gpu-0', 'gpu', 7, 8),
        { name: 'gpu-1', attributes: { type: { string: 'gpu' } } },
      ],
    },
  };
}

/** SYNTHETIC: a DynamicMIG-like GPU: one counter per memory slice (8) and compute slices (7); 1g at each of 0..6, 3g at 0 and 4, the whole GPU. */
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
      devices: [
        ...Array.from({ length: 7 }, (_, k) => device(`mig-1g-${k}`, '1g.10gb', k, 1, 1)),
        device('mig-3g-0', '3g.40gb', 0, 4, 3),
        device('mig-3g-4', '3g.40gb', 4, 4, 3),
        device('gpu-0', 'gpu', 0, 8, 7),
      ],
    },
  };
}

describe('the GPUs of a dump', () => {
  it('reads the sample as its slices publish it: one GPU per counter set with its partitions on memory slices, one per device without counters, in node order', () => {
    const map = readGpus(dump.slices, nodeNames);
    expect(facts.sets.size).toBeGreaterThan(0);
    expect(wholeIds.length).toBeGreaterThan(0);
    expect(map.gpus.length).toBe(sampleGpus);
    const rank = (n: string | undefined) => nodeNames.indexOf(n ?? '');
    const ranks = map.gpus.map((g) => rank(g.node));
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    expect(new Set(map.gpus.map((g) => g.node))).toEqual(new Set(nodeNames));
    expect(
      map.gpus
        .filter((g) => g.layout === 'whole')
        .map((g) => g.key)
        .sort(),
    ).toEqual([...wholeIds].sort());
    for (const set of migSets) {
      const gpu = map.gpus.find((g) => g.key === set)!;
      expect(gpu.layout).toBe('slices');
      expect(gpu.node).toBe(facts.sets.get(set)!.node);
      expect(gpu.units).toBe(facts.sets.get(set)!.slices);
      expect(gpu.barCounters).toEqual(Array.from({ length: gpu.units }, (_, k) => `memory-slice-${k}`));
      // Every device drawing on the set is a placement, spanning the memory slices it takes; MIG devices in their profile's row.
      const mine = devicesOf(set);
      expect(gpu.placements.map((p) => p.id).sort()).toEqual(mine.map(([id]) => id).sort());
      for (const [id, d] of mine) {
        const p = gpu.placements.find((x) => x.id === id)!;
        expect(p.span).toEqual([d.slices[0], d.slices.at(-1)! + 1]);
        if (d.profile !== undefined) expect(p.profile).toBe(d.profile);
      }
      // The whole GPU takes every slice.
      expect(gpu.placements.some((p) => p.span![0] === 0 && p.span![1] === gpu.units && p.profile === 'gpu')).toBe(true);
    }
  });

  it('greys the placements that overlap the memory slices of a placed partition, and counts the slices in use', () => {
    const map = readGpus(dump.slices, nodeNames);
    const [set, other] = migSets;
    const empty = gpuStates(map, []).get(set)!;
    expect([...empty.placement.values()].every((v) => v === 'free')).toBe(true);
    // The sample's 3g.40gb on the set's first memory slices, and a 1g.10gb on the first slice past them.
    const mine = devicesOf(set);
    const [three, threeAt] = mine.find(([, d]) => d.profile === '3g.40gb' && d.slices[0] === 0)!;
    const [one, oneAt] = mine.find(([, d]) => d.profile === '1g.10gb' && d.slices[0] === threeAt.slices.length + 1)!;
    const st = gpuStates(map, [three]).get(set)!;
    expect(st.usedUnits).toBe(threeAt.slices.length);
    for (const [id, d] of mine) if (id !== three) expect([id, st.placement.get(id)]).toEqual([id, overlaps(d.slices, threeAt.slices) ? 'blocked' : 'free']);
    expect(st.placement.get(three)).toBe('used');
    // Both: whatever overlaps either is greyed, the rest (e.g. the 1g.10gb on the next slice) still free.
    const both = gpuStates(map, [three, one]).get(set)!;
    expect(both.usedUnits).toBe(threeAt.slices.length + 1);
    for (const [id, d] of mine) if (id !== three && id !== one) expect([id, both.placement.get(id)]).toEqual([id, overlaps(d.slices, [...threeAt.slices, ...oneAt.slices]) ? 'blocked' : 'free']);
    expect([...both.placement.values()].filter((v) => v === 'free').length).toBeGreaterThan(0);
    // The counters in use are the two devices' sums, read from the JSON.
    const raw = (dump.slices as RawSlice[]).flatMap((s) => (s.spec.devices ?? []).map((d) => [`${s.spec.driver}/${s.spec.pool.name}/${d.name}`, d] as const));
    const take = (id: string, c: string) => Number(raw.find(([x]) => x === id)![1].consumesCounters![0].counters[c]?.value ?? 0);
    expect(both.used.get('multiprocessors')).toBe(take(three, 'multiprocessors') + take(one, 'multiprocessors'));
    // The other GPUs are untouched.
    expect(gpuStates(map, [three, one]).get(other)!.usedUnits).toBe(0);
    const t = totals(map.gpus, gpuStates(map, [three, wholeIds[0]]));
    expect(t).toMatchObject({ gpus: sampleGpus, busy: 2, allocated: 1 + threeAt.slices.length / facts.sets.get(set)!.slices });
  });

  it('stacks partitions on aggregate counters and greys what they no longer allow (synthetic slice)', () => {
    const map = readGpus([aggregateSlice()], ['a100']);
    const A100 = 'gpu.nvidia.com/a100';
    const key = `${A100}/gpu-0-counter-set`;
    expect(map.gpus.length).toBe(2);
    const set = map.gpus.find((g) => g.key === key)!;
    expect(set.layout).toBe('amount');
    expect(set.barCounters).toEqual(['memorySlices']);
    expect(set.units).toBe(8);
    expect(set.placements.map((p) => p.profile)).toEqual([...Array(7).fill('1g.10gb'), ...Array(3).fill('2g.20gb'), '3g.40gb', '3g.40gb', 'gpu']);
    expect(map.gpus.filter((g) => g.layout === 'whole').map((g) => g.key)).toEqual([`${A100}/gpu-1`]);
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
    expect(gpuStates(map, [`${A100}/gpu-0-mig-3g.40gb-0`]).get(`${A100}/gpu-1`)!.usedUnits).toBe(0);
    const t = totals(map.gpus, gpuStates(map, [`${A100}/gpu-0-mig-3g.40gb-0`, `${A100}/gpu-1`]));
    expect(t).toMatchObject({ gpus: 2, busy: 2, allocated: 1.5 });
  });

  it('places partitions on their memory slices where a driver publishes one counter per slice', () => {
    const map = readGpus([dynamicMigSlice()], ['h100']);
    expect(map.gpus.length).toBe(1);
    const gpu = map.gpus[0];
    expect(gpu.layout).toBe('slices');
    expect(gpu.units).toBe(8);
    expect(gpu.placements.map((p) => p.span)).toEqual([
      [0, 1],
      [1, 2],
      [2, 3],
      [3, 4],
      [4, 5],
      [5, 6],
      [6, 7],
      [0, 4],
      [4, 8],
      [0, 8],
    ]);
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
    const engine = await openEngine({ backend: 'ts' });
    const map = readGpus(dump.slices, nodeNames);
    const held = [...claimsOfDump(dump.claims).held.allocatedDevices];
    // The held notebook's device: a whole GPU of the sample's.
    expect(held.length).toBe(1);
    expect(wholeIds).toContain(held[0]);
    const a = claimStream(engine, dump, map, 7);
    const b = claimStream(engine, dump, map, 7);
    expect(a.labels).toEqual(b.labels);
    expect(a.labels).not.toEqual(claimStream(engine, dump, map, 8).labels);
    expect(a.start).toBeCloseTo(100 / sampleGpus, 9);
    expect(a.arrived.at(-1)!).toBeGreaterThanOrEqual(100);
    expect(a.arrived.at(-2)!).toBeLessThan(100);
    for (const mode of ['first-fit', 'scored'] as const) {
      const run = replay(engine, dump, map, a, mode, 'pack');
      expect(run.share.length).toBe(a.claims.length);
      expect(run.start).toBeCloseTo(100 / sampleGpus, 9);
      // Shares only grow (nothing is released) and never pass 100 %.
      run.share.forEach((s, k) => expect(s).toBeGreaterThanOrEqual(k === 0 ? run.start : run.share[k - 1]));
      expect(run.share.at(-1)!).toBeLessThanOrEqual(100 + 1e-9);
      // The last share is the devices given, summed per GPU.
      const given = run.devices.flat();
      expect(run.share.at(-1)!).toBeCloseTo((100 * totals(map.gpus, gpuStates(map, [...given, ...held])).allocated) / sampleGpus, 9);
      expect(run.node.filter((n) => n === undefined).length > 0).toBe(run.firstFailure >= 0);
    }
  });
});
